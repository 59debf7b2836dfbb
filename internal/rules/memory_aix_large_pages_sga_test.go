package rules

import (
	"strings"
	"testing"
)

func TestAIXLargePagesSGA(t *testing.T) {
	const id = "memory.aix-large-pages-sga"
	t.Run("Oracle runs, the 16 MB pool is empty: sized from the SGA", func(t *testing.T) {
		s := aixHost()
		s.AIX.PagePools = s.AIX.PagePools[:2]
		s.AIX.Tunables.VMO["lgpg_regions"] = aixTun(0)
		init := "initORCL.ora=*.sga_max_size=20G\n*.sga_target=20G\n*.db_name=ORCL\n"
		fs := artFires(t, runArt(t, id, s, artSet(t, init), DBOracle))
		f := fs[0]
		if f.Setting != "vmo:lgpg_regions" || f.Recommended != "lgpg_regions 1280 (the SGA in 16 MB pages)" || !f.RebootRequired ||
			!strings.Contains(f.Fix.Runtime[0], "vmo -r -o lgpg_regions=1280 -o lgpg_size=16777216") ||
			!strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "export ORACLE_SGA_PGSZ=16M") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("the oracle user lacks CAP_BYPASS_RAC_VMM", func(t *testing.T) {
		s := aixHost()
		s.AIX.Users[0].Capabilities = []string{"CAP_PROPAGATE"}
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Setting != "lsuser:oracle capabilities" || f.Pending != PendingRestart {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("a pool nothing uses: info", func(t *testing.T) {
		s := aixHost()
		s.AIX.PagePools[2].Inuse = ptr(int64(0))
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Severity != SevInfo || f.Setting != "ORACLE_SGA_PGSZ" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("the SGA in the pool passes; no Oracle: not applicable", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
		s := aixHost()
		s.AIX.Processes = s.AIX.Processes[:0]
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("issue 26: the 16 MB pool shown as -, none in use, vmo and lsuser unread: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.PagePools[2].PoolSize, s.AIX.PagePools[2].Inuse, s.AIX.PagePools[2].Pin = nil, ptr(int64(0)), ptr(int64(0))
		s.AIX.Tunables.VMO, s.AIX.Users = nil, nil
		aixAbsent(s, "aix.tunables.vmo", "commands/vmo_-a", "permission denied")
		aixAbsent(s, "aix.users", "commands/lsuser", "permission denied")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "svmon -G shows it as -")
		// lsuser unread, a pool of 1024 pages whose use svmon does not count: could not check.
		s = aixHost()
		s.AIX.PagePools[2].Inuse, s.AIX.Users = nil, nil
		aixAbsent(s, "aix.users", "commands/lsuser", "permission denied")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "capabilities unknown")
		// The pool in use: a pass that names it.
		s.AIX.PagePools[2].Inuse = ptr(int64(4194304))
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Evidence, "16 MB pages in use 4194304") {
			t.Fatalf("passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
		}
	})
	t.Run("svmon and vmo missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.PagePools, s.AIX.Tunables.VMO = nil, nil
		aixAbsent(s, "aix.page_pools", "commands/svmon_-G", "permission denied (run as root)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.page_pools: permission denied")
	})
}
