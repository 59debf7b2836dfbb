package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIOCacheType(t *testing.T) {
	const id = "io.cache-type-write-through"
	t.Run("flushes suppressed on a local write-back disk is critical", func(t *testing.T) {
		s := sanHost()
		s.Storage.Devices = s.Storage.Devices[3:4] // sda
		s.Storage.Devices[0].WriteCache = ptr("write through")
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if c := wantChange(t, f, change.Sysfs, "/sys/block/sda/queue/write_cache", "write back", "write through"); c.Risk != "" {
			t.Fatalf("restoring flushes is not risky: %+v", c)
		}
		if f.Severity != SevCritical || f.Setting != "/sys/block/sda/queue/write_cache" || !strings.Contains(f.Why, "data loss") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("SAN paths advertising write back: info with a risky fix", func(t *testing.T) {
		s := sanHost()
		rep := run(t, id, s, WorkloadOLTP, DBOracle)
		if len(rep.Findings) != 1 { // the two paths of dm-0 are one finding
			t.Fatalf("%+v", rep.Findings)
		}
		f := rep.Findings[0]
		for _, d := range []string{"sdb", "sdc"} {
			if c := wantChange(t, f, change.Sysfs, "/sys/block/"+d+"/device/scsi_disk/*/cache_type", "temporary write through", "-"); !strings.Contains(c.Risk, "data loss") {
				t.Fatalf("write-through must quote the warning: %+v", c)
			}
		}
		if f.Setting != "/sys/block/{sdb,sdc}/device/scsi_disk/*/cache_type" || !strings.HasPrefix(f.Evidence, "2 paths of multipath device dm-0") ||
			len(f.Fix.Runtime) != 4 {
			t.Fatalf("%+v", f)
		}
		if f.Severity != SevInfo || !strings.HasPrefix(f.Risk, "RISKY") || !strings.Contains(f.Fix.Runtime[0], "RISKY") ||
			!strings.Contains(f.Fix.Runtime[0], "temporary write through") || len(f.Fix.Edits) != 1 || f.Fix.Edits[0].File != UdevBlockRules || !strings.HasPrefix(f.Fix.Edits[0].Edit, "RISKY: add ACTION==") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("write through arrays and local write-back disks are fine", func(t *testing.T) {
		s := sanHost()
		for _, n := range []string{"sdb", "sdc"} {
			d := dev(t, s, n)
			d.CacheType, d.WriteCache = ptr("write through"), ptr("write through")
		}
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("absent", func(t *testing.T) {
		s := sanHost()
		s.Storage.Devices = s.Storage.Devices[3:4]
		s.Storage.Devices[0].CacheType = nil
		absent(s, "storage.devices[sda].cache_type", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "not present")
	})
}
