package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-overcommit: PostgreSQL's own docs ("Linux Memory Overcommit") ask
// for vm.overcommit_memory = 2 on a dedicated database host, so that an
// allocation fails in one backend instead of the OOM killer killing the
// postmaster (and with it every connection); with 2, a commit limit too low
// for what is already committed makes backends fail instead. Swappiness is
// not in PostgreSQL's docs: memory.swappiness (003) judges it.
func init() {
	Register(Rule{
		ID:       "db.pg-overcommit",
		Area:     AreaDB,
		Severity: SevInfo,
		Title:    "Live PostgreSQL: memory overcommit not as PostgreSQL's docs set it (or its commit limit nearly reached)",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: "https://www.postgresql.org/docs/current/kernel-resources.html#LINUX-MEMORY-OVERCOMMIT",
				Section: "Managing Kernel Resources — Linux Memory Overcommit (vm.overcommit_memory = 2; vm.overcommit_ratio; the OOM killer and the postmaster)"},
		},
		Scope: Scope{Kernels: "all Linux", DBVersions: "PostgreSQL, any version",
			Note: "on a host that runs other programs too, 2 can make them fail: PostgreSQL's docs then suggest protecting the postmaster with oom_score_adj"},
		Thresholds: []string{"with overcommit_memory = 2, Committed_AS above 90 % of CommitLimit"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGOvercommit(in, d) })
		},
	})
}

func checkPGOvercommit(in *Input, d *snapshot.Database) Outcome {
	if !d.Local {
		return NotApplicable("the server is not on this host (%s)", d.Connection)
	}
	oc, why := in.SysctlInt("vm.overcommit_memory")
	if why != "" {
		return CannotCheck("%s", why)
	}
	ev := serverName(d) + "; " + in.SysctlEvidence("vm.overcommit_memory", fmt.Sprint(oc))
	if oc == 2 {
		limit, ok1 := in.Snap.Memory.Meminfo["CommitLimit"]
		used, ok2 := in.Snap.Memory.Meminfo["Committed_AS"]
		if !ok1 || !ok2 || limit <= 0 {
			return Passed("vm.overcommit_memory = 2 (CommitLimit/Committed_AS not in the snapshot)")
		}
		if used*10 > limit*9 {
			ratio, _ := in.Sysctl("vm.overcommit_ratio")
			return Found(Finding{
				Severity: SevWarning, Setting: "vm.overcommit_ratio",
				Current:     fmt.Sprintf("%s: Committed_AS %s of CommitLimit %s", ratio, KB(used), KB(limit)),
				Recommended: "a commit limit with room for every backend (raise vm.overcommit_ratio or add swap)",
				Evidence:    ev + fmt.Sprintf("; /proc/meminfo CommitLimit %s, Committed_AS %s", KB(limit), KB(used)),
				Why:         "PostgreSQL's docs: with overcommit_memory = 2 the commit limit is swap plus overcommit_ratio % of RAM; near it, new backends and large sorts fail with out of memory.",
				Fix:         Fix{Runtime: []string{}, Persistent: []string{SysctlDropIn + ": vm.overcommit_ratio = <higher>"}},
				Risk:        "A higher ratio lets more be committed than RAM and swap can hold: the OOM killer again.",
			})
		}
		return Passed("vm.overcommit_memory = 2, Committed_AS %s of CommitLimit %s", KB(used), KB(limit))
	}
	return Found(Finding{
		Setting: "vm.overcommit_memory", Current: fmt.Sprint(oc), Recommended: "2 on a dedicated PostgreSQL host (with vm.overcommit_ratio sized to RAM and swap)",
		Evidence: ev,
		Why: "PostgreSQL's docs: under memory pressure the OOM killer may kill the postmaster, which ends every connection; " +
			"with overcommit_memory = 2 an allocation fails in one backend instead.",
		Fix:  SysctlFix("vm.overcommit_memory", "2"),
		Risk: "Every program on the host is held to the commit limit: on a shared host it can make them fail. Check CommitLimit against Committed_AS first.",
	})
}
