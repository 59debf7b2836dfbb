package rules

import (
	"fmt"
	"sort"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.pg-shm-spread: a live PostgreSQL server whose backends run on some
// NUMA nodes while most of its shared memory (shared_buffers: what every
// backend reads) sits on other nodes, per the postmaster's numa_maps: each
// buffer access is a remote one.
func init() {
	Register(Rule{
		ID:       "numa.pg-shm-spread",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "Live PostgreSQL: its shared memory sits on other NUMA nodes than its backends' CPUs",
		DBs:      []string{DBPostgres},
		Sources: []Source{
			{Doc: Seed000, Section: "Determining Task Memory Allocation Location", Quote: "The N<node>= shows the number of pages allocated from each <node>."},
			{Doc: Seed001, Section: "Measure the impact of remote versus local NUMA node access thanks to processor_group_name — Conclusion",
				Quote: "My tests show 2.15 times less logical reads per second with my farest remote access"},
			{Doc: Seed000, Section: "Task and memory object placement (numactl/taskset/cgroups)", Quote: "The best method to constrain task migrations is to use the numactl(8) command"},
		},
		Scope: Scope{Kernels: "NUMA kernels; numa_maps of the postmaster needs root (or its OS user)",
			Note: "judged when the backends are confined to a subset of the nodes; unbound backends on every node make a spread (interleaved) segment the right one"},
		Thresholds: []string{"more than 25 % of the shared memory on nodes none of the backends may run on"},
		Check: func(in *Input) Outcome {
			return in.eachServer(DBPostgres, func(d *snapshot.Database) Outcome { return checkPGShmSpread(in, d) })
		},
	})
}

func checkPGShmSpread(in *Input, d *snapshot.Database) Outcome {
	if !d.Local {
		return NotApplicable("the server is not on this host (%s)", d.Connection)
	}
	if NodeCount(in.Snap) <= 1 {
		return NotApplicable("one NUMA node")
	}
	main := in.serverProcess(d)
	if main == nil {
		return CannotCheck("the server's postmaster is not among the snapshot's processes (data directory %s)", orUnknown(d.DataDirectory))
	}
	if len(main.NUMA) == 0 {
		return CannotCheck("postmaster %d's numa_maps were not read: %s", main.PID, in.Reason("processes.numa", "not in the snapshot"))
	}
	shm := map[int]int64{}
	var total int64
	for _, m := range main.NUMA {
		shm[m.Node] += m.HugeKB + m.ShmKB
		total += m.HugeKB + m.ShmKB
	}
	if total == 0 {
		return CannotCheck("postmaster %d maps no shared memory in its numa_maps", main.PID)
	}
	backendNodes := map[int]bool{}
	backends := 0
	for _, p := range in.serverChildren(main) {
		if p.Role != "backend" {
			continue
		}
		backends++
		nodes, _ := NodesOfCPUs(in.Snap, p.CPUsAllowed)
		for _, n := range nodes {
			backendNodes[n] = true
		}
	}
	if backends == 0 {
		// No client connected: the postmaster's own CPUs say where they will run.
		nodes, _ := NodesOfCPUs(in.Snap, main.CPUsAllowed)
		for _, n := range nodes {
			backendNodes[n] = true
		}
	}
	var cpuNodes []int
	for n := range backendNodes {
		cpuNodes = append(cpuNodes, n)
	}
	sort.Ints(cpuNodes)
	read := fmt.Sprintf("/proc/%d/numa_maps: shared memory %s; the backends' Cpus_allowed_list on node(s) %s", main.PID, nodeShares(shm, total), List(cpuNodes))
	if len(cpuNodes) == 0 {
		// Where the backends run is unknown: no pass (issue 26).
		return CannotCheck("the CPUs of postmaster %d and its backends map to no known NUMA node: whether the shared memory (%s) is local to them cannot be told", main.PID, nodeShares(shm, total))
	}
	if len(cpuNodes) >= NodeCount(in.Snap) {
		return Passed("backends may run on every node: a segment spread over the nodes (%s) serves them all alike", nodeShares(shm, total)).Reading(read)
	}
	var remote int64
	for n, kb := range shm {
		if !backendNodes[n] {
			remote += kb
		}
	}
	if remote*4 <= total {
		return Passed("%d %% of the shared memory on the backends' node(s) %s (%s)", 100-remote*100/total, List(cpuNodes), nodeShares(shm, total)).Reading(read)
	}
	who := fmt.Sprintf("%d backend(s)", backends)
	if backends == 0 {
		who = fmt.Sprintf("postmaster %d (no backend connected)", main.PID)
	}
	return Found(Finding{
		Setting: fmt.Sprintf("postgres:postmaster %d memory nodes", main.PID), Current: fmt.Sprintf("%d %% of %s of shared memory on node(s) other than %s", remote*100/total, KB(total), List(cpuNodes)),
		Recommended: fmt.Sprintf("the postmaster started with its memory on node(s) %s (numactl --cpunodebind=%s --membind=%s, or a cpuset with those mems), so the segment is allocated there", List(cpuNodes), List(cpuNodes), List(cpuNodes)),
		Evidence:    fmt.Sprintf("%s: postmaster %d numa_maps shared memory per node: %s; %s may run on node(s) %s only", serverName(d), main.PID, nodeShares(shm, total), who, List(cpuNodes)),
		Why: "000: numa_maps shows where a task's pages are; 001: remote memory access gave 2.15 times fewer logical reads per second. " +
			"Every backend reads shared_buffers: with the segment on other nodes each buffer access crosses the interconnect.",
		Fix:  Fix{Runtime: []string{}, Persistent: []string{fmt.Sprintf("systemd drop-in for the cluster's unit: ExecStart=/usr/bin/numactl --cpunodebind=%s --membind=%s ... (or dbhost place); restart the server so the segment is allocated anew", List(cpuNodes), List(cpuNodes))}},
		Risk: "Binding memory to fewer nodes limits the server to their memory (and hugepages): size the nodes' pools first (db.pg-huge-pages-pool).",
	})
}

// nodeShares prints "node 0: 75 %, node 1: 25 %".
func nodeShares(kb map[int]int64, total int64) string {
	var nodes []int
	for n := range kb {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	s := ""
	for i, n := range nodes {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("node %d: %d %%", n, kb[n]*100/total)
	}
	return s
}
