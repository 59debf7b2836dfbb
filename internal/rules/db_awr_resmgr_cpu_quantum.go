package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// db.awr-resmgr-cpu-quantum: an AWR/Statspack report shows sessions waiting
// on "resmgr:cpu quantum" — the instance is caged (cpu_count with a
// resource manager plan) below the CPU it asks for. 001 measured caging
// against binding under the same pressure: 3.5 M against 5.8 M logical
// reads/s. With the host, the rule says whether binding would fit (the
// host's threads, the node that could hold a cpuset of cpu_count CPUs, and
// whether the instance already runs in one).
func init() {
	Register(Rule{
		ID:           "db.awr-resmgr-cpu-quantum",
		Area:         AreaDB,
		Severity:     SevWarning,
		Title:        "Instance caging throttles the database (resmgr:cpu quantum)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — Caging and Binding with CPU pressure: OEM and AWR views",
				Quote: "40% is spend waiting because of the caging (Scheduler wait class)"},
			{Doc: Seed001, Section: "cpu binding (processor_group_name) vs Instance caging comparison during LIO pressure — Conclusion",
				Quote: "Instance caging only and LIO pressure: 3 500 000 logical reads per second"},
			{Doc: Seed001, Section: "cpu binding (processor_group_name) vs Instance caging comparison during LIO pressure — Conclusion",
				Quote: "cpu binding only and LIO pressure: 5 800 000 logical reads per second"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — OBSERVATIONS",
				Quote: "you should pay attention to the NUMA memory and CPUs locality as it has an impact on the LIO performance"},
		},
		Scope: Scope{
			DBVersions: "instance caging: 11gR2 and later; binding with processor_group_name: 12c and later on Linux",
			Note:       "read from AWR or Statspack reports (--artifact, dbhost awr); 001 measured on 12.1.0.2 with SLOB",
		},
		Thresholds: []string{fmt.Sprintf("resmgr:cpu quantum, the Scheduler wait class or %%DB time waiting for CPU (Resource Manager) at %d %% of DB time or more", resmgrPct)},
		Check:      checkAWRResmgr,
	})
}

// resmgrPct is the share of DB time in the caging's waits from which the
// rule fires (001 shows 39.4 %; a few percent is a cage that works).
const resmgrPct = 5

func checkAWRResmgr(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return resmgrReport(in, r) })
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

	cpuCount, cpuEv, caged := awrParam(r, "cpu_count")
	_, planEv, _ := awrParam(r, "resource_manager_plan")
	group, groupEv, bound := awrParam(r, "processor_group_name")
	for _, x := range []string{cpuEv, planEv, groupEv} {
		if x != "" {
			ev = append(ev, x)
		}
	}
	aas, haveAAS := awrAAS(r)
	cpus, haveCPUs := awrCPUs(r)
	cur := fmt.Sprintf("%s %% of DB time waiting for the Resource Manager's CPU quantum", awrNum(pct))
	if caged {
		cur += fmt.Sprintf(": the instance is caged at cpu_count %s", cpuCount)
		if haveCPUs {
			cur += fmt.Sprintf(" of the report's %d CPUs", cpus)
		}
	}
	if haveAAS {
		cur += fmt.Sprintf(" for %s average active sessions", awrNum(aas))
		ev = append(ev, fmt.Sprintf("Load Profile: DB time %s s per second (average active sessions)", awrNum(aas)))
	}
	if lp := r.LoadProfile.LogicalReadsPerS; lp != nil {
		ev = append(ev, fmt.Sprintf("Load Profile: %s logical reads per second", awrNum(*lp)))
	}
	want := ""
	if haveAAS {
		want = fmt.Sprintf("%d", int64(math.Ceil(aas)))
	}

	rec := "give the instance the CPU it asks for: raise cpu_count (online) to at least the average active sessions"
	if want != "" {
		rec = fmt.Sprintf("give the instance the CPU it asks for: cpu_count %s (its average active sessions), or bind it to a cpuset of that many CPUs on one NUMA node with processor_group_name instead of caging it", want)
	}
	fix := Fix{Runtime: []string{}, Persistent: []string{}}
	sid := r.Instance
	if sid == "" {
		sid = "*"
	}
	if want != "" {
		fix.Runtime = append(fix.Runtime, fmt.Sprintf("ALTER SYSTEM SET cpu_count=%s SCOPE=BOTH SID=%s;", want, sqlStr(sid)))
	}

	// The host: threads, the node a cpuset of that size fits on, and
	// whether the instance already runs in one.
	var hostEv []string
	if given, none := awrHost(in); !given {
		hostEv = append(hostEv, none+" whether binding fits: the host's CPUs per NUMA node and the instance's cpuset")
		fix.Persistent = append(fix.Persistent, "binding instead of caging: a cgroup cpuset of cpu_count CPUs and their NUMA node's memory (cpuset.mems), "+
			"then ALTER SYSTEM SET processor_group_name='oracle' SCOPE=SPFILE and restart; ALTER SYSTEM RESET cpu_count / resource_manager_plan")
	} else {
		if n := awrHostNote(in, r); n != "" {
			hostEv = append(hostEv, n)
		}
		threads, why := artThreads(in)
		if why == "" {
			hostEv = append(hostEv, fmt.Sprintf("this host: %d CPU threads, %d NUMA node(s)", threads, NodeCount(in.Snap)))
		}
		procs := awrInstanceProcs(in, r)
		var allowed []int
		for _, p := range procs {
			if len(p.CPUsAllowed) > 0 && (allowed == nil || len(p.CPUsAllowed) < len(allowed)) {
				allowed = p.CPUsAllowed
			}
		}
		switch {
		case len(procs) == 0:
			hostEv = append(hostEv, fmt.Sprintf("no process of instance %s on this host", orNone(r.Instance)))
		case why == "" && len(allowed) > 0 && len(allowed) < threads:
			hostEv = append(hostEv, fmt.Sprintf("instance %s already runs on CPUs %s (%d of %d): caging on top of binding (001: binding + caging 5.1 M against binding alone 5.8 M logical reads/s)",
				r.Instance, List(allowed), len(allowed), threads))
		}
		need := 0
		if haveAAS {
			need = int(math.Ceil(aas))
		} else if caged {
			fmt.Sscan(cpuCount, &need)
		}
		if node, cpusOn := awrNodeFor(in, need); node >= 0 {
			hostEv = append(hostEv, fmt.Sprintf("node %d has %d CPUs: a cpuset of %d CPUs (%s) with cpuset.mems=%d keeps the instance's CPUs and memory local",
				node, len(cpusOn), need, List(cpusOn[:need]), node))
			fix.Persistent = append(fix.Persistent, fmt.Sprintf("binding instead of caging: /etc/cgconfig.conf group oracle { cpuset { cpuset.cpus = \"%s\"; cpuset.mems = \"%d\"; } }, "+
				"then ALTER SYSTEM SET processor_group_name='oracle' SCOPE=SPFILE SID=%s; reset cpu_count and resource_manager_plan; restart the instance",
				List(cpusOn[:need]), node, sqlStr(sid)))
		} else if need > 0 && NodeCount(in.Snap) > 0 {
			hostEv = append(hostEv, fmt.Sprintf("no NUMA node of this host has %d CPUs: a cpuset would span nodes (001: the SGA is then not evenly spread, and remote access costs 2.15x)", need))
		}
	}
	if bound {
		ev = append(ev, fmt.Sprintf("processor_group_name %s is set: the instance is bound and caged", group))
	}
	return Found(Finding{
		Setting:     "oracle:cpu_count and resource_manager_plan (instance caging)",
		Current:     cur,
		Recommended: rec,
		Evidence:    strings.Join(append(ev, hostEv...), "; "),
		Why: "001: under the same CPU pressure a caged instance did 3.5 M logical reads/s and a bound one (processor_group_name, " +
			"a 6-CPU cpuset on the SGA's node) 5.8 M; caging shows the waiting as resmgr:cpu quantum (Scheduler class, 39.4 % of DB time " +
			"with cpu_count 6 for 9 sessions), binding as run-queue time.",
		Fix: fix,
		Risk: "Raising cpu_count lets this instance take CPU from the others on the host (the reason it was caged). Binding needs an " +
			"instance restart, a cpuset per instance and per-node hugepages for its SGA; changing cpuset.mems later needs another restart (001).",
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
