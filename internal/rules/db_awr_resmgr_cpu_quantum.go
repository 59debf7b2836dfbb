package rules

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// db.awr-resmgr-cpu-quantum: an AWR/Statspack report shows sessions waiting
// on "resmgr:cpu quantum" — the Resource Manager holds them off the CPU.
// That is instance caging only when the instance has both cpu_count and a
// resource_manager_plan (001's Facts); a plan without cpu_count divides the
// CPU among consumer groups, and setting cpu_count for it would start
// caging. Caged alone, the instance is told what 001 measured: under the
// same pressure on the same NUMA node caging did about 10 % fewer logical
// reads than binding (Tests 3 and 4: 5.1 M against 5.8 M); caged on top of
// binding (processor_group_name, or a cpuset on the host), the mix is 001's
// own design and is respected: only cpu_count within the cpuset is said.
func init() {
	Register(Rule{
		ID:           "db.awr-resmgr-cpu-quantum",
		Area:         AreaDB,
		Severity:     SevWarning,
		Title:        "The Resource Manager throttles the database (resmgr:cpu quantum: instance caging or a plan)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — Caging and Binding with CPU pressure: OEM and AWR views",
				Quote: "40% is spend waiting because of the caging (Scheduler wait class)"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — FACTS",
				Quote: "Set “resource_manager_plan” parameter to enable CPU Resource Manager"},
			{Doc: Seed001, Section: "cpu binding (processor_group_name) vs Instance caging comparison during LIO pressure — Conclusion",
				Quote: "And only 3 and 4 are valuable comparison."},
			{Doc: Seed001, Section: "cpu binding (processor_group_name) vs Instance caging comparison during LIO pressure — Conclusion",
				Quote: "the Instance caging has been less performant (compare to the cpu binding) by about 10% during LIO pressure"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — OBSERVATIONS",
				Quote: "you should pay attention to the NUMA memory and CPUs locality as it has an impact on the LIO performance"},
		},
		Scope: Scope{
			DBVersions: "instance caging: 11gR2 and later; binding with processor_group_name: 12c and later on Linux",
			Note: "read from AWR or Statspack reports (--artifact, dbhost awr); caging is cpu_count with a resource_manager_plan, " +
				"a plan alone is not caging; 001 measured on 12.1.0.2 with SLOB",
		},
		Thresholds: []string{fmt.Sprintf("resmgr:cpu quantum, the Scheduler wait class or %%DB time waiting for CPU (Resource Manager) at %d %% of DB time or more", resmgrPct)},
		Check:      checkAWRResmgr,
	})
}

// resmgrPct is the share of DB time in the caging's waits from which the
// rule fires (001 shows 39.4 %; a few percent is a cage that works).
const resmgrPct = 5

// resmgrWhy is 001's comparison, as 001 makes it.
const resmgrWhy = "001 compared caging with binding under the same CPU pressure on the same NUMA node (its Tests 3 and 4: " +
	"binding alone 5.8 M logical reads/s, binding with caging 5.1 M): caging cost about 10 %, the Resource Manager's overhead. " +
	"(Its 3.5 M for caging alone also had the SGA spread over every node; 001 counts only Tests 3 and 4 as a valid comparison.) " +
	"Caging shows the waiting as resmgr:cpu quantum (Scheduler class, 39.4 % of DB time with cpu_count 6 for 9 sessions), " +
	"binding as run-queue time."

func checkAWRResmgr(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return resmgrReport(in, r) })
}

// awrPlan is the report's resource_manager_plan when one is set (a value
// other than empty quotes), with its evidence.
func awrPlan(r *artifacts.AWRReport) (string, string, bool) {
	v, ev, ok := awrParam(r, "resource_manager_plan")
	if !ok || oraUnquote(v) == "" {
		return "", ev, false
	}
	return oraUnquote(v), ev, true
}

func resmgrReport(in *Input, r *artifacts.AWRReport) Outcome {
	var pct float64
	var ev []string
	if e, ok := r.Event("resmgr:cpu quantum"); ok {
		if p, ok := awrPct(r, e); ok {
			pct = p
			ev = append(ev, awrEv(r, e))
		}
	}
	for _, c := range r.WaitClasses {
		if strings.EqualFold(c.WaitClass, "Scheduler") && c.PctDBTime != nil && *c.PctDBTime > pct {
			pct = *c.PctDBTime
			ev = append(ev, fmt.Sprintf("wait class Scheduler: %s %% of DB time", awrNum(*c.PctDBTime)))
		}
	}
	if ic := r.InstanceCPU; ic != nil && ic.PctDBTimeWaitingCPURM != nil && *ic.PctDBTimeWaitingCPURM > pct {
		pct = *ic.PctDBTimeWaitingCPURM
		ev = append(ev, fmt.Sprintf("Instance CPU: %s %% of DB time waiting for CPU (Resource Manager)", awrNum(pct)))
	}
	if len(r.TopEvents) == 0 && r.InstanceCPU == nil {
		return CannotCheck("the report has no top events and no Instance CPU section")
	}
	if pct < resmgrPct {
		return Passed("resmgr:cpu quantum below %d %% of DB time", resmgrPct).Reading(strings.Join(ev, "; "), awrEventsRead(r))
	}

	cpuCount, cpuEv, haveCount := awrParam(r, "cpu_count")
	plan, planEv, havePlan := awrPlan(r)
	group, groupEv, bound := awrParam(r, "processor_group_name")
	group = oraUnquote(group)
	bound = bound && group != ""
	for _, x := range []string{cpuEv, planEv, groupEv} {
		if x != "" {
			ev = append(ev, x)
		}
	}
	caged := haveCount && havePlan
	aas, haveAAS := awrAAS(r)
	if haveAAS {
		ev = append(ev, fmt.Sprintf("Load Profile: DB time %s s per second (average active sessions)", awrNum(aas)))
	}
	if lp := r.LoadProfile.LogicalReadsPerS; lp != nil {
		ev = append(ev, fmt.Sprintf("Load Profile: %s logical reads per second", awrNum(*lp)))
	}
	cur := fmt.Sprintf("%s %% of DB time waiting for the Resource Manager's CPU quantum", awrNum(pct))
	sid := r.Instance
	if sid == "" {
		sid = "*"
	}
	if !caged {
		return resmgrNotCaging(r, cur, ev, haveCount, cpuCount, havePlan, plan)
	}

	cpus, haveCPUs := awrCPUs(r)
	cur += fmt.Sprintf(": the instance is caged at cpu_count %s", cpuCount)
	if haveCPUs {
		cur += fmt.Sprintf(" of the report's %d CPUs", cpus)
	}
	if haveAAS {
		cur += fmt.Sprintf(" for %s average active sessions", awrNum(aas))
	}
	want := 0
	if haveAAS {
		want = int(math.Ceil(aas))
	}

	// The host: threads, the instance's cpuset, the node a cpuset fits on.
	var hostEv []string
	given, none := awrHost(in)
	threads, threadsWhy := 0, "no host"
	var allowed []int
	if given {
		if n := awrHostNote(in, r); n != "" {
			hostEv = append(hostEv, n)
		}
		threads, threadsWhy = artThreads(in)
		if threadsWhy == "" {
			hostEv = append(hostEv, fmt.Sprintf("this host: %d CPU threads, %d NUMA node(s)", threads, NodeCount(in.Snap)))
		}
		procs := awrInstanceProcs(in, r)
		for _, p := range procs {
			if len(p.CPUsAllowed) > 0 && (allowed == nil || len(p.CPUsAllowed) < len(allowed)) {
				allowed = p.CPUsAllowed
			}
		}
		if len(procs) == 0 {
			hostEv = append(hostEv, fmt.Sprintf("no process of instance %s on this host", orNone(r.Instance)))
		}
	}
	inCpuset := given && threadsWhy == "" && len(allowed) > 0 && len(allowed) < threads
	if bound || inCpuset {
		// 001's mix: binding and caging together, a design it describes
		// (Customer cases) and measured (Test 4). Respected: only the cage
		// inside the cpuset is said.
		how := ""
		switch {
		case bound && inCpuset:
			how = fmt.Sprintf("processor_group_name %s, CPUs %s", group, List(allowed))
		case bound:
			how = "processor_group_name " + group
		default:
			how = "CPUs " + List(allowed)
		}
		if inCpuset {
			hostEv = append(hostEv, fmt.Sprintf("instance %s already runs on CPUs %s (%d of %d): caging on top of binding",
				r.Instance, List(allowed), len(allowed), threads))
		}
		cur += fmt.Sprintf(", on top of binding (%s)", how)
		fix := Fix{Runtime: []string{}, Persistent: []string{}}
		rec := "keep the mix if it is the design (001's binding + caging); to give the instance more CPU, raise cpu_count online within its cpuset"
		if want > 0 {
			n := want
			if inCpuset && n > len(allowed) {
				n = len(allowed)
			}
			if c, err := strconv.Atoi(oraUnquote(cpuCount)); err != nil || n > c {
				fix.Runtime = append(fix.Runtime, fmt.Sprintf("ALTER SYSTEM SET cpu_count=%d SCOPE=BOTH SID=%s; (only if the instance should get more CPU: the cage is the mix's design)", n, sqlStr(sid)))
			}
		}
		return Found(Finding{
			Severity:    SevInfo,
			Setting:     "oracle:cpu_count (instance caging inside a binding)",
			Current:     cur,
			Recommended: rec,
			Evidence:    strings.Join(append(ev, hostEv...), "; "),
			Why: "001 measured this mix (Test 4: binding with caging 5.1 M logical reads/s against 5.8 M for binding alone, about 10 % " +
				"less, the Resource Manager's overhead) and uses it in its Customer cases to cap an instance inside a group's CPUs; " +
				"with binding in place the CPUs an instance may use can also change on the fly through cpuset.cpus. The waits say the " +
				"instance asks for more CPU than its cage, not that the placement is wrong.",
			Fix:  fix,
			Risk: "Raising cpu_count lets this instance take CPU from the others sharing its cpuset (the reason it was caged).",
		})
	}

	rec := "give the instance the CPU it asks for: raise cpu_count (online) to at least the average active sessions"
	if want > 0 {
		rec = fmt.Sprintf("give the instance the CPU it asks for: cpu_count %d (its average active sessions), or bind it to a cpuset of that many CPUs on one NUMA node with processor_group_name instead of caging it", want)
	}
	fix := Fix{Runtime: []string{}, Persistent: []string{}}
	if want > 0 {
		fix.Runtime = append(fix.Runtime, fmt.Sprintf("ALTER SYSTEM SET cpu_count=%d SCOPE=BOTH SID=%s;", want, sqlStr(sid)))
	}
	if os, osEv := awrOS(in, r); os == OSAIX {
		// processor_group_name binds to a Linux cgroup (or a Solaris
		// pool): on AIX only the cage itself is said.
		ev = append(ev, osEv+": binding with processor_group_name is not available there (an instance is attached to an rset instead: numa.aix-oracle-rsets)")
		rec = "give the instance the CPU it asks for: raise cpu_count (online) to at least the average active sessions"
		if want > 0 {
			rec = fmt.Sprintf("give the instance the CPU it asks for: cpu_count %d (its average active sessions)", want)
		}
		return Found(Finding{
			Setting:     "oracle:cpu_count and resource_manager_plan (instance caging)",
			Current:     cur,
			Recommended: rec,
			Evidence:    strings.Join(ev, "; "),
			Why:         resmgrWhy,
			Fix:         fix,
			Risk:        "Raising cpu_count lets this instance take CPU from the others on the LPAR (the reason it was caged).",
		})
	}
	if !given {
		hostEv = append(hostEv, none+" whether binding fits: the host's CPUs per NUMA node and the instance's cpuset")
		fix.Persistent = append(fix.Persistent, "binding instead of caging: a cgroup cpuset of cpu_count CPUs and their NUMA node's memory (cpuset.mems), "+
			"then ALTER SYSTEM SET processor_group_name='oracle' SCOPE=SPFILE and restart; ALTER SYSTEM RESET cpu_count / resource_manager_plan")
	} else {
		need := want
		if need == 0 {
			need, _ = strconv.Atoi(oraUnquote(cpuCount))
		}
		if node, cpusOn := awrNodeFor(in, need); node >= 0 {
			hostEv = append(hostEv, fmt.Sprintf("node %d has %d CPUs: a cpuset of %d CPUs (%s) with cpuset.mems=%d keeps the instance's CPUs and memory local",
				node, len(cpusOn), need, List(cpusOn[:need]), node))
			fix.Edits = append(fix.Edits, FileEdit{File: "/etc/cgconfig.conf",
				Edit: fmt.Sprintf("binding instead of caging: add group oracle { cpuset { cpuset.cpus = \"%s\"; cpuset.mems = \"%d\"; } }", List(cpusOn[:need]), node),
				Then: fmt.Sprintf("systemctl restart cgconfig, then ALTER SYSTEM SET processor_group_name='oracle' SCOPE=SPFILE SID=%s; "+
					"reset cpu_count and resource_manager_plan; restart the instance", sqlStr(sid))})
		} else if need > 0 && NodeCount(in.Snap) > 0 {
			hostEv = append(hostEv, fmt.Sprintf("no NUMA node of this host has %d CPUs: a cpuset would span nodes (001: the SGA is then not evenly spread, and remote access costs 2.15x)", need))
		}
	}
	return Found(Finding{
		Setting:     "oracle:cpu_count and resource_manager_plan (instance caging)",
		Current:     cur,
		Recommended: rec,
		Evidence:    strings.Join(append(ev, hostEv...), "; "),
		Why:         resmgrWhy,
		Fix:         fix,
		Risk: "Raising cpu_count lets this instance take CPU from the others on the host (the reason it was caged). Binding needs an " +
			"instance restart, a cpuset per instance and per-node hugepages for its SGA; changing cpuset.mems later needs another restart (001).",
	})
}

// resmgrNotCaging is the finding for Resource Manager waits without
// instance caging (a plan without cpu_count, cpu_count without a plan, or
// a report that gives neither): never a cpu_count to set, which would cage
// the instance.
func resmgrNotCaging(r *artifacts.AWRReport, cur string, ev []string, haveCount bool, cpuCount string, havePlan bool, plan string) Outcome {
	fix := Fix{Runtime: []string{}, Persistent: []string{}}
	var rec string
	switch {
	case !r.Has(artifacts.AWRSectionInitOra):
		cur += ": the report has no init.ora Parameters, so whether this is instance caging (cpu_count with a resource_manager_plan) or a plan's directives is unknown"
		rec = "read cpu_count and resource_manager_plan of the instance (SHOW PARAMETER) before changing either: with both set the instance is caged, with a plan alone its directives divide the CPU"
		fix.Persistent = append(fix.Persistent, "SHOW PARAMETER cpu_count; SHOW PARAMETER resource_manager_plan;")
	case havePlan:
		cur += fmt.Sprintf(" under resource_manager_plan %s without cpu_count: the plan's CPU directives throttle sessions, this is not instance caging", plan)
		rec = "review the plan's CPU directives for the consumer groups that wait (or the host's CPU use); do not set cpu_count for it: with a plan set, cpu_count cages the instance"
		fix.Persistent = append(fix.Persistent, fmt.Sprintf("SELECT group_or_subplan, mgmt_p1, max_utilization_limit FROM dba_rsrc_plan_directives WHERE plan = %s;", sqlStr(strings.ToUpper(plan))))
	case haveCount:
		cur += fmt.Sprintf(" with cpu_count %s and no resource_manager_plan in the report: not instance caging; a plan was active during the snapshots (a scheduler window's plan sets resource_manager_plan itself)", cpuCount)
		rec = "find the plan that was active (DBA_SCHEDULER_WINDOWS' resource_plan, v$rsrc_plan_history) and review its CPU directives"
		fix.Persistent = append(fix.Persistent, "SELECT name, start_time, end_time FROM v$rsrc_plan_history ORDER BY start_time;")
	default:
		cur += ": the report shows neither cpu_count nor resource_manager_plan, so this is not instance caging; a plan was active during the snapshots (a scheduler window's plan sets resource_manager_plan itself)"
		rec = "find the plan that was active (DBA_SCHEDULER_WINDOWS' resource_plan, v$rsrc_plan_history) and review its CPU directives; do not set cpu_count for it: with a plan, cpu_count cages the instance"
		fix.Persistent = append(fix.Persistent, "SELECT name, start_time, end_time FROM v$rsrc_plan_history ORDER BY start_time;")
	}
	return Found(Finding{
		Severity:    SevInfo,
		Setting:     "oracle:resource_manager_plan (CPU directives)",
		Current:     cur,
		Recommended: rec,
		Evidence:    strings.Join(ev, "; "),
		Why: "001's Facts: instance caging is two steps, cpu_count and a resource_manager_plan; the Resource Manager waits " +
			"without cpu_count come from a plan dividing the CPU, outside what 001 measured. Setting cpu_count here would start caging.",
		Fix:  fix,
		Risk: "Changing a plan's directives moves CPU between consumer groups (and between the databases that share the host).",
	})
}

// awrNodeFor is the first NUMA node with at least need online CPUs, and its
// CPUs; -1 when none (or need is 0).
func awrNodeFor(in *Input, need int) (int, []int) {
	if need <= 0 || in.Snap == nil {
		return -1, nil
	}
	for _, n := range in.Snap.Topology.Nodes {
		if n.Online && len(n.CPUs) >= need {
			return n.ID, n.CPUs
		}
	}
	return -1, nil
}

func orNone(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return s
}
