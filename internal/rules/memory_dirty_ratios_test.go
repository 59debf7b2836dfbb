package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestDirtyRatios(t *testing.T) {
	const id = "memory.dirty-ratios"
	s := host() // 40 / 10: throughput-performance
	quiet(t, id, s, WorkloadDSS, DBNone)
	// OLTP and latency: latency-performance's 10 / 3. A dirty_ratio of 40 is
	// above 10 (higher is fine); the background 10 is not lowered to 3.
	for _, w := range []string{WorkloadOLTP, WorkloadLatency} {
		f := fires(t, id, s, w, DBOracle)
		wantChange(t, f, change.Sysctl, "vm.dirty_background_ratio", "3", "10")
		if f.Setting != "vm.dirty_background_ratio" || !strings.HasPrefix(f.Recommended, "≤ 3 (tuned latency-performance; lower is fine)") ||
			!strings.Contains(f.Why, "start background flushing sooner") {
			t.Fatalf("%+v", f)
		}
		if rep := run(t, id, s, w, DBOracle); len(rep.Findings) != 1 {
			t.Fatalf("%+v", rep.Findings)
		}
	}
	// A lowered background ratio is not pushed back up (the loop of the old rule).
	low := host()
	low.Sysctl["vm.dirty_background_ratio"] = "2"
	quiet(t, id, low, WorkloadOLTP, DBNone)
	quiet(t, id, low, WorkloadDSS, DBNone)
	// The default 20 / 10 on DSS: raise dirty_ratio to 40.
	s.Sysctl["vm.dirty_ratio"] = "20"
	f := fires(t, id, s, WorkloadDSS, DBNone)
	wantChange(t, f, change.Sysctl, "vm.dirty_ratio", "40", "20")
	if len(f.Fix.Edits) != 1 || f.Fix.Edits[0] != SysctlEdit("vm.dirty_ratio", "40") || !strings.HasPrefix(f.Recommended, "≥ 40") {
		t.Fatalf("%+v", f)
	}
	// Background at or above the synchronous threshold: the kernel halves it.
	inv := host()
	inv.Sysctl["vm.dirty_ratio"], inv.Sysctl["vm.dirty_background_ratio"] = "10", "10"
	f = fires(t, id, inv, WorkloadLatency, DBNone)
	if f.Setting != "vm.dirty_background_ratio" || !strings.Contains(f.Why, "half the synchronous threshold") || f.Changes[0].Value != "3" {
		t.Fatalf("%+v", f)
	}
	// The bytes forms: compared as a share of MemTotal, fixed in bytes.
	by := host()
	by.Memory.Meminfo = map[string]int64{"MemTotal": 64 << 20} // 64 GiB
	by.Sysctl["vm.dirty_bytes"] = "1073741824"                 // 1.6 %
	by.Sysctl["vm.dirty_background_bytes"] = "268435456"       // 0.4 %
	f = fires(t, id, by, WorkloadDSS, DBNone)
	wantChange(t, f, change.Sysctl, "vm.dirty_bytes", "27487371264", "-")
	if f.Setting != "vm.dirty_bytes" || !strings.Contains(f.Current, "1.6 % of MemTotal") {
		t.Fatalf("%+v", f)
	}
	// PostgreSQL: buffered I/O, the synchronous threshold is not pushed up;
	// the background one still comes down, and the finding says why.
	pg := host()
	pg.Sysctl["vm.dirty_ratio"] = "20"
	quiet(t, id, by, WorkloadDSS, DBPostgres)
	f = fires(t, id, pg, WorkloadOLTP, DBPostgres)
	if f.Setting != "vm.dirty_background_ratio" || !strings.Contains(f.Why, "fsyncs every file a checkpoint dirtied") ||
		!strings.Contains(f.Why, "dirty_background_bytes 64 MiB") {
		t.Fatalf("%+v", f)
	}
	if rep := run(t, id, pg, WorkloadDSS, DBPostgres); len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep.Findings)
	}
	// A guest: virtual-guest's 30 / 10.
	vm := host()
	vm.Host.Virt.Guest = true
	vm.Sysctl["vm.dirty_ratio"] = "20"
	if f := fires(t, id, vm, WorkloadOLTP, DBNone); f.Setting != "vm.dirty_ratio" || !strings.HasPrefix(f.Recommended, "≥ 30 (tuned virtual-guest") {
		t.Fatalf("guest: %+v", f)
	}
	// A KVM host running guests (dss): virtual-host's 40 / 5; OLTP keeps latency-performance's bounds.
	kvm := host()
	kvm.Host.Virt.KVMGuests = ptr(4)
	kvm.Sysctl["vm.dirty_ratio"], kvm.Sysctl["vm.dirty_background_ratio"] = "40", "10"
	if f := fires(t, id, kvm, WorkloadDSS, DBNone); f.Setting != "vm.dirty_background_ratio" || !strings.HasPrefix(f.Recommended, "≤ 5 (tuned virtual-host") {
		t.Fatalf("kvm host: %+v", f)
	}
	kvm.Sysctl["vm.dirty_background_ratio"] = "5"
	quiet(t, id, kvm, WorkloadDSS, DBNone)
	// Bytes in use but MemTotal unknown; a ratio absent.
	nomem := host()
	nomem.Sysctl["vm.dirty_bytes"] = "1073741824"
	cannot(t, id, nomem, WorkloadDSS, DBNone, "MemTotal")
	gone := host()
	delete(gone.Sysctl, "vm.dirty_ratio")
	absent(gone, "sysctl.vm.dirty_ratio", "not present on this host")
	cannot(t, id, gone, WorkloadDSS, DBNone, "sysctl.vm.dirty_ratio")
}
