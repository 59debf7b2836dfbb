package rules

import (
	"strings"
	"testing"
)

func TestPGEffectiveIOConcurrency(t *testing.T) {
	const id = "db.pg-effective-io-concurrency"
	s := liveHost(0, 0)
	d := pgLive(s)
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Recommended != "200" {
		t.Fatalf("%+v", f)
	}
	d.DataDirectory = "/san/pg"
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); !strings.Contains(f.Recommended, "drives behind the LUN") {
		t.Fatalf("%+v", f)
	}
	d.DataDirectory = "/srv/disk/pg"
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	d.DataDirectory = "/srv/pg/data"
	setLive(d, "effective_io_concurrency=200")
	rep := quiet(t, id, s, WorkloadOLTP, DBPostgres)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Evidence, "effective_io_concurrency = 200") {
		t.Fatalf("passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
	}
	// Issue 26: 0 on a virtio disk, which db.pg-random-page-cost cannot
	// classify: the same could not check, not a pass.
	withVirtioDisk(s)
	d.DataDirectory = "/srv/vd/pg"
	setLive(d, "effective_io_concurrency=0", "random_page_cost=4")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "whether that storage is flash is not visible")
	cannot(t, "db.pg-random-page-cost", s, WorkloadOLTP, DBPostgres, "whether that storage is flash is not visible")
	// 200 there: no class asks for more, a pass.
	setLive(d, "effective_io_concurrency=200")
	if rep := quiet(t, id, s, WorkloadOLTP, DBPostgres); len(rep.Passed) != 1 {
		t.Fatalf("passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
	}
}
