package rules

import (
	"strings"
	"testing"
)

func TestPGRandomPageCost(t *testing.T) {
	const id = "db.pg-random-page-cost"
	s := liveHost(0, 0)
	pgLive(s) // 4 on NVMe (LVM)
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Recommended != "1.1" || !strings.Contains(f.Evidence, "dm-0 on nvme0n1, nvme") {
		t.Fatalf("%+v", f)
	}
	setLive(&s.Databases[0], "random_page_cost=1.1")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// 1.1 on a rotating disk: fires; 4 there: quiet.
	s = liveHost(0, 0)
	d := pgLive(s, "random_page_cost=1.1")
	d.DataDirectory = "/srv/disk/pg"
	fires(t, id, s, WorkloadOLTP, DBPostgres)
	setLive(d, "random_page_cost=4")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// A SAN LUN: could not check. A remote server: could not check. No rights on data_directory: could not check.
	d.DataDirectory = "/san/pg"
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "multipath")
	d.Local = false
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "not on this host")
	d.Local, d.DataDirectory = true, ""
	setLive(d, "data_directory=!could not check (permission): must be superuser")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "could not check (permission)")
}
