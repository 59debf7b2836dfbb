package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIXSMTMode(t *testing.T) {
	const id = "cpu.aix-smt-mode"
	t.Run("SMT off on POWER7: warning", func(t *testing.T) {
		s := aixHost()
		s.AIX.SMT.Enabled = ptr(false)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Severity != SevWarning || f.Current != "SMT1 on POWER7" || f.Fix.Runtime[0] != "smtctl -t 4 -w now   # at once" ||
			!strings.Contains(f.Risk, "DB Console") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("SMT2 on POWER8: info", func(t *testing.T) {
		s := aixHost()
		s.AIX.Prtconf.ProcessorType, s.AIX.Prtconf.ImplementationMode = "PowerPC_POWER8", "POWER 8"
		s.AIX.SMT.MaxThreads = ptr(8)
		s.AIX.SMT.Procs = []snapshot.AIXSMTProc{{Name: "proc0", Threads: 2}}
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Severity != SevInfo || !strings.Contains(f.Why, "SMT8") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("SMT4 passes; POWER6 not applicable", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
		s := aixHost()
		s.AIX.Prtconf.ProcessorType, s.AIX.Prtconf.ImplementationMode = "PowerPC_POWER6", "POWER 6"
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("prtconf missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Prtconf = nil
		aixAbsent(s, "aix.prtconf", "commands/prtconf", "not present in the bundle")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.prtconf")
	})
}
