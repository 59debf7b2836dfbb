package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPGCheckpoints(t *testing.T) {
	const id = "db.pg-checkpoints"
	s := liveHost(0, 0)
	d := pgLive(s, "max_wal_size=1024", "checkpoint_timeout=300", "checkpoint_completion_target=0.9")
	d.Setting("max_wal_size").Unit = "MB"
	d.Checkpoints = &snapshot.DBCheckpoints{View: "pg_stat_bgwriter", Timed: 40, Requested: 3, Seconds: 12000}
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// A checkpoint storm: 30 requested, 2 timed.
	setLive(d, "max_wal_size=32")
	d.Checkpoints = &snapshot.DBCheckpoints{View: "pg_stat_checkpointer", Timed: 2, Requested: 30, Seconds: 60}
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Setting != "max_wal_size" || !strings.Contains(f.Evidence, "pg_stat_checkpointer: 30 requested, 2 timed") ||
		!strings.Contains(strings.Join(f.Fix.Runtime, " "), "max_wal_size = '128MB'") || !strings.Contains(f.Why, OwnThreshold) {
		t.Fatalf("%+v", f)
	}
	// A few requested checkpoints (CHECKPOINT commands) are no storm.
	d.Checkpoints = &snapshot.DBCheckpoints{View: "pg_stat_bgwriter", Timed: 0, Requested: 4}
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// checkpoint_completion_target 0.5: info.
	setLive(d, "checkpoint_completion_target=0.5")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Severity != SevInfo || f.Setting != "checkpoint_completion_target" {
		t.Fatalf("%+v", f)
	}
	// Counters not read: could not check, with the reason.
	setLive(d, "checkpoint_completion_target=0.9")
	d.Checkpoints, d.CheckpointsReason = nil, "could not check (permission): pg_stat_bgwriter: denied (grant it pg_monitor)"
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "grant it pg_monitor")
}
