package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// db.oracle-caging-sums: instance caging (cpu_count + resource_manager_plan)
// only guarantees CPU when sum(cpu_count) over the caged instances does not
// exceed the host's CPU threads, each cpu_count is at least 2, and a
// resource manager plan is set (without one cpu_count is not enforced).
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
		},
		Scope: Scope{
			DBVersions: "Oracle 11.2+ (instance caging); 001: 12.1.0.2",
			Note: "instances from the init.ora/pfile/spfile and alert logs given with --artifact; a RAC database's per-SID " +
				"settings count once (the instance running here when the snapshot shows it)",
		},
		Check: checkOracleCagingSums,
	})
}

type cagedInst struct {
	sid, where, planWhere string
	cpus                  int
	plan                  string
	planKnown             bool
}

func checkOracleCagingSums(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	local := artLocalSIDs(in.Snap)
	// One entry per database: a RAC database's SIDs run on different hosts.
	type dbPick struct {
		inst  cagedInst
		note  string
		local bool
	}
	picks := map[string]*dbPick{}
	var order []string
	var fs []Finding
	var fsSIDs []string
	var checked, read []string
	for _, i := range insts {
		v, where, ok := i.Param("cpu_count")
		if !ok {
			checked = append(checked, i.SID+": cpu_count not set (not caged)")
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
		c := cagedInst{sid: i.SID, where: where, cpus: n, plan: plan, planKnown: planSet || i.Complete(), planWhere: planWhere}
		read = append(read, fmt.Sprintf("%s: cpu_count = %s, resource_manager_plan %q", where, v, plan))
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
		if (!planSet && i.Complete()) || (planSet && plan == "") {
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
			var fix []string
			for _, k := range order {
				p := picks[k]
				n := p.inst.cpus * threads / sum
				if n < 2 {
					n = 2
				}
				fix = append(fix, fmt.Sprintf("ALTER SYSTEM SET cpu_count=%d SCOPE=BOTH SID=%s;", n, sqlStr(p.inst.sid)))
			}
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
