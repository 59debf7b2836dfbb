package rules

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIXOracleRsets(t *testing.T) {
	const id = "numa.aix-oracle-rsets"
	t.Run("two SRADs, no rsets: info with mkrset per SRAD", func(t *testing.T) {
		s := aixHost()
		s.AIX.Rsets = s.AIX.Rsets[:0]
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		fix := strings.Join(f.Fix.Runtime, "\n")
		if f.Severity != SevInfo || f.Setting != "ORCL:NUMA rsets" || !strings.Contains(fix, "mkrset -c 0-15 -m 0 ORCL/0\n") ||
			!strings.Contains(fix, "mkrset -c 16-31 -m 1 ORCL/1") || !strings.Contains(f.Current, "no rset ORCL/0, ORCL/1") ||
			!strings.Contains(fix, "execrset ORCL/0 -e lsnrctl start LISTENER_ORCL_0") || !strings.Contains(fix, "execrset ORCL/1 -e lsnrctl start LISTENER_ORCL_1") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("004's four SRADs: each rset its own SRAD's memory, a listener per rset", func(t *testing.T) {
		// 004, "Preparing a system for Oracle NUMA Optimization": lssrad
		// REF1 0 (SRADs 0, 1), REF1 1 (SRADs 2, 3), 32 CPUs each.
		s := aixHost()
		s.AIX.Rsets = s.AIX.Rsets[:0]
		s.AIX.SRADs = nil
		for i := 0; i < 4; i++ {
			mem := 29701.0
			cpus := make([]int, 32)
			for c := range cpus {
				cpus[c] = 32*i + c
			}
			s.AIX.SRADs = append(s.AIX.SRADs, snapshot.AIXSRAD{REF1: i / 2, SRAD: i, MemMB: &mem, CPUs: cpus})
		}
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		fix := strings.Join(f.Fix.Runtime, "\n")
		for i, c := range []string{"0-31", "32-63", "64-95", "96-127"} {
			if want := fmt.Sprintf("mkrset -c %s -m %d ORCL/%d\n", c, i, i); !strings.Contains(fix, want) {
				t.Errorf("want %q in:\n%s", want, fix)
			}
			if want := fmt.Sprintf("execrset ORCL/%d -e lsnrctl start LISTENER_ORCL_%d", i, i); !strings.Contains(fix, want) {
				t.Errorf("want %q in:\n%s", want, fix)
			}
		}
		if strings.Contains(fix, "-m 0 ORCL/1") || strings.Contains(fix, "-m 0 ORCL/3") {
			t.Errorf("every rset tied to SRAD 0's memory:\n%s", fix)
		}
	})
	t.Run("_enable_NUMA_support on without rsets: warning", func(t *testing.T) {
		s := aixHost()
		s.AIX.Rsets = s.AIX.Rsets[:1]
		init := "initORCL.ora=*._enable_NUMA_support=TRUE\n*.db_name=ORCL\n"
		fs := artFires(t, runArt(t, id, s, artSet(t, init), DBOracle))
		if fs[0].Severity != SevWarning || !strings.Contains(fs[0].Current, "no rset ORCL/1") {
			t.Fatalf("%+v", fs)
		}
	})
	t.Run("uneven SRADs: fix them first", func(t *testing.T) {
		s := aixHost()
		s.AIX.SRADs[1].MemMB = ptr(4000.0)
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Setting != "lssrad:SRAD balance" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("rsets per SRAD pass; one SRAD not applicable", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
		s := aixHost()
		s.AIX.SRADs = s.AIX.SRADs[:1]
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("lssrad missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.SRADs = nil
		aixAbsent(s, "aix.srads", "commands/lssrad_-av", "not present on this host: lssrad: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.srads: not present")
	})
}
