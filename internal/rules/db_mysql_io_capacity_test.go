package rules

import (
	"strings"
	"testing"
)

func TestMySQLIOCapacity(t *testing.T) {
	const id = "db.mysql-io-capacity"
	s := liveHost(0, 0)
	d := myLive(s, "innodb_io_capacity=5000") // on the rotating sda
	fires(t, id, s, WorkloadOLTP, DBMySQL)
	setLive(d, "innodb_io_capacity=200")
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
	d.DataDirectory = "/srv/pg/mysql" // NVMe
	if f := fires(t, id, s, WorkloadOLTP, DBMySQL); !strings.HasPrefix(f.Recommended, "1000") {
		t.Fatalf("%+v", f)
	}
	// Issue 26: 20000 on a virtio disk, which db.pg-random-page-cost cannot
	// classify: could not check, not a pass; 500 fits either class.
	withVirtioDisk(s)
	d.DataDirectory = "/srv/vd/mysql"
	setLive(d, "innodb_io_capacity=20000")
	cannot(t, id, s, WorkloadOLTP, DBMySQL, "whether that storage is flash is not visible")
	setLive(d, "innodb_io_capacity=500")
	if rep := quiet(t, id, s, WorkloadOLTP, DBMySQL); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Evidence, "innodb_io_capacity = 500") {
		t.Fatalf("passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
	}
}
