package facts

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// topoTree writes files (host path → content) under a temp root.
func topoTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func topoCollect(t *testing.T, dir string) *snapshot.Snapshot {
	t.Helper()
	c := &Collector{Root: Root{Dir: dir}, Snap: &snapshot.Snapshot{Sysctl: map[string]string{}}}
	readHost(c)
	readTopology(c)
	deriveNUMADisabled(c)
	normalize(c.Snap)
	return c.Snap
}

func topoAbsent(s *snapshot.Snapshot) string {
	var f []string
	for _, a := range s.Absent {
		f = append(f, a.Fact+" ("+a.Reason+")")
	}
	return strings.Join(f, "; ")
}

// cpuFiles adds the sysfs topology of one CPU.
func cpuFiles(files map[string]string, id, pkg, core int, siblings string) {
	d := "/sys/devices/system/cpu/cpu" + itoa(id) + "/topology/"
	files[d+"physical_package_id"] = itoa(pkg) + "\n"
	files[d+"core_id"] = itoa(core) + "\n"
	files[d+"thread_siblings_list"] = siblings + "\n"
}

func itoa(i int) string { return strconv.Itoa(i) }

func TestTopologyNode4HoldsCPU0(t *testing.T) {
	// 2 sockets, 8 nodes would be big; 2 nodes numbered so node 1 holds CPU 0 is the same code path.
	files := map[string]string{
		"/sys/devices/system/cpu/online":                                              "0-3\n",
		"/sys/devices/system/node/online":                                             "0-1\n",
		"/sys/devices/system/node/has_cpu":                                            "0-1\n",
		"/sys/devices/system/node/has_memory":                                         "0-1\n",
		"/sys/devices/system/node/node0/cpulist":                                      "1-2\n",
		"/sys/devices/system/node/node1/cpulist":                                      "0,3\n",
		"/sys/devices/system/node/node0/distance":                                     "10 21\n",
		"/sys/devices/system/node/node1/distance":                                     "21 10\n",
		"/sys/devices/system/node/node0/meminfo":                                      "Node 0 MemTotal:       1000 kB\nNode 0 MemFree:         400 kB\nNode 0 MemUsed:         600 kB\n",
		"/sys/devices/system/node/node1/meminfo":                                      "Node 1 MemTotal:       2000 kB\nNode 1 MemFree:        1500 kB\n",
		"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages":      "16\n",
		"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages":    "8\n",
		"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/surplus_hugepages": "0\n",
		"/proc/cmdline": "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n",
	}
	cpuFiles(files, 0, 1, 0, "0,3")
	cpuFiles(files, 1, 0, 0, "1-2")
	cpuFiles(files, 2, 0, 0, "1-2")
	cpuFiles(files, 3, 1, 0, "0,3")
	s := topoCollect(t, topoTree(t, files))
	tp := s.Topology
	if len(tp.Nodes) != 2 || !reflect.DeepEqual(tp.Nodes[1].CPUs, []int{0, 3}) || !reflect.DeepEqual(tp.Nodes[0].CPUs, []int{1, 2}) {
		t.Fatalf("nodes = %+v", tp.Nodes)
	}
	if tp.CPUs[0].Node != 1 || tp.CPUs[1].Node != 0 || tp.CPUs[0].Socket != 1 {
		t.Errorf("cpu 0 = %+v, cpu 1 = %+v", tp.CPUs[0], tp.CPUs[1])
	}
	if tp.Sockets != 2 || tp.Cores != 2 || tp.Threads != 4 {
		t.Errorf("sockets/cores/threads = %d/%d/%d, want 2/2/4", tp.Sockets, tp.Cores, tp.Threads)
	}
	if !reflect.DeepEqual(tp.CPUs[2].Siblings, []int{1, 2}) {
		t.Errorf("siblings of cpu 2 = %v", tp.CPUs[2].Siblings)
	}
	n0 := tp.Nodes[0]
	if n0.MemTotalKB == nil || *n0.MemTotalKB != 1000 || *n0.MemFreeKB != 400 || !reflect.DeepEqual(n0.Distances, []int{10, 21}) {
		t.Errorf("node 0 = %+v", n0)
	}
	if len(n0.Hugepages) != 1 || n0.Hugepages[0] != (snapshot.NodeHugepages{SizeKB: 2048, Total: 16, Free: 8}) {
		t.Errorf("node 0 hugepages = %+v", n0.Hugepages)
	}
	// node1 has no hugepages dir: absent, not zero.
	if len(tp.Nodes[1].Hugepages) != 0 || !strings.Contains(topoAbsent(s), "topology.nodes[1].hugepages (not present on this host)") {
		t.Errorf("node 1 hugepages should be absent: %v / %s", tp.Nodes[1].Hugepages, topoAbsent(s))
	}
	if len(tp.NUMADisabled) != 0 {
		t.Errorf("NUMADisabled = %v on a 2-node 2-socket host", tp.NUMADisabled)
	}
}

func TestTopologyNUMAOff(t *testing.T) {
	files := map[string]string{
		"/sys/devices/system/cpu/online":          "0-3\n",
		"/sys/devices/system/node/online":         "0\n",
		"/sys/devices/system/node/node0/cpulist":  "0-3\n",
		"/sys/devices/system/node/node0/distance": "10\n",
		"/proc/cmdline":                           "ro numa=off transparent_hugepage=never\n",
	}
	for i := 0; i < 4; i++ {
		cpuFiles(files, i, i/2, i%2, itoa(i))
	}
	s := topoCollect(t, topoTree(t, files))
	got := strings.Join(s.Topology.NUMADisabled, "|")
	if !strings.Contains(got, "numa=off") || !strings.Contains(got, "node 0 holds CPUs of 2 packages (0-1): its cpulist 0-3") {
		t.Errorf("NUMADisabled = %q", got)
	}
	if s.Topology.Nodes[0].MemTotalKB != nil {
		t.Error("node meminfo missing must stay nil, not 0")
	}
}

func TestTopologyMalformedAndMissing(t *testing.T) {
	files := map[string]string{
		"/sys/devices/system/cpu/online":          "0-1\n",
		"/sys/devices/system/node/node0/cpulist":  "0-x\n",
		"/sys/devices/system/node/node0/distance": "10 20\n", // 2 distances for 1 node
		"/sys/devices/system/node/node0/meminfo":  "Node 0 MemTotal: lots\n",
	}
	s := topoCollect(t, topoTree(t, files))
	n := s.Topology.Nodes[0]
	if len(n.CPUs) != 0 || n.Distances != nil || n.MemTotalKB != nil {
		t.Errorf("malformed values leaked: %+v", n)
	}
	abs := topoAbsent(s)
	for _, want := range []string{"topology.nodes[0].cpus (malformed", "topology.nodes[0].distances (malformed: 2 distances for 1 nodes)",
		"topology.nodes[0].meminfo (malformed: line 1", "topology.cpus (no cpuN directories)", "host.cmdline (not present on this host)"} {
		if !strings.Contains(abs, want) {
			t.Errorf("absent list lacks %q:\n%s", want, abs)
		}
	}
}

func TestTopologyNoNUMA(t *testing.T) {
	s := topoCollect(t, topoTree(t, map[string]string{"/sys/devices/system/cpu/online": "0\n"}))
	if s.Topology.NUMAEnabled || len(s.Topology.Nodes) != 0 || !strings.Contains(topoAbsent(s), "topology.nodes (not present") {
		t.Errorf("no node dir: %+v / %s", s.Topology, topoAbsent(s))
	}
}

func TestParseDistances(t *testing.T) {
	if d, err := parseDistances("10 21 31 21"); err != nil || !reflect.DeepEqual(d, []int{10, 21, 31, 21}) {
		t.Errorf("got %v %v", d, err)
	}
	for _, bad := range []string{"", "10 x", "10 256", "-1"} {
		if _, err := parseDistances(bad); err == nil {
			t.Errorf("parseDistances(%q) accepted", bad)
		}
	}
}

// FuzzParseDistances: a node's distance row as sysfs prints it (the
// fuzzer's bytes as distances 0-255, blank-separated, newline-terminated)
// parses back to those distances; a word that is not a distance fails.
func FuzzParseDistances(f *testing.F) {
	for _, s := range []string{"10", "10 21 31 21", "10 x", "", "255 0"} {
		f.Add(s, []byte{10, 21})
	}
	f.Fuzz(func(t *testing.T, s string, row []byte) {
		if d, err := parseDistances(s); err == nil {
			if back, err := parseDistances(intsText(d)); err != nil || !reflect.DeepEqual(back, d) {
				t.Fatalf("%q → %v, but %q → %v %v", s, d, intsText(d), back, err)
			}
		}
		if len(row) == 0 {
			return
		}
		want := make([]int, len(row))
		for i, b := range row {
			want[i] = int(b)
		}
		text := intsText(want) + " \n" // the kernel ends the row with a blank and a newline
		got, err := parseDistances(text)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("parseDistances(%q) = %v %v, want %v", text, got, err, want)
		}
		for _, bad := range []string{text + " 256", text + " -1", text + " 1x"} {
			if d, err := parseDistances(bad); err == nil {
				t.Fatalf("parseDistances(%q) = %v, want an error", bad, d)
			}
		}
	})
}

// intsText joins numbers with blanks.
func intsText(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, " ")
}
