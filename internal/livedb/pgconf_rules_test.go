package livedb

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testdb"
)

// The rules on PostgreSQL's own settings against three real servers, one
// at a time, each judged on a host of 8 GiB: PostgreSQL's defaults (only
// shared_buffers' 128 MB is wrong there), the typical mistakes (fsync and
// autovacuum off, 128 MB of shared_buffers, 2000 connections, a checkpoint
// storm from max_wal_size 32 MB under a bulk load), and a tuned server
// that must raise none of them.
func TestPGConfigRulesOnRealServers(t *testing.T) {
	realServers(t)
	ids := []string{"db.pg-durability-off", "db.pg-autovacuum-off", "db.pg-shared-buffers", "db.pg-connection-memory", "db.pg-checkpoints", "db.pg-wal-buffers"}
	host := func(d snapshot.Database) *snapshot.Snapshot {
		s := flashHost(0, d)
		s.Memory.Meminfo["MemTotal"] = 8 << 20 // 8 GiB
		return s
	}
	for _, c := range []struct {
		name     string
		settings []string
		load     string // SQL run before the read
		want     map[string]string
	}{
		{"defaults", []string{"fsync=on", "shared_buffers=128MB", "max_connections=100"}, "", map[string]string{
			"db.pg-shared-buffers": "fires"}},
		{"typical mistakes", []string{"fsync=off", "autovacuum=off", "shared_buffers=128MB", "max_connections=2000",
			"max_wal_size=32MB", "checkpoint_timeout=30s"},
			"CREATE TABLE bulk AS SELECT g, repeat('x', 200) AS pad FROM generate_series(1, 1500000) g", map[string]string{
				"db.pg-durability-off": "fires", "db.pg-autovacuum-off": "fires", "db.pg-shared-buffers": "fires",
				"db.pg-connection-memory": "fires", "db.pg-checkpoints": "fires"}},
		{"tuned", []string{"fsync=on", "shared_buffers=2GB", "effective_cache_size=6GB", "max_connections=200", "work_mem=16MB",
			"max_wal_size=4GB", "checkpoint_completion_target=0.9"}, "", map[string]string{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := testdb.StartPostgres(t, testdb.PGOptions{Settings: c.settings})
			if c.load != "" {
				p.SQL(t, c.load)
			}
			d := readOne(t, Postgres, p.DSN)
			if d.Error != "" {
				t.Fatal(d.Error)
			}
			if d.Checkpoints == nil || d.Checkpoints.View != "pg_stat_bgwriter" && d.Checkpoints.View != "pg_stat_checkpointer" {
				t.Fatalf("checkpoint counters not read: %+v %s", d.Checkpoints, d.CheckpointsReason)
			}
			for _, id := range ids {
				want := c.want[id]
				if want == "" {
					want = "passed"
				}
				if got := audit(t, id, rules.DBPostgres, host(d)); !strings.HasPrefix(got, want) {
					t.Errorf("%s: %s, want %s (checkpoints %+v)", id, got, want, *d.Checkpoints)
				}
			}
		})
	}
}
