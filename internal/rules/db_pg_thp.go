package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-thp: transparent hugepages set to always on a host running a live
// PostgreSQL server. Each backend's private memory (work_mem, sorts,
// hashes) is then THP-eligible: khugepaged and direct compaction stall the
// backends, and the memory each connection holds grows in 2 MB steps. The
// shared memory belongs in explicit hugepages (db.pg-huge-pages-pool), not
// THP. memory.thp-enabled judges THP for every database and carries the
// change; this rule names the server and what its connections pay.
func init() {
	Register(Rule{
		ID:       "db.pg-thp",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Live PostgreSQL on a host with transparent hugepages always on",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — HugePages configuration", Quote: "Disable Transparent HugePages"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7", Quote: "Disable THP\tBoolean\tN/A\tNo\tYes"},
			{Doc: "https://docs.kernel.org/admin-guide/mm/transhuge.html",
				Section: "Transparent Hugepage Support — sysfs: enabled (always, madvise, never) and defrag"},
		},
		Scope: Scope{Kernels: "2.6.38+ (RHEL 6: redhat_transparent_hugepage)", DBVersions: "PostgreSQL, any version (it never madvises its memory for THP)",
			Note: "the change is memory.thp-enabled's; this rule adds the live server's evidence"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGTHP(in, d) })
		},
	})
}

func checkPGTHP(in *Input, d *snapshot.Database) Outcome {
	if !d.Local {
		return NotApplicable("the server is not on this host (%s)", d.Connection)
	}
	thp := in.Snap.Memory.THP
	if thp.Enabled == nil {
		return CannotCheck("%s", in.Reason("memory.thp.enabled", "not in the snapshot"))
	}
	if *thp.Enabled != "always" {
		return Passed("transparent hugepages %s (PostgreSQL never madvises: its backends get no THP)", *thp.Enabled).
			Reading("/sys/kernel/mm/transparent_hugepage/enabled = " + *thp.Enabled)
	}
	conns := "max_connections unknown"
	if n, why := dbInt(d, "max_connections"); why == "" {
		conns = fmt.Sprintf("up to %d backends (max_connections)", n)
	}
	if main := in.serverProcess(d); main != nil {
		conns += fmt.Sprintf(", %d running under postmaster %d", len(in.serverChildren(main)), main.PID)
	}
	defrag := "unknown"
	if thp.Defrag != nil {
		defrag = *thp.Defrag
	}
	dir := THPDir(in.Snap)
	return Found(Finding{
		Setting: dir + "/enabled", Current: "always (defrag " + defrag + ")",
		Recommended: "madvise (PostgreSQL then gets none) or never; the shared memory in explicit hugepages",
		Evidence:    fmt.Sprintf("%s: %s; %s/enabled = always", serverName(d), conns, dir),
		Why: "000 and 003's latency profiles disable THP for databases: every backend's private memory becomes THP-eligible, " +
			"khugepaged and direct compaction stall backends, and each connection's memory grows in 2 MB steps.",
		Fix: Fix{Runtime: []string{echoTo("madvise", dir+"/enabled")},
			Persistent: []string{"transparent_hugepage=madvise on the kernel command line, or tuned: [vm] transparent_hugepages=madvise"}},
		Risk: "Programs that rely on THP without madvise (some JVMs) lose it.",
	})
}
