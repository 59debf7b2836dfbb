package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// db.postgres-huge-pages: a PostgreSQL server with a large shared_buffers
// (above ~2 GiB) whose huge_pages is off, or try with a hugepage pool too
// small to hold its shared memory (try then silently falls back to 4 KiB pages).
func init() {
	Register(Rule{
		ID:       "db.postgres-huge-pages",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "PostgreSQL shared memory not in hugepages (huge_pages off, or try with too small a pool)",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages",
				Quote: "Most databases support Huge pages"},
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages",
				Quote: "echo 8192 > /proc/sys/vm/nr_hugepages"},
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "page table entries are a per-user construct"},
			{Doc: "https://www.postgresql.org/docs/current/kernel-resources.html#LINUX-HUGE-PAGES", Section: "19.4.5 Linux Huge Pages (shared_memory_size_in_huge_pages, huge_pages = on)"},
		},
		Scope: Scope{
			DBVersions: "PostgreSQL 9.4+ (huge_pages; default try); 14+ huge_page_size; 15+ shared_memory_size_in_huge_pages",
			Note:       "from postgresql.conf (and its includes) given with --artifact; ~2 GiB threshold as PGTune uses it",
		},
		Thresholds: []string{"shared_buffers above 2 GiB makes hugepages worth asking for (PGTune's cut-off, not a seed's)"},
		Pending:    PendingRestart,
		Check:      checkPostgresHugePages,
	})
}

const pgHugeThreshold = 2 << 30 // shared_buffers above this: hugepages worth it

func checkPostgresHugePages(in *Input) Outcome {
	for i := range in.Snap.Databases {
		if d := &in.Snap.Databases[i]; engineDB(d.Engine) == DBPostgres && d.Error == "" {
			return NotApplicable("a live PostgreSQL server was read (%s): db.pg-huge-pages-pool and db.pg-huge-pages-on-short judge its own settings", d.Connection)
		}
	}
	if in.Artifacts == nil || len(in.Artifacts.PGConfs) == 0 {
		return NotApplicable("no postgresql.conf given (--artifact postgresql.conf)")
	}
	c := in.Artifacts.PGConfs[len(in.Artifacts.PGConfs)-1]
	sb, set, err := c.SharedBuffersBytes()
	sbSet, _ := c.Setting("shared_buffers")
	switch {
	case !set:
		return Passed("%s: shared_buffers not set (default 128MB): hugepages not worth it", c.File).Reading(c.File + ": no shared_buffers line")
	case err != nil:
		return CannotCheck("%s:%d: shared_buffers: %v", sbSet.File, sbSet.Line, err)
	case sb <= pgHugeThreshold:
		return Passed("%s:%d: shared_buffers = %s (%s, not above 2 GiB)", sbSet.File, sbSet.Line, sbSet.Value, KB(sb/1024)).
			Reading(fmt.Sprintf("%s:%d: shared_buffers = %s", sbSet.File, sbSet.Line, sbSet.Value))
	}
	hp, hpSet := c.HugePages()
	switch hp { // PostgreSQL also accepts the boolean spellings
	case "true", "yes", "1":
		hp = "on"
	case "false", "no", "0":
		hp = "off"
	}
	hpEv := "huge_pages not set (default try)"
	if hpSet {
		p, _ := c.Setting("huge_pages")
		hpEv = fmt.Sprintf("%s:%d: huge_pages = %s", p.File, p.Line, p.Value)
	} else {
		hp = "try"
	}
	ev := fmt.Sprintf("%s:%d: shared_buffers = %s (%s); %s", sbSet.File, sbSet.Line, sbSet.Value, KB(sb/1024), hpEv)
	pool, poolWhy := artHugePool(in)
	sizeKB := int64(2048)
	if poolWhy == "" && pool.SizeKB > 0 {
		sizeKB = pool.SizeKB
	}
	if b, ok, err := c.HugePageSizeBytes(); ok && err == nil && b > 0 {
		sizeKB = b / 1024
	}
	// Pages needed: PostgreSQL's whole shared memory, exact when the file
	// carries shared_memory_size_in_huge_pages, else estimated.
	memKB, memHow := pgSharedMemoryKB(c, sb, sizeKB)
	need := ceilDiv(memKB, sizeKB)
	needHow := fmt.Sprintf("%d pages of %s (%s)", need, KB(sizeKB), memHow)
	target := need
	if poolWhy == "" && pool.SizeKB == sizeKB {
		used := pool.Total - pool.Free + pool.Reserved
		if pg := pgHugeInUse(in); pg > 0 {
			used -= pg / sizeKB // the server's own pages count toward its need
			if used < 0 {
				used = 0
			}
		}
		target = used + need
		ev += fmt.Sprintf("; /sys/kernel/mm/hugepages/hugepages-%dkB: nr_hugepages %d, free %d, reserved %d", sizeKB, pool.Total, pool.Free, pool.Reserved)
	}
	fix := Fix{
		Runtime:    []string{fmt.Sprintf("sysctl -w vm.nr_hugepages=%d", target)},
		Persistent: []string{},
		Edits: []FileEdit{
			SysctlEdit("vm.nr_hugepages", fmt.Sprint(target)),
			{File: c.File, Edit: "set huge_pages = on (then restart PostgreSQL)"},
		},
	}
	// The pool to grow (never shrink): vm.nr_hugepages is the default page size's pool.
	var chg []change.Change
	if def, ok := DefaultHugepages(in.Snap); ok && def.SizeKB == sizeKB && def.Total < target {
		chg = []change.Change{in.SysctlChange("db.postgres-huge-pages", "vm.nr_hugepages", fmt.Sprint(target),
			"the hugepage pool must hold PostgreSQL's shared memory")}
	}
	risk := "Hugepages are reserved memory, unavailable to anything else (and to the page cache PostgreSQL relies on). " +
		"With huge_pages = on the server refuses to start when the pool is short: size it first, and again after raising " +
		"shared_buffers or max_connections."
	why := "003: configure hugepages for the database's shared memory (more pronounced with several databases); 000: the " +
		"shared memory in 2 MB pages gave +13 % TPM and page tables of 175 MB instead of 5.5 GB, a per-connection cost that " +
		"PostgreSQL's process-per-connection model pays in full."
	switch hp {
	case "off":
		return Found(Finding{
			Setting: "postgres:huge_pages", Current: fmt.Sprintf("off with shared_buffers %s", KB(sb/1024)),
			Recommended: "on, with vm.nr_hugepages " + needHow, Evidence: ev, Why: why, Fix: fix, Risk: risk, Changes: chg,
		})
	case "on":
		if poolWhy == "" && pool.SizeKB == sizeKB && pool.Total < need {
			return Found(Finding{
				Severity: SevCritical,
				Setting:  "vm.nr_hugepages", Current: fmt.Sprintf("%d pages, huge_pages = on needs %s", pool.Total, needHow),
				Recommended: fmt.Sprintf("vm.nr_hugepages ≥ %d", target), Evidence: ev,
				Why: "huge_pages = on: PostgreSQL does not start when the pool cannot hold its shared memory.", Fix: fix, Risk: risk, Changes: chg,
			})
		}
		return Passed("huge_pages = on; %s", ev).Wanting(pgPool(in, sizeKB)...).Reading(ev)
	}
	// try (or an unknown value, which PostgreSQL rejects at startup)
	if poolWhy != "" {
		return CannotCheck("huge_pages = %s with shared_buffers %s; the pool is unknown: %s", hp, KB(sb/1024), poolWhy)
	}
	if inUse := pgHugeInUse(in); inUse > 0 {
		return Passed("huge_pages = try and the postmaster has %s in hugepages (numa_maps); %s", KB(inUse), ev).Wanting(pgPool(in, sizeKB)...).
			Reading(ev, "the postmaster's numa_maps: "+KB(inUse)+" in hugepages")
	}
	if pool.SizeKB == sizeKB && pool.Free-pool.Reserved+pgHugeInUse(in)/sizeKB >= need {
		return Passed("huge_pages = try; the pool has room for %s (set on to make a shortfall an error); %s", needHow, ev).Wanting(pgPool(in, sizeKB)...).Reading(ev)
	}
	return Found(Finding{
		Setting:     "postgres:huge_pages",
		Current:     fmt.Sprintf("try with shared_buffers %s and a pool that cannot hold it (%d free pages of %s): PostgreSQL falls back to 4 KiB pages silently", KB(sb/1024), pool.Free-pool.Reserved, KB(pool.SizeKB)),
		Recommended: "on, with vm.nr_hugepages " + needHow,
		Evidence:    ev, Why: why, Fix: fix, Risk: risk, Changes: chg,
	})
}

// pgPool is the default hugepage pool at its current size, when it is the
// size PostgreSQL uses and holds its shared memory: the desired state keeps it.
func pgPool(in *Input, sizeKB int64) []change.Change {
	if def, ok := DefaultHugepages(in.Snap); ok && def.SizeKB == sizeKB && def.Total > 0 {
		return []change.Change{in.SysctlChange("db.postgres-huge-pages", "vm.nr_hugepages", fmt.Sprint(def.Total),
			"the hugepage pool must hold PostgreSQL's shared memory")}
	}
	return nil
}

// pgHugeInUse is the hugepage memory (kB) of the largest PostgreSQL process
// from numa_maps (the postmaster maps the whole segment), 0 when not read.
func pgHugeInUse(in *Input) int64 {
	var best int64
	for _, p := range in.Snap.Processes {
		if engineDB(p.Engine) != DBPostgres {
			continue
		}
		var h int64
		for _, m := range p.NUMA {
			h += m.HugeKB
		}
		if h > best {
			best = h
		}
	}
	return best
}
