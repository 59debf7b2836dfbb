package place

import (
	"math/rand"
	"testing"
	"time"
)

// TestSingleInstanceIsNearest checks binding's node choice against brute
// force on fresh hosts of up to 10 nodes: no other feasible set of nodes has
// fewer memoryless nodes, fewer nodes, or (same count) smaller distances.
func TestSingleInstanceIsNearest(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	worse := 0
	for iter := 0; iter < 400; iter++ {
		s, _ := randomHost(rng)
		if len(s.Topology.Nodes) > 10 {
			continue
		}
		// random symmetric SLIT
		n := len(s.Topology.Nodes)
		for i := range s.Topology.Nodes {
			for j := i + 1; j < n; j++ {
				d := 11 + rng.Intn(30)
				s.Topology.Nodes[i].Distances[j] = d
				s.Topology.Nodes[j].Distances[i] = d
			}
		}
		k := 1 + rng.Intn(max(1, s.Topology.Threads))
		spec := &Spec{Strategy: "binding", Instances: []Instance{{Name: "x", Engine: "oracle", CPUs: k, MemoryGB: float64(rng.Intn(8)), Class: "guaranteed"}}}
		r := Plan(s, spec)
		tp, err := newTopo(s, 0, true)
		if err != nil {
			t.Fatal(err)
		}
		p := r.pages(spec.Instances[0])
		// brute force over node subsets
		type score struct{ remote, count, span int }
		var best *score
		for mask := 1; mask < 1<<n; mask++ {
			var set []int
			for i := 0; i < n; i++ {
				if mask&(1<<i) != 0 {
					set = append(set, i)
				}
			}
			free := 0
			ok := true
			for _, i := range set {
				f := tp.nodes[i].freeCPUs()
				if f == 0 {
					ok = false
				}
				free += f
			}
			mems, remote := tp.memsOf(set)
			if !ok || free < k || (p > 0 && tp.availOf(mems) < p) {
				continue
			}
			sc := score{remote: remote, count: len(set)}
			for a := range set {
				for b := a + 1; b < len(set); b++ {
					sc.span += tp.dist[set[a]][set[b]]
				}
			}
			if best == nil || sc.remote < best.remote || sc.remote == best.remote && (sc.count < best.count || sc.count == best.count && sc.span < best.span) {
				best = &sc
			}
		}
		if best == nil {
			if r.Feasible {
				t.Errorf("iteration %d: feasible plan where brute force finds no set", iter)
			}
			continue
		}
		if !r.Feasible {
			t.Errorf("iteration %d: infeasible (%v) where brute force finds a set %+v", iter, r.Errors, *best)
			continue
		}
		// the plan's node set
		nodeSet := map[int]bool{}
		for _, c := range r.Instances[0].CPUs {
			for i, nd := range s.Topology.Nodes {
				for _, cc := range nd.CPUs {
					if cc == c {
						nodeSet[i] = true
					}
				}
			}
		}
		var set []int
		for i := 0; i < n; i++ {
			if nodeSet[i] {
				set = append(set, i)
			}
		}
		_, remote := tp.memsOf(set)
		got := score{remote: remote, count: len(set)}
		for a := range set {
			for b := a + 1; b < len(set); b++ {
				got.span += tp.dist[set[a]][set[b]]
			}
		}
		if got.remote != best.remote || got.count != best.count {
			t.Errorf("iteration %d: plan uses %+v, brute force %+v", iter, got, *best)
		} else if got.span > best.span {
			worse++
			t.Errorf("iteration %d: span %d, best %d", iter, got.span, best.span)
		}
	}
	t.Logf("plans with a larger span than the best: %d", worse)
}
