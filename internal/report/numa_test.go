package report

import (
	"math"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func p64(v int64) *int64 { return &v }

func numaSnap() *snapshot.Snapshot {
	s := &snapshot.Snapshot{}
	s.Host.Hostname = "h"
	// odd numbering: nodes 1 and 4; node 4 memoryless-ish values absent.
	s.Topology.Nodes = []snapshot.Node{
		{ID: 1, CPUs: []int{0, 1}, Distances: []int{10, 22}, MemTotalKB: p64(1000), MemFreeKB: p64(400),
			Meminfo:   map[string]int64{"Shmem": 7, "FilePages": 9},
			Hugepages: []snapshot.NodeHugepages{{SizeKB: 2048, Total: 10, Free: 4, Surplus: 1}, {SizeKB: 1048576, Total: 1, Free: 1}}},
		{ID: 4, CPUs: []int{2, 3}, Distances: []int{22, 10}},
	}
	return s
}

func TestNUMANodesAndSample(t *testing.T) {
	v := NUMANodes(numaSnap())
	if len(v.Nodes) != 2 || *v.Nodes[0].MemUsedKB != 600 || *v.Nodes[0].ShmemKB != 7 || v.Nodes[1].MemTotalKB != nil {
		t.Fatalf("%+v", v.Nodes)
	}
	before := snapshot.CPULoad{PerCPU: []snapshot.CPUTime{{CPU: 0, Idle: 100}, {CPU: 1, Idle: 100}, {CPU: 2, Idle: 100}, {CPU: 3, Idle: 100}}}
	after := snapshot.CPULoad{PerCPU: []snapshot.CPUTime{
		{CPU: 0, User: 90, Idle: 110}, {CPU: 1, System: 10, Idle: 190}, // node 1: 100 busy of 200 = 50%
		{CPU: 2, Idle: 200}, {CPU: 3, IOWait: 50, Idle: 150}, // node 4: 0 busy (iowait is idle)
	}}
	cpus := []int{0, 1, 2, 3}
	q0 := snapshot.IRQs{CPUs: cpus, IRQs: []snapshot.IRQ{{IRQ: "24", Counts: []uint64{10, 0, 0, 0}}, {IRQ: "LOC", Counts: []uint64{0, 0, 0, 0}}}}
	q1 := snapshot.IRQs{CPUs: cpus, IRQs: []snapshot.IRQ{{IRQ: "24", Counts: []uint64{40, 0, 0, 10}}, {IRQ: "LOC", Counts: []uint64{1000, 1000, 1000, 1000}}}}
	v.AddSample("1s sample", before, after, q0, q1)
	if math.Abs(*v.Nodes[0].BusyPct-50) > 0.01 || *v.Nodes[1].BusyPct != 0 {
		t.Errorf("busy %v %v", *v.Nodes[0].BusyPct, *v.Nodes[1].BusyPct)
	}
	// device interrupts only: 30 on node 1, 10 on node 4 (LOC ignored)
	if *v.Nodes[0].IRQSharePct != 75 || *v.Nodes[1].IRQSharePct != 25 {
		t.Errorf("irq share %v %v", *v.Nodes[0].IRQSharePct, *v.Nodes[1].IRQSharePct)
	}
	txt := string(v.Text())
	for _, w := range []string{"Node_1", "Node_4", "1000_kB", "600_kB", "10/4/1", "HugePages_Total/Free/Surp(1048576kB)", "50.0%", "75.0%", "node distances", " 4: 22 10", "1s sample"} {
		if !strings.Contains(txt, w) {
			t.Errorf("text lacks %q:\n%s", w, txt)
		}
	}
	// No sample: no busy columns.
	if strings.Contains(string(NUMANodes(numaSnap()).Text()), "Busy") {
		t.Error("busy column without a sample")
	}
}

func TestProcVerdicts(t *testing.T) {
	topo := numaSnap().Topology
	last := 0
	cases := []struct {
		pages   []snapshot.NodeMem
		threads []int
		verdict string
		ratio   float64
	}{
		{[]snapshot.NodeMem{{Node: 1, TotalKB: 100}}, []int{0, 1}, "local", 1.0},
		{[]snapshot.NodeMem{{Node: 4, TotalKB: 100}}, []int{1}, "remote", 2.2},
		{[]snapshot.NodeMem{{Node: 1, TotalKB: 50}, {Node: 4, TotalKB: 50}}, nil, "spread", 1.6}, // last CPU 0 → node 1
	}
	for _, c := range cases {
		p := &ProcNUMA{PID: 1, Comm: "x", CPUsAllowed: []int{0, 1, 2, 3}, LastCPU: &last, Pages: c.pages}
		p.Judge(topo, c.threads)
		if p.Verdict != c.verdict || p.DistanceRatio == nil || math.Abs(*p.DistanceRatio-c.ratio) > 0.001 {
			t.Errorf("%v: %s %v, want %s %v (%s)", c.pages, p.Verdict, p.DistanceRatio, c.verdict, c.ratio, p.Line)
		}
		if len(p.NodesAllowed) != 2 {
			t.Errorf("nodes allowed %v", p.NodesAllowed)
		}
	}
	p := &ProcNUMA{PID: 2, Comm: "y", CPUsAllowed: []int{0}}
	p.Judge(topo, nil)
	if p.Verdict != "unknown" || !strings.Contains(string(ProcText([]*ProcNUMA{p})), "unknown") {
		t.Errorf("no pages: %s", p.Line)
	}
}

// Issue 25: `numa` (text, Markdown, JSON), `collect`'s summary, the HTML
// picture and the exporter say what each node's memory is, with the files
// that say so; a snapshot without kinds shows no Kind column.
func TestNUMAShowsNodeKinds(t *testing.T) {
	s, err := snapshot.Load("../../testdata/golden/power9-gpu.json")
	if err != nil {
		t.Fatal(err)
	}
	v := NUMANodes(s)
	txt, md := string(v.Text()), string(v.Markdown())
	for _, out := range []string{txt, md} {
		for _, w := range []string{"Kind", "movable", "Node_252 is movable-only (device or hot-plugged), not a database's local memory", "zone Movable only"} {
			if !strings.Contains(out, w) {
				t.Errorf("numa lacks %q:\n%s", w, out)
			}
		}
	}
	js, err := JSON(v)
	if err != nil || !strings.Contains(string(js), `"kind": "movable"`) || !strings.Contains(string(js), `"kind": "dram"`) {
		t.Errorf("numa JSON lacks the kinds (%v):\n%s", err, js)
	}
	sum := string(Summary(s))
	if !strings.Contains(sum, "252 (no CPUs) [movable-only (device or hot-plugged)]") || !strings.Contains(sum, "node 252 is movable-only") {
		t.Errorf("collect summary lacks node 252's kind:\n%s", sum)
	}
	h := buildNUMA(s, nil)
	if h.Nodes[2].Kind == "" || !strings.Contains(h.Nodes[2].KindWhy, "zone Movable only") || h.Nodes[0].Kind != "" {
		t.Errorf("HTML nodes %+v %+v", h.Nodes[0], h.Nodes[2])
	}
	if strings.Contains(string(NUMANodes(numaSnap()).Text()), "Kind") {
		t.Error("a Kind column for a snapshot without kinds")
	}
}
