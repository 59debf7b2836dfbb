package rules

import (
	"strings"
	"testing"
)

func TestPGWALBuffers(t *testing.T) {
	const id = "db.pg-wal-buffers"
	s := liveHost(0, 0)
	// 4 GiB shared_buffers: auto-tuning 16 MB (one segment); wal_buffers 2048 × 8kB = 16 MB: quiet.
	d := pgLive(s, "wal_segment_size=16777216")
	d.Setting("wal_segment_size").Unit = "B"
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// Set to 64 kB by hand: info, back to -1.
	setLive(d, "wal_buffers=8")
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Severity != SevInfo || !strings.Contains(f.Recommended, "16.0 MiB") || !strings.Contains(strings.Join(f.Fix.Runtime, " "), "wal_buffers = '-1'") {
		t.Fatalf("%+v", f)
	}
	// 128 MB shared_buffers: auto 4 MB; 512 × 8kB is that.
	setLive(d, "shared_buffers=16384", "wal_buffers=512")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	setLive(d, "wal_segment_size=!not present on this server")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "wal_segment_size")
}
