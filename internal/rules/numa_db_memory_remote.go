package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.db-memory-remote: a database process bound to the CPUs of some nodes
// has most of its memory (numa_maps) on other nodes, so every access crosses
// the interconnect. Processes allowed on every node are not judged: without a
// binding there is no "local".
func init() {
	Register(Rule{
		ID:       "numa.db-memory-remote",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "Database memory sits mostly on nodes other than its CPUs'",
		Sources: []Source{
			{Doc: Seed000, Section: "Determining Task Memory Allocation Location",
				Quote: "The N<node>= shows the number of pages allocated from each <node>."},
			{Doc: Seed000, Section: "Task and memory object placement (numactl/taskset/cgroups)",
				Quote: "The best method to constrain task migrations is to use the numactl(8) command"},
			{Doc: Seed001, Section: "Measure the impact of remote versus local NUMA node access thanks to processor_group_name — Conclusion",
				Quote: "My tests show 2.15 times less logical reads per second with my farest remote access"},
		},
		Scope: Scope{
			Kernels: "any NUMA kernel; numa_maps needs root to read other users' processes",
			Note:    "judged on processes bound to a subset of nodes (taskset, numactl, cpuset, processor_group_name)",
		},
		Thresholds: []string{"more than half of a process's memory on other nodes counts as remote", "processes with less than 64 MiB mapped are left out"},
		Check:      checkDBMemoryRemote,
	})
}

const (
	remoteShare   = 0.5      // more than half of the memory remote
	minProcMemKB  = 64 << 10 // ignore processes with less than 64 MiB mapped
	remoteMaxRows = 10       // at most this many processes reported
)

func checkDBMemoryRemote(in *Input) Outcome {
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if NodeCount(s) <= 1 {
		return NotApplicable("one NUMA node: all memory is local")
	}
	procs := in.DBProcesses()
	if len(procs) == 0 {
		return NotApplicable("no %s process in the snapshot", dbName(in.DB))
	}
	read, unbound := 0, 0
	var fs []Finding
	for _, p := range procs {
		if len(p.NUMA) == 0 {
			continue
		}
		read++
		nodes, _ := NodesOfCPUs(s, p.CPUsAllowed)
		if len(nodes) == 0 || len(nodes) >= NodeCount(s) {
			unbound++
			continue
		}
		local := map[int]bool{}
		for _, n := range nodes {
			local[n] = true
		}
		var total, remote int64
		var perNode []string
		for _, nm := range p.NUMA {
			total += nm.TotalKB
			if !local[nm.Node] {
				remote += nm.TotalKB
			}
			if nm.TotalKB > 0 {
				perNode = append(perNode, fmt.Sprintf("N%d=%s", nm.Node, KB(nm.TotalKB)))
			}
		}
		if total < minProcMemKB || float64(remote) <= remoteShare*float64(total) {
			continue
		}
		if len(fs) == remoteMaxRows {
			break
		}
		pct := 100 * float64(remote) / float64(total)
		fs = append(fs, Finding{
			Setting:     fmt.Sprintf("process:%s[%d] memory nodes", p.Comm, p.PID),
			Current:     fmt.Sprintf("%.0f %% of %s on nodes other than %s", pct, KB(total), List(nodes)),
			Recommended: fmt.Sprintf("memory on node(s) %s, the nodes of its CPUs %s", List(nodes), List(p.CPUsAllowed)),
			Evidence: fmt.Sprintf("/proc/%d/numa_maps: %s; /proc/%d/status Cpus_allowed_list %s (node(s) %s)",
				p.PID, strings.Join(perNode, " "), p.PID, List(p.CPUsAllowed), List(nodes)),
			Why: "Every access to remote memory crosses the interconnect: 001 measured 2.15x fewer Oracle logical reads per second " +
				"with the SGA one hop away (distance 22 vs 10).",
			Fix: Fix{
				Runtime: []string{fmt.Sprintf("migratepages %d %s %s   (numactl package; moves private pages only)",
					p.PID, List(remoteNodes(p.NUMA, local)), List(nodes))},
				Persistent: []string{fmt.Sprintf("start the instance with numactl --cpunodebind=%s --membind=%s, or a cpuset whose mems are %s",
					List(nodes), List(nodes), List(nodes))},
			},
			Risk: "Shared memory (SGA, shared_buffers) is placed when first touched and moves only with a restart; binding memory to " +
				"fewer nodes needs enough free memory and hugepages there.",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case read == 0:
		return CannotCheck("%s", in.Reason("processes.numa", "numa_maps of the database processes were not read (run as root)"))
	case unbound == read:
		return Passed("%d database process(es) with numa_maps, none bound to a subset of nodes", read).
			Reading(fmt.Sprintf("/proc/PID/numa_maps and /proc/PID/status Cpus_allowed_list of %d database process(es): every one allowed on all nodes", read))
	}
	return Passed("%d database process(es) with numa_maps: memory mostly on the nodes of their CPUs", read).
		Reading(fmt.Sprintf("/proc/PID/numa_maps and /proc/PID/status Cpus_allowed_list of %d database process(es) (%d allowed on all nodes): none with more than %.0f %% of its memory off its CPUs' nodes", read, unbound, remoteShare*100))
}

// remoteNodes lists the nodes holding memory of the process outside local.
func remoteNodes(mem []snapshot.NodeMem, local map[int]bool) []int {
	var out []int
	for _, m := range mem {
		if !local[m.Node] && m.TotalKB > 0 {
			out = append(out, m.Node)
		}
	}
	return out
}

func dbName(db string) string {
	if db == DBNone {
		return "database"
	}
	return db
}
