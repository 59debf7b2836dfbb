package facts

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestTopologyVariants: the fixture hosts of issue 25, each laid out as a
// real kernel, firmware or capture lays its topology files out, read as the
// kernel's own files describe the machine: the right sockets, cores,
// threads and node CPUs, every fallback recorded, every contradiction
// recorded with the file believed, and no "NUMA hidden" without evidence.
func TestTopologyVariants(t *testing.T) {
	cases := []struct {
		host                   string
		sockets, cores, online int
		nodeCPUs               map[int]string // node → its CPU list
		sources                []string       // "fact file" of each fallback
		contradiction          string         // the fact of the one contradiction, "" for none
		check                  func(t *testing.T, s *snapshot.Snapshot)
	}{
		{host: "el7-hascpu-blank", sockets: 2, cores: 16, online: 32, nodeCPUs: map[int]string{0: "0-7,16-23", 1: "8-15,24-31"},
			contradiction: "nodes.has_cpu",
			check: func(t *testing.T, s *snapshot.Snapshot) {
				for _, n := range s.Topology.Nodes {
					if !n.HasCPU {
						t.Errorf("node %d has_cpu false: has_cpu is blank but its cpulist names CPUs", n.ID)
					}
				}
			}},
		{host: "mask-only", sockets: 2, cores: 12, online: 24, nodeCPUs: map[int]string{0: "0-5,12-17", 1: "6-11,18-23"},
			sources: []string{"cpus.online cpu/present", "cpus.online cpuN/online", "cpus.siblings cpuN/topology/thread_siblings", "nodes.cpus nodeN/cpumap"},
			check: func(t *testing.T, s *snapshot.Snapshot) {
				if c := cpuByID(t, s, 13); !c.Online || c.Node != 0 || sprintInts(c.Siblings) != "[1 13]" {
					t.Errorf("cpu 13 = %+v", c)
				}
			}},
		{host: "power9-lpar", sockets: 2, cores: 16, online: 64, nodeCPUs: map[int]string{0: "0-31", 1: "32-63"},
			sources: []string{"cpus.socket cpuN/topology/core_siblings_list"},
			check: func(t *testing.T, s *snapshot.Snapshot) {
				if c := cpuByID(t, s, 37); c.Socket != 1 || sprintInts(c.Siblings) != "[36 37 38 39]" {
					t.Errorf("cpu 37 = %+v: package from core_siblings, SMT4 siblings", c)
				}
			}},
		{host: "magny-cours", sockets: 4, cores: 48, online: 48,
			nodeCPUs: map[int]string{0: "0-5", 1: "6-11", 7: "42-47"}},
		{host: "arm-kunpeng", sockets: 2, cores: 32, online: 32, nodeCPUs: map[int]string{0: "0-7", 3: "24-31"},
			sources: []string{"cpus.siblings cpuN/topology/core_cpus_list"}},
		{host: "guest-noids", sockets: 2, cores: 8, online: 16, nodeCPUs: map[int]string{0: "0-7", 1: "8-15"},
			sources: []string{"cpus.socket cpuN/topology/core_siblings_list"}},
		{host: "bios-overlap", sockets: 2, cores: 16, online: 32, nodeCPUs: map[int]string{0: "0-7,16-23", 1: "8-15,24-31"},
			contradiction: "nodes.cpus",
			check: func(t *testing.T, s *snapshot.Snapshot) {
				x := s.Topology.Contradictions[0]
				if x.Kind != "firmware" || x.Believed != "/sys/devices/system/cpu/cpuN/nodeM" {
					t.Errorf("contradiction %+v: a firmware fault, the CPUs' node links believed", x)
				}
				if c := cpuByID(t, s, 9); c.Node != 1 {
					t.Errorf("cpu 9 on node %d, its link says 1", c.Node)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.host, func(t *testing.T) {
			s := collectFixture(t, fixtureByName(t, c.host))
			tp := s.Topology
			if tp.Sockets != c.sockets || tp.Cores != c.cores || tp.Threads != c.online || len(tp.CPUsOnline) != c.online {
				t.Errorf("sockets %d cores %d threads %d online %v; want %d %d %d", tp.Sockets, tp.Cores, tp.Threads, tp.CPUsOnline, c.sockets, c.cores, c.online)
			}
			for id, want := range c.nodeCPUs {
				n := nodeByID(t, s, id)
				if got := fmtList(n.CPUs); got != want || !n.HasCPU {
					t.Errorf("node %d cpus %s has_cpu %v, want %s", id, got, n.HasCPU, want)
				}
			}
			var got []string
			for _, x := range tp.Sources {
				got = append(got, x.Fact+" "+x.File)
			}
			if strings.Join(got, "|") != strings.Join(c.sources, "|") {
				t.Errorf("sources %q, want %q", got, c.sources)
			}
			switch {
			case c.contradiction == "" && len(tp.Contradictions) > 0:
				t.Errorf("contradictions %+v", tp.Contradictions)
			case c.contradiction != "" && (len(tp.Contradictions) != 1 || tp.Contradictions[0].Fact != c.contradiction):
				t.Errorf("contradictions %+v, want one about %s", tp.Contradictions, c.contradiction)
			}
			if len(tp.NUMADisabled) != 0 {
				t.Errorf("NUMA hidden %v on a host whose every node holds one package", tp.NUMADisabled)
			}
			for _, a := range s.Absent {
				// Core types (cputype.go) are unknown on these kernels: no
				// hybrid PMU before 5.13, no cpu_capacity on x86 or POWER.
				if strings.HasPrefix(a.Fact, "topology") && !strings.HasPrefix(a.Fact, "topology.nodes.mem_detail") && a.Fact != "topology.core_types" {
					t.Errorf("absent %s: %s", a.Fact, a.Reason)
				}
			}
			for _, cp := range tp.CPUs {
				if cp.Online && (cp.Node < 0 || cp.Socket < 0 || len(cp.Siblings) == 0) {
					t.Errorf("cpu %+v: node, package and siblings must be known", cp)
					break
				}
			}
			if c.check != nil {
				c.check(t, s)
			}
		})
	}
}

func fmtList(ids []int) string { return cpulist.Format(ids) }

func sprintInts(ids []int) string { return fmt.Sprint(ids) }
