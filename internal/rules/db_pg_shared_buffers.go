package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-shared-buffers: shared_buffers and effective_cache_size against
// the memory the server may use (its NUMA nodes' when its postmaster is
// bound, else the host's RAM). PostgreSQL's docs: on a dedicated server
// with 1 GB or more, 25 % of memory is a reasonable start and more than
// 40 % unlikely to help; effective_cache_size is the planner's idea of the
// cache (shared buffers plus the kernel's), so above memory it is a cache
// that does not exist, below shared_buffers one smaller than its own part.
func init() {
	Register(Rule{
		ID:       "db.pg-shared-buffers",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: shared_buffers or effective_cache_size out of proportion to memory",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			pgDoc("runtime-config-resource.html — shared_buffers (integer)", "If you have a dedicated database server with 1GB or more of RAM, a reasonable starting value for shared_buffers is 25% of the memory in your system."),
			pgDoc("runtime-config-resource.html — shared_buffers (integer)", "it is unlikely that an allocation of more than 40% of RAM to shared_buffers will work better than a smaller amount."),
			pgDoc("runtime-config-query.html — effective_cache_size (integer)", "When setting this parameter you should consider both PostgreSQL's shared buffers and the portion of the kernel's disk cache that will be used for PostgreSQL data files"),
		},
		Scope: Scope{DBVersions: "PostgreSQL, any version (the docs of 15 quoted)",
			Note: "the docs' 25 % is for a dedicated database server with 1 GB or more; on a shared host the other programs' memory comes first"},
		Thresholds: []string{"shared_buffers below 1/16 (6.25 %) of the server's memory on 1 GiB or more (a quarter of the docs' 25 % starting value)",
			"the effective_cache_size a fix sets: 3/4 of the memory (the docs give no figure)"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGSharedBuffers(in, d) })
		},
	})
}

func checkPGSharedBuffers(in *Input, d *snapshot.Database) Outcome {
	memKB, how, why := in.pgMemory(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	sb, why := dbBytes(d, "shared_buffers")
	if why != "" {
		return CannotCheck("%s", why)
	}
	mem := memKB << 10
	ev := fmt.Sprintf("%s; %s = %s; memory %s", serverName(d), pgSettingText(d, "shared_buffers"), pgSize(sb), how)
	quarter := mem / 4
	var fs []Finding
	switch {
	case mem >= 1<<30 && sb*16 < mem:
		fix := pgAlterSystem("shared_buffers", fmt.Sprintf("%dMB", quarter>>20), true)
		if ecs, why := dbBytes(d, "effective_cache_size"); why == "" && ecs < quarter {
			// Raised together: effective_cache_size below the new
			// shared_buffers would be the next finding.
			e := pgAlterSystem("effective_cache_size", fmt.Sprintf("%dMB", (mem*3/4)>>20), false)
			fix.Runtime = append(e.Runtime[:1], fix.Runtime...)
			fix.Persistent = append(e.Persistent, fix.Persistent...)
		}
		fs = append(fs, Finding{Setting: "shared_buffers", Current: fmt.Sprintf("%s (%.1f %% of %s)", pgSize(sb), 100*float64(sb)/float64(mem), pgSize(mem)),
			Recommended: fmt.Sprintf("about %s (25 %% of %s) on a dedicated database server", pgSize(quarter), pgSize(mem)),
			Evidence:    ev,
			Why:         "PostgreSQL's docs: on a dedicated server with 1 GB or more, 25 % of memory is a reasonable starting value for shared_buffers; far below it, the working set is read from the kernel's page cache through copies instead of PostgreSQL's own buffers.",
			Fix:         fix,
			Risk:        "Read only at start: a restart. More shared memory needs as much more in hugepages when huge_pages is on (db.pg-huge-pages-pool sizes the pool), and a larger max_wal_size to spread the writes of more dirty buffers (the docs).",
		})
	case sb*10 > mem*4:
		fs = append(fs, Finding{Severity: SevInfo, Setting: "shared_buffers", Current: fmt.Sprintf("%s (%.0f %% of %s)", pgSize(sb), 100*float64(sb)/float64(mem), pgSize(mem)),
			Recommended: fmt.Sprintf("at most 40 %% of memory (%s); 25 %% (%s) to start", pgSize(mem*4/10), pgSize(quarter)),
			Evidence:    ev,
			Why:         "PostgreSQL's docs: PostgreSQL also relies on the operating system's cache, so more than 40 % of RAM in shared_buffers is unlikely to work better than less; what is left for the page cache, work_mem and the backends shrinks.",
			Fix:         pgAlterSystem("shared_buffers", fmt.Sprintf("%dMB", quarter>>20), true),
			Risk:        "Read only at start: a restart. Some workloads do better with more (the docs): measure before and after.",
		})
	}
	ecs, why := dbBytes(d, "effective_cache_size")
	if why != "" {
		if len(fs) > 0 {
			return Found(fs...)
		}
		return CannotCheck("%s", why)
	}
	ev2 := fmt.Sprintf("%s; %s = %s; shared_buffers %s; memory %s", serverName(d), pgSettingText(d, "effective_cache_size"), pgSize(ecs), pgSize(sb), how)
	switch {
	case ecs > mem:
		fs = append(fs, Finding{Setting: "effective_cache_size", Current: pgSize(ecs),
			Recommended: fmt.Sprintf("at most the memory the server has (%s): shared_buffers plus the page cache left for its files", pgSize(mem)),
			Evidence:    ev2,
			Why:         "PostgreSQL's docs: effective_cache_size is the planner's assumption of the cache available to a query, PostgreSQL's shared buffers and the kernel's cache of its data files. Above the memory there is, the planner prices index scans on a cache that does not exist.",
			Fix:         pgAlterSystem("effective_cache_size", fmt.Sprintf("%dMB", (mem*3/4)>>20), false),
			Risk:        "A planner estimate only (no memory is allocated): plans may change; compare the slowest queries' plans.",
		})
	case ecs < sb:
		fs = append(fs, Finding{Severity: SevInfo, Setting: "effective_cache_size", Current: pgSize(ecs),
			Recommended: fmt.Sprintf("at least shared_buffers (%s), plus the page cache left for PostgreSQL's files", pgSize(sb)),
			Evidence:    ev2,
			Why:         "PostgreSQL's docs: effective_cache_size should count both PostgreSQL's shared buffers and the kernel's cache of its data files; below shared_buffers alone the planner undervalues index scans.",
			Fix:         pgAlterSystem("effective_cache_size", fmt.Sprintf("%dMB", (mem*3/4)>>20), false),
			Risk:        "A planner estimate only (no memory is allocated): plans may change; compare the slowest queries' plans.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("shared_buffers %s and effective_cache_size %s on %s", pgSize(sb), pgSize(ecs), strings.TrimSpace(how)).
		Reading(fmt.Sprintf("%s pg_settings: shared_buffers %s, effective_cache_size %s; memory: %s", serverName(d), pgSize(sb), pgSize(ecs), strings.TrimSpace(how)))
}
