package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestIORotationalFlag(t *testing.T) {
	const id = "io.rotational-flag"
	// Issue 26: a LUN that says rotational=1 and names no flash (000's
	// all-flash 3PAR: vendor 3PARdata, model VV) may be flash: no pass.
	cannot(t, id, sanHost(), WorkloadOLTP, DBOracle, "dm-0 (dm, rotational=1")
	s := sanHost()
	for _, n := range []string{"sdb", "sdc"} {
		dev(t, s, n).Vendor, dev(t, s, n).Model = "3PARdata", "VV"
	}
	cannot(t, id, s, WorkloadOLTP, DBOracle, "not visible from the host")

	// Every device reports 0: a pass that names them.
	s = sanHost()
	for _, n := range []string{"sda", "sdb", "sdc", "dm-0"} {
		dev(t, s, n).Rotational = ptr(false)
	}
	rep := quiet(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Evidence, "/sys/block/dm-0/queue/rotational = 0") {
		t.Fatalf("passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
	}

	s = sanHost()
	d := dev(t, s, "sda")
	d.Rotational, d.Vendor, d.Model = ptr(true), "HPE", "MO003200JWFWR SSD"
	wantChange(t, fires(t, id, s, WorkloadOLTP, DBOracle), change.Sysfs, "/sys/block/sda/queue/rotational", "0", "1")
	if f := fires(t, id, s, WorkloadOLTP, DBOracle); f.Setting != "/sys/block/sda/queue/rotational" || !strings.Contains(f.Why, "very little improvement") {
		t.Fatalf("%+v", f)
	}

	s = sanHost()
	dev(t, s, "dm-0").Rotational = ptr(false)
	rep = run(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 1 || rep.Findings[0].Setting != "/sys/block/{sdb,sdc}/queue/rotational" ||
		!strings.Contains(rep.Findings[0].Evidence, "multipath device dm-0 says 0") {
		t.Fatalf("%+v", rep.Findings)
	}

	s = sanHost()
	s.Storage.Devices = s.Storage.Devices[3:4]
	s.Storage.Devices[0].Rotational = nil
	absent(s, "storage.devices[sda].rotational", "no such file")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "no such file")
}
