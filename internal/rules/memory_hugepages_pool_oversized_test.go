package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestHugepagesPoolOversized(t *testing.T) {
	const id = "memory.hugepages-pool-oversized"
	// 000's example: 1,536,000 pages, the SGA expects 1,077,250.
	fs := artFires(t, runArt(t, id, hugeHost(1536000, 458750), artSet(t, "alert_ORCL.log"), DBOracle))
	f := fs[0]
	wantChange(t, f, change.Sysctl, "vm.nr_hugepages", "1077250", "-")
	if f.Severity != SevInfo || !strings.Contains(f.Current, "1536000 pages of 2.0 MiB; the SGAs given expect 1077250: 458750 pages") ||
		!strings.Contains(f.Evidence, "alert_ORCL.log:78: ORCL SGA dump") || f.Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=1077250" {
		t.Fatalf("%+v", f)
	}
	// The surplus is in use by something else (few free pages): no finding.
	artQuiet(t, runArt(t, id, hugeHost(1536000, 1000), artSet(t, "alert_ORCL.log"), DBOracle), "passed")
	// Without the host's pool, the dump's AVAILABLE_PAGES is used.
	s := host()
	absent(s, "memory.hugepages", "no hugetlbfs")
	fs = artFires(t, runArt(t, id, s, artSet(t, "alert_ORCL.log"), DBOracle))
	if !strings.Contains(fs[0].Evidence, "AVAILABLE_PAGES") {
		t.Fatalf("%+v", fs[0])
	}
	// A pool the size of the SGA: passes.
	artQuiet(t, runArt(t, id, hugeHost(1100000, 22750), artSet(t, "alert_ORCL.log"), DBOracle), "passed")
	// No SGA dump (11.2 log without one): cannot check; no alert log: n/a.
	artQuiet(t, runArt(t, id, hugeHost(1000, 1000), artSet(t, "alert_X.log=Starting ORACLE instance (normal)\nNUMA system with 2 nodes detected\n"), DBOracle), "cannot")
	artQuiet(t, runArt(t, id, host(), nil, DBOracle), "n/a")
}
