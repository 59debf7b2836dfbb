package rules

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/tunedstock"
)

// TestOneValuePerSetting: over every fixture × workload × database, no two
// findings recommend different values for the same setting (the advice
// converges: following one rule never contradicts another).
func TestOneValuePerSetting(t *testing.T) {
	for name, s := range goldenSnapshots(t) {
		for _, w := range Workloads {
			for _, db := range DBs {
				rep := Run(&Input{Snap: s, Workload: w, DB: db})
				if msg := conflicting(rep.Findings); msg != "" {
					t.Errorf("%s %s/%s: %s", name, w, db, msg)
				}
			}
		}
	}
}

// conflicting names the first setting two findings want at different values.
func conflicting(fs []Finding) string {
	type want struct{ value, rule string }
	seen := map[string]want{}
	var keys []string
	for _, f := range fs {
		for _, c := range f.Changes {
			if c.Kind == change.TunedProfile {
				continue
			}
			k := string(c.Kind) + " " + c.Key
			v := c.Value
			if c.Remove {
				v = "(removed)"
			}
			if w, ok := seen[k]; ok && w.value != v {
				keys = append(keys, fmt.Sprintf("%s: %s wants %q, %s wants %q", k, w.rule, w.value, f.ID, v))
				continue
			}
			seen[k] = want{v, f.ID}
		}
	}
	sort.Strings(keys)
	return strings.Join(keys, "; ")
}

// tunedHost is a bare-metal or guest host whose settings are what a stock
// tuned profile (plus dbhost's pins over it) leaves, with tuned running it:
// every knob the profile sets at the profile's value, the rest healthy.
func tunedHost(profile, role string) *snapshot.Snapshot {
	s := host()
	s.Host.Virt = snapshot.Virt{Guest: role == RoleGuest, KVMGuests: ptr(0)}
	switch role {
	case RoleGuest:
		s.Host.Virt.Type = "kvm"
	case RoleHypervisor:
		s.Host.Virt.KVMGuests = ptr(3)
	}
	s.Memory.Meminfo = map[string]int64{"MemTotal": 128 << 20, "SwapTotal": 8 << 20}
	s.Memory.THP.Enabled, s.Memory.THP.ShmemEnabled = ptr("madvise"), ptr("never")
	s.CPUPower.CpuidleDriver = ptr("intel_idle")
	s.CPUPower.IntelPstate = &snapshot.IntelPstate{Status: "active", MinPerfPct: ptr(int64(30)), MaxPerfPct: ptr(int64(100))}
	s.CPUPower.EnergyPerfBias = ptr("6")
	for c := 0; c < 8; c++ {
		s.CPUPower.Cpuidle = append(s.CPUPower.Cpuidle, snapshot.CPUIdle{CPU: c, States: []snapshot.IdleState{
			{Index: 0, Name: "POLL"}, {Index: 1, Name: "C1", LatencyUS: 2}, {Index: 2, Name: "C1E", LatencyUS: 10}, {Index: 3, Name: "C6", LatencyUS: 133}}})
		s.CPUPower.Cpufreq = append(s.CPUPower.Cpufreq, snapshot.CPUFreq{CPU: c, Driver: "intel_pstate", Governor: "powersave",
			Governors: []string{"performance", "powersave"}})
	}
	for k, v := range map[string]string{"net.core.somaxconn": "4096", "kernel.numa_balancing": "1", "net.core.busy_read": "0",
		"net.core.busy_poll": "0", "net.ipv4.tcp_fastopen": "1", "vm.swappiness": "60", "vm.dirty_ratio": "20", "vm.dirty_background_ratio": "10"} {
		s.Sysctl[k] = v
	}
	runStockProfile(s, profile)
	return s
}

// runStockProfile makes s a host where tuned runs the stock profile: each
// setting the profile sets at its value, then dbhost's pins over it
// (sysctl.d, which tuned reapplies after the profile).
func runStockProfile(s *snapshot.Snapshot, profile string) {
	s.Config.Tuned = snapshot.Tuned{Installed: true, ActiveProfile: ptr(profile), Running: ptr(true)}
	settings, _, _ := tunedstock.Settings(profile)
	for k, v := range settings {
		v = strings.Trim(strings.TrimPrefix(v, ">"), `"`)
		switch {
		case strings.HasPrefix(k, "sysctl."):
			s.Sysctl[strings.TrimPrefix(k, "sysctl.")] = v
		case k == "cpu.governor":
			for i := range s.CPUPower.Cpufreq {
				s.CPUPower.Cpufreq[i].Governor = strings.Split(v, "|")[0]
			}
		case k == "cpu.energy_perf_bias" && v == "performance":
			s.CPUPower.EnergyPerfBias = ptr("0")
		case k == "cpu.min_perf_pct" && s.CPUPower.IntelPstate != nil:
			n := int64(100)
			s.CPUPower.IntelPstate.MinPerfPct = &n
		case k == "vm.transparent_hugepages":
			s.Memory.THP.Enabled = ptr(v)
		}
	}
	for k, v := range TunedPins(profile, s) {
		s.Sysctl[k] = v // dbhost's sysctl.d, reapplied after the profile
	}
}

// TestTunedProfilesAccepted: each rule's recommended value is accepted by
// every other rule. For every workload, guest or not and database, every
// stock profile dbhost lets stand (TunedProfileFor) is run by tuned on a
// host: cpu.tuned-profile passes and the CPU, dirty-ratio and swappiness
// rules accept what the profile holds. For the recommended profile no rule
// may ask to change any setting it sets (beyond the pins dbhost keeps in
// sysctl.d); another accepted profile (the database's own) may have a
// sysctl raised by a rule's sysctl.d line, which tuned reapplies after its
// profile, so that settles too.
func TestTunedProfilesAccepted(t *testing.T) {
	for _, w := range Workloads {
		for _, role := range []string{RoleBareMetal, RoleGuest, RoleHypervisor} {
			for _, db := range DBs {
				c := TunedProfileFor(w, role, db)
				if _, _, ok := tunedstock.Settings(c.Want); !ok {
					t.Fatalf("%s role %s %s: %s is not a stock profile dbhost knows", w, role, db, c.Want)
				}
				for _, p := range c.Fit {
					if _, _, ok := tunedstock.Settings(p); !ok {
						continue // a stock profile whose values are not in tunedstock
					}
					s := tunedHost(p, role)
					set, _, _ := tunedstock.Settings(p)
					rep := Run(&Input{Snap: s, Workload: w, DB: db})
					for _, f := range rep.Findings {
						if f.ID == "cpu.tuned-profile" {
							t.Errorf("%s role %s %s: profile %s: cpu.tuned-profile fires: %s", w, role, db, p, f.Recommended)
						}
						for _, ch := range f.Changes {
							if k := profileKey(ch); k != "" && set[k] != "" && (p == c.Want || ch.Kind != change.Sysctl) {
								t.Errorf("%s role %s %s: profile %s sets %s = %s, %s wants %s", w, role, db, p, k, set[k], f.ID, ch.Value)
							}
						}
						switch f.ID {
						case "cpu.deep-cstates-latency", "cpu.governor-not-performance", "cpu.intel-pstate-min-perf", "cpu.energy-perf-bias",
							"memory.dirty-ratios", "memory.swappiness":
							t.Errorf("%s role %s %s: profile %s: %s fires: %s → %s (%s)", w, role, db, p, f.ID, f.Current, f.Recommended, f.Evidence)
						}
					}
				}
			}
		}
	}
}

// profileKey maps a change to the tuned option that sets the same knob.
func profileKey(c change.Change) string {
	switch {
	case c.Kind == change.Sysctl:
		return "sysctl." + c.Key
	case strings.HasSuffix(c.Key, "/cpufreq/scaling_governor"):
		return "cpu.governor"
	case strings.HasSuffix(c.Key, "/power/energy_perf_bias"):
		return "cpu.energy_perf_bias"
	case strings.HasSuffix(c.Key, "/intel_pstate/min_perf_pct"):
		return "cpu.min_perf_pct"
	case c.Key == thpEnabledPath:
		return "vm.transparent_hugepages"
	case strings.HasSuffix(c.Key, "/queue/read_ahead_kb"):
		return "disk.readahead"
	}
	return ""
}
