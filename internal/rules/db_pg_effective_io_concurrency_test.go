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
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
}
