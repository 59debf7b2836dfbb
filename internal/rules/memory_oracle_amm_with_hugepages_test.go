package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// hugeHost is host() with a 2 MB pool of total pages, free of them free.
func hugeHost(total, free int64) *snapshot.Snapshot {
	s := host()
	s.Memory.Hugepages = []snapshot.Hugepages{{SizeKB: 2048, Total: total, Free: free, Default: true}}
	return s
}

func TestOracleAMMWithHugepages(t *testing.T) {
	const id = "memory.oracle-amm-with-hugepages"
	// CDB2: memory_target 12G, memory_max_target 16G, on a host with a pool.
	fs := artFires(t, runArt(t, id, hugeHost(8192, 8192), artSet(t, "initCDB2.ora"), DBOracle))
	f := fs[0]
	if len(fs) != 1 || f.Setting != "oracle:memory_target" || !strings.HasPrefix(f.Current, "12.0 GiB for instance CDB2") ||
		!strings.Contains(f.Evidence, "initCDB2.ora:3: memory_target = 12G") || !strings.Contains(f.Evidence, "initCDB2.ora:4") ||
		!strings.Contains(f.Fix.Persistent[0], "RESET memory_target SCOPE=SPFILE") {
		t.Fatalf("%+v", f)
	}
	// Asked for large pages (use_large_pages=TRUE) even without a pool: fires.
	artFires(t, runArt(t, id, hugeHost(0, 0), artSet(t, "initCDB2.ora"), DBOracle))
	// No pool and large pages not asked for: nothing to waste.
	artQuiet(t, runArt(t, id, hugeHost(0, 0), artSet(t, "initX.ora=*.memory_target=4G\n"), DBOracle), "passed")
	// ASMM (sga_target) with a pool: fine.
	artQuiet(t, runArt(t, id, hugeHost(8192, 0), artSet(t, "initCDB1.ora"), DBOracle), "passed")
	// memory_max_target alone does not turn AMM on.
	artQuiet(t, runArt(t, id, hugeHost(8192, 0), artSet(t, "initM.ora=*.memory_max_target=16G\n*.sga_target=8G\n"), DBOracle), "passed")
	artQuiet(t, runArt(t, id, host(), nil, DBOracle), "n/a")
}
