package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-huge-pages-on-short: a live PostgreSQL server with huge_pages = on
// whose pool could not hold its shared memory again: it runs now, but after
// its next restart (or the host's reboot, when the pool is not set at boot)
// it will not start.
func init() {
	Register(Rule{
		ID:       "db.pg-huge-pages-on-short",
		Area:     AreaDB,
		Severity: SevCritical,
		Title:    "Live PostgreSQL with huge_pages = on: the hugepage pool would not hold it after a restart",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages", Quote: "echo 8192 > /proc/sys/vm/nr_hugepages"},
			{Doc: "https://www.postgresql.org/docs/current/runtime-config-resource.html#GUC-HUGE-PAGES",
				Section: "Resource Consumption — Memory: huge_pages (with on, failure to use huge pages prevents the server from starting)"},
			{Doc: "https://www.postgresql.org/docs/current/kernel-resources.html#LINUX-HUGE-PAGES",
				Section: "Managing Kernel Resources — Linux Huge Pages (shared_memory_size_in_huge_pages; vm.nr_hugepages in /etc/sysctl.conf)"},
		},
		Scope: Scope{
			DBVersions: "PostgreSQL 12+ read live; the exact page count from 15",
			Note:       "the pool after a reboot is judged from sysctl files and the kernel command line",
		},
		Pending: PendingRestart,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGHugePagesOnShort(in, d) })
		},
	})
}

func checkPGHugePagesOnShort(in *Input, d *snapshot.Database) Outcome {
	hp, why := dbSetting(d, "huge_pages")
	if why != "" {
		return CannotCheck("%s", why)
	}
	if hp != "on" {
		return NotApplicable("huge_pages = %s", hp)
	}
	if !d.Local {
		return CannotCheck("the server is not on this host (%s): its host's hugepage pool is not in this snapshot", d.Connection)
	}
	h, why := in.pgHugeNeed(d)
	if why != "" {
		return CannotCheck("%s", why)
	}
	// It runs with huge_pages = on: its segment is in the pool now.
	h.inUse = true
	r, why := in.room(d, h)
	if why != "" {
		return CannotCheck("huge_pages = on, needs %s; %s", h.how, why)
	}
	ev := fmt.Sprintf("%s: huge_pages = on, needs %s; %s", serverName(d), h.how, r.evidence)
	if short, missing := r.short(h); short {
		chg, runtime := in.poolChanges("db.pg-huge-pages-on-short", h, r, missing)
		return Found(Finding{
			Setting: "vm.nr_hugepages", Current: fmt.Sprintf("room for %d of its %d pages once it restarts (%d short)", h.pages-missing, h.pages, missing),
			Recommended: fmt.Sprintf("a pool of at least %d pages of %s", r.target, KB(h.sizeKB)), Evidence: ev,
			Why: "huge_pages = on: PostgreSQL does not start when the pool cannot hold its shared memory (FATAL: could not map anonymous shared memory).",
			Fix: persistLine(h, r, runtime),
			Risk: "Hugepages are reserved memory, unavailable to anything else. Growing a pool at run time may get fewer pages than asked " +
				"when memory is fragmented: read nr_hugepages back.",
			Changes: chg,
		})
	}
	// Enough now; after a reboot only what is set at boot is there.
	if _, ok := DefaultHugepages(in.Snap); ok && len(h.nodes) == 0 {
		if in.SysctlSetIn("vm.nr_hugepages") == "" && !bootHugepages(in.Snap) {
			return Found(Finding{
				Severity: SevWarning, Setting: "vm.nr_hugepages",
				Current:     fmt.Sprintf("%d pages now, set in no sysctl file and not on the kernel command line", r.pool.Total),
				Recommended: fmt.Sprintf("vm.nr_hugepages = %d in %s", r.target, SysctlDropIn), Evidence: ev,
				Why:     "huge_pages = on: after a reboot the pool is empty and PostgreSQL will not start.",
				Fix:     persistLine(h, r, []string{}),
				Risk:    "none beyond the memory the pool already holds",
				Changes: []change.Change{in.SysctlChange("db.pg-huge-pages-on-short", "vm.nr_hugepages", fmt.Sprint(r.target), "PostgreSQL with huge_pages = on needs its pool at boot")},
			})
		}
	}
	return Passed("huge_pages = on and the pool holds %s; %s", h.how, r.evidence).Reading(serverName(d)+": huge_pages = on", r.evidence)
}

// bootHugepages says whether the kernel command line sizes a hugepage pool.
func bootHugepages(s *snapshot.Snapshot) bool {
	for k := range s.Host.CmdlineArgs {
		if strings.EqualFold(k, "hugepages") {
			return true
		}
	}
	return false
}
