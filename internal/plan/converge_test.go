package plan

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/facts"
	fx "github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/kernelsim"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/tunedstock"
)

// TestFixpoint: on every fixture host and workload, dbhost's advice
// converges. A copy of the host gets every runtime change the plan holds
// (apply, with the kernel's side effects simulated, risky changes
// accepted), then the tuned profile the plan recommends (tuned running it:
// its sysctl, cpu, vm and disk settings written, then dbhost's sysctl.d
// reapplied, as tuned's reapply_sysctl does). The host is collected and
// audited again: every rule whose change was applied passes, no rule that
// passed before fires, and what is left carries no runtime change and says
// what it is pending on (a reboot for boot arguments, a restart, an
// operator). Fixture hosts added to internal/fixture are picked up. The
// workloads are oltp and dss, one for each profile family dbhost recommends
// (latency-performance, throughput-performance; latency and mixed take the
// same profiles): every workload is covered by TestOneValuePerSetting and
// TestTunedProfilesAccepted, and four per host would double the test's time.
func TestFixpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the fixpoint collects every fixture host twice per workload")
	}
	for _, host := range fx.Fixtures() {
		if host.Sos {
			t.Logf("%s: a sosreport is a capture, not a kernel to apply changes to: skipped", host.Name)
			continue
		}
		tree := host.Tree()
		for _, w := range []string{rules.WorkloadOLTP, rules.WorkloadDSS} {
			t.Run(host.Name+"/"+w, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				root := filepath.Join(dir, "root")
				if err := tree.Write(root); err != nil {
					t.Fatal(err)
				}
				fixpoint(t, root, filepath.Join(dir, "state"), w)
			})
		}
	}
}

func fixpoint(t *testing.T, dir, state, workload string) {
	t.Helper()
	r := facts.Root{Dir: dir}
	before := facts.Collect(r, facts.Options{Now: epoch, Kind: "root"})
	p := build(t, before, Options{Workload: workload})
	audit1 := rules.Run(&rules.Input{Snap: before, Workload: workload, DB: p.DB})
	sys := cpusetKernel{apply.TreeSys{Root: r, Kernel: kernelsim.New(r)}}
	now := func() time.Time { return epoch }
	res, err := apply.Apply(p.Changes, apply.Options{Root: r, StateDir: state, Sys: sys, AcceptRisk: true, Now: now})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	applied := map[string]bool{} // rules with a runtime change carried out
	for _, it := range res.Items {
		switch it.Status {
		case apply.StatusFailed, apply.StatusRefused:
			t.Errorf("apply %s %s = %q (%s): %s %s: dbhost recommends a value the kernel refuses", it.Kind, it.Setting, it.New, it.Rule, it.Status, it.Message)
		case apply.StatusApplied, apply.StatusUnchanged:
			if change.Kind(it.Kind) == change.Sysctl || change.Kind(it.Kind) == change.Sysfs {
				for _, id := range strings.Split(it.Rule, ",") {
					applied[id] = true
				}
			}
		}
	}
	runTuned(t, sys, dir, p)
	after := facts.Collect(r, facts.Options{Now: epoch.Add(time.Hour), Kind: "root"})
	audit2 := rules.Run(&rules.Input{Snap: after, Workload: workload, DB: p.DB})

	passed := map[string]bool{}
	for _, x := range audit1.Passed {
		passed[x.ID] = true
	}
	for _, f := range audit2.Findings {
		what := fmt.Sprintf("%s after the plan (%s = %s; %s): %s → %s", f.ID, f.Setting, f.Current, f.Evidence, f.Current, f.Recommended)
		if passed[f.ID] {
			t.Errorf("passed before, fires now: %s", what)
		}
		for _, c := range f.Changes {
			if c.Runtime() {
				t.Errorf("still asks for a runtime change %s %s = %s (applied before: %v): %s", c.Kind, c.Key, c.Value, applied[f.ID], what)
			}
		}
		switch f.Pending {
		case rules.PendingReboot, rules.PendingRestart, rules.PendingManual:
		default:
			t.Errorf("left over but not marked pending (%q): %s", f.Pending, what)
		}
		if applied[f.ID] && f.Pending == rules.PendingManual {
			t.Errorf("its change was applied, yet it fires without one: %s", what)
		}
	}
	var left []string
	for _, f := range audit2.Findings {
		left = append(left, f.ID+":"+f.Pending)
	}
	t.Logf("%d findings before, %d changes applied (%d runtime items), base profile %s; left: %s",
		len(audit1.Findings), res.Count(apply.StatusApplied), len(res.Items), p.TunedProfile, strings.Join(left, " "))
	if t.Failed() {
		var ids []string
		for _, f := range audit1.Findings {
			ids = append(ids, f.ID)
		}
		sort.Strings(ids)
		t.Logf("findings before: %s", strings.Join(ids, " "))
	}
}

// cpusetKernel adds to the tree simulator what the kernel does with a
// cpuset's cpus or mems: the list becomes the group's effective one when
// its parent's effective list holds it (else the kernel falls back, which
// apply reports).
type cpusetKernel struct{ apply.TreeSys }

func (k cpusetKernel) Write(p, value string) error {
	if err := k.TreeSys.Write(p, value); err != nil {
		return err
	}
	base, dir := path.Base(p), path.Dir(p)
	if base != "cpuset.cpus" && base != "cpuset.mems" {
		return nil
	}
	want, err := cpulist.Parse(strings.TrimSpace(value))
	if err != nil {
		return nil
	}
	for _, eff := range []string{base + ".effective", "cpuset.effective_" + strings.TrimPrefix(base, "cpuset.")} {
		raw, err := k.Read(path.Dir(dir) + "/" + eff)
		if err != nil {
			continue
		}
		allowed, err := cpulist.Parse(strings.TrimSpace(raw))
		if err != nil || !subset(want, allowed) {
			continue
		}
		if cur, err := k.Read(dir + "/" + eff); err == nil {
			c, _ := apply.TreeContent(cur, cpulist.Format(want))
			_ = os.WriteFile(k.Root.Path(dir+"/"+eff), []byte(c), 0o644)
		}
	}
	return nil
}

func subset(a, b []int) bool {
	in := map[int]bool{}
	for _, x := range b {
		in[x] = true
	}
	for _, x := range a {
		if !in[x] {
			return false
		}
	}
	return true
}

// runTuned does what tuned does when it starts the plan's base profile on
// the copy: the profile and the ones it includes are installed and active,
// a tuned process runs (it holds /dev/cpu_dma_latency for force_latency),
// the profile's settings are written (with the kernel's side effects), then
// dbhost's sysctl.d lines are reapplied over the profile's sysctls.
func runTuned(t *testing.T, sys apply.Sys, dir string, p *Plan) {
	t.Helper()
	set, chain, ok := tunedstock.Settings(p.TunedProfile)
	if !ok {
		t.Fatalf("plan's tuned profile %q is not a stock profile", p.TunedProfile)
	}
	put := func(rel, content string) {
		full := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range chain {
		put("usr/lib/tuned/"+name+"/tuned.conf", tunedstock.Profiles[name].TunedConf())
	}
	put("etc/tuned/active_profile", p.TunedProfile+"\n")
	put("etc/tuned/profile_mode", "manual\n")
	put("proc/999999/comm", "tuned\n")

	write := func(path, value string, atLeast bool) {
		cur, err := sys.Read(path)
		if err != nil {
			return // the knob does not exist on this host: tuned skips it too
		}
		if atLeast {
			c, err1 := strconv.ParseInt(apply.Value(cur), 10, 64)
			v, err2 := strconv.ParseInt(value, 10, 64)
			if err1 == nil && err2 == nil && c >= v {
				return
			}
		}
		if err := sys.Write(path, value); err != nil {
			t.Logf("tuned %s = %s: %v (tuned logs it and goes on)", path, value, err)
		}
	}
	list := func(glob string) []string {
		m, _ := filepath.Glob(filepath.Join(dir, glob))
		for i := range m {
			m[i] = "/" + filepath.ToSlash(strings.TrimPrefix(m[i], dir+string(filepath.Separator)))
		}
		return m
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := strings.Trim(set[k], `"`)
		atLeast := strings.HasPrefix(v, ">")
		v = strings.TrimPrefix(v, ">")
		switch {
		case strings.HasPrefix(k, "sysctl."):
			write(change.SysctlPath(strings.TrimPrefix(k, "sysctl.")), v, atLeast)
		case k == "cpu.governor":
			for _, g := range list("sys/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor") {
				avail, _ := sys.Read(strings.TrimSuffix(g, "scaling_governor") + "scaling_available_governors")
				for _, alt := range strings.Split(v, "|") {
					if strings.Contains(" "+avail+" ", " "+alt+" ") {
						write(g, alt, false)
						break
					}
				}
			}
		case k == "cpu.energy_perf_bias":
			epb := map[string]string{"performance": "0", "normal": "6", "powersave": "15", "power": "15"}[strings.Split(v, "|")[0]]
			for _, f := range list("sys/devices/system/cpu/cpu[0-9]*/power/energy_perf_bias") {
				write(f, epb, false)
			}
		case k == "cpu.min_perf_pct":
			write("/sys/devices/system/cpu/intel_pstate/min_perf_pct", v, false)
		case k == "vm.transparent_hugepages":
			write("/sys/kernel/mm/transparent_hugepage/enabled", v, false)
		case k == "disk.readahead":
			for _, f := range list("sys/block/*/queue/read_ahead_kb") {
				if n := filepath.Base(filepath.Dir(filepath.Dir(f))); !strings.HasPrefix(n, "loop") && !strings.HasPrefix(n, "zram") && !strings.HasPrefix(n, "ram") {
					write(f, v, atLeast)
				}
			}
		}
	}
	// reapply_sysctl=1: the system's sysctl.d (dbhost's 90-dbhost.conf) wins.
	for _, c := range p.Changes {
		if c.Kind == change.Sysctl {
			write(c.Path(), c.Value, false)
		}
	}
}

// TestFixpointPendingKinds pins how a left-over finding is classified.
func TestFixpointPendingKinds(t *testing.T) {
	s := fixture(t, "numa-off")
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: rules.DBNone})
	var found bool
	for _, f := range rep.Findings {
		if f.ID == "numa.disabled-at-boot" {
			found = true
			if f.Pending != rules.PendingReboot || !f.RebootRequired {
				t.Fatalf("%+v", f)
			}
		}
	}
	if !found {
		t.Fatal("numa-off: numa.disabled-at-boot did not fire")
	}
	_ = snapshot.SchemaVersion
}

// TestFixpointIRQ: numa.cpu-irq-imbalance's IRQ fixes converge. Its runtime
// fix writes smp_affinity_list, which no plan change carries and the tree
// simulator cannot serve interrupts for, so the test follows it on the
// snapshot: every IRQ the fix names is then served on the CPUs it names (as
// after a reboot with the persistent boot unit), and the re-audit must ask
// for no further IRQ move. Before issue 26, the hot-node finding spread a
// NIC's queues over the nodes and the off-node finding moved them back.
func TestFixpointIRQ(t *testing.T) {
	const id = "numa.cpu-irq-imbalance"
	fixLine := regexp.MustCompile(`^for q in ([0-9 ]+); do echo (\S+) > /proc/irq/\$q/smp_affinity_list; done$`)
	const host = "interleaved-4n"
	for _, scenario3 := range []bool{false, true} {
		for _, w := range []string{rules.WorkloadOLTP, rules.WorkloadDSS} {
			t.Run(fmt.Sprintf("%s/%s/scenario3=%v", host, w, scenario3), func(t *testing.T) {
				s := facts.Collect(facts.Root{Dir: filepath.Join("..", "..", "testdata", "hosts", host)}, facts.Options{Now: epoch, Kind: "root"})
				if scenario3 { // 000 Scenario 3: every NIC on node 0, its interrupts served there
					var node0 []int
					for _, n := range s.Topology.Nodes {
						if n.ID == 0 {
							node0 = n.CPUs
						}
					}
					for i, ifc := range s.Network.Interfaces {
						if ifc.Kind == "physical" && len(ifc.IRQs) > 0 {
							zero := 0
							s.Network.Interfaces[i].NUMANode = &zero
							serveOn(s, strings.Fields(strings.Trim(fmt.Sprint(ifc.IRQs), "[]")), node0)
						}
					}
				}
				db, _ := rules.DetectDB(s, nil)
				followed, hot := 0, false
				for round := 0; ; round++ {
					rep := rules.Run(&rules.Input{Snap: s, Workload: w, DB: db})
					var moves []string
					for _, f := range rep.Findings {
						if f.ID != id {
							continue
						}
						for _, line := range append(append([]string{}, f.Fix.Runtime...), f.Fix.Persistent...) {
							if strings.Contains(line, "irqbalance") {
								t.Errorf("round %d: %s offers irqbalance: %q", round, f.Setting, line)
							}
						}
						if strings.Contains(f.Current, "served on node 0") {
							hot = true
						}
						moves = append(moves, f.Fix.Runtime...)
					}
					if len(moves) == 0 {
						break
					}
					if round > 0 {
						t.Fatalf("after following %d IRQ fixes, the re-audit asks again: %q", followed, moves)
					}
					for _, line := range moves {
						m := fixLine.FindStringSubmatch(line)
						if m == nil {
							t.Fatalf("an IRQ fix this test cannot follow: %q", line)
						}
						cpus, err := cpulist.Parse(m[2])
						if err != nil {
							t.Fatalf("%q: %v", line, err)
						}
						serveOn(s, strings.Fields(m[1]), cpus)
						followed++
					}
				}
				if followed == 0 && !scenario3 {
					t.Fatalf("%s: no IRQ fix to follow: the case no longer tests anything", host)
				}
				if scenario3 && !hot {
					t.Fatal("000 Scenario 3: no finding of the NIC interrupts all served on node 0: the case tests nothing")
				}
				if scenario3 && followed != 0 {
					t.Errorf("000 Scenario 3: %d IRQ moves off the NICs' node 0 (000 keeps them there)", followed)
				}
			})
		}
	}
}

// serveOn makes the snapshot's interrupt counts of irqs those of a boot in
// which they were served on cpus only.
func serveOn(s *snapshot.Snapshot, irqs []string, cpus []int) {
	on := map[int]bool{}
	for _, c := range cpus {
		on[c] = true
	}
	want := map[string]bool{}
	for _, q := range irqs {
		want[q] = true
	}
	for i, q := range s.IRQs.IRQs {
		if !want[q.IRQ] {
			continue
		}
		var total uint64
		for _, c := range q.Counts {
			total += c
		}
		counts := make([]uint64, len(q.Counts))
		for j := range counts {
			if j < len(s.IRQs.CPUs) && on[s.IRQs.CPUs[j]] {
				counts[j] = total / uint64(len(cpus))
			}
		}
		s.IRQs.IRQs[i].Counts = counts
	}
}
