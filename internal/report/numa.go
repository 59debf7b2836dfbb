package report

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// NUMAView is what `dbhost numa` shows: per node CPUs, memory, hugepages,
// the SLIT row, and CPU busy % and interrupt share over a sample.
type NUMAView struct {
	Host  string        `json:"host"`
	Nodes []NUMANodeRow `json:"nodes"`
	// Sample says what busy_pct and irq_share_pct cover: "1s sample" (live)
	// or "since boot" (a saved snapshot); "" when no CPU counters were read.
	Sample string `json:"sample,omitempty"`
	// Absent lists facts the view lacks, with the reason.
	Absent []snapshot.Absence `json:"absent,omitempty"`
	// Contradictions are the kernel's topology files that disagree, and
	// which one the view believes (snapshot topology.contradictions).
	Contradictions []snapshot.Contradiction `json:"contradictions,omitempty"`
	// Unattributed says how much of the host's memory no node counts
	// (UnattributedMemory); "" when the nodes account for it.
	Unattributed string `json:"unattributed_memory,omitempty"`
	// CoreTypes are the CPUs' core types (snapshot topology.core_types:
	// hybrid CPUs' performance and efficiency cores).
	CoreTypes *snapshot.CoreTypes `json:"core_types,omitempty"`
}

// NUMANodeRow is one node. Sizes are kB; nil when the kernel did not say.
type NUMANodeRow struct {
	Node        int                      `json:"node"`
	CPUs        []int                    `json:"cpus"`
	MemTotalKB  *int64                   `json:"mem_total_kb"`
	MemFreeKB   *int64                   `json:"mem_free_kb"`
	MemUsedKB   *int64                   `json:"mem_used_kb"`
	ShmemKB     *int64                   `json:"shmem_kb"`
	FilePagesKB *int64                   `json:"file_pages_kb"`
	Hugepages   []snapshot.NodeHugepages `json:"hugepages"`
	Distances   []int                    `json:"distances"`
	BusyPct     *float64                 `json:"busy_pct,omitempty"`
	IRQSharePct *float64                 `json:"irq_share_pct,omitempty"`
	// Kind is what the node's memory is (snapshot topology.nodes[].kind:
	// dram, pmem, cxl, hbm, far, movable, cpu-only, empty, unknown) and
	// KindEvidence the files that say so; "" from a snapshot without it.
	Kind         string   `json:"kind,omitempty"`
	KindEvidence []string `json:"kind_evidence,omitempty"`
}

func meminfoKB(n snapshot.Node, key string) *int64 {
	if v, ok := n.Meminfo[key]; ok {
		return &v
	}
	return nil
}

// NUMANodes builds the per-node picture of a snapshot (no sample yet).
func NUMANodes(s *snapshot.Snapshot) *NUMAView {
	v := &NUMAView{Host: s.Host.Hostname, Nodes: []NUMANodeRow{}}
	for _, n := range s.Topology.Nodes {
		r := NUMANodeRow{Node: n.ID, CPUs: n.CPUs, MemTotalKB: n.MemTotalKB, MemFreeKB: n.MemFreeKB, MemUsedKB: n.MemUsedKB,
			ShmemKB: meminfoKB(n, "Shmem"), FilePagesKB: meminfoKB(n, "FilePages"), Hugepages: n.Hugepages, Distances: n.Distances,
			Kind: n.Kind, KindEvidence: n.KindEvidence}
		if r.CPUs == nil {
			r.CPUs = []int{}
		}
		if r.Hugepages == nil {
			r.Hugepages = []snapshot.NodeHugepages{}
		}
		if r.MemUsedKB == nil && r.MemTotalKB != nil && r.MemFreeKB != nil {
			u := *r.MemTotalKB - *r.MemFreeKB
			r.MemUsedKB = &u
		}
		v.Nodes = append(v.Nodes, r)
	}
	v.Contradictions = s.Topology.Contradictions
	v.CoreTypes = s.Topology.CoreTypes
	v.Unattributed = UnattributedMemory(s)
	// The host-wide absences of the files that name a node's kind of
	// memory matter where a node has memory and no CPUs.
	cpuless := slices.ContainsFunc(s.Topology.Nodes, func(n snapshot.Node) bool { return n.HasMemory && len(n.CPUs) == 0 })
	for _, a := range s.Absent {
		if strings.HasPrefix(a.Fact, "topology.nodes.mem_detail") && !cpuless {
			continue
		}
		if strings.HasPrefix(a.Fact, "topology.nodes") || a.Fact == "cpu_load" || a.Fact == "irqs.irqs" {
			v.Absent = append(v.Absent, a)
		}
	}
	return v
}

// NodeKindLabel is how a node's kind of memory is shown ("" for DRAM,
// a memoryless node's or none: those need no word beyond the CPU and
// memory columns).
func NodeKindLabel(kind string) string {
	switch kind {
	case "", snapshot.NodeKindDRAM, snapshot.NodeKindCPUOnly, snapshot.NodeKindEmpty:
		return ""
	case snapshot.NodeKindPMEM:
		return "persistent memory"
	case snapshot.NodeKindCXL:
		return "CXL memory"
	case snapshot.NodeKindHBM:
		return "HBM"
	case snapshot.NodeKindFar:
		return "slower tier"
	case snapshot.NodeKindMovable:
		return "movable-only (device or hot-plugged)"
	}
	return "kind unknown"
}

// AddSample sets busy % and interrupt share per node from two readings of
// /proc/stat and /proc/interrupts (before may be zero-valued: since boot).
// Interrupt share counts device (numbered) interrupts only.
func (v *NUMAView) AddSample(label string, before, after snapshot.CPULoad, irqBefore, irqAfter snapshot.IRQs) {
	nodeOf := map[int]int{}
	for i, n := range v.Nodes {
		for _, c := range n.CPUs {
			nodeOf[c] = i
		}
	}
	prev := map[int]snapshot.CPUTime{}
	for _, t := range before.PerCPU {
		prev[t.CPU] = t
	}
	busy := make([]uint64, len(v.Nodes))
	all := make([]uint64, len(v.Nodes))
	for _, t := range after.PerCPU {
		i, ok := nodeOf[t.CPU]
		if !ok {
			continue
		}
		p := prev[t.CPU]
		tot := sumTicks(t) - min(sumTicks(t), sumTicks(p))
		idle := (t.Idle + t.IOWait) - min(t.Idle+t.IOWait, p.Idle+p.IOWait)
		all[i] += tot
		busy[i] += tot - min(tot, idle)
	}
	have := len(after.PerCPU) > 0
	for i := range v.Nodes {
		if have && all[i] > 0 {
			b := 100 * float64(busy[i]) / float64(all[i])
			v.Nodes[i].BusyPct = &b
		}
	}
	// interrupts: delta per CPU column of numbered rows
	irqs := make([]uint64, len(v.Nodes))
	var total uint64
	prevRow := map[string]snapshot.IRQ{}
	for _, q := range irqBefore.IRQs {
		prevRow[q.IRQ] = q
	}
	cols, prevCols := irqAfter.CPUs, irqBefore.CPUs
	for _, q := range irqAfter.IRQs {
		if _, err := strconv.Atoi(q.IRQ); err != nil {
			continue
		}
		p := prevRow[q.IRQ]
		for k, c := range q.Counts {
			if k >= len(cols) {
				break
			}
			var pc uint64
			if k < len(p.Counts) && k < len(prevCols) && prevCols[k] == cols[k] {
				pc = p.Counts[k]
			}
			d := c - min(c, pc)
			if i, ok := nodeOf[cols[k]]; ok {
				irqs[i] += d
			}
			total += d
		}
	}
	if len(irqAfter.IRQs) > 0 {
		for i := range v.Nodes {
			s := 0.0
			if total > 0 {
				s = 100 * float64(irqs[i]) / float64(total)
			}
			v.Nodes[i].IRQSharePct = &s
		}
	}
	if have || len(irqAfter.IRQs) > 0 {
		v.Sample = label
	}
}

func sumTicks(t snapshot.CPUTime) uint64 {
	return t.User + t.Nice + t.System + t.Idle + t.IOWait + t.IRQ + t.SoftIRQ + t.Steal
}

func kbCell(p *int64) string {
	if p == nil {
		return "-"
	}
	return strconv.FormatInt(*p, 10) + "_kB"
}

func pctCell(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", *p)
}

// Text renders the view like bdt's numa_memory.sh (seed 001), for any
// number of nodes and hugepage sizes, then the distance table.
func (v *NUMAView) Text() []byte {
	d := newTextDoc(0)
	v.render(d)
	return d.bytes()
}

// Markdown is Text's view in Markdown: the same tables and lines.
func (v *NUMAView) Markdown() []byte {
	d := &mdDoc{}
	d.title("NUMA nodes")
	v.render(d)
	return d.bytes()
}

func (v *NUMAView) render(d doc) {
	if len(v.Nodes) == 0 {
		d.line("No NUMA nodes: the kernel shows no /sys/devices/system/node (NUMA off or CONFIG_NUMA=n).")
	}
	for _, x := range v.Contradictions {
		d.line(ContradictionText(x))
	}
	if x := CoreTypesText(v.CoreTypes); x != "" {
		d.line(x)
	}
	sizes := map[int64]bool{}
	for _, n := range v.Nodes {
		for _, h := range n.Hugepages {
			sizes[h.SizeKB] = true
		}
	}
	var sz []int64
	for s := range sizes {
		sz = append(sz, s)
	}
	sort.Slice(sz, func(i, j int) bool { return sz[i] < sz[j] })
	kinds := slices.ContainsFunc(v.Nodes, func(n NUMANodeRow) bool { return n.Kind != "" })
	if len(v.Nodes) > 0 {
		t := docTable{head: []string{"", "CPUs", "MemTotal", "MemFree", "MemUsed", "Shmem", "FilePages"}, right: true, pad: 2}
		if kinds {
			t.head = append(t.head[:2], append([]string{"Kind"}, t.head[2:]...)...)
		}
		for _, s := range sz {
			t.head = append(t.head, fmt.Sprintf("HugePages_Total/Free/Surp(%dkB)", s))
		}
		if v.Sample != "" {
			t.head = append(t.head, "Busy", "IRQ share")
		}
		for _, n := range v.Nodes {
			cpus := cpulist.Format(n.CPUs)
			if cpus == "" {
				cpus = "(none)"
			}
			row := []string{fmt.Sprintf("Node_%d", n.Node), cpus, kbCell(n.MemTotalKB), kbCell(n.MemFreeKB), kbCell(n.MemUsedKB), kbCell(n.ShmemKB), kbCell(n.FilePagesKB)}
			if kinds {
				row = append(row[:2], append([]string{orDash(n.Kind)}, row[2:]...)...)
			}
			for _, s := range sz {
				cell := "-"
				for _, h := range n.Hugepages {
					if h.SizeKB == s {
						cell = fmt.Sprintf("%d/%d/%d", h.Total, h.Free, h.Surplus)
					}
				}
				row = append(row, cell)
			}
			if v.Sample != "" {
				row = append(row, pctCell(n.BusyPct), pctCell(n.IRQSharePct))
			}
			t.rows = append(t.rows, row)
		}
		d.table(t)
		if v.Sample != "" {
			d.line(fmt.Sprintf("Busy and IRQ share (device interrupts): %s.", v.Sample))
		}
		if v.Unattributed != "" {
			d.line(strings.ToUpper(v.Unattributed[:1]) + v.Unattributed[1:] + ".")
		}
		for _, n := range v.Nodes {
			if l := NodeKindLabel(n.Kind); l != "" {
				d.line(fmt.Sprintf("Node_%d is %s, not a database's local memory: %s.", n.Node, l, strings.Join(n.KindEvidence, "; ")))
			}
		}
		d.section("node distances:")
		dt := docTable{head: []string{"node"}, right: true, pad: 1}
		for _, n := range v.Nodes {
			dt.head = append(dt.head, strconv.Itoa(n.Node))
		}
		for _, n := range v.Nodes {
			row := []string{strconv.Itoa(n.Node) + ":"}
			for i := range v.Nodes {
				if i < len(n.Distances) {
					row = append(row, strconv.Itoa(n.Distances[i]))
				} else {
					row = append(row, "-")
				}
			}
			dt.rows = append(dt.rows, row)
		}
		d.table(dt)
	}
	for _, a := range v.Absent {
		d.line(fmt.Sprintf("absent: %s (%s): %s", a.Fact, a.Path, a.Reason))
	}
}
