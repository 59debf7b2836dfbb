package drift

import (
	"strings"
	"testing"

	_ "github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func load(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Load("../../testdata/golden/rhel9.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func changes(d *Diff) map[string]Change {
	out := map[string]Change{}
	for _, c := range d.Changes {
		out[c.Path] = c
	}
	return out
}

func TestNoDrift(t *testing.T) {
	a, b := load(t), load(t)
	// What moves by itself is not drift.
	b.Memory.Vmstat["numa_miss"] += 1000
	b.CollectedAt = b.CollectedAt.Add(3600e9)
	free := *b.Topology.Nodes[0].MemFreeKB - 4096
	b.Topology.Nodes[0].MemFreeKB = &free
	b.CPULoad.PerCPU[0].User += 500
	b.Processes = append(b.Processes, b.Processes[2]) // another shadow process
	b.Processes[len(b.Processes)-1].PID = 5000
	d, err := Compare(a, "a.json", b, "b.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != 0 || !d.SameHost {
		t.Fatalf("drift where there is none: %+v", d.Changes)
	}
}

func TestDrift(t *testing.T) {
	a, b := load(t), load(t)
	b.Sysctl["vm.swappiness"] = "10"
	delete(b.Sysctl, "kernel.numa_balancing")
	b.Sysctl["vm.nr_hugepages_new"] = "1"
	for i := range b.CPUPower.Cpufreq {
		b.CPUPower.Cpufreq[i].Governor = "powersave"
	}
	b.Topology.CPUs[31].Online = false
	b.Topology.CPUsOnline = b.Topology.CPUsOnline[:len(b.Topology.CPUsOnline)-1]
	b.Storage.Devices = b.Storage.Devices[1:]
	for i := range b.Processes {
		if b.Processes[i].Role == "pmon" {
			b.Processes[i].PID = 9999
		}
		b.Processes[i].CPUsAllowed = []int{0, 1, 2, 3}
	}
	d, err := Compare(a, "a.json", b, "b.json")
	if err != nil {
		t.Fatal(err)
	}
	got := changes(d)
	want := []struct{ path, section, kind, a, b string }{
		{"sysctl.vm.swappiness", Settings, "changed", a.Sysctl["vm.swappiness"], "10"},
		{"sysctl.kernel.numa_balancing", Settings, "removed", a.Sysctl["kernel.numa_balancing"], ""},
		{"sysctl.vm.nr_hugepages_new", Settings, "added", "", "1"},
		{"cpu_power.cpufreq[0-31].governor", Settings, "changed", "performance", "powersave"},
		{"topology.cpus[31].online", Topology, "changed", "true", "false"},
		{"topology.cpus_online", Topology, "changed", "0-31", "0-30"},
		{"storage.devices[" + a.Storage.Devices[0].Name + "]", Settings, "removed", "", ""},
		{"oracle ORCL main process (restarted)", Processes, "changed", "pmon pid 3101", "pmon pid 9999"},
		{"oracle ORCL cpus_allowed", Processes, "changed", "", "0-3"},
	}
	for _, w := range want {
		c, ok := got[w.path]
		if !ok {
			t.Errorf("no change %s in %d changes", w.path, len(d.Changes))
			continue
		}
		if c.Section != w.section || c.Kind != w.kind || w.a != "" && deref(c.A, "") != w.a || w.b != "" && deref(c.B, "") != w.b {
			t.Errorf("%s: %s %s %q → %q; want %s %s %q → %q", w.path, c.Section, c.Kind, deref(c.A, "<nil>"), deref(c.B, "<nil>"), w.section, w.kind, w.a, w.b)
		}
	}
	// A removed device is one change, not one per field.
	for p := range got {
		if strings.HasPrefix(p, "storage.devices["+a.Storage.Devices[0].Name+"].") {
			t.Errorf("a field of the removed device listed: %s", p)
		}
	}
	if len(d.Changes) != len(want) {
		for _, c := range d.Changes {
			t.Logf("%s %s %s", c.Section, c.Kind, c.Path)
		}
		t.Errorf("%d changes, want %d", len(d.Changes), len(want))
	}
	// Sections in order: settings, topology, processes.
	last := -1
	for _, c := range d.Changes {
		if r := sectionRank(c.Section); r < last {
			t.Fatalf("sections out of order at %s", c.Path)
		} else {
			last = r
		}
	}
	// A stopped instance, another host.
	b.Processes = nil
	b.Host.Hostname = "other"
	d, _ = Compare(a, "a.json", b, "b.json")
	if c, ok := changes(d)["oracle ORCL"]; !ok || c.Kind != "removed" || d.SameHost {
		t.Errorf("stopped instance / other host: %+v same_host=%v", c, d.SameHost)
	}
}
