package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.pg-overcommit: PostgreSQL's own docs ("Linux Memory Overcommit") ask
// for vm.overcommit_memory = 2 on a dedicated database host, so that an
// allocation fails in one backend instead of the OOM killer killing the
// postmaster (and with it every connection); with 2, a commit limit too low
// for what is already committed makes backends fail instead: before
// proposing 2 the rule computes the CommitLimit 2 would give (the kernel's
// formula, hugepages excluded) and adds the overcommit_ratio that holds
// Committed_AS, or refuses with the numbers when even 100 % does not. Swappiness is
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
	cs, sized := in.commitSizing()
	if oc == 2 {
		limit, ok1 := in.Snap.Memory.Meminfo["CommitLimit"]
		used, ok2 := in.Snap.Memory.Meminfo["Committed_AS"]
		if !ok1 || !ok2 || limit <= 0 {
			return Passed("vm.overcommit_memory = 2 (CommitLimit/Committed_AS not in the snapshot)").Reading(ev)
		}
		if used*10 > limit*9 {
			ratio, _ := in.Sysctl("vm.overcommit_ratio")
			rec, fix := "a commit limit with room for every backend (raise vm.overcommit_ratio or add swap)",
				Fix{Runtime: []string{}, Persistent: []string{}, Edits: []FileEdit{SysctlEdit("vm.overcommit_ratio", "<higher>")}}
			if sized && cs.need <= 100 {
				rec = fmt.Sprintf("vm.overcommit_ratio = %d (CommitLimit %s, Committed_AS at 90 %% of it)", cs.need, KB(cs.limitAt(cs.need)))
				fix = SysctlFix("vm.overcommit_ratio", fmt.Sprint(cs.need))
			} else if sized {
				rec = fmt.Sprintf("more swap or RAM: even vm.overcommit_ratio = 100 gives CommitLimit %s for Committed_AS %s", KB(cs.limitAt(100)), KB(used))
			}
			return Found(Finding{
				Severity: SevWarning, Setting: "vm.overcommit_ratio",
				Current:     fmt.Sprintf("%s: Committed_AS %s of CommitLimit %s", ratio, KB(used), KB(limit)),
				Recommended: rec,
				Evidence:    ev + fmt.Sprintf("; /proc/meminfo CommitLimit %s, Committed_AS %s", KB(limit), KB(used)),
				Why:         "PostgreSQL's docs: with overcommit_memory = 2 the commit limit is swap plus overcommit_ratio % of RAM; near it, new backends and large sorts fail with out of memory.",
				Fix:         fix,
				Risk:        "A higher ratio lets more be committed than RAM and swap can hold: the OOM killer again.",
			})
		}
		return Passed("vm.overcommit_memory = 2, Committed_AS %s of CommitLimit %s", KB(used), KB(limit)).
			Reading(ev, fmt.Sprintf("/proc/meminfo CommitLimit %s, Committed_AS %s", KB(limit), KB(used)))
	}
	pgWhy := "PostgreSQL's docs: under memory pressure the OOM killer may kill the postmaster, which ends every connection; " +
		"with overcommit_memory = 2 an allocation fails in one backend instead."
	risk := "Every program on the host is held to the commit limit: on a shared host it can make them fail. Check CommitLimit against Committed_AS first."
	if !sized {
		return Found(Finding{
			Setting: "vm.overcommit_memory", Current: fmt.Sprint(oc), Recommended: "2 on a dedicated PostgreSQL host (with vm.overcommit_ratio sized to RAM and swap)",
			Evidence: ev + "; " + cs.missing,
			Why:      pgWhy,
			Fix:      SysctlFix("vm.overcommit_memory", "2"),
			Risk:     risk,
		})
	}
	ev += "; " + cs.evidence()
	pgWhy += fmt.Sprintf(" With 2 the kernel's commit limit is swap plus overcommit_ratio %% of RAM (hugepages excluded): %s at ratio %d.",
		KB(cs.limitAt(cs.ratio)), cs.ratio)
	switch {
	case cs.need <= cs.ratio:
		return Found(Finding{
			Setting: "vm.overcommit_memory", Current: fmt.Sprint(oc),
			Recommended: fmt.Sprintf("2 on a dedicated PostgreSQL host (CommitLimit %s holds Committed_AS %s)", KB(cs.limitAt(cs.ratio)), KB(cs.committed)),
			Evidence:    ev, Why: pgWhy,
			Fix:  SysctlFix("vm.overcommit_memory", "2"),
			Risk: risk,
		})
	case cs.need <= 100:
		r, m := SysctlFix("vm.overcommit_ratio", fmt.Sprint(cs.need)), SysctlFix("vm.overcommit_memory", "2")
		return Found(Finding{
			Setting: "vm.overcommit_memory", Current: fmt.Sprint(oc),
			Recommended: fmt.Sprintf("2 with vm.overcommit_ratio = %d on a dedicated PostgreSQL host (CommitLimit %s; at ratio %d it would be %s, under Committed_AS %s)",
				cs.need, KB(cs.limitAt(cs.need)), cs.ratio, KB(cs.limitAt(cs.ratio)), KB(cs.committed)),
			Evidence: ev, Why: pgWhy,
			Fix:  Fix{Runtime: append(r.Runtime, m.Runtime...), Persistent: []string{}, Edits: append(r.Edits, m.Edits...)},
			Risk: risk + " The ratio is set first: the limit must hold what is committed before 2 enforces it.",
		})
	}
	return Found(Finding{
		Severity: SevInfo,
		Setting:  "vm.overcommit_memory", Current: fmt.Sprint(oc),
		Recommended: fmt.Sprintf("not 2 yet: CommitLimit would be %s at ratio %d and %s even at 100, against Committed_AS %s; "+
			"add swap (about %s at ratio %d) or RAM first, or protect the postmaster with oom_score_adj as PostgreSQL's docs suggest",
			KB(cs.limitAt(cs.ratio)), cs.ratio, KB(cs.limitAt(100)), KB(cs.committed), KB(cs.swapNeed()), cs.ratio),
		Evidence: ev, Why: pgWhy + " Here that limit is below what is already committed: allocations would fail at once.",
		Risk: "Setting 2 now makes allocations fail across the host (backends, the postmaster's forks, other programs).",
	})
}

// commitSize is what vm.overcommit_memory = 2 would allow on this host, by
// the kernel's formula (mm/util.c vm_commit_limit): (RAM - hugetlb pages) ×
// overcommit_ratio / 100 + swap, all in kB from /proc/meminfo.
type commitSize struct {
	ram, swap, committed int64 // RAM without the hugepage pools, SwapTotal, Committed_AS
	ratio                int64 // vm.overcommit_ratio now
	need                 int64 // the lowest ratio that keeps Committed_AS at 90 % of the limit
	hugetlb              int64
	missing              string
}

func (in *Input) commitSizing() (commitSize, bool) {
	mi := in.Snap.Memory.Meminfo
	var c commitSize
	total, ok1 := mi["MemTotal"]
	swap, ok2 := mi["SwapTotal"]
	used, ok3 := mi["Committed_AS"]
	if !ok1 || !ok2 || !ok3 || total <= 0 {
		c.missing = "MemTotal, SwapTotal or Committed_AS not in /proc/meminfo's snapshot: the commit limit 2 would give is not known"
		return c, false
	}
	ratio, why := in.SysctlInt("vm.overcommit_ratio")
	if why != "" {
		c.missing = "vm.overcommit_ratio: " + why + ": the commit limit 2 would give is not known"
		return c, false
	}
	if kb, _ := in.SysctlInt("vm.overcommit_kbytes"); kb > 0 {
		c.missing = "vm.overcommit_kbytes is set: the commit limit is not sized from the ratio"
		return c, false
	}
	h, ok := mi["Hugetlb"]
	if !ok {
		h = mi["HugePages_Total"] * mi["Hugepagesize"]
	}
	c = commitSize{ram: total - h, swap: swap, committed: used, ratio: int64(ratio), hugetlb: h}
	if c.ram <= 0 {
		c.missing = "hugepages hold all of MemTotal"
		return c, false
	}
	want := (used*10 + 8) / 9 // Committed_AS at 90 % of the limit
	c.need = 0
	if want > swap {
		c.need = ((want-swap)*100 + c.ram - 1) / c.ram
	}
	return c, true
}

func (c commitSize) limitAt(ratio int64) int64 { return c.ram*ratio/100 + c.swap }

// swapNeed: the swap to add at the current ratio so Committed_AS is 90 % of the limit.
func (c commitSize) swapNeed() int64 {
	return max((c.committed*10+8)/9-c.limitAt(c.ratio), 0)
}

func (c commitSize) evidence() string {
	return fmt.Sprintf("/proc/meminfo Committed_AS %s, SwapTotal %s, RAM %s less %s in hugepages; vm.overcommit_ratio %d",
		KB(c.committed), KB(c.swap), KB(c.ram+c.hugetlb), KB(c.hugetlb), c.ratio)
}
