package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIXFCNumCmdElems(t *testing.T) {
	const id = "io.aix-fc-num-cmd-elems"
	t.Run("No Command Resource Count above 0 fires a warning", func(t *testing.T) {
		s := aixHost()
		s.AIX.FCAdapters[1].NoCommandResourceCount = ptr(int64(5021))
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "fcs1:num_cmd_elems" || f.Severity != SevWarning || !strings.Contains(f.Recommended, "num_cmd_elems 2048") ||
			!strings.Contains(f.Evidence, "No Command Resource Count 5021") {
			t.Fatalf("%+v", f)
		}
		if !strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "chdev -l fcs1 -a num_cmd_elems=2048 -P") {
			t.Fatalf("fix %+v", f.Fix)
		}
	})
	t.Run("below the sum of queue depths over the HBAs: info", func(t *testing.T) {
		s := aixHost()
		for i := range s.AIX.Disks {
			s.AIX.Disks[i].QueueDepth = ptr(int64(256)) // 4 x 256 / 2 = 512 per adapter
		}
		s.AIX.FCAdapters[0].NumCmdElems = ptr(int64(200))
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "fcs0:num_cmd_elems" || f.Severity != SevInfo || !strings.Contains(f.Recommended, "num_cmd_elems 512") ||
			!strings.Contains(f.Evidence, "adding up to 1024 over 2 available adapter(s): 512 per adapter") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("counter at 0 and queues within the rule of thumb pass", func(t *testing.T) {
		if rep := quiet(t, id, aixHost(), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("no FC adapter: not applicable", func(t *testing.T) {
		s := aixHost()
		s.AIX.FCAdapters = []snapshot.AIXFCAdapter{}
		if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("lsdev -Cc adapter missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.FCAdapters = nil
		aixAbsent(s, "aix.fc_adapters", "commands/lsdev_-Cc_adapter", "not present on this host: lsdev: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.fc_adapters: not present")
	})
	t.Run("lsattr of the adapter missing: could not check", func(t *testing.T) {
		s := aixHost()
		for i := range s.AIX.FCAdapters {
			s.AIX.FCAdapters[i].NumCmdElems = nil
		}
		aixAbsent(s, "aix.fc_adapters.attributes", "commands/lsattr_-El_fcs0", "failed: lsattr exited 255")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "num_cmd_elems")
	})
}
