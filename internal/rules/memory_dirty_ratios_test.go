package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestDirtyRatios(t *testing.T) {
	const id = "memory.dirty-ratios"
	s := host() // 40 / 10: the throughput profile
	quiet(t, id, s, WorkloadOLTP, DBNone)
	rep := run(t, id, s, WorkloadLatency, DBNone)
	if len(rep.Findings) != 2 || rep.Findings[0].Setting != "vm.dirty_background_ratio" || rep.Findings[1].Current != "40" ||
		!strings.HasPrefix(rep.Findings[1].Recommended, "10 (tuned latency-performance") {
		t.Fatalf("%+v", rep.Findings)
	}
	s.Sysctl["vm.dirty_ratio"] = "20"
	wantChange(t, fires(t, id, s, WorkloadDSS, DBNone), change.Sysctl, "vm.dirty_ratio", "40", "-")
	if f := fires(t, id, s, WorkloadDSS, DBNone); f.Setting != "vm.dirty_ratio" || f.Fix.Persistent[0] != SysctlDropIn+": vm.dirty_ratio = 40" {
		t.Fatalf("%+v", f)
	}
	s.Sysctl["vm.dirty_bytes"] = "1073741824"
	quiet(t, id, s, WorkloadDSS, DBNone)

	vm := host()
	vm.Host.Virt.Guest = true
	if f := fires(t, id, vm, WorkloadOLTP, DBNone); f.Setting != "vm.dirty_ratio" || !strings.HasPrefix(f.Recommended, "30 (tuned virtual-guest") {
		t.Fatalf("guest: %+v", f)
	}

	gone := host()
	delete(gone.Sysctl, "vm.dirty_ratio")
	absent(gone, "sysctl.vm.dirty_ratio", "not present on this host")
	cannot(t, id, gone, WorkloadDSS, DBNone, "sysctl.vm.dirty_ratio")
}
