package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers of the rules numa.hugepages-node-exhausted, numa.migration-storm,
// cpu.intel-pstate-min-perf, cpu.energy-perf-bias, cpu.smt-off,
// cpu.tuned-profile and db.aio-max-nr.

// EPBGroup is one energy_perf_bias value and the CPUs that have it.
type EPBGroup struct {
	Value string
	CPUs  []int // nil when the value holds for every online CPU
}

// ParseEPB parses CPUPower.EnergyPerfBias as the collector writes it: one
// value when all online CPUs agree ("6"), else "mixed: 6 on CPUs 0-3; 0 on
// CPUs 4-7". Every value must be an integer 0..15 (the kernel's range) or
// one of the names the kernel accepts on write, returned as its number.
func ParseEPB(s string) ([]EPBGroup, error) {
	s = strings.TrimSpace(s)
	rest, mixed := strings.CutPrefix(s, "mixed:")
	if !mixed {
		s = epbNumber(s)
		if _, err := epbValue(s); err != nil {
			return nil, err
		}
		return []EPBGroup{{Value: s}}, nil
	}
	var out []EPBGroup
	seen := map[int]bool{}
	for i, part := range strings.Split(rest, ";") {
		v, list, ok := strings.Cut(strings.TrimSpace(part), " on CPUs ")
		if !ok {
			return nil, fmt.Errorf("group %d %q: expected \"VALUE on CPUs LIST\"", i+1, strings.TrimSpace(part))
		}
		v = epbNumber(v)
		if _, err := epbValue(v); err != nil {
			return nil, fmt.Errorf("group %d: %v", i+1, err)
		}
		cpus, err := cpulist.Parse(list)
		if err != nil {
			return nil, fmt.Errorf("group %d: CPU list: %v", i+1, err)
		}
		if len(cpus) == 0 {
			return nil, fmt.Errorf("group %d: empty CPU list", i+1)
		}
		for _, c := range cpus {
			if seen[c] {
				return nil, fmt.Errorf("group %d: CPU %d listed twice", i+1, c)
			}
			seen[c] = true
		}
		out = append(out, EPBGroup{Value: v, CPUs: cpus})
	}
	return out, nil
}

// epbNumber maps the names the kernel accepts on write to their numbers
// ("performance" → "0"); other text is returned unchanged.
func epbNumber(v string) string {
	switch v {
	case "performance":
		return "0"
	case "balance-performance":
		return "4"
	case "normal", "default":
		return "6"
	case "balance-power":
		return "8"
	case "power":
		return "15"
	}
	return v
}

func epbValue(v string) (int, error) {
	if !allDigits(v) || len(v) > 2 {
		return 0, fmt.Errorf("energy_perf_bias %q: expected an integer 0..15", v)
	}
	n, _ := strconv.Atoi(v)
	if n > 15 {
		return 0, fmt.Errorf("energy_perf_bias %q: expected an integer 0..15", v)
	}
	return n, nil
}

// EPBName names an energy_perf_bias value as the kernel's strings do
// (Documentation/admin-guide/pm/intel_epb.rst).
func EPBName(v string) string {
	switch v {
	case "0":
		return "performance"
	case "4":
		return "balance-performance"
	case "6":
		return "normal"
	case "8":
		return "balance-power"
	case "15":
		return "power"
	}
	return "custom"
}

// SinceBoot is the time between boot (cpu_load.boot_time) and the
// snapshot's collection, in seconds; the reason when it cannot be known.
func SinceBoot(s *snapshot.Snapshot) (float64, string) {
	if s.CPULoad.BootTime <= 0 {
		if why := AbsentReason(s, "cpu_load.boot_time"); why != "" {
			return 0, why
		}
		if why := AbsentReason(s, "cpu_load"); why != "" {
			return 0, why
		}
		return 0, "cpu_load.boot_time: not in the snapshot (/proc/stat btime)"
	}
	if s.CollectedAt.IsZero() {
		return 0, "collected_at: not in the snapshot"
	}
	up := float64(s.CollectedAt.Unix() - s.CPULoad.BootTime)
	if up <= 0 {
		return 0, fmt.Sprintf("collected_at %s is not after boot_time %d: clock or snapshot inconsistent",
			s.CollectedAt.UTC().Format("2006-01-02T15:04:05Z"), s.CPULoad.BootTime)
	}
	return up, ""
}

// Uptime prints seconds as "3d 4h", "5h 12m", "42m", "17s".
func Uptime(sec float64) string {
	d := int64(sec)
	switch {
	case d >= 86400:
		return fmt.Sprintf("%dd %dh", d/86400, d%86400/3600)
	case d >= 3600:
		return fmt.Sprintf("%dh %dm", d/3600, d%3600/60)
	case d >= 60:
		return fmt.Sprintf("%dm", d/60)
	}
	return fmt.Sprintf("%ds", d)
}

// memSet is a set of NUMA nodes a database's memory may come from, and what says so.
type memSet struct {
	where string // "cgroup /sys/fs/cgroup/cpuset/oracle" or "processes 101, 102 (Mems_allowed)"
	nodes []int
}

// DBMemSets are the distinct node sets the audited database may allocate on:
// the cpuset.mems of cgroups holding its processes, then the Mems_allowed of
// its processes that no such cgroup covers.
func (in *Input) dbMemSets() []memSet {
	s := in.Snap
	var out []memSet
	key := func(n []int) string { return List(n) }
	seen := map[string]bool{}
	covered := map[int]bool{}
	dbPIDs := map[int]bool{}
	for _, p := range in.DBProcesses() {
		dbPIDs[p.PID] = true
	}
	for _, g := range s.Cgroups.Groups {
		if len(g.DBPIDs) == 0 || g.Path == "/" {
			continue
		}
		mine := false
		for _, pid := range g.DBPIDs {
			if dbPIDs[pid] {
				mine = true
				covered[pid] = true
			}
		}
		if !mine {
			continue
		}
		m := g.EffectiveMems
		if m == nil || strings.TrimSpace(*m) == "" {
			m = g.Mems
		}
		if m == nil {
			continue
		}
		nodes, err := cpulist.Parse(*m)
		if err != nil || len(nodes) == 0 {
			continue
		}
		if k := key(nodes); !seen[k] {
			seen[k] = true
			out = append(out, memSet{where: fmt.Sprintf("cgroup %s%s (cpuset mems %s, database pids %s)", g.Mount, g.Path, *m, pidList(g.DBPIDs)), nodes: nodes})
		}
	}
	byKey := map[string][]int{}
	var order []string
	for _, p := range in.DBProcesses() {
		if covered[p.PID] || len(p.MemsAllowed) == 0 {
			continue
		}
		nodes := sortedInts(append([]int(nil), p.MemsAllowed...))
		k := key(nodes)
		if seen[k] {
			continue
		}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], p.PID)
	}
	for _, k := range order {
		nodes, _ := cpulist.Parse(k)
		out = append(out, memSet{where: fmt.Sprintf("database processes %s (/proc/PID/status Mems_allowed_list %s)", pidList(byKey[k]), k), nodes: nodes})
	}
	return out
}

func pidList(pids []int) string {
	p := append([]int(nil), pids...)
	sort.Ints(p)
	var b []string
	for i, x := range p {
		if i == 5 {
			b = append(b, fmt.Sprintf("… (%d in all)", len(p)))
			break
		}
		b = append(b, strconv.Itoa(x))
	}
	return strings.Join(b, ", ")
}

// nodePool is one node's pool of one hugepage size; ok false when not in the snapshot.
func nodePool(s *snapshot.Snapshot, node int, sizeKB int64) (snapshot.NodeHugepages, bool) {
	for _, n := range s.Topology.Nodes {
		if n.ID != node {
			continue
		}
		for _, h := range n.Hugepages {
			if h.SizeKB == sizeKB {
				return h, true
			}
		}
	}
	return snapshot.NodeHugepages{}, false
}

// AIOMin is fs.aio-max-nr as Oracle's installation guides and preinstall RPM set it.
const AIOMin = 1048576

// smtInt prints a sysfs boolean as the kernel does (1/0).
func smtInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
