package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// numa.awr-lio-remote-memory: the report shows a CPU-bound instance doing
// mostly logical reads (DB CPU most of DB time, a high logical read rate):
// its speed is the speed of memory. 001 measured 4.5 M logical reads/s with
// the SGA on the CPUs' node against 2.1 M with it on the farthest node
// (2.15x, about the SLIT distance ratio 22/10). The host says where the
// instance's CPUs and memory are, and whether Oracle NUMA support is on.
func init() {
	Register(Rule{
		ID:           "numa.awr-lio-remote-memory",
		Area:         AreaNUMA,
		Severity:     SevWarning,
		Title:        "CPU-bound logical reads on a NUMA host with remote or interleaved memory",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed001, Section: "Measure the impact of remote versus local NUMA node access thanks to processor_group_name — Conclusion",
				Quote: "My tests show 2.15 times less logical reads per second with my farest remote access"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — OBSERVATIONS",
				Quote: "Without binding, the SGA is interleaved across all the NUMA nodes"},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Oracle NUMA optimizations",
				Quote: "The parameter _enable_NUMA_support should be set to TRUE"},
		},
		Scope: Scope{
			DBVersions: "processor_group_name 12c+; _enable_NUMA_support (hidden) 11gR2+",
			Note:       "read from AWR/Statspack reports (--artifact, dbhost awr); the placement needs the host (cpusets, numa_maps)",
		},
		Thresholds: []string{fmt.Sprintf("DB CPU at %d %% of DB time or more with %d logical reads per second or more", lioCPUPct, lioPerSec)},
		Check:      checkAWRLIORemote,
	})
}

const (
	lioCPUPct = 60     // 001's runs: 97-99 % DB CPU
	lioPerSec = 100000 // 001's runs: 2.1 M to 8.6 M logical reads/s
)

func checkAWRLIORemote(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return lioRemoteReport(in, r) })
}

func lioRemoteReport(in *Input, r *artifacts.AWRReport) Outcome {
	cpu, okCPU := r.CPUEvent()
	lio := r.LoadProfile.LogicalReadsPerS
	if !okCPU || lio == nil {
		return CannotCheck("the report gives no DB CPU share or no logical read rate")
	}
	pct, okPct := awrPct(r, cpu)
	if !okPct || pct < lioCPUPct || *lio < lioPerSec {
		return Passed("DB CPU %s %% of DB time, %s logical reads/s: not CPU-bound on logical reads", awrNum(pct), awrNum(*lio)).
			Reading(awrEv(r, cpu), fmt.Sprintf("Load Profile: %s logical reads per second", awrNum(*lio)))
	}
	ev := []string{awrEv(r, cpu), fmt.Sprintf("Load Profile: %s logical reads per second", awrNum(*lio))}
	if os, osEv := awrOS(in, r); os == OSAIX {
		return NotApplicable("an AIX instance (%s), CPU-bound on logical reads: its placement over SRADs (rsets, Oracle NUMA support) is judged by numa.aix-oracle-rsets on the AIX bundle (004), not Linux cpusets and numa_maps", osEv)
	}
	if r.LoadProfile.DBCPUPerS != nil && *r.LoadProfile.DBCPUPerS > 0 {
		ev = append(ev, fmt.Sprintf("%s logical reads per CPU second", awrNum(*lio / *r.LoadProfile.DBCPUPerS)))
	}
	numaParam, numaEv, haveNUMA := awrParam(r, "_enable_numa_support")
	if haveNUMA {
		ev = append(ev, numaEv)
	}
	if _, gEv, ok := awrParam(r, "processor_group_name"); ok {
		ev = append(ev, gEv)
	}
	if r.Host.Sockets != nil {
		if *r.Host.Sockets < 2 {
			return Passed("CPU-bound on logical reads, but the report's host has one socket").
				Reading(strings.Join(ev, "; "), fmt.Sprintf("the report's host: %d socket(s)", *r.Host.Sockets))
		}
		ev = append(ev, fmt.Sprintf("the report's host: %d sockets", *r.Host.Sockets))
	}
	given, none := awrHost(in)
	if !given {
		return CannotCheck("%s; %s where the instance's CPUs and memory are (cpusets, numa_maps) and whether Oracle NUMA support is on",
			strings.Join(ev, "; "), none)
	}
	if n := awrHostNote(in, r); n != "" {
		ev = append(ev, n)
	}
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if NodeCount(s) <= 1 {
		return Passed("this host has one NUMA node: all memory is local").
			Reading(strings.Join(ev, "; "), fmt.Sprintf("this host: %d NUMA node(s) (/sys/devices/system/node)", NodeCount(s)))
	}
	procs := awrInstanceProcs(in, r)
	if len(procs) == 0 {
		return CannotCheck("no process of instance %s on this host: the report may be from another host", orNone(r.Instance))
	}
	var remote []string
	var cpuNodes []int
	for _, p := range procs {
		if len(p.CPUsAllowed) == 0 {
			continue
		}
		nodes, _ := NodesOfCPUs(s, p.CPUsAllowed)
		if len(nodes) > len(cpuNodes) {
			cpuNodes = nodes
		}
		local := map[int]bool{}
		for _, n := range nodes {
			local[n] = true
		}
		var far []int
		for _, m := range p.MemsAllowed {
			if !local[m] {
				far = append(far, m)
			}
		}
		var remoteKB, totalKB int64
		for _, nm := range p.NUMA {
			totalKB += nm.TotalKB
			if !local[nm.Node] {
				remoteKB += nm.TotalKB
			}
		}
		switch {
		case totalKB > 0 && remoteKB*10 >= totalKB:
			remote = append(remote, fmt.Sprintf("process %d (%s) runs on node(s) %s with %.0f %% of its memory elsewhere (numa_maps)",
				p.PID, p.Comm, List(nodes), 100*float64(remoteKB)/float64(totalKB)))
		case len(far) > 0 && len(far) == len(p.MemsAllowed):
			remote = append(remote, fmt.Sprintf("process %d (%s) runs on node(s) %s and may allocate only on %s", p.PID, p.Comm, List(nodes), List(far)))
		}
	}
	if len(remote) > 0 {
		return Found(Finding{
			Setting:     "placement of instance " + r.Instance + " (cpuset.cpus / cpuset.mems)",
			Current:     "memory remote from the instance's CPUs: " + remote[0],
			Recommended: "the instance's memory on its CPUs' nodes (cpuset.mems = the nodes of cpuset.cpus)",
			Evidence:    strings.Join(append(ev, remote...), "; "),
			Why: "A CPU-bound instance doing logical reads runs at memory speed: 001 measured 4.5 M logical reads/s with the SGA " +
				"on the CPUs' node and 2.1 M with it on the farthest node (2.15x, about the distance ratio 22/10).",
			Fix:  Fix{Runtime: []string{}, Persistent: []string{"set cpuset.mems of the instance's cgroup to the nodes of its cpuset.cpus and restart the instance (memory does not follow a change of cpuset.mems, 001)"}},
			Risk: "The node(s) must hold the SGA in their hugepage pools (memory.hugepages-too-few per node); a restart is needed.",
		})
	}
	if len(cpuNodes) >= 2 && (!haveNUMA || !strings.EqualFold(oraUnquote(numaParam), "TRUE")) {
		cur := "_enable_NUMA_support not set (FALSE)"
		if haveNUMA {
			cur = "_enable_NUMA_support = " + numaParam
		}
		return Found(Finding{
			Severity:    SevInfo,
			Setting:     "oracle:_enable_NUMA_support",
			Current:     fmt.Sprintf("%s for an instance running on NUMA nodes %s: its SGA is interleaved across them", cur, List(cpuNodes)),
			Recommended: "TRUE (each process's memory on its node), or the instance bound to one node",
			Evidence:    strings.Join(ev, "; "),
			Why: "Without binding or NUMA support the SGA is interleaved across the nodes (001), so a share of every CPU-bound " +
				"logical read is remote; 000 enabled Oracle NUMA support as part of its NUMA configuration.",
			Fix:  Fix{Runtime: []string{}, Persistent: []string{`ALTER SYSTEM SET "_enable_NUMA_support"=TRUE SCOPE=SPFILE; restart (agree it with Oracle Support)`}},
			Risk: "A hidden parameter; each node's hugepage pool must then hold its share of the SGA.",
		})
	}
	return Passed("instance %s's memory is on its CPUs' nodes", r.Instance).Reading(strings.Join(ev, "; "))
}
