package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestSwappiness(t *testing.T) {
	const id = "memory.swappiness"
	// A RHEL 6-era host (2.6.32) at the default 60: the era 003's advice was written for, a warning.
	s := host()
	s.Host.Kernel, s.Host.OS = "2.6.32-754.el6.x86_64", "Red Hat Enterprise Linux Server release 6.10 (Santiago)"
	s.Sysctl["vm.swappiness"] = "60"
	s.Memory.Meminfo = map[string]int64{"SwapTotal": 8 << 20}
	wantChange(t, fires(t, id, s, WorkloadMixed, DBNone), change.Sysctl, "vm.swappiness", "10", "60")
	if f := fires(t, id, s, WorkloadMixed, DBNone); f.Current != "60" || f.Recommended != "10" || f.Severity != SevWarning {
		t.Fatalf("%+v", f)
	}
	// RHEL 9 (5.14) at 60: 003 says "Not needed as much in RHEL7", so on a 3.10+ kernel the
	// same value is info, with the seed's words in the why; the fix is still offered.
	el9 := host()
	el9.Sysctl["vm.swappiness"] = "60"
	el9.Memory.Meminfo = map[string]int64{"SwapTotal": 8 << 20}
	f := fires(t, id, el9, WorkloadMixed, DBNone)
	wantChange(t, f, change.Sysctl, "vm.swappiness", "10", "60")
	if f.Severity != SevInfo || !strings.Contains(f.Why, "not needed as much in RHEL7") || !strings.Contains(f.Evidence, "kernel 5.14") {
		t.Fatalf("%+v", f)
	}
	// A kernel release dbhost cannot read: the era is unknown, the warning stays.
	el9.Host.Kernel = "unknown"
	if f := fires(t, id, el9, WorkloadMixed, DBNone); f.Severity != SevWarning {
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
