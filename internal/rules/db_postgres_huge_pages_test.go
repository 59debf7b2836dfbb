package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPostgresHugePages(t *testing.T) {
	const id = "db.postgres-huge-pages"
	// huge_pages = off with 16 GB shared_buffers.
	fs := artFires(t, runArt(t, id, hugeHost(0, 0), artSet(t, "postgresql-off.conf"), DBPostgres))
	f := fs[0]
	// 16 GiB + 2.5 % + wal_buffers 16 MiB + 16 MiB + 64 KiB × 400 connections = 8426 pages of 2 MiB.
	if f.Setting != "postgres:huge_pages" || !strings.Contains(f.Evidence, "postgresql-off.conf:4: shared_buffers = 16GB") ||
		!strings.Contains(f.Evidence, "postgresql-off.conf:5: huge_pages = off") || !strings.Contains(f.Recommended, "8426 pages") ||
		f.Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=8426" {
		t.Fatalf("%+v", f)
	}
	// try (the default) with a pool too small: fires; the exact page count is used when given.
	conf := "pg.conf=shared_buffers = 8GB\nshared_memory_size_in_huge_pages = 4200\nmax_connections = 100\n"
	fs = artFires(t, runArt(t, id, hugeHost(1000, 1000), artSet(t, conf), DBPostgres))
	if !strings.HasPrefix(fs[0].Current, "try with shared_buffers 8.0 GiB") || !strings.Contains(fs[0].Recommended, "4200 pages of 2.0 MiB (pg.conf:2") ||
		fs[0].Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=4200" {
		t.Fatalf("%+v", fs[0])
	}
	wantChange(t, fs[0], change.Sysctl, "vm.nr_hugepages", "4200", "-")
	// The boolean spelling of off.
	artFires(t, runArt(t, id, hugeHost(0, 0), artSet(t, "pg.conf=shared_buffers = 8GB\nhuge_pages = false\nmax_connections = 100\n"), DBPostgres))
	// on with a pool too small: critical (the server will not start).
	fs = artFires(t, runArt(t, id, hugeHost(1000, 1000), artSet(t, "pg.conf=shared_buffers = 8GB\nhuge_pages = on\n"), DBPostgres))
	if fs[0].Severity != SevCritical {
		t.Fatalf("%+v", fs[0])
	}
	// try with room in the pool, or the postmaster already in hugepages: passes.
	artQuiet(t, runArt(t, id, hugeHost(5000, 5000), artSet(t, conf), DBPostgres), "passed")
	s := hugeHost(4300, 100)
	s.Processes = []snapshot.Process{{PID: 1, Comm: "postgres", Engine: "postgres", Role: "postmaster", NUMA: []snapshot.NodeMem{{Node: 0, HugeKB: 8 << 20}}}}
	artQuiet(t, runArt(t, id, s, artSet(t, conf), DBPostgres), "passed")
	// Small shared_buffers: not worth it.
	artQuiet(t, runArt(t, id, hugeHost(0, 0), artSet(t, "pg.conf=shared_buffers = 1GB\nhuge_pages = off\nmax_connections = 100\n"), DBPostgres), "passed")
	// Pool unknown with try: cannot check; no conf: n/a.
	s = host()
	absent(s, "memory.hugepages", "no hugetlbfs")
	artQuiet(t, runArt(t, id, s, artSet(t, conf), DBPostgres), "cannot")
	artQuiet(t, runArt(t, id, host(), nil, DBPostgres), "n/a")
	// A live server read: its own rules judge it.
	s = hugeHost(0, 0)
	s.Databases = []snapshot.Database{{Engine: "postgres", Connection: "user=postgres host=/run/postgresql port=5432 dbname=postgres"}}
	artQuiet(t, runArt(t, id, s, artSet(t, "postgresql-off.conf"), DBPostgres), "n/a")
}
