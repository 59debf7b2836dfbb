package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIOScheduler(t *testing.T) {
	const id = "io.scheduler"
	quiet(t, id, sanHost(), WorkloadOLTP, DBOracle)

	t.Run("bfq on the multipath LUN is a warning with a udev fix", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "dm-0").Scheduler = ptr("bfq")
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if c := wantChange(t, f, change.Sysfs, "/sys/block/dm-0/queue/scheduler", "mq-deadline", "bfq"); c.Match != `KERNEL=="dm-*", ENV{DM_UUID}=="mpath-*"` {
			t.Fatalf("%+v", c)
		}
		if f.Severity != SevWarning || f.Setting != "/sys/block/dm-0/queue/scheduler" || f.Recommended != "mq-deadline" ||
			!strings.Contains(f.Evidence, "sdb,sdc") || !strings.Contains(f.Fix.Edits[0].String(), "edit "+UdevBlockRules+`: add ACTION=="add|change"`) || !strings.Contains(f.Fix.Edits[0].Edit, `ATTR{queue/scheduler}="mq-deadline"`) ||
			!strings.Contains(f.Why, "8 %") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("paths of a multipath device and loop devices are not judged", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "sdb").Scheduler = ptr("bfq")
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("bio-based multipath: the paths' elevator counts", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "dm-0").Scheduler = nil
		dev(t, s, "sdb").Scheduler = ptr("bfq")
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Setting != "/sys/block/sdb/queue/scheduler" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("LUNs of one class with the same scheduler are one finding", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "dm-0").Scheduler = ptr("bfq")
		dm1 := *dev(t, s, "dm-0")
		dm1.Name, dm1.DMName, dm1.Slaves = "dm-1", "mpathb", nil
		s.Storage.Devices = append(s.Storage.Devices, dm1)
		rep := run(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.Findings) != 1 || rep.Findings[0].Setting != "/sys/block/{dm-0,dm-1}/queue/scheduler" ||
			!strings.HasPrefix(rep.Findings[0].Evidence, "2 multipath devices: ") || len(rep.Findings[0].Fix.Runtime) != 2 {
			t.Fatalf("%+v", rep.Findings)
		}
	})
	t.Run("legacy cfq → deadline", func(t *testing.T) {
		s := sanHost()
		d := dev(t, s, "sda")
		d.Scheduler, d.Schedulers = ptr("cfq"), []string{"noop", "deadline", "cfq"}
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Recommended != "deadline" || f.Current != "cfq" {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("mq-deadline on NVMe is info → none", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "nvme0n1").Scheduler = ptr("mq-deadline")
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Recommended != "none" || f.Severity != SevInfo {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("absent scheduler", func(t *testing.T) {
		s := sanHost()
		s.Storage.Devices = s.Storage.Devices[2:4] // nvme0n1, sda
		dev(t, s, "sda").Scheduler = nil
		dev(t, s, "nvme0n1").Scheduler = nil
		absent(s, "storage.devices[sda].scheduler", "permission denied")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
	})
}
