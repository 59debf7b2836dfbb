package rules

import (
	"strings"
	"testing"
)

func TestPGWALSameDevice(t *testing.T) {
	const id = "db.pg-wal-same-device"
	s := liveHost(0, 0)
	d := pgLive(s)
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Current, "nvme0n1") {
		t.Fatalf("%+v", f)
	}
	d.WALDirectory, d.WALResolved = "/srv/wal/pg_wal", "pg_wal (/srv/pg/data/pg_wal) is a symlink to /srv/wal/pg_wal"
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	d.WALDirectory, d.WALResolved = "", "could not check (permission): lstat /srv/pg/data/pg_wal: permission denied"
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "could not check (permission)")
}
