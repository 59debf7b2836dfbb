package rules

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/tunedstock"
)

// TestEachFixAcceptedByTheOthers is the cross-acceptance table: on every
// fixture snapshot, for the workloads and databases of the two profile
// families, each finding's runtime changes are made on a copy of the
// snapshot on their own (simulateChange: the fields the kernel files hold;
// a tuned profile run with its stock settings),
// and the whole catalog audits the copy again. No rule that passed before
// may fire after one other rule's fix, and the rule whose fix it is must
// not ask for the same setting again. A finding whose changes cannot be
// simulated here (hugepage pools, cgroups, CPUs online, bonds) is left to
// the plan's TestFixpoint, which applies them on a fixture tree; the test
// fails if too few pairs were checked to mean anything.
func TestEachFixAcceptedByTheOthers(t *testing.T) {
	checked, skipped := 0, map[string]int{}
	pairs := map[string]bool{} // rule → rules that kept passing after its fix
	for name, s := range goldenSnapshots(t) {
		for _, w := range []string{WorkloadOLTP, WorkloadDSS} {
			for _, db := range []string{DBOracle, DBPostgres, DBNone} {
				before := Run(&Input{Snap: s, Workload: w, DB: db})
				passed := map[string]bool{}
				for _, p := range before.Passed {
					passed[p.ID] = true
				}
				for _, f := range before.Findings {
					var runtime []change.Change
					for _, c := range f.Changes {
						if (c.Runtime() || c.Kind == change.TunedProfile) && !c.AtValue() { // a value already in place changes nothing
							runtime = append(runtime, c)
						}
					}
					if len(runtime) == 0 {
						continue
					}
					cp := copySnapshot(t, s)
					ok := true
					for _, c := range runtime {
						ok = ok && simulateChange(cp, c)
					}
					if !ok {
						skipped[f.ID]++
						continue
					}
					checked++
					after := Run(&Input{Snap: cp, Workload: w, DB: db})
					for _, g := range after.Findings {
						if passed[g.ID] {
							t.Errorf("%s %s/%s: after %s's fix (%s), %s fires: %s = %s → %s", name, w, db, f.ID, changeList(runtime), g.ID, g.Setting, g.Current, g.Recommended)
						}
						if g.ID == f.ID {
							for _, c := range g.Changes {
								for _, r := range runtime {
									if c.Kind == r.Kind && c.Key == r.Key {
										t.Errorf("%s %s/%s: %s set %s = %s and asks again for %s", name, w, db, f.ID, r.Key, r.Value, c.Value)
									}
								}
							}
						}
					}
					for id := range passed {
						pairs[f.ID+" accepted by "+id] = true
					}
				}
			}
		}
	}
	var sk []string
	for id, n := range skipped {
		sk = append(sk, fmt.Sprintf("%s ×%d", id, n))
	}
	sort.Strings(sk)
	t.Logf("%d fixes made on a snapshot and re-audited (%d rule pairs); not simulated here (TestFixpoint applies them): %s", checked, len(pairs), strings.Join(sk, ", "))
	if checked < 50 {
		t.Fatalf("only %d fixes could be simulated: the table means nothing", checked)
	}
}

func copySnapshot(t *testing.T, s *snapshot.Snapshot) *snapshot.Snapshot {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var cp snapshot.Snapshot
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	return &cp
}

// simulateChange writes a change into the snapshot fields its kernel file
// is read into; false when this test does not model that file.
func simulateChange(s *snapshot.Snapshot, c change.Change) bool {
	n, nerr := strconv.ParseInt(strings.TrimSpace(c.Value), 10, 64)
	switch {
	case c.Kind == change.Sysctl:
		s.Sysctl[c.Key] = c.Value
		return true
	case c.Kind == change.TunedProfile:
		if _, _, ok := tunedstock.Settings(c.Value); !ok {
			return false
		}
		runStockProfile(s, c.Value)
		return true
	case c.Kind != change.Sysfs:
		return false
	case strings.HasPrefix(c.Key, "/sys/block/"):
		rest := strings.TrimPrefix(c.Key, "/sys/block/")
		dev, attr, _ := strings.Cut(rest, "/")
		for i := range s.Storage.Devices {
			d := &s.Storage.Devices[i]
			if d.Name != dev {
				continue
			}
			switch {
			case attr == "queue/scheduler":
				d.Scheduler = ptr(c.Value)
			case nerr != nil:
				return false
			case attr == "queue/nr_requests":
				d.NrRequests = ptr(n)
			case attr == "queue/read_ahead_kb":
				d.ReadAheadKB = ptr(n)
			case attr == "queue/max_sectors_kb":
				d.MaxSectorsKB = ptr(n)
			case attr == "queue/nomerges":
				d.Nomerges = ptr(n)
			case attr == "queue/rotational":
				d.Rotational = ptr(n != 0)
			case attr == "device/queue_depth":
				d.QueueDepth = ptr(n)
			default:
				return false
			}
			return true
		}
		return false
	case strings.HasSuffix(c.Key, "/cpufreq/scaling_governor"):
		cpu, err := strconv.Atoi(strings.TrimPrefix(strings.Split(c.Key, "/")[5], "cpu"))
		for i := range s.CPUPower.Cpufreq {
			if err == nil && s.CPUPower.Cpufreq[i].CPU == cpu {
				s.CPUPower.Cpufreq[i].Governor = c.Value
				return true
			}
		}
		return false
	case strings.HasSuffix(c.Key, "/power/energy_perf_bias"):
		s.CPUPower.EnergyPerfBias = ptr(c.Value) // the findings set every CPU that differs
		return true
	case c.Key == sysIntelPstate+"/min_perf_pct" && s.CPUPower.IntelPstate != nil && nerr == nil:
		s.CPUPower.IntelPstate.MinPerfPct = ptr(n)
		return true
	case c.Key == sysIntelPstate+"/max_perf_pct" && s.CPUPower.IntelPstate != nil && nerr == nil:
		s.CPUPower.IntelPstate.MaxPerfPct = ptr(n)
		return true
	case strings.HasPrefix(c.Key, "/sys/kernel/mm/") && strings.HasSuffix(c.Key, "hugepage/enabled"):
		s.Memory.THP.Enabled = ptr(c.Value)
		return true
	case strings.HasPrefix(c.Key, "/sys/kernel/mm/") && strings.HasSuffix(c.Key, "hugepage/shmem_enabled"):
		s.Memory.THP.ShmemEnabled = ptr(c.Value)
		return true
	case strings.HasPrefix(c.Key, "/sys/class/net/") && strings.HasSuffix(c.Key, "/mtu") && nerr == nil:
		name := strings.Split(c.Key, "/")[4]
		for i := range s.Network.Interfaces {
			if s.Network.Interfaces[i].Name == name {
				s.Network.Interfaces[i].MTU = ptr(n)
				return true
			}
		}
	}
	return false
}

func changeList(cs []change.Change) string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Key+"="+c.Value)
	}
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("and %d more", len(out)-3))
	}
	return strings.Join(out, ", ")
}
