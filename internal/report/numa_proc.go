package report

import (
	"fmt"
	"sort"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// ProcNUMA is where one process runs and where its memory is, with a verdict.
type ProcNUMA struct {
	PID          int                `json:"pid"`
	Comm         string             `json:"comm"`
	Instance     string             `json:"instance,omitempty"`
	CPUsAllowed  []int              `json:"cpus_allowed"`
	MemsAllowed  []int              `json:"mems_allowed"`
	NodesAllowed []int              `json:"nodes_allowed"` // nodes of cpus_allowed
	LastCPU      *int               `json:"last_cpu,omitempty"`
	RanOn        []int              `json:"ran_on_nodes"` // nodes its threads last ran on (or of last_cpu)
	Pages        []snapshot.NodeMem `json:"pages"`
	// Verdict is local, spread, remote or unknown; LocalPct the share of its
	// memory on RanOn nodes; DistanceRatio the memory-weighted SLIT distance
	// from RanOn to its pages over the local distance (1.0 = all local).
	Verdict       string             `json:"verdict"`
	LocalPct      *float64           `json:"local_pct,omitempty"`
	DistanceRatio *float64           `json:"distance_ratio,omitempty"`
	Line          string             `json:"summary"`
	Absent        []snapshot.Absence `json:"absent,omitempty"`
}

// Judge fills NodesAllowed, RanOn, the verdict and the summary line from the
// topology. threadCPUs are the last CPUs of its threads (may be empty).
func (p *ProcNUMA) Judge(t snapshot.Topology, threadCPUs []int) {
	nodeOfCPU := map[int]int{}
	idx := map[int]int{}
	for i, n := range t.Nodes {
		idx[n.ID] = i
		for _, c := range n.CPUs {
			nodeOfCPU[c] = n.ID
		}
	}
	nodes := func(cpus []int) []int {
		seen := map[int]bool{}
		out := []int{}
		for _, c := range cpus {
			if n, ok := nodeOfCPU[c]; ok && !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
		sort.Ints(out)
		return out
	}
	p.NodesAllowed = nodes(p.CPUsAllowed)
	switch {
	case len(threadCPUs) > 0:
		p.RanOn = nodes(threadCPUs)
	case p.LastCPU != nil:
		p.RanOn = nodes([]int{*p.LastCPU})
	default:
		p.RanOn = p.NodesAllowed
	}
	var total, local int64
	var wdist float64
	distOK := true
	for _, m := range p.Pages {
		total += m.TotalKB
		best := -1
		for _, r := range p.RanOn {
			if r == m.Node {
				local += m.TotalKB
			}
			ri, ok1 := idx[r]
			mi, ok2 := idx[m.Node]
			if !ok1 || !ok2 || mi >= len(t.Nodes[ri].Distances) {
				distOK = false
				continue
			}
			if d := t.Nodes[ri].Distances[mi]; best < 0 || d < best {
				best = d
			}
		}
		if best < 0 {
			distOK = false
		}
		wdist += float64(m.TotalKB) * float64(best)
	}
	if total == 0 || len(p.RanOn) == 0 {
		p.Verdict = "unknown"
		p.Line = fmt.Sprintf("pid %d (%s): unknown: no pages per node read", p.PID, p.Comm)
		if len(p.RanOn) == 0 && total > 0 {
			p.Line = fmt.Sprintf("pid %d (%s): unknown: the nodes it runs on are not known", p.PID, p.Comm)
		}
		return
	}
	lp := 100 * float64(local) / float64(total)
	p.LocalPct = &lp
	switch {
	case lp >= 90:
		p.Verdict = "local"
	case lp <= 10:
		p.Verdict = "remote"
	default:
		p.Verdict = "spread"
	}
	ratio := ""
	if distOK {
		localD := 10.0
		if ri, ok := idx[p.RanOn[0]]; ok && ri < len(t.Nodes[ri].Distances) {
			localD = float64(t.Nodes[ri].Distances[ri])
		}
		r := wdist / float64(total) / localD
		p.DistanceRatio = &r
		ratio = fmt.Sprintf(", distance ratio %.2f (SLIT, memory-weighted; 1.00 = all local)", r)
	}
	p.Line = fmt.Sprintf("pid %d (%s): %s: %.0f%% of %s on the node(s) %s it runs on%s",
		p.PID, p.Comm, p.Verdict, lp, sizeKB(total), cpulist.Format(p.RanOn), ratio)
}

// ProcText renders one or more processes' NUMA pictures.
func ProcText(ps []*ProcNUMA) []byte {
	d := newTextDoc(0)
	procView(d, ps)
	return d.bytes()
}

// ProcMarkdown is ProcText's view in Markdown.
func ProcMarkdown(ps []*ProcNUMA) []byte {
	d := &mdDoc{}
	procView(d, ps)
	return d.bytes()
}

func procView(d doc, ps []*ProcNUMA) {
	for i, p := range ps {
		name := p.Comm
		if p.Instance != "" {
			name += " [" + p.Instance + "]"
		}
		if i > 0 {
			d.section(fmt.Sprintf("pid %d %s", p.PID, name))
		} else {
			d.title(fmt.Sprintf("pid %d %s", p.PID, name))
		}
		d.item(fmt.Sprintf("cpus allowed  %s (nodes %s)", orNone(cpulist.Format(p.CPUsAllowed)), orNone(cpulist.Format(p.NodesAllowed))))
		d.item(fmt.Sprintf("mems allowed  %s", orNone(cpulist.Format(p.MemsAllowed))))
		last := "-"
		if p.LastCPU != nil {
			last = fmt.Sprint(*p.LastCPU)
		}
		d.item(fmt.Sprintf("last cpu      %s; threads last ran on nodes %s", last, orNone(cpulist.Format(p.RanOn))))
		if len(p.Pages) > 0 {
			t := docTable{head: []string{"node", "anon_kB", "file_kB", "huge_kB", "shm_kB", "total_kB"}, right: true, pad: 3, indent: "  "}
			for _, m := range p.Pages {
				t.rows = append(t.rows, []string{fmt.Sprint(m.Node), fmt.Sprint(m.AnonKB), fmt.Sprint(m.FileKB), fmt.Sprint(m.HugeKB), fmt.Sprint(m.ShmKB), fmt.Sprint(m.TotalKB)})
			}
			d.table(t)
		}
		for _, a := range p.Absent {
			d.item(fmt.Sprintf("absent: %s (%s): %s", a.Fact, a.Path, a.Reason))
		}
		d.item("verdict: " + p.Line)
	}
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func sizeKB(kb int64) string {
	switch {
	case kb >= 1<<20:
		return gib(kb)
	case kb >= 1<<10:
		return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
	}
	return fmt.Sprintf("%d kB", kb)
}
