package rules

import (
	"testing"
)

func TestMySQLFlushMethod(t *testing.T) {
	const id = "db.mysql-flush-method"
	s := liveHost(0, 0)
	d := myLive(s, "innodb_flush_method=fsync")
	if f := fires(t, id, s, WorkloadOLTP, DBMySQL); f.Recommended != "O_DIRECT" {
		t.Fatalf("%+v", f)
	}
	setLive(d, "innodb_flush_method=O_DIRECT_NO_FSYNC")
	quiet(t, id, s, WorkloadOLTP, DBMySQL)
	setLive(d, "innodb_flush_method=!not present on this server")
	if rep := run(t, id, s, WorkloadOLTP, DBMySQL); len(rep.NotApplicable) != 1 {
		t.Errorf("%+v", rep)
	}
}
