package rules

import (
	"strings"
	"testing"
)

func TestAIXGenericDiskODM(t *testing.T) {
	const id = "io.aix-generic-disk-odm"
	t.Run("Other FC SCSI Disk Drive at queue_depth 1 fires", func(t *testing.T) {
		s := aixHost()
		d := &s.AIX.Disks[1]
		d.Description, d.Generic, d.QueueDepth = "Other FC SCSI Disk Drive", true, ptr(int64(1))
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if !strings.Contains(f.Current, "hdisk3") || !strings.Contains(f.Current, "queue_depth 1") ||
			strings.Contains(f.Current, "hdisk2") || f.Pending != PendingManual {
			t.Fatalf("%+v", f)
		}
		if !strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "cfgmgr") || !strings.Contains(f.Risk, "varied off") {
			t.Fatalf("fix/risk: %+v %s", f.Fix, f.Risk)
		}
	})
	t.Run("the word Other in the description fires without the generic flag", func(t *testing.T) {
		s := aixHost()
		s.AIX.Disks[0].Description = "MPIO Other FC SCSI Disk Drive"
		fires(t, id, s, WorkloadOLTP, DBNone)
	})
	t.Run("vendor MPIO disks pass", func(t *testing.T) {
		if rep := quiet(t, id, aixHost(), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("lsdev -Cc disk missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.Disks = nil
		aixAbsent(s, "aix.disks", "commands/lsdev_-Cc_disk", "not present on this host: lsdev: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.disks: not present on this host")
	})
	t.Run("a Linux host: not applicable", func(t *testing.T) {
		if rep := quiet(t, id, host(), WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 ||
			!strings.Contains(rep.NotApplicable[0].Reason, "applies to AIX hosts; this host runs Linux") {
			t.Fatalf("%+v", rep)
		}
	})
}
