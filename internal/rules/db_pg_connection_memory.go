package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-connection-memory: what max_connections backends can take at once
// against the server's memory: the shared memory, plus per backend one
// work_mem (a floor: the docs say a query may use several) and the page
// tables that map the shared memory into it when it is not in huge pages
// (8 bytes per 4 KiB page: shared memory / 512 per backend; 000 measured
// the page tables of one Oracle instance's 200 users fall from 5.5 GB to
// 175 MB with HugePages: page table entries are a per-user construct).
func init() {
	Register(Rule{
		ID:       "db.pg-connection-memory",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: max_connections × (work_mem + page tables) + shared memory above the server's memory",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			pgDoc("runtime-config-resource.html — work_mem (integer)", "Therefore, the total memory used could be many times the value of work_mem; it is necessary to keep this fact in mind when choosing the value."),
			{Doc: Seed000, Section: "Scenario 2: HugePages", Quote: "page table entries are a per-user construct"},
		},
		Scope: Scope{DBVersions: "PostgreSQL, any version",
			Note: "the sum is a floor (one work_mem per backend, no maintenance_work_mem, no per-backend caches); connections through a pooler are fewer than max_connections"},
		Thresholds: []string{"the floor of the sum (one work_mem and the page tables per allowed connection, plus the shared memory) above the server's memory"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGConnectionMemory(in, d) })
		},
	})
}

// pgShared is a server's shared memory in bytes: shared_memory_size (15+),
// else shared_buffers + wal_buffers (a floor), and which.
func pgShared(d *snapshot.Database) (int64, string, string) {
	if b, why := dbBytes(d, "shared_memory_size"); why == "" && b > 0 {
		return b, "shared_memory_size " + pgSize(b), ""
	}
	sb, why := dbBytes(d, "shared_buffers")
	if why != "" {
		return 0, "", why
	}
	wb, _ := dbBytes(d, "wal_buffers")
	return sb + wb, fmt.Sprintf("shared_buffers + wal_buffers %s (before PostgreSQL 15, shared_memory_size is not shown)", pgSize(sb+wb)), ""
}

// pgPageTables is what one backend's page tables cost to map the shared
// memory: nothing in huge pages (huge_pages on, or try with the
// postmaster's shared memory seen in hugepages), else 8 bytes per 4 KiB
// page (shared / 512); how says which.
func (in *Input) pgPageTables(d *snapshot.Database, shared int64) (int64, string) {
	hp, _ := dbSetting(d, "huge_pages")
	if strings.EqualFold(hp, "on") {
		return 0, "huge_pages on: the shared memory is in huge pages, its page tables negligible"
	}
	if strings.EqualFold(hp, "try") {
		if p := in.serverProcess(d); p != nil {
			var huge int64
			for _, n := range p.NUMA {
				huge += n.HugeKB
			}
			if huge > 0 {
				return 0, fmt.Sprintf("huge_pages try, and the postmaster maps %s in huge pages (numa_maps)", KB(huge))
			}
		}
		return shared / 512, "huge_pages try, not seen in huge pages: each backend that touches all of it maps it with 4 KiB pages, 8 bytes each (shared / 512)"
	}
	return shared / 512, "huge_pages " + hp + ": each backend that touches all of it maps it with 4 KiB pages, 8 bytes each (shared / 512)"
}

func checkPGConnectionMemory(in *Input, d *snapshot.Database) Outcome {
	memKB, how, why := in.pgMemory(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	shared, sharedHow, why := pgShared(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	conns, why := dbInt(d, "max_connections")
	if why != "" {
		return CannotCheck("%s", why)
	}
	wm, why := dbBytes(d, "work_mem")
	if why != "" {
		return CannotCheck("%s", why)
	}
	pt, ptHow := in.pgPageTables(d, shared)
	mem := memKB << 10
	total := shared + conns*(wm+pt)
	ev := fmt.Sprintf("%s; max_connections %d, work_mem %s, page tables per backend %s (%s); %s; total %s; memory %s",
		serverName(d), conns, pgSize(wm), pgSize(pt), ptHow, sharedHow, pgSize(total), how)
	if total <= mem {
		return Passed("%s + %d × (work_mem %s + page tables %s) = %s, within %s", pgSize(shared), conns, pgSize(wm), pgSize(pt), pgSize(total), pgSize(mem)).
			Reading(fmt.Sprintf("%s pg_settings: max_connections %d, work_mem %s; shared memory %s; memory %s", serverName(d), conns, pgSize(wm), pgSize(shared), pgSize(mem)))
	}
	fit := (mem - shared) / max(wm+pt, 1)
	rec := fmt.Sprintf("at most %d connections at this work_mem (or a smaller work_mem, or a connection pooler in front)", max(fit, 0))
	if fit <= 0 {
		rec = "less shared memory: it alone fills the server's memory"
	}
	return Found(Finding{Setting: "max_connections", Current: fmt.Sprintf("%d: up to %s (%.0f %% of %s)", conns, pgSize(total), 100*float64(total)/float64(mem), pgSize(mem)),
		Recommended: rec,
		Evidence:    ev,
		Why: "PostgreSQL's docs: each sort or hash of a query may use work_mem, several at once and in several sessions, so the total can be many times work_mem. Each backend also maps the shared memory with page tables of its own (000): with 4 KiB pages 8 bytes per page, shared / 512 per backend. " +
			"With every allowed connection busy the server would need more memory than it has: the OOM killer, or with overcommit 2 failed allocations.",
		Fix:  pgAlterSystem("max_connections", fmt.Sprint(max(fit, 1)), true),
		Risk: "Read only at start: a restart; clients beyond the new limit are refused (\"too many clients\"): put a pooler (PgBouncer) in front first. huge_pages on removes the page-table part (db.pg-huge-pages-pool).",
	})
}
