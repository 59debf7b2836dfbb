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
	t.Run("the old HACMP 33/24 on a host without PowerHA: warning, the defaults", func(t *testing.T) {
		s := aixHost()
		set(s, 33, 24)
		f := fires(t, id, s, WorkloadDSS, DBOracle)
		if f.Severity != SevWarning || f.Current != "maxpout 33, minpout 24" || !strings.Contains(f.Why, "109.64 MB/s") ||
			len(f.Fix.Runtime) != 1 || !strings.Contains(f.Fix.Runtime[0], "chdev -l sys0 -a maxpout=8193 -a minpout=4096") ||
			!strings.Contains(f.Evidence, "no PowerHA (the clstrmgrES subsystem is not on file)") || !strings.Contains(f.Risk, "runs no cluster") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("33/24 on a PowerHA cluster node: warning, 513/256", func(t *testing.T) {
		s := aixHost()
		set(s, 33, 24)
		s.AIX.PowerHA = &snapshot.AIXPowerHA{Installed: true, State: "ST_STABLE", ClusterNode: true}
		f := fires(t, id, s, WorkloadDSS, DBOracle)
		if f.Severity != SevWarning || len(f.Fix.Runtime) != 1 || !strings.Contains(f.Fix.Runtime[0], "chdev -l sys0 -a maxpout=513 -a minpout=256") ||
			!strings.Contains(f.Evidence, "PowerHA cluster node, cluster manager ST_STABLE") || !strings.Contains(f.Risk, "don't change that parameters yet") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("513/256 and above on a PowerHA node (services stopped): passed", func(t *testing.T) {
		s := aixHost()
		set(s, 1025, 512)
		s.AIX.PowerHA = &snapshot.AIXPowerHA{Installed: true, State: "ST_INIT", ClusterNode: true}
		if rep := quiet(t, id, s, WorkloadDSS, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "PowerHA cluster node") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("PowerHA installed, no cluster defined: the defaults", func(t *testing.T) {
		s := aixHost()
		set(s, 33, 24)
		s.AIX.PowerHA = &snapshot.AIXPowerHA{Installed: true, State: "NOT_CONFIGURED"}
		if f := fires(t, id, s, WorkloadDSS, DBOracle); !strings.Contains(f.Fix.Runtime[0], "maxpout=8193") || !strings.Contains(f.Evidence, "no cluster defined") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("PowerHA not known (lssrc missing from the bundle): both fixes", func(t *testing.T) {
		s := aixHost()
		set(s, 33, 24)
		s.AIX.PowerHA = nil
		aixAbsent(s, "aix.powerha", "commands/lssrc_-ls_clstrmgrES", "not present in the bundle")
		f := fires(t, id, s, WorkloadDSS, DBOracle)
		fix := strings.Join(f.Fix.Runtime, "\n")
		if !strings.Contains(fix, "lssrc -ls clstrmgrES") || !strings.Contains(fix, "maxpout=8193") || !strings.Contains(fix, "maxpout=513") ||
			!strings.Contains(f.Evidence, "PowerHA not known (aix.powerha: not present in the bundle") {
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
	t.Run("redo on cio is not paced (004)", func(t *testing.T) {
		s := aixHost()
		set(s, 33, 24)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if strings.Contains(f.Why, "a redo, archive or RMAN stream stalls") || !strings.Contains(f.Why, "Redo on a cio mount") || !strings.Contains(f.Why, "not paced") {
			t.Fatalf("why: %s", f.Why)
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
