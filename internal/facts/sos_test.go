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
	// The numa-off check (StageDerived) saw the filled topology: 1 node for
	// lscpu's 2 sockets, but no CPU's package is known (lscpu's summary,
	// not per CPU), so nothing shows one node holding several packages: a
	// count is no evidence (issue 25).
	if len(topo.NUMADisabled) != 0 {
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
