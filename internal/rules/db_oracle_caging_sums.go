package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.oracle-caging-sums: instance caging (cpu_count + resource_manager_plan)
// only guarantees CPU when sum(cpu_count) over the caged instances does not
// exceed the CPU threads they share, each cpu_count is at least 2, and a
// resource manager plan is set (without one cpu_count is not enforced).
// An instance bound with processor_group_name is limited by its cpuset:
// it needs no plan (Oracle sizes cpu_count from the cpuset, 001's binding
// has no caging), and caged instances sharing one processor group are
// summed against that group's cpuset, not the host.
func init() {
	Register(Rule{
		ID:       "db.oracle-caging-sums",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Oracle instance caging: cpu_count over-subscribed, below 2, or not enforced",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — FACTS",
				Quote: "Oracle advises to set cpu_count to at least 2"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — CUSTOMER CASES",
				Quote: "You have to know how to cage each database individually to be sure that sum(cpu_count) <= Total number of threads"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — CUSTOMER CASES",
				Quote: "the maximum number of databases = Total number of threads /2"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — FACTS",
				Quote: "Set the Oracle parameter “processor_group_name” to the name of this processor group"},
		},
		Scope: Scope{
			DBVersions: "Oracle 11.2+ (instance caging); 001: 12.1.0.2",
			Note: "instances from the init.ora/pfile/spfile and alert logs given with --artifact; a RAC database's per-SID " +
				"settings count once (the instance running here when the snapshot shows it); a processor group's cpuset from " +
				"the host's cgroups or a cgconfig.conf (snapshot or --artifact)",
		},
		Check: checkOracleCagingSums,
	})
}

type cagedInst struct {
	sid, where, planWhere string
	cpus                  int
	plan                  string
	planKnown             bool
	group                 string // processor_group_name, "" when not bound
}

func checkOracleCagingSums(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	local := artLocalSIDs(in.Snap)
	// One entry per database: a RAC database's SIDs run on different hosts.
	picks := map[string]*dbPick{}
	var order []string
	var fs []Finding
	var fsSIDs []string
	var checked, read []string
	for _, i := range insts {
		group, groupWhere, _ := i.Param("processor_group_name")
		group = oraUnquote(group)
		v, where, ok := i.Param("cpu_count")
		if !ok {
			if group != "" {
				checked = append(checked, fmt.Sprintf("%s: bound to processor group %s (%s): Oracle sizes cpu_count from its cpuset", i.SID, group, groupWhere))
			} else {
				checked = append(checked, i.SID+": cpu_count not set (not caged)")
			}
			continue
		}
		n, err := strconv.Atoi(oraUnquote(v))
		if err != nil || n < 0 {
			checked = append(checked, fmt.Sprintf("%s: cpu_count %q is not a number", i.SID, v))
			continue
		}
		if n == 0 {
			checked = append(checked, i.SID+": cpu_count = 0 (Oracle derives it from the CPUs: not caged)")
			continue
		}
		plan, planWhere, planSet := i.Param("resource_manager_plan")
		plan = oraUnquote(plan)
		c := cagedInst{sid: i.SID, where: where, cpus: n, plan: plan, planKnown: planSet || i.Complete(), planWhere: planWhere, group: group}
		read = append(read, fmt.Sprintf("%s: cpu_count = %s, resource_manager_plan %q", where, v, plan))
		noPlan := (!planSet && i.Complete()) || (planSet && plan == "")
		if group != "" && noPlan {
			// 001's binding: the cpuset limits the instance, no plan;
			// asking for one would turn the binding into caging.
			checked = append(checked, fmt.Sprintf("%s: bound to processor group %s (%s) with cpu_count %d and no resource plan: "+
				"binding, not caging (the cpuset limits it)", i.SID, group, groupWhere, n))
			continue
		}
		if n < 2 {
			fsSIDs = append(fsSIDs, i.SID)
			fs = append(fs, Finding{
				Setting:     "oracle:cpu_count",
				Current:     fmt.Sprintf("%d (instance %s)", n, i.SID),
				Recommended: "at least 2",
				Evidence:    fmt.Sprintf("%s: cpu_count = %s", where, v),
				Why: "001 (Facts): Oracle advises cpu_count of at least 2 for a caged instance; hence at most " +
					"threads/2 caged databases fit on one host.",
				Fix: Fix{Runtime: []string{fmt.Sprintf("ALTER SYSTEM SET cpu_count=2 SCOPE=BOTH SID=%s;", sqlStr(i.SID))},
					Persistent: []string{fmt.Sprintf("ALTER SYSTEM SET cpu_count=2 SCOPE=SPFILE SID=%s;", sqlStr(i.SID))}},
				Risk: "The instance may use one more CPU under load; re-check sum(cpu_count) against the host's threads.",
			})
		}
		if noPlan {
			cur := "not set"
			ev := fmt.Sprintf("%s: cpu_count = %s; resource_manager_plan not set in %s", where, v, i.Source())
			if planSet {
				cur = "'' (empty)"
				ev = fmt.Sprintf("%s: cpu_count = %s; %s: resource_manager_plan = ''", where, v, planWhere)
			}
			fsSIDs = append(fsSIDs, i.SID)
			fs = append(fs, Finding{
				Setting:     "oracle:resource_manager_plan",
				Current:     fmt.Sprintf("%s with cpu_count = %d (instance %s): caging is off", cur, n, i.SID),
				Recommended: "a CPU resource plan, e.g. DEFAULT_PLAN",
				Evidence:    ev,
				Why: "001 (Facts): instance caging needs both cpu_count and resource_manager_plan; cpu_count alone " +
					"does not limit the instance's CPU use, so the other instances get no guarantee.",
				Fix: Fix{Runtime: []string{fmt.Sprintf("ALTER SYSTEM SET resource_manager_plan='DEFAULT_PLAN' SCOPE=BOTH SID=%s;", sqlStr(i.SID))},
					Persistent: []string{fmt.Sprintf("ALTER SYSTEM SET resource_manager_plan='DEFAULT_PLAN' SCOPE=SPFILE SID=%s;", sqlStr(i.SID))}},
				Risk: "Online, no restart (001). The instance then waits in the Scheduler wait class when it wants more than " +
					"cpu_count CPUs (001: 40 % of DB time under pressure). Maintenance windows may switch plans.",
			})
		}
		key := strings.ToUpper(i.SID)
		if i.RAC && i.DB != "" {
			key = "DB:" + strings.ToUpper(i.DB)
		}
		isLocal := local[strings.ToUpper(i.SID)]
		p, seen := picks[key]
		switch {
		case !seen:
			picks[key] = &dbPick{inst: c, local: isLocal}
			order = append(order, key)
		case isLocal && !p.local:
			p.inst, p.local, p.note = c, true, ""
		case !p.local && c.cpus < p.inst.cpus:
			p.inst = c
			p.note = "smallest cpu_count of RAC database " + i.DB + " (which instance runs here is unknown)"
		}
	}
	// Caged instances of one processor group share its cpuset: summed
	// against it; the unbound ones against the host.
	groups := map[string][]string{}
	var groupOrder, hostOrder []string
	for _, k := range order {
		g := picks[k].inst.group
		if g == "" {
			hostOrder = append(hostOrder, k)
			continue
		}
		if _, ok := groups[g]; !ok {
			groupOrder = append(groupOrder, g)
		}
		groups[g] = append(groups[g], k)
	}
	for _, g := range groupOrder {
		keys := groups[g]
		if len(keys) < 2 {
			continue
		}
		cpus, cpusWhere, ok := oraGroupCPUs(in, g)
		sum := 0
		var parts []string
		for _, k := range keys {
			p := picks[k]
			sum += p.inst.cpus
			parts = append(parts, fmt.Sprintf("%s cpu_count=%d (%s)", p.inst.sid, p.inst.cpus, p.inst.where))
		}
		if !ok {
			checked = append(checked, fmt.Sprintf("sum(cpu_count) = %d in processor group %s not compared: its cpuset is unknown (give the host or its cgconfig.conf)", sum, g))
			continue
		}
		if sum <= cpus {
			checked = append(checked, fmt.Sprintf("sum(cpu_count) = %d ≤ %d CPUs of processor group %s", sum, cpus, g))
			continue
		}
		fix := cpuCountShares(keys, picks, cpus, sum)
		fsSIDs = append(fsSIDs, "")
		fs = append(fs, Finding{
			Setting:     "oracle:cpu_count",
			Current:     fmt.Sprintf("sum(cpu_count) = %d over %s caged in processor group %s, whose cpuset has %d CPUs", sum, artPlural(len(keys), "instance"), g, cpus),
			Recommended: fmt.Sprintf("sum(cpu_count) ≤ %d (the group's CPUs)", cpus),
			Evidence:    strings.Join(parts, "; ") + "; " + cpusWhere,
			Why: "001 (Customer cases, binding + caging mix): instances caged inside one cgroup share its CPUs, so their " +
				"guarantee holds only when sum(cpu_count) <= the group's threads, as sum(cpu_count) <= the host's threads without binding.",
			Fix:  Fix{Runtime: fix, Persistent: []string{"the same with SCOPE=SPFILE, or a larger cpuset for the group (cpuset.cpus applies online, 001)"}},
			Risk: "Lowering cpu_count caps an instance online; one that needs more waits in the Scheduler class.",
		})
	}
	order = hostOrder
	threads, why := artThreads(in)
	if len(order) >= 2 && why == "" {
		sum := 0
		var parts []string
		for _, k := range order {
			p := picks[k]
			sum += p.inst.cpus
			s := fmt.Sprintf("%s cpu_count=%d (%s)", p.inst.sid, p.inst.cpus, p.inst.where)
			if p.note != "" {
				s += " [" + p.note + "]"
			}
			if p.inst.planKnown && p.inst.plan == "" {
				s += " [not caged: no resource_manager_plan]"
			}
			parts = append(parts, s)
		}
		if sum > threads {
			fix := cpuCountShares(order, picks, threads, sum)
			fsSIDs = append(fsSIDs, "")
			fs = append(fs, Finding{
				Setting:     "oracle:cpu_count",
				Current:     fmt.Sprintf("sum(cpu_count) = %d over %s, host has %d CPU threads", sum, artPlural(len(order), "instance"), threads),
				Recommended: fmt.Sprintf("sum(cpu_count) ≤ %d", threads),
				Evidence:    strings.Join(parts, "; ") + fmt.Sprintf("; this host: %d online CPU threads", threads),
				Why: "001 (Customer cases 2-4): with caging, CPU resources are guaranteed only when sum(cpu_count) <= the total " +
					"number of threads; above it the instances compete for the same CPUs.",
				Fix: Fix{Runtime: fix, Persistent: []string{"the same with SCOPE=SPFILE (the proportional values above are a starting point: " +
					"give paying databases their guaranteed share first)"}},
				Risk: "Lowering cpu_count caps an instance online; one that needs more waits in the Scheduler class. Or bind " +
					"instances to disjoint cpusets with processor_group_name (restart needed).",
			})
		} else {
			checked = append(checked, fmt.Sprintf("sum(cpu_count) = %d ≤ %d threads", sum, threads))
		}
	} else if len(order) >= 2 {
		checked = append(checked, "sum(cpu_count) not compared: "+why)
	}
	if len(fs) > 0 {
		return Found(artMerge(fs, fsSIDs)...)
	}
	if len(checked) == 0 {
		checked = append(checked, "every caged instance has cpu_count ≥ 2 and a resource plan")
	}
	return Passed("%s", strings.Join(checked, "; ")).Reading(strings.Join(read, "; "), strings.Join(checked, "; "))
}

// oraGroupCPUs is the number of CPUs of Oracle processor group name (a
// cgroup of the cpuset controller named so): the host's cgroup, else a
// cgconfig.conf (the host's or an --artifact), with where it was read.
func oraGroupCPUs(in *Input, name string) (int, string, bool) {
	count := func(list string) (int, bool) {
		cpus, err := cpulist.Parse(strings.Trim(strings.TrimSpace(list), `"`))
		return len(cpus), err == nil && len(cpus) > 0
	}
	if in.Snap != nil {
		for _, g := range in.Snap.Cgroups.Groups {
			if strings.Trim(g.Path, "/") != name {
				continue
			}
			for _, c := range []*string{g.EffectiveCPUs, g.CPUs} {
				if c != nil {
					if n, ok := count(*c); ok {
						return n, fmt.Sprintf("this host: cgroup %s cpuset of %d CPUs (%s)", g.Path, n, *c), true
					}
				}
			}
		}
	}
	var entries []snapshot.CgconfigEntry
	if in.Snap != nil {
		entries = append(entries, in.Snap.Config.Cgconfig...)
	}
	if in.Artifacts != nil {
		for _, c := range in.Artifacts.Cgconfigs {
			entries = append(entries, c.Entries...)
		}
	}
	for _, e := range entries {
		if e.Group == name && e.Key == "cpuset.cpus" {
			if n, ok := count(e.Value); ok {
				return n, fmt.Sprintf("%s:%d: group %s cpuset.cpus = %s (%d CPUs)", e.File, e.Line, name, e.Value, n), true
			}
		}
	}
	return 0, "", false
}

// dbPick is the instance chosen for one database (cagingSums: a RAC
// database's SIDs run on different hosts).
type dbPick struct {
	inst  cagedInst
	note  string
	local bool
}

// cpuCountShares is the fix for caged instances whose cpu_count sum
// exceeds the CPUs they share: each gets its share of them (at least 2).
func cpuCountShares(keys []string, picks map[string]*dbPick, cpus, sum int) []string {
	var fix []string
	for _, k := range keys {
		p := picks[k]
		n := max(p.inst.cpus*cpus/sum, 2)
		fix = append(fix, fmt.Sprintf("ALTER SYSTEM SET cpu_count=%d SCOPE=BOTH SID=%s;", n, sqlStr(p.inst.sid)))
	}
	return fix
}
