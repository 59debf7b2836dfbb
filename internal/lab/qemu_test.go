package lab

import (
	"slices"
	"strings"
	"testing"
)

var testFiles = VMFiles{Kernel: "/k/vmlinux", Initrd: "/r/initrd", SRAT: "/r/srat.bin", SLIT: "/r/slit.bin", Console: "/r/console.log", Data: "/r/data.log"}

// after returns the value following flag's i-th occurrence.
func values(args []string, flag string) []string {
	var out []string
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			out = append(out, args[i+1])
		}
	}
	return out
}

func TestQEMUArgsFourNodeSLIT(t *testing.T) {
	s := scenarioNamed("four-node-slit")
	a, err := QEMUArgs(s, testFiles)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"node,nodeid=0,cpus=0-1,memdev=m0", "node,nodeid=1,cpus=2-3,memdev=m1",
		"node,nodeid=2,cpus=4-5,memdev=m2", "node,nodeid=3,cpus=6-7,memdev=m3",
		"dist,src=0,dst=1,val=21", "dist,src=0,dst=2,val=31", "dist,src=0,dst=3,val=21",
		"dist,src=1,dst=2,val=21", "dist,src=1,dst=3,val=31", "dist,src=2,dst=3,val=21",
	}
	if got := values(a, "-numa"); !slices.Equal(got, want) {
		t.Errorf("-numa:\n got %q\nwant %q", got, want)
	}
	wantObj := []string{"memory-backend-ram,id=m0,size=192M", "memory-backend-ram,id=m1,size=128M",
		"memory-backend-ram,id=m2,size=160M", "memory-backend-ram,id=m3,size=224M"}
	if got := values(a, "-object"); !slices.Equal(got, wantObj) {
		t.Errorf("-object: got %q want %q", got, wantObj)
	}
	checks := map[string]string{"-m": "704M", "-smp": "8,sockets=4,cores=2,threads=1", "-cpu": "max",
		"-accel": "tcg,thread=multi", "-kernel": "/k/vmlinux", "-initrd": "/r/initrd"}
	for f, v := range checks {
		if got := values(a, f); len(got) != 1 || got[0] != v {
			t.Errorf("%s: got %q, want %q", f, got, v)
		}
	}
	if got := values(a, "-serial"); !slices.Equal(got, []string{"file:/r/console.log", "file:/r/data.log"}) {
		t.Errorf("-serial: %q (ttyS0 console first, ttyS1 results)", got)
	}
	for _, f := range []string{"-no-reboot", "-nodefaults"} {
		if !slices.Contains(a, f) {
			t.Errorf("missing %s", f)
		}
	}
	if slices.Contains(a, "-acpitable") {
		t.Error("-numa scenario must not pass own ACPI tables")
	}
	if !strings.Contains(values(a, "-append")[0], "panic=-1") {
		t.Error("kernel command line lacks panic=-1 (an exiting /init would hang the VM)")
	}
}

func TestQEMUArgsMemorylessAndSparseCPUs(t *testing.T) {
	s := &Scenario{Name: "m", Sockets: 1, Cores: 6, Threads: 1,
		Nodes: []Node{{ID: 0, CPUs: []int{0, 1, 2, 5}, MemMB: 256}, {ID: 1, CPUs: []int{3, 4}}, {ID: 2, MemMB: 128}}}
	a, err := QEMUArgs(s, testFiles)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"node,nodeid=0,cpus=0-2,cpus=5,memdev=m0", "node,nodeid=1,cpus=3-4", "node,nodeid=2,memdev=m2"}
	if got := values(a, "-numa"); !slices.Equal(got, want) {
		t.Errorf("-numa: got %q want %q", got, want)
	}
	if got := values(a, "-object"); len(got) != 2 {
		t.Errorf("memoryless node must get no memory backend: %q", got)
	}
	if got := values(a, "-m"); got[0] != "384M" {
		t.Errorf("-m %q, want the sum of node memory 384M", got)
	}
}

func TestQEMUArgsOwnACPIAndOneNode(t *testing.T) {
	a, err := QEMUArgs(eightNodeOdd(), testFiles)
	if err != nil {
		t.Fatal(err)
	}
	if got := values(a, "-acpitable"); !slices.Equal(got, []string{"file=/r/srat.bin", "file=/r/slit.bin"}) {
		t.Errorf("-acpitable: %q", got)
	}
	if n := values(a, "-numa"); len(n) != 0 {
		t.Errorf("own tables must replace -numa (QEMU would add its own SRAT): %q", n)
	}
	if o := values(a, "-object"); len(o) != 0 {
		t.Errorf("no memory backends with own tables: %q", o)
	}
	if got := values(a, "-smp"); got[0] != "16,sockets=8,cores=2,threads=1" {
		t.Errorf("-smp %q", got)
	}
	one, err := QEMUArgs(scenarioNamed("one-node"), testFiles)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(one, "-numa") || slices.Contains(one, "-acpitable") {
		t.Errorf("one node: no SRAT at all, got %q", one)
	}
	smt, err := QEMUArgs(scenarioNamed("smt"), testFiles)
	if err != nil {
		t.Fatal(err)
	}
	if got := values(smt, "-cpu"); got[0] != "Skylake-Server" {
		t.Errorf("smt -cpu %q", got)
	}
	if got := values(smt, "-smp"); got[0] != "8,sockets=2,cores=2,threads=2" {
		t.Errorf("smt -smp %q", got)
	}
}

func TestQEMUArgsAsymmetricDistances(t *testing.T) {
	s := &Scenario{Name: "a", Sockets: 2, Cores: 1, Threads: 1,
		Nodes:     []Node{{ID: 0, CPUs: []int{0}, MemMB: 128}, {ID: 1, CPUs: []int{1}, MemMB: 128}},
		Distances: [][]int{{10, 20}, {30, 10}}}
	a, err := QEMUArgs(s, testFiles)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"node,nodeid=0,cpus=0,memdev=m0", "node,nodeid=1,cpus=1,memdev=m1", "dist,src=0,dst=1,val=20", "dist,src=1,dst=0,val=30"}
	if got := values(a, "-numa"); !slices.Equal(got, want) {
		t.Errorf("got %q want %q", got, want)
	}
}

func TestExpectedCPUs(t *testing.T) {
	s := scenarioNamed("smt") // smt: 2 sockets × 2 cores × 2 threads
	e := s.ExpectedCPUs()
	want := []ExpectedCPU{
		{0, 0, 0, 0, []int{0, 1}}, {1, 0, 0, 0, []int{0, 1}}, {2, 0, 0, 1, []int{2, 3}}, {3, 0, 0, 1, []int{2, 3}},
		{4, 1, 1, 0, []int{4, 5}}, {5, 1, 1, 0, []int{4, 5}}, {6, 1, 1, 1, []int{6, 7}}, {7, 1, 1, 1, []int{6, 7}},
	}
	for i := range want {
		g := e[i]
		if g.ID != want[i].ID || g.Node != want[i].Node || g.Socket != want[i].Socket || g.Core != want[i].Core || !slices.Equal(g.Siblings, want[i].Siblings) {
			t.Errorf("cpu %d: got %+v want %+v", i, g, want[i])
		}
	}
	odd := eightNodeOdd().ExpectedCPUs()
	if odd[0].Node != 4 || odd[15].Node != 4 || odd[15].Socket != 7 || odd[1].Node != 0 {
		t.Errorf("eight-node-odd: cpu0 %+v cpu15 %+v cpu1 %+v", odd[0], odd[15], odd[1])
	}
}

func scenarioNamed(name string) *Scenario {
	for _, s := range Scenarios() {
		if s.Name == name {
			return s
		}
	}
	panic("no scenario " + name)
}

func TestQEMUArgsKernelCmdline(t *testing.T) {
	a, err := QEMUArgs(scenarioNamed("two-node"), testFiles)
	if err != nil {
		t.Fatal(err)
	}
	app := values(a, "-append")[0]
	for _, w := range []string{"console=ttyS0", "panic=-1", "rdinit=/init", "lpj=", "hugepages=16"} {
		if !strings.Contains(app, w) {
			t.Errorf("kernel command line %q lacks %s", app, w)
		}
	}
}
