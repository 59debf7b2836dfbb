package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestGovernorNotPerformance(t *testing.T) {
	const id = "cpu.governor-not-performance"
	gov := func(g0, g1 string) *snapshot.Snapshot {
		s := host()
		for c := 0; c < 8; c++ {
			g := g0
			if c >= 4 {
				g = g1
			}
			s.CPUPower.Cpufreq = append(s.CPUPower.Cpufreq, snapshot.CPUFreq{CPU: c, Driver: "intel_pstate", Governor: g})
		}
		return s
	}
	f := fires(t, id, gov("performance", "powersave"), WorkloadOLTP, DBNone)
	if len(f.Changes) != 4 || f.Changes[0].Key != "/sys/devices/system/cpu/cpu4/cpufreq/scaling_governor" || f.Changes[0].Kind != change.Sysfs || f.Changes[0].Value != "performance" || f.Changes[0].Current != "powersave" {
		t.Fatalf("one change per CPU not in performance: %+v", f.Changes)
	}
	if f.Current != "powersave on CPUs 4-7" || f.Recommended != "performance" || !strings.Contains(f.Why, "182 W to 578 W") {
		t.Fatalf("%+v", f)
	}
	quiet(t, id, gov("performance", "performance"), WorkloadOLTP, DBNone)

	guest := gov("powersave", "powersave")
	guest.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if rep := quiet(t, id, guest, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	none := host()
	if rep := quiet(t, id, none, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	absent(none, "cpu_power.cpufreq", "permission denied")
	cannot(t, id, none, WorkloadOLTP, DBNone, "permission denied")
}
