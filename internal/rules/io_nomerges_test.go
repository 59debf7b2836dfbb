package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestIONomerges(t *testing.T) {
	const id = "io.nomerges"
	// dm-0 (multipath LUN) carries no filesystem: an ASM disk.
	s := sanHost()
	f := fires(t, id, s, WorkloadOLTP, DBOracle)
	if c := wantChange(t, f, change.Sysfs, f.Setting, "1", "0"); c.Device == "" || c.Match == "" {
		t.Fatalf("%+v", c)
	}
	if f.Setting != "/sys/block/dm-0/queue/nomerges" || f.Recommended != "1" || !strings.Contains(f.Evidence, "paths sdb,sdc") {
		t.Fatalf("%+v", f)
	}
	if rep := run(t, id, s, WorkloadOLTP, DBOracle); len(rep.Findings) != 1 {
		t.Fatalf("only the raw multipath device: %+v", rep.Findings)
	}
	dev(t, s, "dm-0").Nomerges = i64(1)
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	// The LUN under LVM with a mounted filesystem: 0 is right.
	s = sanHost()
	dev(t, s, "dm-0").Holders = []string{"dm-1"}
	s.Storage.Devices = append(s.Storage.Devices, snapshot.BlockDevice{Name: "dm-1", Kind: "dm", DMName: "vg_u01-lv_u01", Slaves: []string{"dm-0"}})
	s.Storage.Mounts = append(s.Storage.Mounts, snapshot.Mount{Device: "/dev/mapper/vg_u01-lv_u01", Path: "/u01", FSType: "xfs"})
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	// DSS and non-Oracle: not applicable.
	if rep := quiet(t, id, sanHost(), WorkloadDSS, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal(rep)
	}
	quiet(t, id, sanHost(), WorkloadOLTP, DBPostgres)

	s = sanHost()
	s.Storage.Mounts = []snapshot.Mount{}
	absent(s, "storage.mounts", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
}

func TestIONomergesUnresolvedMount(t *testing.T) {
	// / on an LVM volume whose dm device is not in the snapshot (sosreport):
	// the local disk may hold it, so it is not taken as raw; the multipath LUN still is.
	s := sanHost()
	s.Storage.Mounts[0].Device = "/dev/mapper/rhel-root"
	s.Storage.Devices = append(s.Storage.Devices, disk("sdd", false, "mq-deadline"))
	rep := run(t, "io.nomerges", s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 1 || rep.Findings[0].Setting != "/sys/block/dm-0/queue/nomerges" {
		t.Fatalf("%+v", rep.Findings)
	}
}
