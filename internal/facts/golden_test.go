package facts

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/snapshot"
)

var (
	hostsDir  = filepath.Join("..", "..", "testdata", "hosts")
	goldenDir = filepath.Join("..", "..", "testdata", "golden")
	goldenNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
)

// collectFixture collects a committed fixture host with a fixed time and a
// source path that does not depend on the checkout location.
func collectFixture(t testing.TB, f fixture.Fixture) *snapshot.Snapshot {
	t.Helper()
	dir := filepath.Join(hostsDir, f.Name, f.RootDir)
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("fixture tree missing (go run ./internal/fixture/cmd/genhosts): %v", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return Collect(Root{Dir: abs, Sos: f.Sos}, Options{Version: "golden", Now: goldenNow, Path: "testdata/hosts/" + f.Name})
}

// TestGoldenSnapshots: testdata/golden holds exactly one snapshot per fixture
// host, each equal to what Collect gives now (internal/golden: a golden file
// no fixture produces is stale; -update rewrites and removes).
func TestGoldenSnapshots(t *testing.T) {
	got := map[string][]byte{}
	for _, f := range fixture.Fixtures() {
		b, err := snapshot.Marshal(collectFixture(t, f))
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		got[f.Name+".json"] = b
	}
	golden.Check(t, golden.Set{Dir: goldenDir, Match: func(rel string) bool { return strings.HasSuffix(rel, ".json") },
		Hint: "go test ./internal/facts -run Golden -update"}, got)
	// A golden file must itself be a loadable snapshot that round-trips.
	for name := range got {
		file := filepath.Join(goldenDir, name)
		want, err := os.ReadFile(file)
		if err != nil {
			continue // reported by Check
		}
		back, err := snapshot.Parse(file, want)
		if err != nil {
			t.Errorf("golden file does not load: %v", err)
			continue
		}
		if again, _ := snapshot.Marshal(back); !bytes.Equal(again, want) {
			t.Errorf("%s does not round-trip through Load/Marshal", file)
		}
	}
}

func fixtureByName(t *testing.T, name string) fixture.Fixture {
	t.Helper()
	for _, f := range fixture.Fixtures() {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no fixture %s", name)
	return fixture.Fixture{}
}

func nodeByID(t *testing.T, s *snapshot.Snapshot, id int) snapshot.Node {
	t.Helper()
	for _, n := range s.Topology.Nodes {
		if n.ID == id {
			return n
		}
	}
	t.Fatalf("no node %d in %v", id, s.Topology.Nodes)
	return snapshot.Node{}
}

func cpuByID(t *testing.T, s *snapshot.Snapshot, id int) snapshot.CPU {
	t.Helper()
	for _, c := range s.Topology.CPUs {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no cpu %d", id)
	return snapshot.CPU{}
}

func eqInts(t *testing.T, what string, got, want []int) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

func absentFact(s *snapshot.Snapshot, fact string) bool {
	for _, a := range s.Absent {
		if a.Fact == fact {
			return true
		}
	}
	return false
}

// The contract facts each fixture host exists for, asserted explicitly so a
// wrong golden file cannot be blessed with -update unnoticed.
func TestGoldenContract(t *testing.T) {
	t.Run("laptop-2s", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "laptop-2s"))
		tp := s.Topology
		if tp.Sockets != 2 || tp.Cores != 8 || tp.Threads != 16 || len(tp.Nodes) != 2 || !tp.NUMAEnabled {
			t.Errorf("topology: sockets %d cores %d threads %d nodes %d", tp.Sockets, tp.Cores, tp.Threads, len(tp.Nodes))
		}
		eqInts(t, "node 0 cpus", nodeByID(t, s, 0).CPUs, []int{0, 1, 2, 3, 8, 9, 10, 11})
		eqInts(t, "node 1 distances", nodeByID(t, s, 1).Distances, []int{21, 10})
		c := cpuByID(t, s, 13)
		if c.Node != 1 || c.Socket != 1 || c.Core != 1 {
			t.Errorf("cpu 13 = %+v, want node 1 socket 1 core 1", c)
		}
		eqInts(t, "cpu 13 siblings", c.Siblings, []int{5, 13})
		if tp.SMTActive == nil || !*tp.SMTActive {
			t.Error("SMT not active")
		}
		if len(tp.NUMADisabled) != 0 {
			t.Errorf("NUMADisabled = %v on a 2-node host", tp.NUMADisabled)
		}
		if s.Host.Hostname != "dev-2s" || s.Host.Kernel != "6.1.0-26-amd64" || s.Host.OS != "Debian GNU/Linux 12 (bookworm)" || s.Host.Virt.Guest {
			t.Errorf("host = %+v", s.Host)
		}
		if n := nodeByID(t, s, 0); n.MemTotalKB == nil || *n.MemTotalKB != 65843000 {
			t.Errorf("node 0 mem_total_kb = %v", n.MemTotalKB)
		}
	})
	t.Run("interleaved-4n", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "interleaved-4n"))
		for n := 0; n < 4; n++ {
			eqInts(t, fmt.Sprintf("node %d cpus", n), nodeByID(t, s, n).CPUs, []int{n, n + 4, n + 8, n + 12})
		}
		eqInts(t, "node 0 distances", nodeByID(t, s, 0).Distances, []int{10, 21, 31, 31})
		eqInts(t, "node 2 distances", nodeByID(t, s, 2).Distances, []int{31, 31, 10, 21})
		if c := cpuByID(t, s, 13); c.Node != 1 || c.Socket != 1 {
			t.Errorf("cpu 13 = %+v, want node 1 socket 1", c)
		}
		hp := nodeByID(t, s, 1).Hugepages
		if len(hp) == 0 || hp[0].SizeKB != 2048 || hp[0].Total != 6144 || hp[0].Free != 832 {
			t.Errorf("node 1 hugepages = %+v, want 2048 kB 6144 total 832 free", hp)
		}
		if s.Topology.Sockets != 4 || len(s.Topology.NUMADisabled) != 0 {
			t.Errorf("sockets %d, NUMADisabled %v", s.Topology.Sockets, s.Topology.NUMADisabled)
		}
		// The oracle tuned profile over throughput-performance: the including profile's values win.
		tp := map[string]string{}
		for _, ts := range s.Config.Tuned.Profile {
			tp[ts.Unit+"."+ts.Option] = ts.Value + " " + ts.File
		}
		if tp["sysctl.vm.dirty_background_ratio"] != "3 /usr/lib/tuned/oracle/tuned.conf" ||
			tp["cpu.governor"] != "performance /usr/lib/tuned/throughput-performance/tuned.conf" ||
			strings.Join(s.Config.Tuned.ProfileFiles, " ") != "/usr/lib/tuned/throughput-performance/tuned.conf /usr/lib/tuned/oracle/tuned.conf" {
			t.Errorf("tuned profile %v files %v", tp, s.Config.Tuned.ProfileFiles)
		}
	})
	t.Run("odd-8n", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "odd-8n"))
		if len(s.Topology.Nodes) != 8 {
			t.Fatalf("%d nodes", len(s.Topology.Nodes))
		}
		eqInts(t, "node 4 cpus", nodeByID(t, s, 4).CPUs, []int{0, 15})
		if c := cpuByID(t, s, 0); c.Node != 4 {
			t.Errorf("cpu 0 node = %d, want 4", c.Node)
		}
		if c := cpuByID(t, s, 15); c.Node != 4 {
			t.Errorf("cpu 15 node = %d, want 4", c.Node)
		}
		eqInts(t, "node 4 distances", nodeByID(t, s, 4).Distances, []int{31, 31, 21, 21, 10, 12, 21, 21})
		for _, n := range s.Topology.Nodes {
			if len(n.CPUs) != 2 {
				t.Errorf("node %d cpus %v, want 2", n.ID, n.CPUs)
			}
		}
	})
	t.Run("memoryless", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "memoryless"))
		n1, n2 := nodeByID(t, s, 1), nodeByID(t, s, 2)
		if n1.HasMemory || !n1.HasCPU {
			t.Errorf("node 1: has_memory %v has_cpu %v, want false true", n1.HasMemory, n1.HasCPU)
		}
		eqInts(t, "node 1 cpus", n1.CPUs, []int{4, 5, 6, 7, 12, 13, 14, 15})
		if n2.HasCPU || !n2.HasMemory || len(n2.CPUs) != 0 {
			t.Errorf("node 2: has_cpu %v has_memory %v cpus %v, want a CPU-less memory node", n2.HasCPU, n2.HasMemory, n2.CPUs)
		}
		if n2.MemTotalKB == nil || *n2.MemTotalKB != 134217728 {
			t.Errorf("node 2 mem_total_kb = %v", n2.MemTotalKB)
		}
		if n1.MemTotalKB != nil && *n1.MemTotalKB != 0 {
			t.Errorf("memoryless node 1 mem_total_kb = %d", *n1.MemTotalKB)
		}
	})
	t.Run("numa-off", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "numa-off"))
		if len(s.Topology.NUMADisabled) == 0 {
			t.Error("NUMADisabled empty on a numa=off 2-socket host")
		}
		if s.Topology.Sockets != 2 || len(s.Topology.Nodes) != 1 {
			t.Errorf("sockets %d nodes %d, want 2 and 1", s.Topology.Sockets, len(s.Topology.Nodes))
		}
		eqInts(t, "node 0 cpus", nodeByID(t, s, 0).CPUs, []int{0, 1, 2, 3, 4, 5, 6, 7})
		if v, ok := s.Host.CmdlineArgs["numa"]; !ok || v != "off" {
			t.Errorf("cmdline numa = %q %v", v, ok)
		}
	})
	t.Run("nosmt", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "nosmt"))
		tp := s.Topology
		if tp.Threads != 4 || len(tp.CPUs) != 8 || tp.Cores != 4 || tp.Sockets != 1 {
			t.Errorf("threads %d cpus %d cores %d sockets %d, want 4 8 4 1", tp.Threads, len(tp.CPUs), tp.Cores, tp.Sockets)
		}
		eqInts(t, "cpus_online", tp.CPUsOnline, []int{0, 1, 2, 3})
		eqInts(t, "cpus_possible", tp.CPUsPossible, []int{0, 1, 2, 3, 4, 5, 6, 7})
		eqInts(t, "node 0 cpus", nodeByID(t, s, 0).CPUs, []int{0, 1, 2, 3})
		for id := 4; id < 8; id++ {
			if c := cpuByID(t, s, id); c.Online {
				t.Errorf("cpu %d online, want offline (nosmt)", id)
			}
		}
		eqInts(t, "cpu 0 siblings", cpuByID(t, s, 0).Siblings, []int{0})
		if tp.SMTActive == nil || *tp.SMTActive {
			t.Errorf("smt_active = %v, want false", tp.SMTActive)
		}
	})
	t.Run("cgroup-v1", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "cgroup-v1"))
		eqInts(t, "node 1 cpus", nodeByID(t, s, 1).CPUs, []int{8, 9, 10, 11, 12, 13, 14, 15})
		var pmon *snapshot.Process
		for i := range s.Processes {
			if s.Processes[i].PID == 2201 {
				pmon = &s.Processes[i]
			}
		}
		if pmon == nil {
			t.Fatalf("ora_pmon_CDB1 (pid 2201) not among processes %+v", s.Processes)
		}
		if pmon.Engine != "oracle" || pmon.Comm != "ora_pmon_CDB1" {
			t.Errorf("pmon engine %q comm %q", pmon.Engine, pmon.Comm)
		}
		eqInts(t, "pmon cpus_allowed", pmon.CPUsAllowed, []int{0, 1, 2, 3, 4, 5, 6, 7})
		eqInts(t, "pmon mems_allowed", pmon.MemsAllowed, []int{1})
		var found bool
		for _, g := range s.Cgroups.Groups {
			if g.Path == "/oracle" && g.Mems != nil {
				found = true
				if *g.Mems != "1" || g.CPUs == nil || *g.CPUs != "0-7" || g.Version != 1 {
					t.Errorf("/oracle group = %+v", g)
				}
			}
		}
		if !found && !absentFact(s, "cgroups") {
			t.Errorf("no v1 cpuset group /oracle in %+v", s.Cgroups.Groups)
		}
	})
	t.Run("cgroup-v2", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "cgroup-v2"))
		if s.Cgroups.Version != "v2" {
			t.Errorf("cgroups version %q, want v2", s.Cgroups.Version)
		}
		var post *snapshot.Process
		for i := range s.Processes {
			if s.Processes[i].PID == 812 {
				post = &s.Processes[i]
			}
		}
		if post == nil {
			t.Fatalf("postmaster (pid 812) not among processes")
		}
		if post.Engine != "postgres" || post.Role != "postmaster" {
			t.Errorf("postmaster engine %q role %q", post.Engine, post.Role)
		}
		eqInts(t, "postmaster cpus_allowed", post.CPUsAllowed, []int{2, 3, 4, 5, 6, 7})
		if !strings.HasPrefix(post.Cgroup, "/db.slice") {
			t.Errorf("postmaster cgroup %q, want under /db.slice", post.Cgroup)
		}
		var slice bool
		for _, g := range s.Cgroups.Groups {
			if g.Path == "/db.slice" && g.CPUs != nil && *g.CPUs == "2-7" {
				slice = true
			}
		}
		if !slice {
			t.Errorf("no /db.slice cpuset group with cpus 2-7 in %+v", s.Cgroups.Groups)
		}
		if !s.Host.Virt.Guest || s.Host.Virt.Type != "kvm" {
			t.Errorf("virt = %+v, want a kvm guest", s.Host.Virt)
		}
	})
	// RHEL 6 and 7: every CPU has its idle states (without residency;
	// RHEL 6 also without disable), THP, the hugepage pools (global and per
	// node), the cpuset group and the database processes are read.
	for _, era := range []struct {
		name       string
		cpus       int
		thpDir     string
		hasDisable bool
		cgMount    string
	}{
		{"rhel6", 24, "redhat_transparent_hugepage", false, "/cgroup/cpuset"},
		{"rhel7", 32, "transparent_hugepage", true, "/sys/fs/cgroup/cpuset"},
	} {
		t.Run(era.name, func(t *testing.T) {
			s := collectFixture(t, fixtureByName(t, era.name))
			if n := len(s.CPUPower.Cpuidle); n != era.cpus {
				t.Errorf("%d CPUs with idle states, want %d", n, era.cpus)
			}
			for _, ci := range s.CPUPower.Cpuidle {
				if len(ci.States) != 5 || ci.States[4].LatencyUS == 0 || ci.States[4].ResidencyUS != nil || (ci.States[4].Disabled != nil) != era.hasDisable {
					t.Errorf("cpu %d states %+v", ci.CPU, ci.States)
					break
				}
			}
			if s.Memory.THP.Enabled == nil || *s.Memory.THP.Enabled != "always" || s.Memory.THP.KhugepagedDefrag == nil {
				t.Errorf("thp = %+v", s.Memory.THP)
			}
			if len(s.Memory.Hugepages) == 0 || s.Memory.Hugepages[0].Total != 16384 || !s.Memory.Hugepages[0].Default {
				t.Errorf("hugepages = %+v", s.Memory.Hugepages)
			}
			for _, n := range s.Topology.Nodes {
				if len(n.Hugepages) == 0 || n.Hugepages[0].Total != 8192 {
					t.Errorf("node %d hugepages = %+v", n.ID, n.Hugepages)
				}
			}
			var db *snapshot.CgroupGroup
			for i, g := range s.Cgroups.Groups {
				if g.Path == "/db" && g.Mount == era.cgMount {
					db = &s.Cgroups.Groups[i]
				}
			}
			if s.Cgroups.Version != "v1" || db == nil || db.Mems == nil || *db.Mems != "0" || len(db.DBPIDs) != 3 {
				t.Errorf("cgroups %s: /db = %+v in %+v", s.Cgroups.Version, db, s.Cgroups.Groups)
			}
			if len(s.Processes) != 3 || s.Processes[0].Role != "pmon" || s.Processes[0].Cgroup != "/db" || len(s.Processes[0].MemsAllowed) != 1 {
				t.Errorf("processes = %+v", s.Processes)
			}
			if !strings.Contains(s.Host.OS, "Red Hat Enterprise Linux") {
				t.Errorf("os %q", s.Host.OS)
			}
		})
	}
	t.Run("sosreport-db1", func(t *testing.T) {
		s := collectFixture(t, fixtureByName(t, "sosreport-db1"))
		if s.Source.Kind != "sosreport" {
			t.Errorf("source kind %q", s.Source.Kind)
		}
		// CPU topology is copied (sys/devices/system/cpu); the NUMA layout
		// must come from sos_commands/numa/numactl_--hardware.
		if s.Topology.Sockets != 2 || s.Topology.Threads != 16 {
			t.Errorf("sockets %d threads %d", s.Topology.Sockets, s.Topology.Threads)
		}
		if len(s.Topology.Nodes) == 2 {
			eqInts(t, "node 1 cpus (numactl fallback)", nodeByID(t, s, 1).CPUs, []int{4, 5, 6, 7, 12, 13, 14, 15})
			eqInts(t, "node 0 distances (numactl fallback)", nodeByID(t, s, 0).Distances, []int{10, 21})
		} else if !absentFact(s, "topology.nodes") {
			t.Errorf("%d nodes and no absence recorded for topology.nodes", len(s.Topology.Nodes))
		}
		if s.Host.Hostname != "" && s.Host.Hostname != "db1" {
			t.Errorf("hostname %q", s.Host.Hostname)
		}
		if s.Host.Hostname == "" && !absentFact(s, "host.hostname") {
			t.Error("no hostname and no absence")
		}
	})
}

// FuzzCollectFixture replaces one file of the laptop-2s fixture tree with
// arbitrary bytes and collects: whatever a file holds, Collect must not
// panic, and the snapshot must marshal and round-trip through Parse.
// The file is chosen by path (seeds name real files) or, for other strings,
// by a hash of the string over every file of the tree.
func FuzzCollectFixture(f *testing.F) {
	f.Add("/proc/meminfo", []byte("MemTotal: lots kB\n"))
	f.Add("/sys/devices/system/node/node1/distance", []byte("10 21 31\n"))
	f.Add("/sys/devices/system/node/node0/cpulist", []byte("0-4000000000\n"))
	f.Add("/proc/interrupts", []byte("           CPU0\n  0:\n"))
	f.Add("/proc/1402/status", []byte("Cpus_allowed_list:\t3-1\n"))
	f.Add("/proc/1402/numa_maps", []byte("7f00 default anon=-1 N99999999999=1\n"))
	f.Add("/proc/stat", []byte("cpu0 1 2\n"))
	f.Add("/sys/kernel/mm/transparent_hugepage/enabled", []byte("[]\n"))
	f.Add("/etc/security/limits.conf", []byte("oracle\n"))
	f.Add("x", []byte{0, 0xff, '\n'})
	// One tree per fuzzing process, removed when the target ends.
	dir := f.TempDir()
	tr := fixture.Laptop2S().Build()
	if err := tr.Write(dir); err != nil {
		f.Fatal(err)
	}
	var files []string // host paths of regular files, sorted
	for _, p := range tr.Paths() {
		if _, ok := tr.Get(p); ok {
			files = append(files, p)
		}
	}
	f.Fuzz(func(t *testing.T, which string, content []byte) {
		p := which
		if i := sort.SearchStrings(files, which); i >= len(files) || files[i] != which {
			h := fnv.New32a()
			h.Write([]byte(which))
			p = files[int(h.Sum32()%uint32(len(files)))]
		}
		full := filepath.Join(dir, p)
		orig, err := os.ReadFile(full)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, content, 0o644); err != nil {
			t.Fatal(err)
		}
		defer os.WriteFile(full, orig, 0o644)
		s := Collect(Root{Dir: dir}, Options{Version: "fuzz", Now: goldenNow})
		b, err := snapshot.Marshal(s)
		if err != nil {
			t.Fatalf("%s = %q: snapshot does not marshal: %v", p, content, err)
		}
		back, err := snapshot.Parse("fuzz", b)
		if err != nil {
			t.Fatalf("%s = %q: snapshot does not load back: %v", p, content, err)
		}
		if again, _ := snapshot.Marshal(back); !bytes.Equal(again, b) {
			t.Fatalf("%s = %q: snapshot does not round-trip", p, content)
		}
	})
}

// TestGoldenAbsencesAreTheStory: every fact a fixture host lacks is one its
// story says it lacks. A reader that stops finding a fact the tree has (or a
// new reader whose files the fixture does not generate yet: add them to
// internal/fixture) fails here instead of being blessed by -update.
func TestGoldenAbsencesAreTheStory(t *testing.T) {
	// Kernel 5.13+ moved these scheduler knobs to debugfs.
	newKernel := []string{"sysctl.kernel.sched_migration_cost_ns", "sysctl.kernel.sched_min_granularity_ns", "sysctl.kernel.sched_wakeup_granularity_ns"}
	// No cpufreq driver: P-states left to the firmware or a VM.
	noCpufreq := []string{"cpu_power.cpufreq", "cpu_power.energy_perf_bias", "cpu_power.intel_pstate"}
	// Core types unknown (cputype.go): before Linux 5.13 an x86 core PMU
	// (/sys/devices/cpu) does not tell a hybrid part from another; POWER
	// has neither a hybrid PMU nor cpu_capacity; a guest's vCPUs of one
	// type say nothing of the host's cores.
	oldPMU := "topology.core_types"
	allowed := map[string][]string{
		"laptop-2s":      newKernel,
		"interleaved-4n": {oldPMU, "cpu_power.intel_pstate"}, // acpi-cpufreq
		"odd-8n":         append(append([]string{"config.tuned.active_profile"}, noCpufreq...), newKernel...),
		"memoryless":     newKernel,
		"numa-off":       append([]string{"config.tuned.active_profile"}, newKernel...),
		"nosmt":          append([]string{"config.tuned.active_profile"}, newKernel...),
		"cgroup-v1":      append([]string{oldPMU}, noCpufreq...),
		"cgroup-v2":      append(append([]string{oldPMU}, noCpufreq...), newKernel...), // a guest: core types unknown
		// A sosreport has no /proc/PID (processes come from ps) and no node
		// directories (NUMA from numactl --hardware: no per-node meminfo or
		// hugepages); it copies /etc/tuned but not the packaged profiles.
		"sosreport-db1": {"topology.nodes.mem_detail.normal_memory", oldPMU, "processes.*", "cpu_power.dma_latency_holders", "topology.nodes[*].hugepages", "topology.nodes[*].meminfo", "sysctl.*", "network.*", "cgroups.*",
			"config.tuned.profile"},
		// Hosts of every era: what each kernel does not have yet (docs/snapshot.md, "Kernel eras").
		"rhel6": {oldPMU, "pci_devices.link", "cpu_power.cpuidle.states.disabled", "cpu_power.cpuidle.states.residency_us", "cpu_power.cpuidle.states.default_disabled", "cpu_power.energy_perf_bias",
			"cpu_power.intel_pstate", "memory.thp.shmem_enabled", "storage.devices[*].write_cache", "sysctl.kernel.numa_balancing*",
			"sysctl.kernel.sched_migration_cost_ns", "sysctl.kernel.sched_autogroup_enabled", "sysctl.net.core.busy_*", "sysctl.net.ipv4.tcp_fastopen",
			"config.tuned.profile"}, // tuned 0.2's profiles are not tuned 2.x's
		"rhel7": {oldPMU, "pci_devices.link", "cpu_power.cpuidle.states.residency_us", "cpu_power.cpuidle.states.default_disabled", "cpu_power.energy_perf_bias", "cpu_power.intel_pstate.status",
			"memory.thp.shmem_enabled", "storage.devices[*].write_cache"},
		"rhel8":      {oldPMU, "cpu_power.energy_perf_bias", "cpu_power.cpuidle.states.default_disabled"},
		"rhel9":      newKernel,
		"sles12":     {oldPMU, "pci_devices.link", "cpu_power.energy_perf_bias", "cpu_power.cpuidle.states.default_disabled", "cpu_power.intel_pstate.status", "memory.thp.shmem_enabled", "storage.devices[*].write_cache", "config.tuned.active_profile"},
		"ubuntu2204": append([]string{"config.tuned.active_profile"}, newKernel...),
		// Issue 25's topology variants: what their kernels and firmware lack,
		// never a topology fact (each is read from the files the host has).
		"el7-hascpu-blank": {oldPMU, "pci_devices.link", "cpu_power.cpuidle.states.residency_us", "cpu_power.cpuidle.states.default_disabled", "cpu_power.energy_perf_bias",
			"cpu_power.intel_pstate.status", "memory.thp.shmem_enabled", "storage.devices[*].write_cache"},
		"mask-only": {oldPMU, "pci_devices.link", "cpu_power.cpuidle.states.disabled", "cpu_power.cpuidle.states.residency_us", "cpu_power.cpuidle.states.default_disabled", "cpu_power.energy_perf_bias",
			"cpu_power.intel_pstate", "memory.thp.shmem_enabled", "storage.devices[*].write_cache", "sysctl.kernel.numa_balancing*",
			"sysctl.kernel.sched_migration_cost_ns", "sysctl.kernel.sched_autogroup_enabled", "sysctl.net.core.busy_*", "sysctl.net.ipv4.tcp_fastopen",
			"config.tuned.profile"},
		"magny-cours": {oldPMU, "pci_devices.link", "config.tuned.active_profile", "cpu_power.cpuidle.states.disabled", "cpu_power.cpuidle.states.residency_us", "cpu_power.cpuidle.states.default_disabled",
			"cpu_power.energy_perf_bias", "cpu_power.intel_pstate", "memory.thp.shmem_enabled", "storage.devices[*].write_cache", "sysctl.kernel.numa_balancing*",
			"sysctl.kernel.sched_migration_cost_ns", "sysctl.kernel.sched_autogroup_enabled", "sysctl.net.core.busy_*", "sysctl.net.ipv4.tcp_fastopen"},
		"power9-lpar":  append([]string{oldPMU}, append([]string{"config.tuned.active_profile", "cpu_power.cpuidle.states.default_disabled"}, noCpufreq...)...),
		"arm-kunpeng":  append(append([]string{"config.tuned.active_profile", "cpu_power.cpuidle"}, noCpufreq...), newKernel...),
		"guest-noids":  append(append([]string{oldPMU, "config.tuned.active_profile"}, noCpufreq...), newKernel...),
		"bios-overlap": newKernel,
		// Hybrid CPUs: Ubuntu 24.04, OL9 UEK 7 and Debian 12 without tuned.
		"adl-desktop":   append([]string{"config.tuned.active_profile"}, newKernel...),
		"ecore-pinned":  append([]string{"config.tuned.active_profile"}, newKernel...),
		"hybrid-server": append([]string{"config.tuned.active_profile"}, newKernel...),
		"arm-biglittle": append(append([]string{"config.tuned.active_profile", "cpu_power.cpuidle"}, noCpufreq...), newKernel...),
		// Issue 25's kinds of memory node: each host has the files of its
		// kind (memhosts.go), and lacks the others'.
		"power9-gpu": append([]string{oldPMU, "config.tuned.active_profile", "cpu_power.cpuidle.states.default_disabled", "topology.nodes.mem_detail.access",
			"topology.nodes.mem_detail.devices", "topology.nodes.mem_detail.memory_tier"}, noCpufreq...),
		"pmem-kmem": append(append([]string{"config.tuned.active_profile", "cpu_power.cpuidle", "topology.nodes.mem_detail.access",
			"topology.nodes.mem_detail.memory_tier"}, noCpufreq...), newKernel...),
		"cxl-guest": append(append([]string{oldPMU, "config.tuned.active_profile", "cpu_power.cpuidle"}, noCpufreq...), newKernel...),
		"twolm": append(append([]string{"config.tuned.active_profile", "cpu_power.cpuidle", "topology.nodes.mem_detail.devices",
			"topology.nodes.mem_detail.memory_tier"}, noCpufreq...), newKernel...),
		"hbm-flat": append(append([]string{"config.tuned.active_profile", "cpu_power.cpuidle", "topology.nodes.mem_detail.devices",
			"topology.nodes.mem_detail.memory_tier"}, noCpufreq...), newKernel...),
		// 4.18 with acpi-cpufreq (000's Superdome X, scaled down).
		"superdome-3par": {oldPMU, "cpu_power.intel_pstate", "cpu_power.energy_perf_bias", "cpu_power.cpuidle.states.default_disabled"},
	}
	// No other fixture host has an HMAT, dax kmem devices or memory tiers
	// (Linux 6.1+): what a plain DRAM host's kernel shows.
	plainMemory := []string{"topology.nodes.mem_detail.access", "topology.nodes.mem_detail.devices", "topology.nodes.mem_detail.memory_tier"}
	for _, name := range []string{"laptop-2s", "interleaved-4n", "odd-8n", "memoryless", "numa-off", "nosmt", "cgroup-v1", "cgroup-v2", "sosreport-db1",
		"rhel6", "rhel7", "rhel8", "rhel9", "sles12", "ubuntu2204", "el7-hascpu-blank", "mask-only", "magny-cours", "power9-lpar", "arm-kunpeng", "guest-noids", "bios-overlap", "adl-desktop", "ecore-pinned", "hybrid-server", "arm-biglittle", "superdome-3par"} {
		allowed[name] = append(append([]string{}, allowed[name]...), plainMemory...)
	}
	match := func(pattern, fact string) bool {
		if ok, _ := filepath.Match(strings.ReplaceAll(strings.ReplaceAll(pattern, "[", "\\["), "]", "\\]"), fact); ok {
			return true
		}
		return false
	}
	for _, f := range fixture.Fixtures() {
		t.Run(f.Name, func(t *testing.T) {
			s := collectFixture(t, f)
			for _, a := range s.Absent {
				ok := false
				for _, p := range allowed[f.Name] {
					ok = ok || match(p, a.Fact)
				}
				if !ok {
					t.Errorf("absent %s (%s: %s) is not part of the %s story: generate the file in internal/fixture or fix the reader", a.Fact, a.Path, a.Reason, f.Name)
				}
			}
		})
	}
}

// A 2.6.32 kernel without RHEL 6's backport of per-node hugepage pools: the
// default size's pool of each node comes from its meminfo.
func TestNodeHugepagesFromMeminfo(t *testing.T) {
	h := fixture.RHEL65()
	h.Era.Backports = nil
	dir := filepath.Join(t.TempDir(), "host")
	if err := h.Build().Write(dir); err != nil {
		t.Fatal(err)
	}
	s := Collect(Root{Dir: dir}, Options{Version: "test", Now: goldenNow})
	for _, n := range s.Topology.Nodes {
		if len(n.Hugepages) != 1 || n.Hugepages[0].SizeKB != 2048 || n.Hugepages[0].Total != 8192 {
			t.Errorf("node %d hugepages = %+v", n.ID, n.Hugepages)
		}
	}
	if a := absentFor(&Collector{Snap: s}, "topology.nodes[0].hugepages"); len(a) != 1 || !strings.Contains(a[0].Reason, "2.6.33") {
		t.Errorf("absence = %+v", a)
	}
}
