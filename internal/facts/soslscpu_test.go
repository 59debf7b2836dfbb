package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestParseLscpu(t *testing.T) {
	got, err := parseLscpu(strings.NewReader(lscpuMachine))
	if err != nil {
		t.Fatal(err)
	}
	if *got.CPUs != 2 || !reflect.DeepEqual(got.Online, []int{0, 1}) || *got.Sockets != 1 || *got.CoresPerSocket != 2 ||
		*got.ThreadsPerCore != 1 || *got.NUMANodes != 1 || !reflect.DeepEqual(got.NodeCPUs, map[int][]int{0: {0, 1}}) || got.Arch != "x86_64" {
		t.Errorf("machine lscpu: %+v", got)
	}
	got, err = parseLscpu(strings.NewReader(lscpuTwoSockets))
	if err != nil {
		t.Fatal(err)
	}
	if *got.Sockets != 2 || !reflect.DeepEqual(got.Offline, []int{6, 7}) || !reflect.DeepEqual(got.NodeCPUs[1], []int{1, 3, 5, 7}) {
		t.Errorf("two sockets: %+v", got)
	}

	// Heterogeneous CPUs print one block per core type: conflicting counts
	// are unknown, not the first one seen.
	hetero := "CPU(s): 8\nModel name: Cortex-A53\nCore(s) per cluster: 4\nSocket(s): -\nModel name: Cortex-A72\nCore(s) per socket: 2\nCore(s) per socket: 4\n"
	got, err = parseLscpu(strings.NewReader(hetero))
	if err != nil {
		t.Fatal(err)
	}
	if got.Sockets != nil || got.CoresPerSocket != nil || *got.CPUs != 8 {
		t.Errorf("heterogeneous: sockets %v cores/socket %v", got.Sockets, got.CoresPerSocket)
	}

	for in, want := range map[string]string{
		"":              "no \"Key: value\"",
		"CPU(s) 2\n":    "line 1",
		"CPU(s): two\n": "line 1",
		"Socket(s): 1\nOn-line CPU(s) list: 0-x\n":       "line 2",
		"NUMA node0 CPU(s): 0-1\nNUMA node1 CPU(s): 1\n": "CPU 1 listed in NUMA node0 and node1",
		"NUMA nodeX CPU(s): 0\n":                         "line 1",
	} {
		if _, err := parseLscpu(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLscpu(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func FuzzParseLscpu(f *testing.F) {
	for _, s := range []string{lscpuMachine, lscpuTwoSockets, "CPU(s): 8\nSocket(s): -\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		info, err := parseLscpu(strings.NewReader(s))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			return
		}
		seen := map[int]bool{}
		for _, cpus := range info.NodeCPUs {
			for _, c := range cpus {
				if seen[c] {
					t.Fatalf("CPU %d in two nodes", c)
				}
				seen[c] = true
			}
		}
		for _, p := range []*int{info.CPUs, info.Sockets, info.CoresPerSocket, info.ThreadsPerCore, info.NUMANodes} {
			if p != nil && *p < 0 {
				t.Fatalf("negative count %d", *p)
			}
		}
	})
}

// lscpu -ae of a 2-socket SMT host (Intel numbering: siblings are n and n+4),
// CPU 7 offline.
const lscpuAETwoSockets = `CPU NODE SOCKET CORE L1d:L1i:L2:L3 ONLINE    MAXMHZ    MINMHZ       MHZ
  0    0      0    0 0:0:0:0          yes 3700.0000 1000.0000 1200.0000
  1    1      1    1 1:1:1:1          yes 3700.0000 1000.0000 1200.0000
  2    0      0    2 2:2:2:0          yes 3700.0000 1000.0000 1200.0000
  3    1      1    3 3:3:3:1          yes 3700.0000 1000.0000 1200.0000
  4    0      0    0 0:0:0:0          yes 3700.0000 1000.0000 1200.0000
  5    1      1    1 1:1:1:1          yes 3700.0000 1000.0000 1200.0000
  6    0      0    2 2:2:2:0          yes 3700.0000 1000.0000 1200.0000
  7    -      -    - -                 no -         -         -
`

const lscpuAEMachine = `CPU NODE SOCKET CORE ONLINE
  0    0      0    0    yes
  1    0      0    1    yes
`

func TestParseLscpuExtended(t *testing.T) {
	got, err := parseLscpuExtended(strings.NewReader(lscpuAETwoSockets))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 || got[3].Node != 1 || got[3].Socket != 1 || got[3].Core != 3 || !*got[3].Online {
		t.Errorf("rows = %+v", got)
	}
	if r := got[7]; r.Node != -1 || r.Socket != -1 || r.Core != -1 || *r.Online {
		t.Errorf("offline row = %+v", r)
	}
	// No NODE column (kernel without NUMA), columns in another order, no ONLINE.
	got, err = parseLscpuExtended(strings.NewReader("CORE SOCKET CPU\n1 0 1\n0 0 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID != 0 || got[1].Core != 1 || got[1].Node != -1 || got[1].Online != nil {
		t.Errorf("reordered columns: %+v", got)
	}
	for in, want := range map[string]string{
		"":                       "no CPU rows",
		"NODE SOCKET\n0 0\n":     "CPU column",
		"CPU SOCKET\n0 0\n0 1\n": "line 3",
		"CPU SOCKET\n0 0 7\n":    "3 fields for 2 columns",
		"CPU SOCKET\n0 x\n":      "SOCKET: expected a number",
		"CPU ONLINE\n0 maybe\n":  "ONLINE: expected yes or no",
		"CPU CPU\n0 0\n":         "twice",
		"CPU NODE SOCKET CORE ONLINE\n- 0 0 0 yes\n": "new CPU id",
	} {
		if _, err := parseLscpuExtended(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseLscpuExtended(%q) error = %v, want it to mention %q", in, err, want)
		}
	}
}

func FuzzParseLscpuExtended(f *testing.F) {
	for _, s := range []string{lscpuAETwoSockets, lscpuAEMachine, "CORE SOCKET CPU\n1 0 1\n0 0 0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := parseLscpuExtended(strings.NewReader(s))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			return
		}
		for i, r := range rows {
			if r.ID < 0 || (i > 0 && rows[i-1].ID >= r.ID) {
				t.Fatalf("rows not sorted by unique id: %+v", rows)
			}
			if r.Node < -1 || r.Socket < -1 || r.Core < -1 {
				t.Fatalf("bad row %+v", r)
			}
		}
		var topo snapshot.Topology
		cpusFromLscpuExtended(&topo, rows)
		for _, cp := range topo.CPUs {
			if cp.Socket >= 0 && !contains(cp.Siblings, cp.ID) {
				t.Fatalf("cpu %d not among its siblings %v", cp.ID, cp.Siblings)
			}
		}
	})
}
