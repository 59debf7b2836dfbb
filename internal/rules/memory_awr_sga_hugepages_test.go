package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAWRSGAHugepages(t *testing.T) {
	const id = "memory.awr-sga-hugepages"
	amm := awrTestReport(t, "awrrpt_1_205_206_11203.txt") // memory_target 2560 MB
	f := awrFires(t, id, nil, amm)
	if f.Setting != "oracle:memory_target" {
		t.Errorf("%+v", f)
	}
	wantIn(t, "current", f.Current, "memory_target 2.5 GiB: Automatic Memory Management")
	wantIn(t, "evidence", f.Evidence, "memory_target = 2684354560 (awrrpt_1_205_206_11203.txt:", "no host given")
	h := host()
	h.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: 1536, Free: 1536, Default: true}}
	f = awrFires(t, id, h, amm)
	wantIn(t, "current", f.Current, "this host's pool of 1536 x 2.0 MiB hugepages (3.0 GiB) goes unused by it")

	rac := awrTestReport(t, "awrrpt_2_2201_2202_19c_rac.html") // SGA 200 GB, use_large_pages=ONLY
	awrOutcome(t, id, "cannot", "the hugepage pool it should fit in", nil, rac)
	h.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: 51200, Free: 51200, Default: true}}
	f = awrFires(t, id, h, rac)
	wantIn(t, "current", f.Current, "SGA 200.0 GiB, hugepage pool 100.0 GiB: with use_large_pages=ONLY the instance cannot start")
	if f.Recommended != "at least 102400 pages of 2.0 MiB for this SGA, plus the other instances' SGAs on the host" {
		t.Errorf("%q", f.Recommended)
	}
	h.Memory.Hugepages[0].Total = 110000
	awrOutcome(t, id, "passed", "fits in the hugepage pool", h, rac)
	h.Memory.Hugepages = nil
	absent(h, "memory.hugepages", "not present on this host")
	awrOutcome(t, id, "cannot", "memory.hugepages", h, rac)
	awrOutcome(t, id, "cannot", "no init.ora Parameters and no Memory Statistics", nil, awrTestReport(t, "sp_551_552_8174.lst"))
}
