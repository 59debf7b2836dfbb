package facts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Real outputs: numactl 2.0.16 and lscpu (util-linux 2.38) on the 2-vCPU
// build machine; the 2-node and 4-node ones are numactl's format with a
// second socket (as printed on a 2-socket Xeon).
const (
	numactlOneNode = `available: 1 nodes (0)
node 0 cpus: 0 1
node 0 size: 4441 MB
node 0 free: 3504 MB
node distances:
node   0 
  0:  10 
`
	numactlTwoNodes = `available: 2 nodes (0-1)
node 0 cpus: 0 2 4 6
node 0 size: 32156 MB
node 0 free: 1234 MB
node 1 cpus: 1 3 5 7
node 1 size: 32253 MB
node 1 free: 30000 MB
node distances:
node   0   1 
  0:  10  21 
  1:  21  10 
`
	// A memoryless node 2 and a CPU-less node 3.
	numactlFourNodes = `available: 4 nodes (0-3)
node 0 cpus: 0 1
node 0 size: 16000 MB
node 0 free: 15000 MB
node 1 cpus: 2 3
node 1 size: 16000 MB
node 1 free: 15000 MB
node 2 cpus: 4 5
node 2 size: 0 MB
node 2 free: 0 MB
node 3 cpus:
node 3 size: 8000 MB
node 3 free: 8000 MB
node distances:
node   0   1   2   3 
  0:  10  20  30  40 
  1:  20  10  40  30 
  2:  30  40  10  20 
  3:  40  30  20  10 
`
	lscpuMachine = `Architecture:                            x86_64
CPU op-mode(s):                          32-bit, 64-bit
Address sizes:                           48 bits physical, 48 bits virtual
Byte Order:                              Little Endian
CPU(s):                                  2
On-line CPU(s) list:                     0,1
Vendor ID:                               AuthenticAMD
Model name:                              AMD EPYC
CPU family:                              26
Model:                                   2
Thread(s) per core:                      1
Core(s) per socket:                      2
Socket(s):                               1
Stepping:                                1
BogoMIPS:                                4192.04
Flags:                                   fpu vme de pse tsc msr pae mce cx8 apic sep hypervisor
NUMA node(s):                            1
NUMA node0 CPU(s):                       0,1
Vulnerability Meltdown:                  Mitigation; PTI
Vulnerability Spectre v2:                Mitigation; Retpolines; STIBP disabled; RSB filling; PBRSB-eIBRS Not affected; BHI Not affected
`
	// lscpu as printed to a terminal: sections with indented keys.
	lscpuTwoSockets = `Architecture:            x86_64
  CPU op-mode(s):        32-bit, 64-bit
CPU(s):                  8
  On-line CPU(s) list:   0-5
  Off-line CPU(s) list:  6,7
Vendor ID:               GenuineIntel
  Model name:            Intel(R) Xeon(R) Gold 6148 CPU @ 2.40GHz
    Thread(s) per core:  2
    Core(s) per socket:  2
    Socket(s):           2
Caches (sum of all):     
  L1d:                   128 KiB (4 instances)
NUMA:                    
  NUMA node(s):          2
  NUMA node0 CPU(s):     0,2,4,6
  NUMA node1 CPU(s):     1,3,5,7
`
)

func TestParseNumactlHardware(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	got, err := parseNumactlHardware(strings.NewReader(numactlTwoNodes))
	if err != nil {
		t.Fatal(err)
	}
	want := []numactlNode{
		{ID: 0, CPUs: []int{0, 2, 4, 6}, SizeMB: i64(32156), FreeMB: i64(1234), Distances: []int{10, 21}},
		{ID: 1, CPUs: []int{1, 3, 5, 7}, SizeMB: i64(32253), FreeMB: i64(30000), Distances: []int{21, 10}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("two nodes:\n got %+v\nwant %+v", got, want)
	}

	got, err = parseNumactlHardware(strings.NewReader(numactlFourNodes))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || len(got[3].CPUs) != 0 || *got[2].SizeMB != 0 || !reflect.DeepEqual(got[2].Distances, []int{30, 40, 10, 20}) {
		t.Errorf("four nodes: %+v", got)
	}
	if got[3].CPUs == nil {
		t.Error("a CPU-less node must have an empty, not nil, CPU list")
	}

	// Columns and rows out of order are put in node-id order.
	shuffled := `available: 2 nodes (4,9)
node 9 cpus: 0
node 4 cpus: 1
node distances:
node   9   4
  9:  10  31
  4:  31  11
`
	got, err = parseNumactlHardware(strings.NewReader(shuffled))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID != 4 || !reflect.DeepEqual(got[0].Distances, []int{11, 31}) || !reflect.DeepEqual(got[1].Distances, []int{31, 10}) {
		t.Errorf("shuffled: %+v", got)
	}
	if got[0].SizeMB != nil {
		t.Error("a node without a size line must have nil size, not 0")
	}

	// Without a distance matrix (old numactl, or cut short): nodes, no distances.
	got, err = parseNumactlHardware(strings.NewReader("available: 1 nodes (0)\nnode 0 cpus: 0 1\nnode 0 size: 10 MB\n"))
	if err != nil || got[0].Distances != nil || *got[0].SizeMB != 10 {
		t.Errorf("no matrix: %+v, %v", got, err)
	}
}

func TestParseNumactlHardwareErrors(t *testing.T) {
	cases := map[string]string{
		"No NUMA available on this system\n": "No NUMA available",
		"":                                   "no nodes",
		"available: 2 nodes (0)\n":           "N ids in LIST",
		"available: 1 nodes (0)\nnode 0 cpus: 0 x\n":                                  "line 2",
		"available: 1 nodes (0)\nnode 0 size: 12 GB\n":                                "line 2",
		"available: 1 nodes (0)\nnode 1 cpus: 0\n":                                    "not in the available list",
		"available: 1 nodes (0)\nnode 0 cpus: 0\nnode distances:\nnode 0\n0: 10 20\n": "line 5",
		"available: 2 nodes (0-1)\nnode distances:\nnode 0 1\n0: 10 20\n":             "matrix is 1x2",
		"available: 1 nodes (0)\nnode distances:\nnode 0\n0: 999\n":                   "line 4",
		"hello world\n": "line 1",
		"available: 1 nodes (0)\nnode 0 wobble: 1\n": "line 2",
	}
	for in, want := range cases {
		_, err := parseNumactlHardware(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseNumactlHardware(%q) error = %v, want it to mention %q", in, err, want)
		}
		if _, ok := err.(*ParseError); !ok {
			t.Errorf("parseNumactlHardware(%q) error is %T, want *ParseError", in, err)
		}
	}
}

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

func TestParseUname(t *testing.T) {
	for in, want := range map[string][3]string{
		"Linux db1 5.14.0-362.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Oct 3 11:12:36 EDT 2023 x86_64 x86_64 x86_64 GNU/Linux\n": {"db1", "5.14.0-362.el9.x86_64", "x86_64"},
		"Linux pg2 6.1.0-13-arm64 #1 SMP Debian 6.1.55-1 (2023-09-29) aarch64 GNU/Linux":                                      {"pg2", "6.1.0-13-arm64", "aarch64"},
		"Linux h 4.18.0":                        {"h", "4.18.0", ""},
		"Linux h 4.18.0 #1 SMP weird GNU/Linux": {"h", "4.18.0", ""},
	} {
		n, r, m, err := parseUname(in)
		if err != nil || [3]string{n, r, m} != want {
			t.Errorf("parseUname(%q) = %q %q %q, %v; want %q", in, n, r, m, err, want)
		}
	}
	if _, _, _, err := parseUname("Linux db1\n"); err == nil {
		t.Error("parseUname accepted a line without a release")
	}
}

func sosWriteTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sosAbsent(s *snapshot.Snapshot, fact string) []snapshot.Absence {
	var out []snapshot.Absence
	for _, a := range s.Absent {
		if a.Fact == fact {
			out = append(out, a)
		}
	}
	return out
}

var sosNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// A sosreport with no /proc, /sys copies of the topology: everything comes
// from sos_commands and the top-level files.
func TestSosFallbacks(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{
		"sos_commands/kernel/sysctl_-a":         "vm.swappiness = 10\nkernel.numa_balancing = 1\nkernel.osrelease = 9.9.9\n",
		"sos_commands/numa/numactl_--hardware":  numactlOneNode,
		"sos_commands/processor/lscpu":          lscpuTwoSockets,
		"hostname":                              "db1.example.com\n",
		"uname":                                 "Linux db1 5.14.0-362.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Oct 3 2023 x86_64 x86_64 x86_64 GNU/Linux\n",
		"proc/cmdline":                          "BOOT_IMAGE=/vmlinuz ro\n",
		"sos_commands/unrelated/something_else": "x\n",
	})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})

	if s.Host.Hostname != "db1.example.com" || s.Host.Kernel != "5.14.0-362.el9.x86_64" || s.Host.Arch != "x86_64" {
		t.Errorf("host = %q %q %q", s.Host.Hostname, s.Host.Kernel, s.Host.Arch)
	}
	if s.Sysctl["vm.swappiness"] != "10" || s.Sysctl["kernel.numa_balancing"] != "1" {
		t.Errorf("sysctl = %v", s.Sysctl)
	}
	topo := s.Topology
	if len(topo.Nodes) != 1 || !reflect.DeepEqual(topo.Nodes[0].CPUs, []int{0, 1}) || *topo.Nodes[0].MemTotalKB != 4441*1024 ||
		*topo.Nodes[0].MemFreeKB != 3504*1024 || !reflect.DeepEqual(topo.Nodes[0].Distances, []int{10}) || !topo.NUMAEnabled ||
		!topo.Nodes[0].HasCPU || !topo.Nodes[0].HasMemory {
		t.Errorf("nodes = %+v", topo.Nodes)
	}
	if topo.Sockets != 2 || topo.Cores != 4 || topo.Threads != 6 || len(topo.CPUs) != 8 || !reflect.DeepEqual(topo.CPUsOnline, []int{0, 1, 2, 3, 4, 5}) {
		t.Errorf("sockets %d cores %d threads %d cpus %d online %v", topo.Sockets, topo.Cores, topo.Threads, len(topo.CPUs), topo.CPUsOnline)
	}
	// CPUs 0 and 1 are on node 0 (numactl); the others on no node numactl knows.
	for _, cp := range topo.CPUs {
		wantNode := -1
		if cp.ID <= 1 {
			wantNode = 0
		}
		if cp.Node != wantNode || cp.Socket != -1 || cp.Online != (cp.ID < 6) {
			t.Errorf("cpu %+v", cp)
		}
	}
	// The numa-off check (StageDerived) saw the filled topology: 1 node, 2 sockets.
	if len(topo.NUMADisabled) != 1 || !strings.Contains(topo.NUMADisabled[0], "for 2 sockets") {
		t.Errorf("numa_disabled = %v", topo.NUMADisabled)
	}
	for _, f := range []string{"host.hostname", "host.kernel", "sysctl.vm.swappiness", "topology.nodes", "topology.cpus", "topology.cpus_online"} {
		if a := sosAbsent(s, f); len(a) != 0 {
			t.Errorf("%s still absent: %+v", f, a)
		}
	}
	for _, f := range []string{"topology.nodes[0].hugepages", "topology.nodes[0].meminfo", "topology.cpus.socket"} {
		if len(sosAbsent(s, f)) == 0 {
			t.Errorf("%s should be recorded absent (the sosreport does not have it)", f)
		}
	}
	// A key sysctl -a does not have either stays absent, with both tries listed.
	var missing string
	for _, k := range SysctlKeys {
		if _, ok := s.Sysctl[k]; !ok {
			missing = k
			break
		}
	}
	if a := sosAbsent(s, "sysctl."+missing); len(a) != 2 || a[1].Path != sosSysctlA {
		t.Errorf("sysctl.%s absences = %+v, want the /proc/sys and the sysctl -a tries", missing, a)
	}
}

// File copies win over command outputs, and a non-sos root gets no fallbacks.
func TestSosFallbacksOnlyWhenAbsent(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{
		"proc/sys/kernel/hostname":               "fromproc\n",
		"proc/sys/kernel/osrelease":              "6.1.0\n",
		"proc/sys/vm/swappiness":                 "60\n",
		"sys/devices/system/node/node0/cpulist":  "0-3\n",
		"sys/devices/system/node/node0/distance": "10\n",
		"sos_commands/kernel/sysctl_-a":          "vm.swappiness = 10\nvm.dirty_ratio = 20\n",
		"sos_commands/numa/numactl_--hardware":   numactlTwoNodes,
		"hostname":                               "fromsos\n",
		"uname":                                  "Linux fromsos 9.9.9 #1 SMP x86_64 GNU/Linux\n",
	})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	if s.Host.Hostname != "fromproc" || s.Host.Kernel != "6.1.0" || s.Sysctl["vm.swappiness"] != "60" {
		t.Errorf("file copies were overridden: %q %q %q", s.Host.Hostname, s.Host.Kernel, s.Sysctl["vm.swappiness"])
	}
	if s.Sysctl["vm.dirty_ratio"] != "20" {
		t.Errorf("vm.dirty_ratio = %q; the missing copy should come from sysctl -a", s.Sysctl["vm.dirty_ratio"])
	}
	if len(s.Topology.Nodes) != 1 || !reflect.DeepEqual(s.Topology.Nodes[0].CPUs, []int{0, 1, 2, 3}) {
		t.Errorf("sysfs nodes were replaced: %+v", s.Topology.Nodes)
	}

	s = Collect(Root{Dir: d}, Options{Now: sosNow})
	if _, ok := s.Sysctl["vm.dirty_ratio"]; ok {
		t.Error("a --root tree got a sosreport fallback")
	}
}

// When the fallbacks fail too, the facts stay absent and say what was tried.
func TestSosFallbacksFail(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{
		"sos_commands/numa/numactl_--hardware": "No NUMA available on this system\n",
		"sos_commands/processor/lscpu":         "garbage without colon\n",
		"sos_commands/kernel/sysctl_-a":        "not a sysctl line\n",
		"hostname":                             "two words\n",
	})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	if len(s.Topology.Nodes) != 0 || len(s.Topology.CPUs) != 0 || s.Host.Hostname != "" || s.Host.Kernel != "" || s.Topology.NUMAEnabled {
		t.Errorf("guessed values: %+v %+v", s.Topology, s.Host)
	}
	want := map[string]string{
		"topology.nodes":       "No NUMA available",
		"topology.cpus":        "malformed: line 1",
		"host.hostname":        "expected one host name",
		"host.kernel":          "not present",
		"sysctl.vm.swappiness": "malformed: line 1",
	}
	for f, w := range want {
		found := false
		for _, a := range sosAbsent(s, f) {
			if strings.Contains(a.Reason, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no absence mentioning %q in %+v", f, w, sosAbsent(s, f))
		}
	}
}

// Without a hostname file or sysctl -a, uname -a's node name stands in.
func TestSosHostnameFromUname(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{"sos_commands/kernel/uname_-a": "Linux db7 6.1.0 #1 SMP x86_64 GNU/Linux\n"})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	if s.Host.Hostname != "db7" || s.Host.Kernel != "6.1.0" || len(sosAbsent(s, "host.hostname")) != 0 {
		t.Errorf("host = %+v, absences %+v", s.Host, sosAbsent(s, "host.hostname"))
	}
}

// lscpu's node lines stand in when numactl output is missing.
func TestSosNodesFromLscpu(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{"sos_commands/processor/lscpu": lscpuTwoSockets})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	topo := s.Topology
	if len(topo.Nodes) != 2 || !reflect.DeepEqual(topo.Nodes[1].CPUs, []int{1, 3, 5, 7}) || topo.Nodes[0].MemTotalKB != nil || topo.Nodes[0].Distances != nil {
		t.Fatalf("nodes = %+v", topo.Nodes)
	}
	if topo.CPUs[3].Node != 1 || topo.CPUs[4].Node != 0 {
		t.Errorf("cpu nodes: %+v", topo.CPUs)
	}
	if len(sosAbsent(s, "topology.nodes[1].mem_total_kb")) == 0 || len(sosAbsent(s, "topology.nodes")) != 0 {
		t.Errorf("absences: %+v", s.Absent)
	}
	if len(topo.NUMADisabled) != 0 {
		t.Errorf("numa_disabled = %v for 2 nodes on 2 sockets", topo.NUMADisabled)
	}
}

func FuzzParseNumactlHardware(f *testing.F) {
	for _, s := range []string{numactlOneNode, numactlTwoNodes, numactlFourNodes, "No NUMA available on this system\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nodes, err := parseNumactlHardware(strings.NewReader(s))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			return
		}
		for i, n := range nodes {
			if i > 0 && nodes[i-1].ID >= n.ID {
				t.Fatalf("nodes not sorted: %+v", nodes)
			}
			if n.CPUs == nil {
				t.Fatalf("nil CPU list")
			}
			if n.Distances != nil && len(n.Distances) != len(nodes) {
				t.Fatalf("node %d: %d distances for %d nodes", n.ID, len(n.Distances), len(nodes))
			}
			for j := 1; j < len(n.CPUs); j++ {
				if n.CPUs[j-1] >= n.CPUs[j] {
					t.Fatalf("cpus not sorted/unique: %v", n.CPUs)
				}
			}
		}
	})
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

func FuzzParseUname(f *testing.F) {
	f.Add("Linux db1 5.14.0-362.el9.x86_64 #1 SMP PREEMPT_DYNAMIC Tue Oct 3 11:12:36 EDT 2023 x86_64 x86_64 x86_64 GNU/Linux\n")
	f.Add("Linux h 4.18.0")
	f.Fuzz(func(t *testing.T, s string) {
		node, rel, _, err := parseUname(s)
		if err == nil && (node == "" || rel == "" || strings.ContainsAny(node+rel, " \t\n")) {
			t.Fatalf("parseUname(%q) = %q, %q", s, node, rel)
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

// With lscpu -ae, CPUs get their socket, core and SMT siblings; no socket absence.
func TestSosCPUsFromLscpuExtended(t *testing.T) {
	d := t.TempDir()
	sosWriteTree(t, d, map[string]string{
		"sos_commands/processor/lscpu":         lscpuTwoSockets,
		"sos_commands/processor/lscpu_-ae":     lscpuAETwoSockets,
		"sos_commands/numa/numactl_--hardware": numactlTwoNodes,
	})
	s := Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	topo := s.Topology
	if topo.Sockets != 2 || topo.Cores != 4 || topo.Threads != 7 || len(topo.CPUs) != 8 {
		t.Errorf("sockets %d cores %d threads %d cpus %d", topo.Sockets, topo.Cores, topo.Threads, len(topo.CPUs))
	}
	c5 := topo.CPUs[5]
	if c5.Socket != 1 || c5.Core != 1 || !reflect.DeepEqual(c5.Siblings, []int{1, 5}) || c5.Node != 1 || !c5.Online {
		t.Errorf("cpu 5 = %+v", c5)
	}
	if c7 := topo.CPUs[7]; c7.Online || c7.Socket != -1 {
		t.Errorf("cpu 7 = %+v", c7)
	}
	if len(sosAbsent(s, "topology.cpus.socket")) != 0 || len(sosAbsent(s, "topology.cpus")) != 0 {
		t.Errorf("absences: %+v", s.Absent)
	}
	if len(topo.NUMADisabled) != 0 {
		t.Errorf("numa_disabled = %v", topo.NUMADisabled)
	}

	// CPU directories copied without their topology/ subdirectories: lscpu -ae completes them.
	d = t.TempDir()
	files := map[string]string{
		"sys/devices/system/cpu/online":    "0-1\n",
		"sos_commands/processor/lscpu_-ae": lscpuAEMachine,
	}
	for _, id := range []string{"0", "1"} {
		files["sys/devices/system/cpu/cpu"+id+"/online"] = "1\n"
	}
	sosWriteTree(t, d, files)
	s = Collect(Root{Dir: d, Sos: true}, Options{Now: sosNow})
	if s.Topology.Sockets != 1 || s.Topology.Cores != 2 || s.Topology.CPUs[1].Core != 1 || len(sosAbsent(s, "topology.cpus.socket")) != 0 {
		t.Errorf("completed topology: %+v, absences %+v", s.Topology, sosAbsent(s, "topology.cpus.socket"))
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
