package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIXIOPacing(t *testing.T) {
	const id = "io.aix-io-pacing"
	set := func(s *snapshot.Snapshot, maxp, minp int64) {
		s.AIX.Sys0["maxpout"] = snapshot.AIXAttr{Value: "x", Kind: "number", Number: &maxp}
		s.AIX.Sys0["minpout"] = snapshot.AIXAttr{Value: "x", Kind: "number", Number: &minp}
	}
	t.Run("the old HACMP 33/24 fires a warning", func(t *testing.T) {
		s := aixHost()
		set(s, 33, 24)
		f := fires(t, id, s, WorkloadDSS, DBOracle)
		if f.Severity != SevWarning || f.Current != "maxpout 33, minpout 24" || !strings.Contains(f.Why, "109.64 MB/s") ||
			!strings.Contains(f.Fix.Runtime[0], "chdev -l sys0 -a maxpout=8193 -a minpout=4096") || !strings.Contains(f.Risk, "PowerHA") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("between 513 and the default: info", func(t *testing.T) {
		s := aixHost()
		set(s, 1025, 512)
		if f := fires(t, id, s, WorkloadDSS, DBOracle); f.Severity != SevInfo {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("defaults pass; pacing off passes", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadDSS, DBOracle)
		s := aixHost()
		set(s, 0, 0)
		quiet(t, id, s, WorkloadDSS, DBOracle)
	})
	t.Run("lsattr -El sys0 missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Sys0 = nil
		aixAbsent(s, "aix.sys0", "commands/lsattr_-El_sys0", "not present in the bundle")
		cannot(t, id, s, WorkloadDSS, DBOracle, "aix.sys0: not present in the bundle")
	})
}
