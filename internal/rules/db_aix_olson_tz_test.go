package rules

import (
	"strings"
	"testing"
)

func TestAIXOlsonTZ(t *testing.T) {
	const id = "db.aix-olson-tz"
	t.Run("Olson TZ on AIX 6.1 fires a warning with the POSIX form", func(t *testing.T) {
		s := aixHost()
		s.AIX.OSLevel = ptr("6100-09-12-1846")
		s.AIX.TZ = ptr("Europe/Berlin")
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Severity != SevWarning || !strings.Contains(f.Recommended, "TZ=CET-1CEST,M3.5.0,M10.5.0/3") ||
			f.Pending != PendingRestart || !strings.Contains(f.Evidence, "AIX 6.1 TL9 SP12") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("Olson TZ on AIX 7.1: info", func(t *testing.T) {
		s := aixHost()
		s.AIX.TZ = ptr("Asia/Ulaanbaatar")
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Severity != SevInfo || !strings.Contains(f.Recommended, "POSIX form for Asia/Ulaanbaatar") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("POSIX TZ and no TZ pass", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
		for _, tz := range []string{"", "MET-1MST-2,M3.5.0/02:00,M10.5.0/03:00", "<+08>-8", "IST-5:30"} {
			s := aixHost()
			s.AIX.TZ = ptr(tz)
			quiet(t, id, s, WorkloadOLTP, DBOracle)
		}
	})
	t.Run("no tz in meta: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.TZ = nil
		aixAbsent(s, "aix.tz", "meta", "not present in the bundle: meta has no tz: line")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.tz")
	})
}
