package rules

import (
	"strings"
	"testing"
)

func TestAIXHWPrefetch(t *testing.T) {
	const id = "cpu.aix-hw-prefetch"
	t.Run("a Power 795 running Oracle: info", func(t *testing.T) {
		s := aixHost()
		s.AIX.Prtconf.SystemModel = "IBM,9119-FHB"
		s.AIX.LPAR.PhysicalCPUsInSystem = ptr(256)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Severity != SevInfo || !strings.Contains(f.Evidence, "256 active physical CPUs") ||
			!strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "dscrctl -n -b -s 1") || !strings.Contains(f.Current, "dscrctl -q is not in the bundle") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("a Power 750: not applicable", func(t *testing.T) {
		if rep := quiet(t, id, aixHost(), WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("lparstat and prtconf missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.LPAR, s.AIX.Prtconf = nil, nil
		aixAbsent(s, "aix.lpar", "commands/lparstat_-i", "not present on this host: lparstat: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.lpar")
	})
}
