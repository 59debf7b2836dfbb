package bench

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/cpulist"
	"golang.org/x/sys/unix"
)

func TestResolveBinding(t *testing.T) {
	if b, err := ResolveBinding(-1, -1, nil); b != nil || err != nil {
		t.Errorf("nothing asked: %v, %v", b, err)
	}
	nodes, err := OnlineNodes()
	if err != nil {
		t.Fatal(err)
	}
	n0 := nodes[0]
	b, err := ResolveBinding(n0.ID, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cpulist.Format(b.CPUs) != cpulist.Format(n0.CPUs) || len(b.MemNodes) != 1 || b.MemNodes[0] != n0.ID {
		t.Errorf("--cpu-node %d: cpus %v mem %v, want %v and the same node", n0.ID, b.CPUs, b.MemNodes, n0.CPUs)
	}
	p := b.Params("x")
	if p["cpus"] != cpulist.Format(n0.CPUs) || p["memory"] != "MPOL_BIND to node "+strconv.Itoa(n0.ID) || p["cpu_node"] != n0.ID {
		t.Errorf("params %v", p)
	}
	if b, err := ResolveBinding(-1, -1, []int{n0.CPUs[0]}); err != nil || b.MemNodes != nil {
		t.Errorf("--cpus alone binds CPUs only: %+v, %v", b, err)
	}
	for _, bad := range []struct {
		cpuNode, memNode int
		cpus             []int
		want             string
	}{
		{4095, -1, nil, "--cpu-node 4095: not an online node"},
		{-1, 4095, nil, "--mem-node 4095: not an online node"},
		{-1, -1, []int{1 << 20}, "is not online"},
		{n0.ID, -1, []int{0}, "give one"},
	} {
		if _, err := ResolveBinding(bad.cpuNode, bad.memNode, bad.cpus); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// A bound data thread runs on the bound CPU and its buffer's pages are on
// the bound node.
func TestBindData(t *testing.T) {
	nodes, _ := OnlineNodes()
	n0 := nodes[0]
	cpu := n0.CPUs[len(n0.CPUs)-1]
	b := &Binding{CPUNode: -1, MemNode: n0.ID, CPUs: []int{cpu}, MemNodes: []int{n0.ID}}
	type out struct {
		cpus  []int
		pages map[int]int
		err   error
	}
	ch := make(chan out)
	go func() {
		buf, free, err := bindData(b, 64<<10)
		if err != nil {
			ch <- out{err: err}
			return
		}
		defer free()
		var set unix.CPUSet
		_ = unix.SchedGetaffinity(0, &set)
		var cpus []int
		for c := 0; c < 1024; c++ {
			if set.IsSet(c) {
				cpus = append(cpus, c)
			}
		}
		pn, err := pageNodes(buf, 16)
		ch <- out{cpus, pn, err}
	}()
	o := <-ch
	if o.err != nil {
		t.Fatal(o.err)
	}
	if len(o.cpus) != 1 || o.cpus[0] != cpu {
		t.Errorf("thread affinity %v, want [%d]", o.cpus, cpu)
	}
	for node, n := range o.pages {
		if node != n0.ID && n > 0 {
			t.Errorf("%d pages on node %d, want all on %d (%v)", n, node, n0.ID, o.pages)
		}
	}
}

// A bound child inherits the binding: the kernel shows it in the child's
// own /proc/self/status, and the result records what it observed.
func TestRunChildBound(t *testing.T) {
	nodes, _ := OnlineNodes()
	cpu := nodes[0].CPUs[0]
	b := &Binding{CPUNode: -1, MemNode: nodes[0].ID, CPUs: []int{cpu}, MemNodes: []int{nodes[0].ID}}
	o := testOptions(t, time.Second)
	out, err := runChildOutput(context.Background(), o.Registry, b, "/bin/sh", "-c", "sleep 0.5; grep Cpus_allowed_list /proc/self/status; head -c 4096 /proc/self/numa_maps | head -1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Cpus_allowed_list:\t"+strconv.Itoa(cpu)+"\n") {
		t.Errorf("child's affinity: %q, want CPU %d", out, cpu)
	}
	if !strings.Contains(out, " bind:"+strconv.Itoa(nodes[0].ID)) {
		t.Errorf("child's memory policy: %q, want bind:%d", out, nodes[0].ID)
	}
	if b.Observed["cpus_allowed"] != strconv.Itoa(cpu) {
		t.Errorf("observed %v", b.Observed)
	}
	// Unbound: the child may run anywhere this process may.
	out, err = runChildOutput(context.Background(), o.Registry, nil, "/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status")
	if err != nil || strings.Contains(out, "Cpus_allowed_list:\t"+strconv.Itoa(cpu)+"\n") && len(nodes[0].CPUs) > 1 {
		t.Errorf("unbound child: %q, %v", out, err)
	}
}

func TestRunNetBound(t *testing.T) {
	nodes, _ := OnlineNodes()
	b, err := ResolveBinding(nodes[0].ID, -1, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := NetOptions{Options: testOptions(t, 300*time.Millisecond)}
	o.Bind = b
	r, err := RunNet(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkNetShape(t, r)
	p, ok := r.Params["binding"].(map[string]any)
	if !ok || p["cpus"] != cpulist.Format(nodes[0].CPUs) {
		t.Errorf("binding params %v", r.Params["binding"])
	}
}
