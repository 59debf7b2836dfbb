package rules

import (
	"fmt"
	"strings"
)

// numa.hugepages-node-exhausted: a database allowed on several NUMA nodes
// (a cpuset cgroup such as Oracle's processor_group_name, or its processes'
// Mems_allowed) has its SGA in hugepages; the kernel fills the first node's
// pool before the next (001), so one node's pool is empty while the others
// still have free pages, or the per-node pools are too uneven to hold an
// even share of the database's shared memory.
func init() {
	Register(Rule{
		ID:       "numa.hugepages-node-exhausted",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "A database spanning several NUMA nodes has exhausted one node's hugepage pool",
		Sources: []Source{
			{Doc: Seed001, Section: "processor_group_name and SGA distribution across NUMA nodes — Second test",
				Quote: "there is no more free large pages on node 2 while there is still about 25000 free on node 3"},
			{Doc: Seed001, Section: "processor_group_name and SGA distribution across NUMA nodes — Summary",
				Quote: "With large pages in place and processor_group_name linked to more than one NUMA node, then the SGA is not evenly distributed across the NUMA nodes defined in the cgroup."},
		},
		Scope: Scope{
			Kernels:    "all with per-node hugepage pools (/sys/devices/system/node/nodeN/hugepages)",
			DBVersions: "001: Oracle 12.1.0.2, use_large_pages=ONLY, _enable_NUMA_interleave TRUE; any database whose shared memory is in hugepages",
			Note:       "only the default hugepage size is judged; without a cpuset the 12c SGA was spread evenly over all nodes (001)",
		},
		Check: checkHugepagesNodeExhausted,
	})
}

func checkHugepagesNodeExhausted(in *Input) Outcome {
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if NodeCount(s) <= 1 {
		return NotApplicable("one NUMA node: the database cannot span several")
	}
	pool, ok := DefaultHugepages(s)
	if !ok {
		return CannotCheck("%s", in.Reason("memory.hugepages", "default hugepage size unknown"))
	}
	if pool.Total == 0 {
		return NotApplicable("no hugepages of the default size (%s) reserved", KB(pool.SizeKB))
	}
	sets := in.dbMemSets()
	if len(sets) == 0 {
		if len(in.DBProcesses()) == 0 {
			return NotApplicable("no database process in the snapshot")
		}
		for _, fact := range []string{"processes.mems_allowed", "processes.status", "cgroups"} {
			if why := AbsentReason(s, fact); why != "" {
				return CannotCheck("the database processes' NUMA memory nodes are unknown: %s", why)
			}
		}
		return CannotCheck("the database processes' NUMA memory nodes are unknown: no Mems_allowed and no cpuset cgroup in the snapshot")
	}
	// The database's need in whole pages: its SysV segments each rounded
	// up, or the alert logs' EXPECTED_PAGES, whichever is more.
	var needPages, memlock int64
	if shm, why := in.DBSharedMemory(); why == "" {
		needPages, _ = shmPages(shm, pool.SizeKB, false)
	}
	var sgaEv []string
	if ora, _, _ := in.oraHugeNeeds(pool.SizeKB, &sgaEv, &memlock); ora > needPages {
		needPages = ora
	}
	needKB := needPages * pool.SizeKB
	var fs []Finding
	checked := 0
	var read []string // the node sets whose pools were read
	for _, m := range sets {
		// Only the set's DRAM nodes hold a database's hugepages: a GPU's
		// or an NVDIMM's node in Mems_allowed is not one of its pools.
		m.nodes = DatabaseLocalNodes(s, m.nodes)
		if len(m.nodes) < 2 {
			continue
		}
		var empty, withFree, parts []string
		var totals []int64
		known := true
		for _, n := range m.nodes {
			h, ok := nodePool(s, n, pool.SizeKB)
			if !ok {
				known = false
				break
			}
			parts = append(parts, fmt.Sprintf("node%d %d total/%d free", n, h.Total, h.Free))
			totals = append(totals, h.Total)
			switch {
			case h.Total > 0 && h.Free == 0:
				empty = append(empty, fmt.Sprint(n))
			case h.Free > 0:
				withFree = append(withFree, fmt.Sprintf("node%d %d", n, h.Free))
			}
		}
		if !known {
			continue
		}
		checked++
		ev := fmt.Sprintf("%s spans nodes %s; /sys/devices/system/node/nodeN/hugepages/hugepages-%dkB: %s",
			m.where, List(m.nodes), pool.SizeKB, strings.Join(parts, ", "))
		read = append(read, ev)
		if needKB > 0 {
			ev += fmt.Sprintf("; database shared memory %s (%d pages of %s)", KB(needKB), ceilDiv(needKB, pool.SizeKB), KB(pool.SizeKB))
		}
		fix := Fix{Runtime: []string{}, Persistent: []string{
			"if the SGA fits in one node's pool: bind the instance to that one node (cpuset.cpus and cpuset.mems of a single node, processor_group_name)",
			fmt.Sprintf("else size every node's pool for an even share of the shared memory and expect the first node to fill first: "+
				"/sys/devices/system/node/nodeN/hugepages/hugepages-%dkB/nr_hugepages (or hugepages=N:COUNT,... at boot), then restart the instance", pool.SizeKB),
		}}
		why := "001: an Oracle 12c instance bound by processor_group_name to a cgroup with cpuset.mems=2,3 and use_large_pages=ONLY took all " +
			"its large pages from node 2 first; with an SGA larger than one node's pool node 2 had 0 free pages while node 3 still had ~25,000: " +
			"the SGA is not spread evenly over the cgroup's nodes, so the CPUs of the other node read it remotely."
		if len(empty) > 0 && len(withFree) > 0 {
			fs = append(fs, Finding{
				Setting:     fmt.Sprintf("hugepages-%dkB per node (%s)", pool.SizeKB, List(m.nodes)),
				Current:     fmt.Sprintf("node(s) %s: 0 free; %s free", strings.Join(empty, ","), strings.Join(withFree, ", ")),
				Recommended: "the shared memory on one node, or per-node pools sized for it (no node of the set at 0 free while others have pages)",
				Evidence:    ev,
				Why:         why,
				Fix:         fix,
				Risk: "Rebinding the instance or resizing per-node pools takes effect only at the instance's restart (001: cpuset.mems changes need a restart); " +
					"a node pool grown at run time may fall short on fragmented memory.",
			})
			continue
		}
		if needKB <= 0 {
			continue
		}
		share := ceilDiv(ceilDiv(needKB, pool.SizeKB), int64(len(m.nodes)))
		var short []string
		long := false
		for i, t := range totals {
			if t < share {
				short = append(short, fmt.Sprintf("node%d %d", m.nodes[i], t))
			} else if t > share {
				long = true
			}
		}
		if len(short) > 0 && long {
			fs = append(fs, Finding{
				Severity:    SevInfo,
				Setting:     fmt.Sprintf("hugepages-%dkB per node (%s)", pool.SizeKB, List(m.nodes)),
				Current:     fmt.Sprintf("uneven pools: %s pages, below an even share of %d", strings.Join(short, ", "), share),
				Recommended: fmt.Sprintf("at least %d pages on each of nodes %s, or the instance on one node", share, List(m.nodes)),
				Evidence:    ev,
				Why:         why,
				Fix:         fix,
				Risk:        "Hugepages are reserved memory: growing a node's pool takes it from everything else on that node.",
			})
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if checked == 0 {
		for _, m := range sets {
			if len(m.nodes) >= 2 {
				return CannotCheck("%s", in.Reason("topology.nodes", "per-node hugepage pools unknown"))
			}
		}
		return Passed("the database is bound to a single NUMA node (%s)", sets[0].where).Reading(fmt.Sprintf("%s: mems %s", sets[0].where, List(sets[0].nodes)))
	}
	return Passed("no node of the database's node set(s) has an exhausted or uneven %s hugepage pool", KB(pool.SizeKB)).Reading(strings.Join(read, "; "))
}
