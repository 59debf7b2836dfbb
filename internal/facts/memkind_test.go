package facts

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestMemoryKinds: each fixture host of a kind of memory node (issue 25)
// reads with every node labelled as its files say, with the file quoted as
// evidence, and "unknown" where no file tells (the memoryless host's
// CPU-less node 2 has nothing but its size and distance).
func TestMemoryKinds(t *testing.T) {
	cases := []struct {
		host     string
		kinds    map[int]string
		evidence map[int]string // a substring of the node's evidence
		check    func(t *testing.T, s *snapshot.Snapshot)
	}{
		{host: "power9-gpu",
			kinds:    map[int]string{0: "dram", 8: "dram", 252: "movable", 253: "movable", 254: "movable", 255: "movable"},
			evidence: map[int]string{252: "zone Movable only"}},
		{host: "pmem-kmem", kinds: map[int]string{0: "dram", 1: "dram", 2: "pmem", 3: "pmem"},
			evidence: map[int]string{2: "dax0.0 (kmem, nvdimm)", 3: "region1 (nd region, nvdimm)"}},
		{host: "cxl-guest", kinds: map[int]string{0: "dram", 1: "dram", 2: "cxl", 3: "far"},
			evidence: map[int]string{2: "dax0.0 (kmem, cxl)", 3: "read_bandwidth: 5000 MB/s, node0's own 20000 MB/s"},
			check: func(t *testing.T, s *snapshot.Snapshot) {
				d := nodeByID(t, s, 2).MemDetail
				if d == nil || d.MemoryTier == nil || *d.MemoryTier != 22 || d.NormalMemory == nil || *d.NormalMemory {
					t.Errorf("node 2 detail %+v: memory_tier22, not normal memory", d)
				}
				a := nodeByID(t, s, 3).MemDetail.Access
				if len(a) != 1 || fmt.Sprint(a[0].Initiators) != "[0 1]" || a[0].ReadLatency == nil || *a[0].ReadLatency != 300 {
					t.Errorf("node 3 access %+v", a)
				}
			}},
		{host: "twolm", kinds: map[int]string{0: "dram", 1: "dram"},
			evidence: map[int]string{0: "a 192 GiB memory-side cache"},
			check: func(t *testing.T, s *snapshot.Snapshot) {
				c := nodeByID(t, s, 1).MemDetail.MemorySideCache
				if len(c) != 1 || c[0].Level != 1 || c[0].SizeBytes != 192<<30 || c[0].LineSize != 64 || c[0].WritePolicy != 0 {
					t.Errorf("node 1 cache %+v", c)
				}
			}},
		{host: "hbm-flat", kinds: map[int]string{0: "dram", 1: "dram", 2: "hbm", 3: "hbm"},
			evidence: map[int]string{3: "read_bandwidth: 800000 MB/s, node0's own 250000 MB/s"}},
		{host: "memoryless", kinds: map[int]string{0: "dram", 1: "cpu-only", 2: "unknown"}},
		// The evidence names the file the CPU list came from.
		{host: "mask-only", kinds: map[int]string{0: "dram", 1: "dram"}, evidence: map[int]string{1: "node1/cpumap: CPUs 6-11,18-23"}},
		{host: "sosreport-db1", kinds: map[int]string{0: "dram", 1: "dram"}, evidence: map[int]string{0: "numactl --hardware: CPUs 0-3,8-11"}},
		{host: "rhel6", kinds: map[int]string{0: "dram", 1: "dram"},
			check: func(t *testing.T, s *snapshot.Snapshot) {
				z := nodeByID(t, s, 1).MemDetail.Zones
				if len(z) != 1 || z[0].Name != "Normal" || z[0].Managed != nil {
					t.Errorf("rhel6 node 1 zones %+v: Normal, no managed line before 3.8", z)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			s := collectFixture(t, fixtureByName(t, c.host))
			if len(s.Topology.Nodes) != len(c.kinds) {
				t.Errorf("%d nodes, want %d", len(s.Topology.Nodes), len(c.kinds))
			}
			for id, want := range c.kinds {
				n := nodeByID(t, s, id)
				if n.Kind != want || len(n.KindEvidence) == 0 {
					t.Errorf("node %d kind %q (%q), want %q", id, n.Kind, n.KindEvidence, want)
				}
				if e, ok := c.evidence[id]; ok && !strings.Contains(strings.Join(n.KindEvidence, "; "), e) {
					t.Errorf("node %d evidence %q lacks %q", id, n.KindEvidence, e)
				}
			}
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

// A host whose node files say nothing of memory leaves every kind unknown,
// never dram by default.
func TestMemoryKindUnknownWithoutFiles(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"sys/devices/system/node/node0/distance": "10\n",
		"sys/devices/system/cpu/cpu0/online":     "1\n",
	})
	s := Collect(Root{Dir: dir}, Options{Version: "t", Now: goldenNow})
	if len(s.Topology.Nodes) != 1 || s.Topology.Nodes[0].Kind != snapshot.NodeKindUnknown {
		t.Fatalf("nodes %+v", s.Topology.Nodes)
	}
}

func TestParseZoneinfo(t *testing.T) {
	in := "Node 0, zone      DMA\n  per-node stats\n      nr_free_pages 5\n  pages free     3840\n        min      13\n        present  3998\n        managed  3840\n        protection: (0, 1, 2)\n" +
		"Node 1, zone  Movable\n  pages free     0\n        spanned  0\n        present  0\n"
	z, err := ParseZoneinfo(strings.NewReader(in))
	if err != nil || len(z) != 2 || z[0].Node != 0 || z[0].Name != "DMA" || z[0].Present != 3998 || z[0].Managed == nil || *z[0].Managed != 3840 ||
		z[1].Node != 1 || z[1].Name != "Movable" || z[1].Present != 0 || z[1].Managed != nil {
		t.Fatalf("%+v %v", z, err)
	}
	for _, bad := range []string{"", "Node x, zone DMA\n        present 1\n", "Node 0 zone DMA\n", "Node 0, zone DMA\n  pages free 1\n", "Node 0, zone DMA\n        present -1\n"} {
		if _, err := ParseZoneinfo(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// FuzzParseZoneinfo: zones the fuzzer chose, printed as the kernel prints
// them (mm/vmstat.c zoneinfo_show_print: "Node %d, zone %8s", then the
// page counters), parse back to the same nodes, names and counts; any text
// either parses to zones with a present count or fails with a ParseError.
func FuzzParseZoneinfo(f *testing.F) {
	f.Add("Node 0, zone DMA\n        present 1\n", []byte{0, 1, 2, 3}, "DMA Normal Movable")
	f.Add("", []byte{7, 200}, "Normal")
	f.Fuzz(func(t *testing.T, text string, vals []byte, names string) {
		if z, err := ParseZoneinfo(strings.NewReader(text)); err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || z != nil {
				t.Fatalf("error %v (%T) with %v", err, err, z)
			}
		} else {
			for _, x := range z {
				if x.Present < 0 || x.Node < 0 || x.Name == "" {
					t.Fatalf("zone %+v", x)
				}
			}
		}
		words := strings.Fields(names)
		if len(words) == 0 || len(vals) == 0 {
			return
		}
		var b strings.Builder
		var want []ZoneinfoZone
		for i, v := range vals {
			name := words[i%len(words)]
			if strings.ContainsAny(name, ",\x00") {
				return
			}
			node := int(v) % 5
			present := int64(v) << (i % 30)
			fmt.Fprintf(&b, "Node %d, zone %8s\n  pages free     %d\n        min      1\n        spanned  %d\n        present  %d\n", node, name, present/2, present, present)
			z := ZoneinfoZone{Node: node, Name: name, Present: present}
			if i%2 == 0 {
				m := present / 3
				fmt.Fprintf(&b, "        managed  %d\n", m)
				z.Managed = &m
			}
			b.WriteString("        protection: (0, 0)\n")
			want = append(want, z)
		}
		got, err := ParseZoneinfo(strings.NewReader(b.String()))
		if err != nil || len(got) != len(want) {
			t.Fatalf("%q: %v %v", b.String(), got, err)
		}
		for i := range want {
			g, w := got[i], want[i]
			if g.Node != w.Node || g.Name != w.Name || g.Present != w.Present || (g.Managed == nil) != (w.Managed == nil) || (g.Managed != nil && *g.Managed != *w.Managed) {
				t.Fatalf("zone %d: %+v, want %+v", i, g, w)
			}
		}
	})
}

func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
