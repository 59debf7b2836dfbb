package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.mysql-interleave: a live MySQL/MariaDB server on a multi-node
// host whose buffer pool is allocated on whichever node touches it first
// (innodb_numa_interleave OFF, or a build without it and no interleave
// policy): one node fills, and that node's other processes swap or
// reclaim while the others have free memory.
func init() {
	Register(Rule{
		ID:       "numa.mysql-interleave",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "Live MySQL/MariaDB on a NUMA host without the buffer pool interleaved",
		DBs:      []string{DBMySQL},
		Sources: []Source{
			{Doc: Seed001, Section: "processor_group_name and SGA distribution across NUMA nodes", Quote: "a 12c database Instance allocates the SGA evenly across all the NUMA nodes by default"},
			{Doc: Seed000, Section: "Task and memory object placement (numactl/taskset/cgroups)", Quote: "The best method to constrain task migrations is to use the numactl(8) command"},
			{Doc: "https://dev.mysql.com/doc/refman/8.0/en/innodb-parameters.html#sysvar_innodb_numa_interleave", Section: "InnoDB Startup Options and System Variables — innodb_numa_interleave (MPOL_INTERLEAVE for the buffer pool)"},
		},
		Scope: Scope{Kernels: "NUMA kernels", DBVersions: "MySQL 5.6.27+/5.7.9+, MariaDB 10.2.4+ when built with NUMA support; else numactl --interleave=all",
			Note: "a server bound to one node (numactl, cpuset) is not judged"},
		Pending: PendingRestart,
		Check: func(in *Input) Outcome {
			return in.eachServer(DBMySQL, func(d *snapshot.Database) Outcome { return checkMyNUMAInterleave(in, d) })
		},
	})
}

func checkMyNUMAInterleave(in *Input, d *snapshot.Database) Outcome {
	if !d.Local {
		return NotApplicable("the server is not on this host (%s)", d.Connection)
	}
	if NodeCount(in.Snap) <= 1 {
		return NotApplicable("one NUMA node")
	}
	main := in.serverProcess(d)
	if main != nil && len(main.MemsAllowed) == 1 {
		return NotApplicable("%s %d is bound to node %d (Mems_allowed)", main.Comm, main.PID, main.MemsAllowed[0])
	}
	v, why := dbSetting(d, "innodb_numa_interleave")
	cur := ""
	switch {
	case why == "" && dbOn(v):
		return Passed("innodb_numa_interleave = %s", v).Reading(fmt.Sprintf("%s: innodb_numa_interleave = %s", serverName(d), v))
	case why == "":
		cur = "innodb_numa_interleave = " + v
	default:
		s := d.Setting("innodb_numa_interleave")
		if s == nil || s.Value != nil || !strings.HasPrefix(s.Reason, "not present") {
			return CannotCheck("%s", why)
		}
		// A build without the variable: is the process interleaved some other way?
		if main != nil && len(main.NUMA) > 1 && spreadEvenly(main.NUMA) {
			return Passed("this build has no innodb_numa_interleave, but %s %d's memory is spread over %d nodes (numa_maps)", main.Comm, main.PID, len(main.NUMA)).
				Reading(fmt.Sprintf("%s: no innodb_numa_interleave; /proc/%d/numa_maps: memory on %d nodes, evenly", serverName(d), main.PID, len(main.NUMA)))
		}
		cur = "this build has no innodb_numa_interleave, and no interleave policy is seen"
	}
	ev := fmt.Sprintf("%s: %s; %d NUMA nodes", serverName(d), cur, NodeCount(in.Snap))
	if main != nil && len(main.NUMA) > 0 {
		var kb = map[int]int64{}
		var total int64
		for _, m := range main.NUMA {
			kb[m.Node] += m.TotalKB
			total += m.TotalKB
		}
		if total > 0 {
			ev += fmt.Sprintf("; %s %d memory per node (numa_maps): %s", main.Comm, main.PID, nodeShares(kb, total))
		}
	}
	return Found(Finding{
		Setting: "mysql:innodb_numa_interleave", Current: cur,
		Recommended: "innodb_numa_interleave = ON (or mysqld under numactl --interleave=all when the build lacks it)",
		Evidence:    ev,
		Why: "001: a database's shared memory allocated evenly across the NUMA nodes is the default Oracle chose; without it the node that " +
			"touches the buffer pool first holds it all, and that node's other processes reclaim or swap while the others have free memory.",
		Fix: Fix{Runtime: []string{}, Persistent: []string{"my.cnf [mysqld]: innodb_numa_interleave = ON  (restart)",
			"or the unit: ExecStart=/usr/bin/numactl --interleave=all /usr/sbin/mysqld ... (systemd 243+: NUMAPolicy=interleave)"}},
		Risk: "Interleaving makes every node's memory half-remote for every thread; binding the server to one node (dbhost place) is the other answer when it fits there.",
	})
}

// spreadEvenly: no node holds more than twice its even share.
func spreadEvenly(ns []snapshot.NodeMem) bool {
	var total int64
	for _, m := range ns {
		total += m.TotalKB
	}
	for _, m := range ns {
		if m.TotalKB*int64(len(ns)) > 2*total {
			return false
		}
	}
	return total > 0
}
