package place

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Hybrid CPUs (snapshot topology.core_types): the planner gives the
// instances performance cores before intermediate ones and efficiency cores
// last, so a database binds to the fast cores while they last; a host of
// one core type, or whose core types are unknown, keeps the CPU order.

// coreRank orders a core by its type: performance 0, intermediate 1,
// unknown 2, efficiency 3; 0 for every core off a hybrid CPU.
func coreRank(snap *snapshot.Snapshot, k core) int {
	ct := snap.Topology.CoreTypes
	if ct == nil || ct.Kind != snapshot.CoreKindHybrid {
		return 0
	}
	class, ok := snap.Topology.CoreClass(k.cpus[0])
	switch {
	case !ok:
		return 2
	case class == snapshot.CoreClassPerformance:
		return 0
	case class == snapshot.CoreClassIntermediate:
		return 1
	}
	return 3
}

// cpusOfClass are the online CPUs of one core class.
func cpusOfClass(snap *snapshot.Snapshot, class string) []int {
	var out []int
	for _, ty := range snap.Topology.CoreTypes.Types {
		if ty.Class == class {
			out = append(out, ty.CPUs...)
		}
	}
	l, _ := cpulist.Parse(cpulist.Format(out))
	return l
}

// noteCoreTypes says what the plan did with a hybrid CPU's core types, and
// warns of an instance bound to efficiency cores.
func (r *Result) noteCoreTypes(snap *snapshot.Snapshot) {
	ct := snap.Topology.CoreTypes
	if ct == nil || ct.Kind != snapshot.CoreKindHybrid {
		return
	}
	perf := cpusOfClass(snap, snapshot.CoreClassPerformance)
	eff := cpusOfClass(snap, snapshot.CoreClassEfficiency)
	r.CoreTypes = fmt.Sprintf("hybrid CPU: the instances are given the performance cores (CPUs %s) first and the efficiency cores (CPUs %s) last (%s)",
		orNone(perf), orNone(eff), ct.Evidence)
	if r.Strategy == "caging" {
		r.CoreTypes += "; caging sets no cpuset, so the caged instances run on every core type"
	}
	isEff := map[int]bool{}
	for _, id := range eff {
		isEff[id] = true
	}
	for _, ip := range r.Instances {
		if ip.Group == "" && ip.Guest == nil || len(ip.CPUs) == 0 {
			continue // caged: every CPU
		}
		var e []int
		for _, id := range ip.CPUs {
			if isEff[id] {
				e = append(e, id)
			}
		}
		switch {
		case len(e) == 0:
		case len(e) == len(ip.CPUs):
			r.warn(ip.Name, "runs on efficiency cores only (CPUs %s): the performance cores are taken by the instances placed before it", cpulist.Format(e))
		default:
			r.warn(ip.Name, "%d of its %d CPU threads are efficiency cores (CPUs %s): the performance cores left did not suffice", len(e), len(ip.CPUs), cpulist.Format(e))
		}
	}
}

func orNone(l []int) string {
	if len(l) == 0 {
		return "none"
	}
	return cpulist.Format(l)
}
