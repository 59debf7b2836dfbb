package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIOMaxSectorsMultipath(t *testing.T) {
	const id = "io.max-sectors-multipath"
	quiet(t, id, sanHost(), WorkloadOLTP, DBOracle)

	t.Run("a path below its dm device fails I/O", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "sdc").MaxSectorsKB = i64(256)
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		wantChange(t, f, change.Sysfs, "/sys/block/dm-0/queue/max_sectors_kb", "256", "-")
		if f.Severity != SevWarning || !strings.Contains(f.Current, "256 on path(s) sdc") || len(f.Fix.Runtime) != 3 ||
			!strings.Contains(f.Fix.Runtime[2], "echo 256 > /sys/block/dm-0/queue/max_sectors_kb") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("dss: 1 MB over 2 paths", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "dm-0").MaxSectorsKB = i64(1024)
		for _, n := range []string{"sdb", "sdc"} {
			dev(t, s, n).MaxSectorsKB = i64(1024)
		}
		f := fires(t, id, s, WorkloadDSS, DBOracle)
		if f.Severity != SevInfo || !strings.HasPrefix(f.Recommended, "512 ") || !strings.Contains(f.Why, "eight paths") {
			t.Fatalf("%+v", f)
		}
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("no multipath", func(t *testing.T) {
		s := sanHost()
		s.Storage.Devices = s.Storage.Devices[1:4]
		rep := quiet(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.NotApplicable) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("absent", func(t *testing.T) {
		s := sanHost()
		dev(t, s, "dm-0").MaxSectorsKB = nil
		absent(s, "storage.devices[dm-0].max_sectors_kb", "permission denied")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
	})
}
