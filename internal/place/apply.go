package place

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// ApplyOptions tune Changes.
type ApplyOptions struct {
	// MemoryMigrate sets cpuset.memory_migrate=1 in v1 groups before the
	// PIDs move, so that their pages follow them (v2 has no such file).
	MemoryMigrate bool
}

// Applied is what `dbhost place --apply` hands to the apply engine.
type Applied struct {
	Changes []change.Change
	// Hierarchy is "v1 /sys/fs/cgroup/cpuset" or "v2 /sys/fs/cgroup" ("" when none).
	Hierarchy string
	// Notes are for the user: what is live, what needs a restart, what is
	// not applied (caging).
	Notes []string
}

// Changes turns a feasible plan into journaled changes for internal/apply:
// one cgroup per plan group (one per bound instance under binding, one per
// cpuset under mix), named as in the artifacts (GroupPrefix+name), directly
// under the host's cpuset hierarchy (v1: the cpuset mount; v2: the unified
// mount with +cpuset in its cgroup.subtree_control); its cpuset.cpus and
// cpuset.mems; the running PIDs of its instances (see MatchProcesses); and
// the per-node hugepage pools the plan needs (sysfs).
func Changes(r *Result, snap *snapshot.Snapshot, opt ApplyOptions) (*Applied, error) {
	a := &Applied{}
	if !r.Feasible {
		return nil, fmt.Errorf("the placement is infeasible: nothing to apply")
	}
	rule := "place-" + r.Strategy
	if len(r.Groups) == 0 {
		a.Notes = append(a.Notes, "caging: no cpuset to create, nothing to apply for cgroups; the Oracle parameters (cpu_count, resource_manager_plan) are artifacts (-o DIR) for the DBA to set")
	} else {
		mount, v2, err := cpusetHierarchy(snap)
		if err != nil {
			return nil, err
		}
		ver := "v1"
		if v2 {
			ver = "v2"
			a.Changes = append(a.Changes, change.Change{Kind: change.CgroupController, Key: mount + "/cgroup.subtree_control", Value: "+cpuset",
				Rule: rule, Why: "the cpuset controller in the groups under " + mount})
		}
		a.Hierarchy = ver + " " + mount
		procs := MatchProcesses(r, snap)
		for _, g := range r.Groups {
			dir := mount + "/" + g.Name
			why := "cpuset of " + strings.Join(g.Members, ", ")
			cpus, mems := cpulist.Format(g.CPUs), cpulist.Format(g.Mems)
			a.Changes = append(a.Changes, change.Change{Kind: change.CgroupDir, Key: dir, Value: "present", Rule: rule, Why: why})
			if opt.MemoryMigrate && !v2 {
				// Before mems: the kernel migrates on a mems change or an
				// attach only when memory_migrate is already set.
				a.Changes = append(a.Changes, change.Change{Kind: change.CgroupFile, Key: dir + "/cpuset.memory_migrate", Value: "1", Rule: rule,
					Why: "pages of the moved processes follow them to " + mems})
			}
			a.Changes = append(a.Changes,
				change.Change{Kind: change.CgroupFile, Key: dir + "/cpuset.cpus", Value: cpus, Rule: rule, Why: why},
				change.Change{Kind: change.CgroupFile, Key: dir + "/cpuset.mems", Value: mems, Rule: rule, Why: why})
			if old := existingGroup(snap, mount, "/"+g.Name); old != nil {
				if old.CPUs != nil && !sameList(*old.CPUs, cpus) {
					a.Notes = append(a.Notes, fmt.Sprintf("%s: cpus %s → %s is live: the processes run on the new CPUs at once (001)", g.Name, *old.CPUs, cpus))
				}
				if old.Mems != nil && !sameList(*old.Mems, mems) {
					n := fmt.Sprintf("%s: mems %s → %s: new allocations come from %s; memory already allocated does not follow", g.Name, *old.Mems, mems, mems)
					if v2 {
						n += " (cgroup v2 has no memory_migrate): restart the instance to move its SGA/shared buffers (001)"
					} else if !opt.MemoryMigrate {
						n += " without memory_migrate (--memory-migrate) and a restart of the instance (001)"
					} else {
						n = fmt.Sprintf("%s: mems %s → %s: memory_migrate=1 is set first, so the kernel migrates the group's pages to %s (slow for a large SGA; huge pages need free pages there); a restart places the SGA afresh (001)", g.Name, *old.Mems, mems, mems)
					}
					a.Notes = append(a.Notes, n)
				}
			}
			var pids []int
			for _, m := range g.Members {
				pids = append(pids, procs[m]...)
			}
			sort.Ints(pids)
			if len(pids) == 0 {
				a.Notes = append(a.Notes, fmt.Sprintf("%s: no running process of %s: nothing to move (start it in the group: systemd Slice=, cgexec, or the artifacts)", g.Name, strings.Join(g.Members, ", ")))
			}
			for _, pid := range pids {
				a.Changes = append(a.Changes, change.Change{Kind: change.CgroupProcs, Key: dir + "/cgroup.procs", Value: strconv.Itoa(pid),
					Rule: rule, Why: "move a running process of " + strings.Join(g.Members, ", ")})
			}
		}
	}
	a.Changes = append(a.Changes, r.hugepageChanges(rule)...)
	// The guests last: their pages are reserved before their definitions
	// say strict on those nodes.
	for _, ip := range r.Instances {
		if g := ip.Guest; g != nil {
			a.Changes = append(a.Changes, change.Change{Kind: change.LibvirtDomain, Key: g.Domain, Value: g.Fragments(), Rule: rule,
				Why: fmt.Sprintf("guest %s: %d vCPUs pinned, memory %s on %s", ip.Name, g.VCPUs, g.MemoryMode, cpulist.Format(g.Nodeset))})
		}
	}
	if r.HasGuests() {
		a.Notes = append(a.Notes, "kvm-guests: the domains' persistent definitions are edited (virsh define); they take effect at each guest's next start (shut down and start it, a reboot inside the guest is not enough); 'dbhost rollback' defines the old definitions back")
	}
	return a, nil
}

// HasGuests reports whether the plan places a kvm-guest.
func (r *Result) HasGuests() bool {
	for _, ip := range r.Instances {
		if ip.Guest != nil {
			return true
		}
	}
	return false
}

// hugepageChanges are the per-node pool sizes the plan needs (the same
// numbers as the artifacts' hugepages script).
func (r *Result) hugepageChanges(rule string) []change.Change {
	t := r.topo
	if t == nil {
		return nil
	}
	planned := r.plannedPages()
	var out []change.Change
	for _, n := range t.nodes {
		p := planned[n.id]
		if p == 0 {
			continue
		}
		want := n.total + max(0, p-n.pool)
		if want == n.total {
			continue
		}
		out = append(out, change.Change{Kind: change.Sysfs,
			Key:   fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", n.id, t.sizeKB),
			Value: strconv.FormatInt(want, 10), Current: strconv.FormatInt(n.total, 10), Rule: rule,
			Why: fmt.Sprintf("node %d: %d pages planned, %d free in the pool", n.id, p, n.pool)})
	}
	return out
}

// cpusetHierarchy returns the mount of the hierarchy holding the cpuset
// controller: a v1 cpuset mount when there is one (v1 and hybrid hosts),
// else the v2 unified mount.
func cpusetHierarchy(snap *snapshot.Snapshot) (string, bool, error) {
	var v2 string
	for _, m := range snap.Cgroups.Mounts {
		if m.Version == 1 {
			for _, c := range m.Controllers {
				if c == "cpuset" {
					return m.Path, false, nil
				}
			}
		}
		if m.Version == 2 && v2 == "" {
			v2 = m.Path
		}
	}
	if v2 != "" {
		return v2, true, nil
	}
	return "", false, fmt.Errorf("no cgroup hierarchy with the cpuset controller is mounted (cgroups %q): nothing can be confined", snap.Cgroups.Version)
}

func existingGroup(snap *snapshot.Snapshot, mount, rel string) *snapshot.CgroupGroup {
	for i, g := range snap.Cgroups.Groups {
		if g.Mount == mount && g.Path == rel {
			return &snap.Cgroups.Groups[i]
		}
	}
	return nil
}

func sameList(a, b string) bool {
	la, ea := cpulist.Parse(strings.TrimSpace(a))
	lb, eb := cpulist.Parse(strings.TrimSpace(b))
	return ea == nil && eb == nil && cpulist.Format(la) == cpulist.Format(lb)
}

// MatchProcesses maps each planned instance to the PIDs to move
// (Snapshot.Processes, every process of the instance: background and
// foreground). The rule: a process belongs to instance X when its Instance
// (ORACLE_SID, PostgreSQL data directory, ...) equals X's name, or ends
// with "/"+name (a data directory named after the instance); when no
// process matches that way and X is the only planned instance of its
// engine, every process of that engine belongs to X. A process matching
// two instances is left alone.
func MatchProcesses(r *Result, snap *snapshot.Snapshot) map[string][]int {
	byEngine := map[string][]string{}
	for _, ip := range r.Instances {
		byEngine[engineOf(ip.Engine)] = append(byEngine[engineOf(ip.Engine)], ip.Name)
	}
	out := map[string][]int{}
	owner := map[int][]string{}
	for _, ip := range r.Instances {
		for _, p := range snap.Processes {
			if p.Instance != "" && (p.Instance == ip.Name || strings.HasSuffix(strings.TrimSuffix(p.Instance, "/"), "/"+ip.Name)) {
				owner[p.PID] = append(owner[p.PID], ip.Name)
			}
		}
	}
	named := map[string]bool{}
	for _, names := range owner {
		for _, n := range names {
			named[n] = true
		}
	}
	for _, ip := range r.Instances {
		e := engineOf(ip.Engine)
		if named[ip.Name] || len(byEngine[e]) != 1 || e == "other" {
			continue
		}
		for _, p := range snap.Processes {
			if engineOf(p.Engine) == e && len(owner[p.PID]) == 0 {
				owner[p.PID] = []string{ip.Name}
			}
		}
	}
	for pid, names := range owner {
		if len(names) == 1 {
			out[names[0]] = append(out[names[0]], pid)
		}
	}
	for k := range out {
		sort.Ints(out[k])
	}
	return out
}

// engineOf folds mariadb into mysql, as the spec does.
func engineOf(e string) string {
	if e == "mariadb" {
		return "mysql"
	}
	return e
}
