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
}
