package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAIXHdiskQueueDepth(t *testing.T) {
	const id = "io.aix-hdisk-queue-depth"
	t.Run("fast storage, I/Os waiting in AIX's queue fires", func(t *testing.T) {
		s := aixHost()
		s.AIX.Disks[2].IOStat = []snapshot.AIXDiskIOStat{aixIO(true, 50, 1, 1, 0.5, 0),
			aixIO(false, 2000, 2.2, 0.4, 4.4, 0), aixIO(false, 1800, 2.0, 0.5, 3.0, 0)}
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "hdisk4:queue_depth" || !strings.Contains(f.Recommended, "queue_depth 64") ||
			!strings.Contains(f.Evidence, "avgtime 3.7 ms") || !f.RebootRequired {
			t.Fatalf("%+v", f)
		}
		if !strings.Contains(f.Fix.Runtime[0], "chdev -l hdisk4 -a queue_depth=64 -P") {
			t.Fatalf("fix %+v", f.Fix)
		}
		if rep := run(t, id, s, WorkloadOLTP, DBOracle); len(rep.Findings) != 1 {
			t.Fatalf("only hdisk4: %+v", rep.Findings)
		}
	})
	t.Run("sqfull in the intervals fires", func(t *testing.T) {
		s := aixHost()
		s.AIX.Disks[0].IOStat = []snapshot.AIXDiskIOStat{aixIO(false, 900, 1.1, 0.6, 0.2, 35)}
		if f := fires(t, id, s, WorkloadDSS, DBNone); !strings.Contains(f.Evidence, "sqfull") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("sqfull is averaged over the interval reports, not summed", func(t *testing.T) {
		// iostat -D 2 3: the since-boot report, then two interval reports of
		// 312 each: sqfull is 312 per report, never 624.
		s := aixHost()
		s.AIX.Disks[0].IOStat = []snapshot.AIXDiskIOStat{aixIO(true, 900, 1.1, 0.6, 0.2, 90000),
			aixIO(false, 900, 1.1, 0.6, 0.2, 312), aixIO(false, 900, 1.1, 0.6, 0.2, 312)}
		f := fires(t, id, s, WorkloadDSS, DBNone)
		if !strings.Contains(f.Current, "sqfull 312 ") || strings.Contains(f.Evidence, "624") || strings.Contains(f.Evidence, "90000") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("slow storage: a deeper queue would not help", func(t *testing.T) {
		s := aixHost()
		s.AIX.Disks[0].IOStat = []snapshot.AIXDiskIOStat{aixIO(false, 900, 12, 9, 6, 4)}
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("an idle disk is not judged", func(t *testing.T) {
		s := aixHost()
		s.AIX.Disks[0].IOStat = []snapshot.AIXDiskIOStat{aixIO(false, 2, 1, 1, 8, 0)}
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("healthy disks pass", func(t *testing.T) {
		if rep := quiet(t, id, aixHost(), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "4 busy disk(s)") {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("iostat -D missing: could not check", func(t *testing.T) {
		s := aixHost()
		for i := range s.AIX.Disks {
			s.AIX.Disks[i].IOStat = nil
		}
		aixAbsent(s, "aix.disks.iostat", "commands/iostat_-D_2_3", "not present on this host: iostat: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.disks.iostat: not present on this host")
	})
	t.Run("lsattr missing for a disk that queues: could not check", func(t *testing.T) {
		s := aixHost()
		for i := range s.AIX.Disks {
			s.AIX.Disks[i].QueueDepth = nil
			s.AIX.Disks[i].IOStat = []snapshot.AIXDiskIOStat{aixIO(false, 900, 1.1, 0.6, 2, 0)}
		}
		aixAbsent(s, "aix.disks.attributes", "commands/lsattr_-El_hdisk2", "failed: lsattr exited 255")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "lsattr exited 255")
	})
}
