package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestEnergyPerfBias(t *testing.T) {
	const id = "cpu.energy-perf-bias"
	mk := func(v string) *snapshot.Snapshot {
		s := host()
		s.CPUPower.EnergyPerfBias = &v
		return s
	}
	f := fires(t, id, mk("6"), WorkloadOLTP, DBNone)
	if f.Severity != SevInfo || f.Current != "6 (normal)" || len(f.Changes) != 8 || f.Changes[0].Kind != change.Sysfs ||
		f.Changes[0].Key != "/sys/devices/system/cpu/cpu0/power/energy_perf_bias" || f.Changes[0].Value != "0" || f.Changes[0].Current != "6" {
		t.Fatalf("%+v", f)
	}
	// Mixed: only the CPUs not at 0 change; info on mixed workloads.
	f = fires(t, id, mk("mixed: 0 on CPUs 0-3; 15 on CPUs 4-7"), WorkloadMixed, DBNone)
	if f.Severity != SevInfo || len(f.Changes) != 4 || f.Changes[0].Key != "/sys/devices/system/cpu/cpu4/power/energy_perf_bias" ||
		!strings.Contains(f.Current, "15 (power) on CPUs 4-7") {
		t.Fatalf("%+v", f)
	}
	quiet(t, id, mk("0"), WorkloadOLTP, DBNone)
	quiet(t, id, mk("mixed: 0 on CPUs 0-3; 0 on CPUs 4-7"), WorkloadOLTP, DBNone)
	cannot(t, id, mk("garbage"), WorkloadOLTP, DBNone, "expected an integer")
	g := mk("6")
	g.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if rep := quiet(t, id, g, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	no := host()
	absent(no, "cpu_power.energy_perf_bias", "not present on this host")
	if rep := quiet(t, id, no, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	den := host()
	absent(den, "cpu_power.energy_perf_bias", "permission denied (run as root)")
	cannot(t, id, den, WorkloadOLTP, DBNone, "permission denied")
}

func TestParseEPB(t *testing.T) {
	g, err := ParseEPB("mixed: 6 on CPUs 0-3; 0 on CPUs 4-7")
	want := []EPBGroup{{Value: "6", CPUs: []int{0, 1, 2, 3}}, {Value: "0", CPUs: []int{4, 5, 6, 7}}}
	if err != nil || !reflect.DeepEqual(g, want) {
		t.Fatalf("%+v %v", g, err)
	}
	if g, err := ParseEPB(" 15 "); err != nil || len(g) != 1 || g[0].Value != "15" || g[0].CPUs != nil {
		t.Fatalf("%+v %v", g, err)
	}
	if g, err := ParseEPB("mixed: performance on CPUs 0-1; power on CPUs 2"); err != nil || g[0].Value != "0" || g[1].Value != "15" {
		t.Fatalf("%+v %v", g, err)
	}
	for _, bad := range []string{"", "16", "-1", "turbo", "mixed:", "mixed: 6 on CPUs", "mixed: 6 on CPUs 0-3; 0 on CPUs 3",
		"mixed: x on CPUs 0", "mixed: 6 CPUs 0-3", "007"} {
		if _, err := ParseEPB(bad); err == nil {
			t.Errorf("ParseEPB(%q) accepted", bad)
		}
	}
}

// FuzzParseEPB: the parser never panics; what it accepts holds values 0..15
// and each CPU at most once.
func FuzzParseEPB(f *testing.F) {
	for _, s := range []string{"6", "0", "15", "mixed: 6 on CPUs 0-3; 0 on CPUs 4-7", "mixed: 4 on CPUs 0,2,4", "", "mixed: 1 on CPUs 0-4294967295"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		gs, err := ParseEPB(s)
		if err != nil {
			return
		}
		seen := map[int]bool{}
		for _, g := range gs {
			if n, err := epbValue(g.Value); err != nil || n < 0 || n > 15 {
				t.Fatalf("%q: value %q", s, g.Value)
			}
			for _, c := range g.CPUs {
				if seen[c] {
					t.Fatalf("%q: CPU %d twice", s, c)
				}
				seen[c] = true
			}
		}
	})
}
