package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPGHugePagesPool(t *testing.T) {
	const id = "db.pg-huge-pages-pool"
	// try, pool of 1000 free: the server's own 2150 pages do not fit.
	s := liveHost(1000, 1000)
	pgLive(s)
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Recommended, "2150 pages of 2.0 MiB") || !strings.Contains(f.Recommended, "shared_memory_size_in_huge_pages = 2150 (the server's own figure)") ||
		!strings.HasPrefix(f.Current, "try") || f.Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=2150" {
		t.Fatalf("%+v", f)
	}
	wantChange(t, f, change.Sysctl, "vm.nr_hugepages", "2150", "-")
	// The pool alone does nothing until PostgreSQL restarts with huge_pages on: said as the steps that follow.
	if then := strings.Join(f.Then, "\n"); !strings.Contains(then, "ALTER SYSTEM SET huge_pages = 'on'") || !strings.Contains(then, "maps huge pages only at start") {
		t.Fatalf("then: %q", f.Then)
	}
	// Another live server wanting hugepages it does not hold yet: the pool holds both.
	s = liveHost(1000, 1000)
	pgLive(s)
	myLive(s, "large_pages=ON")
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=4198" || !strings.Contains(f.Evidence, "other live servers needing 2048 more pages") {
		t.Fatalf("%+v", f)
	}
	// PostgreSQL 14: no shared_memory_size; computed from the postmaster's mapping, and said so.
	s = liveHost(0, 0)
	d := pgLive(s, "shared_memory_size_in_huge_pages=!not present on this server (PostgreSQL 15+)", "shared_memory_size=!not present on this server (PostgreSQL 15+)", "huge_pages=off")
	d.Version = "14.10"
	postmaster(s, "/srv/pg/data", []int{0, 1}, []snapshot.NodeMem{{Node: 0, ShmKB: 2 << 20}, {Node: 1, ShmKB: 2<<20 + 4096}})
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Recommended, "2050 pages, computed from the 4.0 GiB of shared memory postmaster 100 maps") {
		t.Fatalf("%+v", f.Recommended)
	}
	// ... and without the postmaster: estimated from shared_buffers + wal_buffers, a lower bound.
	s.Processes = nil
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Recommended, "estimated from shared_buffers + wal_buffers") {
		t.Fatalf("%+v", f.Recommended)
	}
	// Bound to node 1 (Mems_allowed): the pages must be on node 1.
	s = liveHost(4000, 4000)
	pgLive(s)
	postmaster(s, "/srv/pg/data", []int{1}, nil)
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Evidence, "bound to node(s) 1") || !strings.Contains(f.Fix.Runtime[0], "node1/hugepages/hugepages-2048kB/nr_hugepages") ||
		f.Changes[0].Value != "2150" || !strings.Contains(f.Current, "150 short") {
		t.Fatalf("%+v", f)
	}
	// try with room, try already in hugepages, off with small shared_buffers: quiet.
	s = liveHost(3000, 3000)
	pgLive(s)
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	s = liveHost(2200, 50)
	pgLive(s)
	postmaster(s, "/srv/pg/data", []int{0, 1}, []snapshot.NodeMem{{Node: 0, HugeKB: 2 << 20}, {Node: 1, HugeKB: 2 << 20}})
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	s = liveHost(0, 0)
	d = pgLive(s, "huge_pages=off", "shared_buffers=16384", "shared_memory_size=143", "shared_memory_size_in_huge_pages=72")
	quiet(t, id, s, WorkloadOLTP, DBPostgres) // 100 × 144 MiB / 512 = 28.1 MiB of page tables
	// Judged by the page tables, not by a flat 2 GiB line: shared_buffers
	// 1 GiB (the server's own 552 pages) with 100 connections could need
	// 100 × 1.1 GiB / 512 = 216 MiB of page tables.
	setLive(d, "shared_buffers=131072", "shared_memory_size=1103", "shared_memory_size_in_huge_pages=552")
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Severity != SevWarning || !strings.Contains(f.Evidence, "page tables up to max_connections 100 × 1.1 GiB / 512 = 215.6 MiB") ||
		!strings.Contains(f.Recommended, "552 pages") || !strings.Contains(f.Why, "128 MiB") {
		t.Fatalf("%+v", f)
	}
	// 20 connections: 44 MiB, below the line.
	setLive(d, "max_connections=20")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// max_connections not read: could not check.
	setLive(d, "max_connections=!could not check (permission): x")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "max_connections")
	// huge_pages = off with 4 GiB: fires without a pool change when the pool already holds it.
	s = liveHost(3000, 3000)
	pgLive(s, "huge_pages=off")
	if f = fires(t, id, s, WorkloadOLTP, DBPostgres); len(f.Changes) != 0 {
		t.Errorf("%+v", f.Changes)
	}
	// No hugepage pool known: could not check.
	s = liveHost(0, 0)
	s.Memory.Hugepages = nil
	s.Memory.Meminfo = map[string]int64{}
	absent(s, "memory.hugepages", "not present on this host")
	pgLive(s)
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "memory.hugepages")
}
