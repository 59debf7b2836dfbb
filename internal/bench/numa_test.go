package bench

import (
	"context"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestChaseCycleIsOneCycle(t *testing.T) {
	for _, n := range []int{1, 2, 3, 17, 4096} {
		next := ChaseCycle(n, rand.New(rand.NewPCG(uint64(n), 3)))
		seen := make([]bool, n)
		p := uint32(0)
		for i := 0; i < n; i++ {
			if seen[p] {
				t.Fatalf("n=%d: element %d visited twice after %d steps", n, p, i)
			}
			seen[p] = true
			p = next[p]
		}
		if p != 0 {
			t.Errorf("n=%d: did not come back to 0 after n steps", n)
		}
	}
	// fillChase + chase follow the same cycle through words.
	next := ChaseCycle(64, rand.New(rand.NewPCG(1, 1)))
	buf := make([]uint64, 64*lineWords)
	fillChase(buf, next)
	if got := chase(buf, 0, 64); got != 0 {
		t.Errorf("64 loads over a 64-line cycle end at word %d, want 0", got)
	}
}

func TestParseCacheSize(t *testing.T) {
	for in, want := range map[string]int64{"32K": 32 << 10, "16384K": 16 << 20, "1M": 1 << 20, "512": 512, "": 0, "xK": 0, "-1K": 0} {
		if got := ParseCacheSize(in); got != want {
			t.Errorf("ParseCacheSize(%q) = %d, want %d", in, got, want)
		}
	}
	if got := numaBufferBytes(32<<20, 0); got != 256<<20 {
		t.Errorf("buffer for a 32 MiB LLC: %d MiB", got>>20)
	}
	if got := numaBufferBytes(0, 0); got != 64<<20 {
		t.Errorf("buffer without LLC: %d MiB", got>>20)
	}
	if got := numaBufferBytes(1<<30, 0); got != 1<<30 {
		t.Errorf("buffer for a 1 GiB LLC: %d MiB", got>>20)
	}
	if got := numaBufferBytes(32<<20, 100<<10); got != 25<<20 {
		t.Errorf("buffer on a node with 100 MiB free: %d MiB", got>>20)
	}
}

func TestRunNumaShort(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	nodes, err := OnlineNodes()
	if err != nil {
		t.Fatal(err)
	}
	o := NumaOptions{Options: testOptions(t, 200*time.Millisecond), SizeMB: 16}
	r, err := RunNuma(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	var withCPU, withMem int
	for _, n := range nodes {
		if len(n.CPUs) > 0 {
			withCPU++
		}
		if n.MemKB > 0 || len(nodes) == 1 {
			withMem++
		}
	}
	if len(r.Results) != withCPU*withMem || len(r.Samples) != len(r.Results) {
		t.Fatalf("%d rows, %d samples for %d×%d node pairs", len(r.Results), len(r.Samples), withCPU, withMem)
	}
	for _, row := range r.Results {
		if row.NsPerLoad == nil || *row.NsPerLoad <= 0 || row.ThroughputGbps == nil || *row.ThroughputGbps <= 0 {
			t.Errorf("%s: ns/load %v, Gb/s %v: want both > 0", row.Case, row.NsPerLoad, row.ThroughputGbps)
		}
		if row.Extra["slit_distance"] < 10 {
			t.Errorf("%s: SLIT distance %v", row.Case, row.Extra["slit_distance"])
		}
		if row.Labels["cpu_node"] == row.Labels["mem_node"] && row.Extra["latency_vs_local"] != 1 {
			t.Errorf("%s: local pair ratio %v", row.Case, row.Extra["latency_vs_local"])
		}
		if !strings.Contains(row.Labels["pages"], "% node"+row.Labels["mem_node"]) {
			t.Errorf("%s: pages %q: expected the share on node %s", row.Case, row.Labels["pages"], row.Labels["mem_node"])
		}
	}
	if len(nodes) == 1 {
		wantIn(t, "numa notes", strings.Join(r.Notes, "\n"), "one NUMA node: only local memory")
	}
	if _, err := RunNuma(context.Background(), NumaOptions{Options: o.Options, CPUNodes: []int{99}}); err == nil || !strings.Contains(err.Error(), "--cpu-node 99") {
		t.Errorf("node 99: %v", err)
	}
}

// Issue 25: bench numa labels each memory node by what the kernel says of
// it: a node with CPUs is the CPUs' DRAM; a CPU-less node is not a
// database's local memory, and in ZONE_MOVABLE only it is device (GPU) or
// hot-plugged memory.
func TestNodeMemKind(t *testing.T) {
	for _, c := range []struct {
		n    Node
		want string
	}{
		{Node{ID: 0, CPUs: []int{0, 1}, MemKB: 1 << 20}, "dram"},
		{Node{ID: 2, MemKB: 1 << 20}, "cpu-less"},
		{Node{ID: 252, MemKB: 16 << 20, NoNormal: true}, "cpu-less-movable"},
	} {
		if got := c.n.MemKind(); got != c.want {
			t.Errorf("node %+v: %q, want %q", c.n, got, c.want)
		}
	}
}
