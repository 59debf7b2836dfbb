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
			!strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "dscrctl -n -b -s 1") || f.Current != "hardware prefetch on, depth 5 (os_default_pd 0x0 (DPFD_DEFAULT), platform_default_pd 0x5 (DPFD_DEEP))" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("a Power 795 with prefetch off (dscrctl -s 1): passed", func(t *testing.T) {
		s := aixHost()
		s.AIX.LPAR.PhysicalCPUsInSystem = ptr(256)
		s.AIX.DSCR.OSDefaultPD, s.AIX.DSCR.OSDefaultPDName, s.AIX.DSCR.PrefetchDepth, s.AIX.DSCR.PrefetchOff = ptr(int64(1)), "DPFD_NONE", ptr(1), ptr(true)
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "os_default_pd 0x1 (DPFD_NONE)") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("a Power 795, dscrctl -q not in the bundle: info, with the reason", func(t *testing.T) {
		s := aixHost()
		s.AIX.LPAR.PhysicalCPUsInSystem = ptr(256)
		s.AIX.DSCR = nil
		aixAbsent(s, "aix.dscr", "commands/dscrctl_-q", "not present in the bundle")
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if !strings.Contains(f.Current, "not known (aix.dscr: not present in the bundle") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("a Power 795 without dscrctl (AIX 6.1 TL5): not applicable", func(t *testing.T) {
		s := aixHost()
		s.AIX.LPAR.PhysicalCPUsInSystem = ptr(256)
		s.AIX.DSCR = nil
		aixAbsent(s, "aix.dscr", "commands/dscrctl_-q", "not present on this host: dscrctl: command not found (exit 127)")
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
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
