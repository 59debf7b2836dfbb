package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestSwappiness(t *testing.T) {
	const id = "memory.swappiness"
	s := host()
	s.Sysctl["vm.swappiness"] = "60"
	s.Memory.Meminfo = map[string]int64{"SwapTotal": 8 << 20}
	wantChange(t, fires(t, id, s, WorkloadMixed, DBNone), change.Sysctl, "vm.swappiness", "10", "60")
	if f := fires(t, id, s, WorkloadMixed, DBNone); f.Current != "60" || f.Recommended != "10" || f.Severity != SevWarning {
		t.Fatalf("%+v", f)
	}
	s.Sysctl["vm.swappiness"] = "20"
	if f := fires(t, id, s, WorkloadMixed, DBNone); f.Severity != SevInfo {
		t.Fatalf("%+v", f)
	}
	quiet(t, id, host(), WorkloadMixed, DBNone)

	noswap := host()
	noswap.Sysctl["vm.swappiness"] = "60"
	noswap.Memory.Meminfo = map[string]int64{"SwapTotal": 0}
	quiet(t, id, noswap, WorkloadMixed, DBNone)

	gone := host()
	delete(gone.Sysctl, "vm.swappiness")
	absent(gone, "sysctl.vm.swappiness", "permission denied")
	cannot(t, id, gone, WorkloadMixed, DBNone, "permission denied")
}
