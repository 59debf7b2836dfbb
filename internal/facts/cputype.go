package facts

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// The core type of each CPU (hybrid CPUs). The kernel tells it in two ways:
//
//   - Intel hybrid parts (Alder Lake and later) register one perf PMU per
//     core type since Linux 5.13, each with a "cpus" file in the list format
//     (Documentation/ABI/testing/sysfs-bus-event_source-devices: "cpus");
//     arch/x86/events/intel/core.c names them cpu_core (the big cores),
//     cpu_atom (the small ones) and, since the three-type parts, cpu_lowpower.
//     A part that is not hybrid has one core PMU named "cpu".
//   - ARM big.LITTLE / DynamIQ: /sys/devices/system/cpu/cpuX/cpu_capacity
//     (Documentation/ABI/testing/sysfs-devices-system-cpu, Linux 4.10+),
//     the CPU's capacity normalised so the biggest core is 1024.
//
// No file is no type: the kind is then "unknown" with an absence. It runs
// with the derived facts: the kernel release may come from a sosreport's
// uname (StageSos).
func init() {
	register("core-types", StageDerived, readCoreTypes, "topology.core_types")
}

// hybridPMUs are Intel's hybrid PMUs, strongest first.
var hybridPMUs = []struct{ name, class string }{
	{"cpu_core", snapshot.CoreClassPerformance},
	{"cpu_atom", snapshot.CoreClassEfficiency},
	{"cpu_lowpower", snapshot.CoreClassEfficiency},
}

// pmuDirs are where a PMU's directory is: its device, and the bus link
// (captures may keep either).
var pmuDirs = []string{"/sys/devices/", "/sys/bus/event_source/devices/"}

// maxCPUCapacity is SCHED_CAPACITY_SCALE: the biggest core's cpu_capacity.
const maxCPUCapacity = 1024

// parseCPUCapacity parses cpuX/cpu_capacity: one integer 0..1024 (white
// space and a trailing NUL tolerated).
func parseCPUCapacity(s string) (int, error) {
	s = strings.TrimSpace(strings.TrimRight(s, "\x00\n"))
	if s == "" {
		return 0, parseErr(1, "expected a capacity, got an empty file")
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > maxCPUCapacity {
		return 0, parseErr(1, "expected a capacity 0-%d, got %q", maxCPUCapacity, trunc(s, 20))
	}
	return v, nil
}

// pmuList is one hybrid PMU's CPUs as read.
type pmuList struct {
	name, class, source string
	cpus                []int
}

// coreTypesFromPMUs classifies CPUs from the hybrid PMUs' cpus lists (at
// least one read). A CPU two lists name is a contradiction and left out;
// an online CPU no list names is unlisted.
func coreTypesFromPMUs(lists []pmuList, online []int) snapshot.CoreTypes {
	count := map[int]int{}
	for _, l := range lists {
		for _, id := range l.cpus {
			count[id]++
		}
	}
	var both []int
	for _, id := range slices.Sorted(maps.Keys(count)) {
		if count[id] > 1 {
			both = append(both, id)
		}
	}
	ct := snapshot.CoreTypes{}
	var names []string
	for _, l := range lists {
		cpus := []int{}
		for _, id := range l.cpus {
			if count[id] == 1 {
				cpus = append(cpus, id)
			}
		}
		names = append(names, fmt.Sprintf("%s (%s)", l.source, cpulist.Format(l.cpus)))
		if len(cpus) > 0 {
			ct.Types = append(ct.Types, snapshot.CoreType{Class: l.class, Name: l.name, Source: l.source, CPUs: cpus})
		}
	}
	if len(both) > 0 {
		ct.Contradiction = fmt.Sprintf("CPUs %s are named by more than one hybrid PMU: their type is unknown", cpulist.Format(both))
	}
	ct.Unlisted = unlisted(online, count)
	classes := map[string]bool{}
	for _, ty := range ct.Types {
		classes[ty.Class] = true
	}
	switch {
	case len(ct.Types) == 0:
		ct.Kind = snapshot.CoreKindUnknown
		ct.Evidence = "the hybrid PMUs list no CPU: " + strings.Join(names, ", ")
	case len(classes) == 1 && len(ct.Unlisted) == 0 && len(both) == 0:
		ct.Kind = snapshot.CoreKindUniform
		ct.Evidence = "one hybrid PMU lists every online CPU: " + strings.Join(names, ", ")
		ct.Types = nil
	case len(classes) == 1:
		// One class known, the others' CPUs unlisted: not proof of one type.
		ct.Kind = snapshot.CoreKindUnknown
		ct.Evidence = "only one core type's PMU lists CPUs and some online CPUs are in none: " + strings.Join(names, ", ")
		ct.Types = nil
	default:
		ct.Kind = snapshot.CoreKindHybrid
		ct.Evidence = "Intel hybrid PMUs: " + strings.Join(names, ", ")
	}
	return ct
}

// coreTypesFromCapacity classifies CPUs from their cpu_capacity (at least
// one read): every capacity equal is one type; else the highest capacity
// is the performance cores, a capacity at most half of it efficiency cores
// (big.LITTLE's little cores), any between intermediate (DynamIQ's middle
// cores, or cores of one design clocked apart: dbhost's own cut, as the
// kernel names no class).
func coreTypesFromCapacity(caps map[int]int, online []int) snapshot.CoreTypes {
	const src = sysCPU + "/cpuN/cpu_capacity"
	byCap := map[int][]int{}
	for id, v := range caps {
		byCap[v] = append(byCap[v], id)
	}
	levels := slices.Sorted(maps.Keys(byCap))
	slices.Reverse(levels)
	ct := snapshot.CoreTypes{}
	seen := map[int]int{}
	for id := range caps {
		seen[id] = 1
	}
	ct.Unlisted = unlisted(online, seen)
	var parts []string
	for i, v := range levels {
		cpus := slices.Sorted(slices.Values(byCap[v]))
		parts = append(parts, fmt.Sprintf("%d on CPUs %s", v, cpulist.Format(cpus)))
		class := snapshot.CoreClassIntermediate
		switch {
		case i == 0:
			class = snapshot.CoreClassPerformance
		case v*2 <= levels[0]:
			class = snapshot.CoreClassEfficiency
		}
		ct.Types = append(ct.Types, snapshot.CoreType{Class: class, Name: "capacity " + strconv.Itoa(v), Source: src, Capacity: v, CPUs: cpus})
	}
	switch {
	case len(levels) > 1:
		ct.Kind = snapshot.CoreKindHybrid
		ct.Evidence = "cpuN/cpu_capacity: " + strings.Join(parts, "; ")
	case len(ct.Unlisted) > 0:
		ct.Kind = snapshot.CoreKindUnknown
		ct.Evidence = fmt.Sprintf("cpuN/cpu_capacity is %s; online CPUs %s have none", parts[0], cpulist.Format(ct.Unlisted))
		ct.Types = nil
	default:
		ct.Kind = snapshot.CoreKindUniform
		ct.Evidence = "every online CPU's cpuN/cpu_capacity is " + strconv.Itoa(levels[0])
		ct.Types = nil
	}
	return ct
}

func unlisted(online []int, listed map[int]int) []int {
	var out []int
	for _, id := range online {
		if listed[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

// hybridPMUKernel is the kernel that brought Intel's hybrid PMUs.
const hybridPMUKernel = "5.13"

func readCoreTypes(c *Collector) {
	t := &c.Snap.Topology
	ct := readCoreTypesFrom(c, t)
	if c.Snap.Host.Virt.Guest {
		switch ct.Kind {
		case snapshot.CoreKindUniform:
			// vCPUs of one type say nothing of the host cores they run on.
			ct = snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown,
				Evidence: "inside a guest: the vCPUs show one core type (" + ct.Evidence + "), but they run on host cores the guest cannot see"}
		case snapshot.CoreKindHybrid:
			ct.Evidence += " (inside a guest: the vCPUs as the hypervisor presents them)"
		}
	}
	if ct.Kind == snapshot.CoreKindUnknown {
		c.AbsentReason("topology.core_types", "/sys/devices/cpu_core/cpus", ct.Evidence)
	}
	t.CoreTypes = &ct
}

func readCoreTypesFrom(c *Collector, t *snapshot.Topology) snapshot.CoreTypes {
	online := t.CPUsOnline
	// Intel's hybrid PMUs.
	var lists []pmuList
	var bad []string
	for _, p := range hybridPMUs {
		for _, d := range pmuDirs {
			f := d + p.name + "/cpus"
			s, err := c.Root.ReadString(f)
			if err != nil {
				continue
			}
			l, err := cpulist.Parse(s)
			if err != nil {
				bad = append(bad, f+": malformed: "+err.Error())
				break
			}
			lists = append(lists, pmuList{name: p.name, class: p.class, source: f, cpus: l})
			break
		}
	}
	if len(lists) > 0 {
		ct := coreTypesFromPMUs(lists, online)
		if len(bad) > 0 {
			ct.Kind, ct.Types = snapshot.CoreKindUnknown, nil
			ct.Evidence += "; unreadable: " + strings.Join(bad, "; ")
		}
		return ct
	}
	if len(bad) > 0 {
		return snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown, Evidence: strings.Join(bad, "; ")}
	}
	// ARM's cpu_capacity.
	caps := map[int]int{}
	var badCap []int
	for _, cp := range t.CPUs {
		if !cp.Online {
			continue
		}
		s, err := c.Root.ReadString(fmt.Sprintf("%s/cpu%d/cpu_capacity", sysCPU, cp.ID))
		if err != nil {
			continue
		}
		v, err := parseCPUCapacity(s)
		if err != nil {
			badCap = append(badCap, cp.ID)
			continue
		}
		caps[cp.ID] = v
	}
	if len(badCap) > 0 {
		return snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown,
			Evidence: fmt.Sprintf("cpuN/cpu_capacity malformed on CPUs %s", cpulist.Format(badCap))}
	}
	if len(caps) > 0 {
		return coreTypesFromCapacity(caps, online)
	}
	// An x86 core PMU named "cpu": not a hybrid part, on a kernel that
	// would name hybrid PMUs.
	if _, err := c.Root.ReadDirNames("/sys/devices/cpu"); err == nil {
		if c.Snap.Host.Kernel == "" {
			return snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown,
				Evidence: "the core PMU is /sys/devices/cpu but the kernel release is unknown: before Linux 5.13 a hybrid CPU shows that PMU too"}
		}
		if kernelAtLeast(c.Snap.Host.Kernel, hybridPMUKernel) {
			return snapshot.CoreTypes{Kind: snapshot.CoreKindUniform,
				Evidence: "the core PMU is /sys/devices/cpu and there is no cpu_core or cpu_atom PMU (Intel hybrid CPUs have them since Linux 5.13)"}
		}
		return snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown,
			Evidence: "kernel " + c.Snap.Host.Kernel + " is older than Linux 5.13, which brought the cpu_core/cpu_atom PMUs: a hybrid CPU would show one /sys/devices/cpu PMU too"}
	}
	return snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown,
		Evidence: "no file tells: no hybrid PMU (/sys/devices/cpu_core, cpu_atom), no cpuN/cpu_capacity, no core PMU /sys/devices/cpu"}
}

// kernelAtLeast reports whether release ("5.14.0-284.el9") is at least
// want ("5.13"); false when it cannot tell.
func kernelAtLeast(release, want string) bool {
	num := func(s string) (int, int, bool) {
		a, rest, _ := strings.Cut(s, ".")
		if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
			rest = rest[:i]
		}
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(rest)
		return x, y, err1 == nil && err2 == nil
	}
	x, y, ok1 := num(release)
	wx, wy, ok2 := num(want)
	return ok1 && ok2 && (x > wx || x == wx && y >= wy)
}
