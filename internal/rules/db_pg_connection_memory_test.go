package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPGConnectionMemory(t *testing.T) {
	const id = "db.pg-connection-memory"
	s := liveHost(0, 0)
	s.Memory.Meminfo["MemTotal"] = 24 << 20 // 24 GiB
	// 4300 MB shared, 100 connections × (4 MB + 8.4 MB of page tables): quiet.
	d := pgLive(s, "work_mem=4096")
	d.Setting("work_mem").Unit = "kB"
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// 2000 connections × (64 MB + 8.4 MB) + 4.2 GB: 145 GB on 24 GiB.
	setLive(d, "max_connections=2000", "work_mem=65536")
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Setting != "max_connections" || !strings.Contains(f.Evidence, "page tables per backend 8.4 MiB") || !strings.Contains(f.Recommended, "at most 280 connections") {
		t.Fatalf("%+v", f)
	}
	// huge_pages on: no page tables; 2000 × 4 MB + 4.2 GB fits.
	setLive(d, "work_mem=4096", "huge_pages=on")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// huge_pages try, the postmaster seen in huge pages: the same.
	setLive(d, "huge_pages=try", "work_mem=8192")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); !strings.Contains(f.Evidence, "not seen in huge pages") {
		t.Fatalf("%+v", f)
	}
	postmaster(s, "/srv/pg/data", []int{0, 1}, []snapshot.NodeMem{{Node: 0, HugeKB: 4300 << 10}})
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	setLive(d, "work_mem=!could not check (permission): x")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "work_mem")
}
