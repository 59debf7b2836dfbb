package rules

import (
	"strings"
	"testing"
)

func TestAIXOracleRsets(t *testing.T) {
	const id = "numa.aix-oracle-rsets"
	t.Run("two SRADs, no rsets: info with mkrset per SRAD", func(t *testing.T) {
		s := aixHost()
		s.AIX.Rsets = s.AIX.Rsets[:0]
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		fix := strings.Join(f.Fix.Runtime, "\n")
		if f.Severity != SevInfo || f.Setting != "ORCL:NUMA rsets" || !strings.Contains(fix, "mkrset -c 0-15 -m 0 ORCL/0") ||
			!strings.Contains(fix, "mkrset -c 16-31 -m 0 ORCL/1") || !strings.Contains(f.Current, "no rset ORCL/0, ORCL/1") {
			t.Fatalf("%+v", f)
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
