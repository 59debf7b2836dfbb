package rules

import (
	"testing"
)

func TestPGAutovacuumOff(t *testing.T) {
	const id = "db.pg-autovacuum-off"
	s := liveHost(0, 0)
	d := pgLive(s, "autovacuum=on", "track_counts=on")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	setLive(d, "autovacuum=off")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Severity != SevWarning || f.Setting != "autovacuum" {
		t.Fatalf("%+v", f)
	}
	setLive(d, "autovacuum=on", "track_counts=off")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Setting != "track_counts" {
		t.Fatalf("%+v", f)
	}
	setLive(d, "track_counts=on", "autovacuum=!not present on this server")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "autovacuum: not present")
}
