package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// cgroup.cpuset-mems-not-local: a cpuset cgroup whose mems are not the NUMA
// nodes of its cpus, so its tasks (an Oracle instance bound with
// processor_group_name, a container) read memory across the interconnect.
// Checked on the live cgroups and on /etc/cgconfig.conf (what the next
// restart of cgconfig will apply).
func init() {
	Register(Rule{
		ID:       "cgroup.cpuset-mems-not-local",
		Area:     AreaCgroup,
		Severity: SevWarning,
		Title:    "A cpuset's memory nodes are not the nodes of its CPUs",
		Sources: []Source{
			{Doc: Seed001, Section: "Measure the impact of remote versus local NUMA node access thanks to processor_group_name — Conclusion",
				Quote: "My tests show 2.15 times less logical reads per second with my farest remote access"},
			{Doc: Seed001, Section: "processor_group_name and SGA distribution across NUMA nodes — Summary",
				Quote: "the SGA is not evenly distributed across the NUMA nodes defined in the cgroup"},
			{Doc: Seed001, Section: "Modify on the fly the cgroup properties linked to the processor_group_name parameter — Conclusion",
				Quote: "We have not been able to change the memory node dynamically (an Instance restart is needed)"},
			{Doc: Seed003, Section: "Cgroup – NUMA pinning",
				Quote: "Aligning NUMA by using Cgroups shows a 30% gain"},
		},
		Scope: Scope{
			Kernels:    "cgroup v1 cpuset (cpuset.mems) and v2 (cpuset.mems, cpuset.mems.effective)",
			DBVersions: "001: Oracle 12.1 processor_group_name; applies to any process bound by a cpuset",
			Note:       "the cost scales with the SLIT distance: 001 measured 2.15x at 22/10",
		},
		Pending: PendingRestart,
		Check:   checkCpusetMems,
	})
}

// cpuset is one group's cpus and mems, from the live hierarchy or cgconfig.conf.
type cpuset struct {
	name, where, cpus, mems string
	mount                   string
	version                 int
}

func cpusetsOf(s *snapshot.Snapshot) []cpuset {
	var out []cpuset
	seen := map[string]bool{}
	pick := func(a, b *string) string {
		if a != nil && strings.TrimSpace(*a) != "" {
			return *a
		}
		if b != nil {
			return *b
		}
		return ""
	}
	for _, g := range s.Cgroups.Groups {
		cpus, mems := pick(g.CPUs, g.EffectiveCPUs), pick(g.Mems, g.EffectiveMems)
		if g.Path == "/" || cpus == "" || mems == "" {
			continue
		}
		seen[strings.Trim(g.Path, "/")] = true
		out = append(out, cpuset{name: g.Path, where: g.Mount + g.Path, cpus: cpus, mems: mems, mount: g.Mount, version: g.Version})
	}
	conf := map[string]*cpuset{}
	var order []string
	for _, e := range s.Config.Cgconfig {
		if e.Key != "cpuset.cpus" && e.Key != "cpuset.mems" {
			continue
		}
		c, ok := conf[e.Group]
		if !ok {
			c = &cpuset{name: e.Group, where: fmt.Sprintf("%s:%d", e.File, e.Line)}
			conf[e.Group] = c
			order = append(order, e.Group)
		}
		v := strings.Trim(strings.TrimSpace(e.Value), `"`)
		if e.Key == "cpuset.cpus" {
			c.cpus = v
		} else {
			c.mems = v
		}
	}
	for _, g := range order {
		if c := conf[g]; c.cpus != "" && c.mems != "" && !seen[strings.Trim(g, "/")] {
			out = append(out, *c)
		}
	}
	return out
}

func checkCpusetMems(in *Input) Outcome {
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if NodeCount(s) <= 1 {
		return NotApplicable("one NUMA node: every cpuset's memory is local")
	}
	sets := cpusetsOf(s)
	if len(sets) == 0 {
		if why := AbsentReason(s, "cgroups"); why != "" {
			return CannotCheck("%s", why)
		}
		return Passed("no cpuset cgroup restricts cpus and mems (live hierarchy and cgconfig.conf)").
			Reading(fmt.Sprintf("%d cgroup(s) of the live hierarchy read, none but the root with cpuset.cpus and cpuset.mems; %d cgconfig.conf line(s), none setting cpuset.cpus or cpuset.mems",
				len(s.Cgroups.Groups), len(s.Config.Cgconfig)))
	}
	var fs []Finding
	var wants []change.Change // the desired state: every group's mems local, persisted by the plan
	for _, c := range sets {
		f, want, ok := cpusetFinding(s, c)
		wants = append(wants, want...)
		if ok {
			fs = append(fs, f)
		}
	}
	if len(fs) == 0 {
		var read []string
		for _, c := range sets {
			read = append(read, fmt.Sprintf("%s: cpus %s, mems %s", c.where, c.cpus, c.mems))
		}
		return Passed("%d cpuset(s): mems are the nodes of their cpus", len(sets)).Wanting(wants...).Reading(strings.Join(read, "; "))
	}
	return Found(fs...).Wanting(wants...)
}

// cpusetFinding returns the finding of one cpuset whose mems are not the
// nodes of its cpus (ok), and the change that sets them (want: a group of
// a mounted hierarchy under /sys), found or not.
func cpusetFinding(s *snapshot.Snapshot, c cpuset) (f Finding, want []change.Change, ok bool) {
	cpus, err1 := cpulist.Parse(c.cpus)
	mems, err2 := cpulist.Parse(c.mems)
	if err1 != nil || err2 != nil || len(cpus) == 0 || len(mems) == 0 {
		return Finding{}, nil, false
	}
	cpuNodes, _ := NodesOfCPUs(s, cpus)
	if len(cpuNodes) == 0 {
		return Finding{}, nil, false
	}
	if path := c.mount + c.name + "/cpuset.mems"; c.mount != "" && strings.HasPrefix(path, "/sys/") {
		want = []change.Change{SysfsChange("cgroup.cpuset-mems-not-local", strings.ReplaceAll(path, "//", "/"), List(cpuNodes), c.mems,
			"memory on the nodes of the group's CPUs (takes effect for new allocations; restart the instance)")}
	}
	memSet := map[int]bool{}
	for _, m := range mems {
		memSet[m] = true
	}
	cpuSet := map[int]bool{}
	var missing, extra []int
	for _, n := range cpuNodes {
		cpuSet[n] = true
		if !memSet[n] {
			missing = append(missing, n)
		}
	}
	for _, m := range mems {
		if !cpuSet[m] {
			extra = append(extra, m)
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return Finding{}, want, false
	}
	sev := SevWarning
	if len(missing) == len(cpuNodes) {
		sev = SevCritical // no CPU of the group has local memory
	}
	ratio := distanceRatioText(s, cpuNodes, mems)
	ev := fmt.Sprintf("%s: cpuset.cpus=%s (NUMA node(s) %s), cpuset.mems=%s", c.where, c.cpus, List(cpuNodes), c.mems)
	if len(missing) > 0 {
		ev += fmt.Sprintf("; node(s) %s of its CPUs not in mems", List(missing))
	}
	if len(extra) > 0 {
		ev += fmt.Sprintf("; mems node(s) %s have none of its CPUs", List(extra))
	}
	ev += "; " + ratio
	setting := "cgroup:" + strings.Trim(c.name, "/") + " cpuset.mems"
	fix := Fix{Runtime: []string{}, Persistent: []string{}, Edits: []FileEdit{{File: "/etc/cgconfig.conf",
		Edit: fmt.Sprintf("set group %s { cpuset { cpuset.mems=\"%s\"; } }   (or the unit's AllowedMemoryNodes=%s)",
			sh(strings.Trim(c.name, "/")), List(cpuNodes), List(cpuNodes)),
		Then: "systemctl restart cgconfig"}}}
	if c.mount != "" {
		fix.Runtime = append(fix.Runtime, echoTo(List(cpuNodes), c.mount+c.name+"/cpuset.mems")+"   (then restart the instance: memory already allocated does not move)")
	}
	return Finding{
		Severity:    sev,
		Setting:     setting,
		Current:     c.mems,
		Recommended: List(cpuNodes) + " (the nodes of cpus " + c.cpus + ")",
		Evidence:    ev,
		Why: "001: an Oracle instance bound with processor_group_name to CPUs of node 0 with its SGA on node 7 (distance 22 vs 10) " +
			"did 2.15x fewer logical reads per second than with local memory; 003: aligning NUMA with cgroups gave 30 %. " +
			"With mems spanning several nodes the SGA in large pages is not spread evenly over them (001).",
		Fix:     fix,
		Changes: want,
		Risk: "The SGA/shared memory stays where it was allocated: 001 found cpuset.mems changes (even with memory_migrate=1, " +
			"which Oracle resets at startup) take effect only after an instance restart. The new nodes need enough free hugepages.",
	}, want, true
}

// distanceRatioText reports the worst SLIT ratio between a CPU node and the
// nearest allowed memory node: "distance 22 vs 10 local: ratio 2.20".
func distanceRatioText(s *snapshot.Snapshot, cpuNodes, mems []int) string {
	worst, worstLocal := 0, 0
	var pair string
	for _, cn := range cpuNodes {
		local, ok := Distance(s, cn, cn)
		if !ok || local <= 0 {
			return "SLIT distances unknown"
		}
		best := -1
		bestNode := -1
		sorted := append([]int(nil), mems...)
		sort.Ints(sorted)
		for _, m := range sorted {
			d, ok := Distance(s, cn, m)
			if !ok {
				return "SLIT distances unknown"
			}
			if best < 0 || d < best {
				best, bestNode = d, m
			}
		}
		if best*worstLocal > worst*local || worst == 0 {
			worst, worstLocal = best, local
			pair = fmt.Sprintf("node %d → node %d", cn, bestNode)
		}
	}
	return fmt.Sprintf("this host's SLIT: nearest allowed memory at distance %d vs %d local (%s): ratio %.2f (001: 22/10 cost 2.15x)",
		worst, worstLocal, pair, float64(worst)/float64(worstLocal))
}
