package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// cpu.awr-run-queue: DB CPU and the wait classes account for far less than
// 100 % of DB time while the CPUs are saturated: sessions were runnable but
// waiting for a CPU, time no wait event counts (001: binding to 6 CPUs with
// 9 sessions, DB CPU 65.5 %, "34.12% of the DB time has been spent into the
// runqueue"). The report shows the saturation (load above the CPUs, little
// idle); the host shows the cpuset the instance runs in.
func init() {
	Register(Rule{
		ID:           "cpu.awr-run-queue",
		Area:         AreaCPU,
		Severity:     SevWarning,
		Title:        "DB time spent in the CPU run queue (AWR shows DB time no wait accounts for)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — Caging and Binding with CPU pressure: OEM and AWR views",
				Quote: "99.62–65.5 = 34.12% of the DB time has been spent into the runqueue"},
			{Doc: Seed001, Section: "cpu binding (processor_group_name) vs Instance caging comparison during LIO pressure — TEST 3: cpu binding in place and LIO pressure",
				Quote: "This last observation is due to the fact that “CPU WAIT” is not included into “DB CPU“"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Automatic NUMA balancing",
				Quote: "Ordinarily, the numbers in the “% DB time” column typically add up to a value approximating 100%"},
		},
		Scope: Scope{
			DBVersions: "11g and later (reports whose percentages are of DB time); 10g and Statspack print percentages of call time, which always add up",
			Note:       "read from AWR reports (--artifact, dbhost awr); the saturation from the report's Host CPU section or the instance's cpuset on the host",
		},
		Thresholds: []string{
			fmt.Sprintf("%d %% of DB time or more unaccounted for", runQueuePct),
			fmt.Sprintf("a host under %d %% idle, or a load average above its CPUs, is saturated", awrIdleSaturated),
		},
		Check: checkAWRRunQueue,
	})
}

// runQueuePct is the unaccounted share of DB time from which the rule looks
// for CPU saturation (001: 34 %; 000: 35 %; rounding leaves a few percent).
const runQueuePct = 15

func checkAWRRunQueue(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return runQueueReport(in, r) })
}

func runQueueReport(in *Input, r *artifacts.AWRReport) Outcome {
	un, how, ok := awrUnaccounted(r)
	if !ok {
		if len(r.TopEvents) == 0 {
			return CannotCheck("the report has no top events")
		}
		return NotApplicable("the report's percentages are of %s, not DB time (10g, Statspack): they always add up", awrPctOf(r))
	}
	if un < runQueuePct {
		return Passed("%s: %s %% unaccounted", how, awrNum(un)).Reading(how)
	}
	ev := []string{fmt.Sprintf("%s: %s %% of DB time is in no wait event", how, awrNum(un))}
	if e, ok := r.CPUEvent(); ok {
		ev = append(ev, awrEv(r, e))
	}
	aas, haveAAS := awrAAS(r)
	if haveAAS {
		ev = append(ev, fmt.Sprintf("Load Profile: %s average active sessions", awrNum(aas)))
	}
	sat, satEv, haveSat := awrSaturated(r)
	if haveSat {
		ev = append(ev, satEv)
	}
	if v, ok := r.OSStats["OS_CPU_WAIT_TIME"]; ok && v > 0 {
		ev = append(ev, fmt.Sprintf("OS_CPU_WAIT_TIME %s", awrNum(v)))
	}
	cpuCount, cpuEv, caged := awrParam(r, "cpu_count")
	if caged {
		ev = append(ev, cpuEv)
	}
	_, gEv, bound := awrParam(r, "processor_group_name")
	if bound {
		ev = append(ev, gEv)
	}

	// The CPUs the instance may run on: its cpuset on the host, else cpu_count.
	limit, limitWhat := 0, ""
	given, none := awrHost(in)
	if given {
		if n := awrHostNote(in, r); n != "" {
			ev = append(ev, n)
		}
		for _, p := range awrInstanceProcs(in, r) {
			if len(p.CPUsAllowed) > 0 && (limit == 0 || len(p.CPUsAllowed) < limit) {
				limit, limitWhat = len(p.CPUsAllowed), fmt.Sprintf("its processes' CPUs %s on this host", List(p.CPUsAllowed))
			}
		}
	}
	if limit == 0 && caged {
		fmt.Sscan(cpuCount, &limit)
		limitWhat = "cpu_count"
	}
	queued := haveAAS && limit > 0 && aas > float64(limit)
	if queued {
		ev = append(ev, fmt.Sprintf("%s average active sessions for %d CPUs (%s): %s sessions wait for a CPU on average",
			awrNum(aas), limit, limitWhat, awrNum(aas-float64(limit))))
	}
	switch {
	case sat || queued:
	case bound && !given:
		return CannotCheck("%s %% of DB time is in no wait event and the instance is bound (processor_group_name): the host's load says nothing of its cpuset; %s the cpuset's CPUs against its %s active sessions",
			awrNum(un), none, awrNum(aas))
	case haveSat && !bound:
		return Passed("%s %% of DB time unaccounted, but the host was not CPU-saturated (%s): not run-queue time (on a multi-node host see numa.awr-mutex-numa-balancing)",
			awrNum(un), satEv).Reading(how, satEv)
	case !given:
		return CannotCheck("%s %% of DB time is in no wait event, and the report shows no host load: %s the instance's cpuset against its %s active sessions",
			awrNum(un), none, awrNum(aas))
	default:
		return CannotCheck("%s %% of DB time is in no wait event; neither the report's host load nor the instance's cpuset on this host shows CPU saturation", awrNum(un))
	}
	rec := "as many CPUs for the instance as it has active sessions (a larger cpuset, fewer concurrent sessions, or a less loaded host)"
	if haveAAS {
		rec = fmt.Sprintf("%d CPUs or more for the instance (its average active sessions), or fewer concurrent sessions", int64(math.Ceil(aas)))
	}
	fix := Fix{Runtime: []string{"grow the instance's cpuset (cpuset.cpus applies online; 001), or lower the connection pool / parallelism"},
		Persistent: []string{"size the cpuset, cpu_count and the session count together: average active sessions at or below the CPUs given"}}
	if os, osEv := awrOS(in, r); os == OSAIX {
		ev = append(ev, osEv)
		fix = Fix{Runtime: []string{"give the instance more CPUs (the LPAR's entitlement and virtual processors, or the rset it is attached to), or lower the connection pool / parallelism"},
			Persistent: []string{"size the LPAR's CPUs (or the instance's rset), cpu_count and the session count together: average active sessions at or below the CPUs given"}}
	}
	return Found(Finding{
		Setting:     "CPUs available to the instance",
		Current:     fmt.Sprintf("about %s %% of DB time runnable but waiting for a CPU", awrNum(un)),
		Recommended: rec,
		Evidence:    strings.Join(ev, "; "),
		Why: "DB time counts a session that is runnable but not on a CPU; DB CPU and the wait events do not, so the run queue " +
			"shows only as the DB time they leave unexplained (001: 9 SLOB sessions bound to 6 CPUs, DB CPU 65.5 % of DB time, " +
			"34 % in the run queue; 000 Table 10: the column adding up to about 65 % was the first sign of a host problem).",
		Fix:  fix,
		Risk: "More CPUs for this instance are fewer for the others on the host; if the host itself is saturated, only less work or more hardware helps.",
	})
}
