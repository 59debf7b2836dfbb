package facts

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func coreTypesCollect(t *testing.T, files map[string]string) *snapshot.Snapshot {
	t.Helper()
	c := &Collector{Root: Root{Dir: topoTree(t, files)}, Snap: &snapshot.Snapshot{Sysctl: map[string]string{}}}
	readHost(c)
	readTopology(c)
	readCoreTypes(c)
	normalize(c.Snap)
	return c.Snap
}

// cpusOnline adds n online CPUs without topology.
func cpusOnline(files map[string]string, n int) {
	files["/proc/sys/kernel/osrelease"] = "6.8.0-45-generic\n"
	files["/sys/devices/system/cpu/online"] = fmt.Sprintf("0-%d\n", n-1)
	for i := 0; i < n; i++ {
		files[fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/core_id", i)] = strconv.Itoa(i) + "\n"
		files[fmt.Sprintf("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", i)] = "0\n"
	}
}

func typeText(ct *snapshot.CoreTypes) string {
	if ct == nil {
		return "<nil>"
	}
	var b strings.Builder
	b.WriteString(ct.Kind)
	for _, ty := range ct.Types {
		fmt.Fprintf(&b, " %s:%s=%s", ty.Class, ty.Name, cpulist.Format(ty.CPUs))
	}
	if len(ct.Unlisted) > 0 {
		b.WriteString(" unlisted=" + cpulist.Format(ct.Unlisted))
	}
	return b.String()
}

func TestCoreTypes(t *testing.T) {
	cases := []struct {
		name   string
		files  map[string]string
		cpus   int
		want   string
		absent bool
	}{
		{name: "intel hybrid 8P+8E, SMT on P", cpus: 24, files: map[string]string{
			"/sys/devices/cpu_core/cpus": "0-15\n", "/sys/devices/cpu_atom/cpus": "16-23\n"},
			want: "hybrid performance:cpu_core=0-15 efficiency:cpu_atom=16-23"},
		{name: "bus links only, three types, list ending in NUL", cpus: 16, files: map[string]string{
			"/sys/bus/event_source/devices/cpu_core/cpus":     "0-7\n",
			"/sys/bus/event_source/devices/cpu_atom/cpus":     "8-13\n\x00",
			"/sys/bus/event_source/devices/cpu_lowpower/cpus": "14-15\n"},
			want: "hybrid performance:cpu_core=0-7 efficiency:cpu_atom=8-13 efficiency:cpu_lowpower=14-15"},
		{name: "a CPU in two PMUs", cpus: 4, files: map[string]string{
			"/sys/devices/cpu_core/cpus": "0-2\n", "/sys/devices/cpu_atom/cpus": "2-3\n"},
			want: "hybrid performance:cpu_core=0-1 efficiency:cpu_atom=3"},
		{name: "only cpu_core, every CPU", cpus: 4, files: map[string]string{"/sys/devices/cpu_core/cpus": "0-3\n"},
			want: "uniform"},
		{name: "only cpu_atom, half the CPUs", cpus: 4, files: map[string]string{"/sys/devices/cpu_atom/cpus": "2-3\n"},
			want: "unknown unlisted=0-1", absent: true},
		{name: "malformed PMU list", cpus: 4, files: map[string]string{"/sys/devices/cpu_core/cpus": "0-x\n", "/sys/devices/cpu_atom/cpus": "2-3\n"},
			want: "unknown unlisted=0-1", absent: true},
		{name: "big.LITTLE capacities", cpus: 6, files: map[string]string{
			"/sys/devices/system/cpu/cpu0/cpu_capacity": "446\n", "/sys/devices/system/cpu/cpu1/cpu_capacity": "446\n",
			"/sys/devices/system/cpu/cpu2/cpu_capacity": "446\n", "/sys/devices/system/cpu/cpu3/cpu_capacity": "446\n",
			"/sys/devices/system/cpu/cpu4/cpu_capacity": "1024\n", "/sys/devices/system/cpu/cpu5/cpu_capacity": "1024\n"},
			want: "hybrid performance:capacity 1024=4-5 efficiency:capacity 446=0-3"},
		{name: "DynamIQ three tiers", cpus: 4, files: map[string]string{
			"/sys/devices/system/cpu/cpu0/cpu_capacity": "260\n", "/sys/devices/system/cpu/cpu1/cpu_capacity": "260\n",
			"/sys/devices/system/cpu/cpu2/cpu_capacity": "871\n", "/sys/devices/system/cpu/cpu3/cpu_capacity": "1024\n"},
			want: "hybrid performance:capacity 1024=3 intermediate:capacity 871=2 efficiency:capacity 260=0-1"},
		{name: "every capacity 1024", cpus: 4, files: map[string]string{
			"/sys/devices/system/cpu/cpu0/cpu_capacity": "1024\n", "/sys/devices/system/cpu/cpu1/cpu_capacity": "1024\n",
			"/sys/devices/system/cpu/cpu2/cpu_capacity": "1024\n", "/sys/devices/system/cpu/cpu3/cpu_capacity": "1024\n"},
			want: "uniform"},
		{name: "capacity on some CPUs only", cpus: 4, files: map[string]string{
			"/sys/devices/system/cpu/cpu0/cpu_capacity": "1024\n", "/sys/devices/system/cpu/cpu1/cpu_capacity": "1024\n"},
			want: "unknown unlisted=2-3", absent: true},
		{name: "malformed capacity", cpus: 2, files: map[string]string{
			"/sys/devices/system/cpu/cpu0/cpu_capacity": "2048\n", "/sys/devices/system/cpu/cpu1/cpu_capacity": "1024\n"},
			want: "unknown", absent: true},
		{name: "x86 core PMU on 6.8", cpus: 4, files: map[string]string{"/sys/devices/cpu/type": "4\n"}, want: "uniform"},
		{name: "x86 core PMU on 4.18", cpus: 4, files: map[string]string{"/sys/devices/cpu/type": "4\n", "/proc/sys/kernel/osrelease": "4.18.0-372.el8.x86_64\n"},
			want: "unknown", absent: true},
		{name: "no file at all", cpus: 4, files: map[string]string{}, want: "unknown", absent: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{}
			cpusOnline(files, tc.cpus)
			for k, v := range tc.files {
				files[k] = v
			}
			s := coreTypesCollect(t, files)
			if got := typeText(s.Topology.CoreTypes); got != tc.want {
				t.Errorf("core types = %q, want %q (evidence %q)", got, tc.want, s.Topology.CoreTypes.Evidence)
			}
			if s.Topology.CoreTypes.Evidence == "" {
				t.Error("no evidence")
			}
			gotAbsent := strings.Contains(topoAbsent(s), "topology.core_types")
			if gotAbsent != tc.absent {
				t.Errorf("absence of topology.core_types = %v, want %v: %s", gotAbsent, tc.absent, topoAbsent(s))
			}
		})
	}
}

// In a guest, vCPUs of one type are no evidence of the host's cores: the
// kind is unknown; a hybrid layout the hypervisor presents is kept.
func TestCoreTypesGuest(t *testing.T) {
	guest := func(files map[string]string) *snapshot.CoreTypes {
		cpusOnline(files, 4)
		files["/proc/cpuinfo"] = "processor\t: 0\nflags\t\t: fpu hypervisor\n\n"
		s := coreTypesCollect(t, files)
		if !s.Host.Virt.Guest {
			t.Fatal("not a guest")
		}
		return s.Topology.CoreTypes
	}
	if ct := guest(map[string]string{"/sys/devices/cpu/type": "4\n"}); ct.Kind != snapshot.CoreKindUnknown || !strings.Contains(ct.Evidence, "inside a guest") {
		t.Errorf("guest with a core PMU: %+v", ct)
	}
	if ct := guest(map[string]string{"/sys/devices/cpu_core/cpus": "0-1\n", "/sys/devices/cpu_atom/cpus": "2-3\n"}); ct.Kind != snapshot.CoreKindHybrid {
		t.Errorf("guest with hybrid PMUs: %+v", ct)
	}
}

func TestCoreTypesContradictionRecorded(t *testing.T) {
	files := map[string]string{"/sys/devices/cpu_core/cpus": "0-2\n", "/sys/devices/cpu_atom/cpus": "2-3\n"}
	cpusOnline(files, 4)
	s := coreTypesCollect(t, files)
	if ct := s.Topology.CoreTypes; !strings.Contains(ct.Contradiction, "CPUs 2 ") {
		t.Errorf("contradiction = %q, want CPU 2 named", ct.Contradiction)
	}
	if c, ok := s.Topology.CoreClass(2); ok {
		t.Errorf("CPU 2 class %q, want unknown", c)
	}
	if c, ok := s.Topology.CoreClass(3); !ok || c != snapshot.CoreClassEfficiency {
		t.Errorf("CPU 3 class %q %v", c, ok)
	}
}

// FuzzParseCPUCapacity: a capacity the kernel prints ("%lu\n") reads back;
// anything the parser accepts is within 0..1024 and prints back the same.
func FuzzParseCPUCapacity(f *testing.F) {
	for _, s := range []string{"1024\n", "446\n", "0", "1025", "-1", "", "12a", "1024\n\x00"} {
		f.Add(s, uint16(446))
	}
	f.Fuzz(func(t *testing.T, s string, v uint16) {
		if got, err := parseCPUCapacity(s); err == nil {
			if got < 0 || got > maxCPUCapacity {
				t.Fatalf("parseCPUCapacity(%q) = %d, outside 0..1024", s, got)
			}
			if back, err := parseCPUCapacity(strconv.Itoa(got)); err != nil || back != got {
				t.Fatalf("%q → %d, but its text → %d %v", s, got, back, err)
			}
		}
		want := int(v)
		text := strconv.Itoa(want) + "\n"
		got, err := parseCPUCapacity(text)
		if want > maxCPUCapacity {
			if err == nil {
				t.Fatalf("parseCPUCapacity(%q) = %d, want an error above 1024", text, got)
			}
			return
		}
		if err != nil || got != want {
			t.Fatalf("parseCPUCapacity(%q) = %d %v, want %d", text, got, err, want)
		}
	})
}

// FuzzCoreTypesFromPMUs: CPUs the fuzzer gives to cpu_core or cpu_atom,
// printed as the kernel prints the PMUs' cpus lists and read back, are each
// in their own PMU's class; a CPU in both is in none; every online CPU in
// neither is unlisted.
func FuzzCoreTypesFromPMUs(f *testing.F) {
	f.Add([]byte{1, 1, 1, 1, 2, 2, 2, 2, 0, 3})
	f.Add([]byte{1, 1, 1, 1})
	f.Add([]byte{2, 0, 3, 1})
	f.Fuzz(func(t *testing.T, kinds []byte) {
		if len(kinds) > 512 {
			kinds = kinds[:512]
		}
		var core, atom, online []int
		for id, k := range kinds {
			online = append(online, id)
			switch k % 4 {
			case 1:
				core = append(core, id)
			case 2:
				atom = append(atom, id)
			case 3:
				core, atom = append(core, id), append(atom, id)
			}
		}
		var lists []pmuList
		for _, p := range []struct {
			name, class string
			cpus        []int
		}{{"cpu_core", snapshot.CoreClassPerformance, core}, {"cpu_atom", snapshot.CoreClassEfficiency, atom}} {
			l, err := cpulist.Parse(cpulist.Format(p.cpus) + "\n")
			if err != nil {
				t.Fatal(err)
			}
			lists = append(lists, pmuList{name: p.name, class: p.class, source: "/sys/devices/" + p.name + "/cpus", cpus: l})
		}
		ct := coreTypesFromPMUs(lists, online)
		topo := snapshot.Topology{CoreTypes: &ct}
		hybrid := ct.Kind == snapshot.CoreKindHybrid
		for id, k := range kinds {
			class, ok := topo.CoreClass(id)
			switch k % 4 {
			case 1:
				if hybrid && (!ok || class != snapshot.CoreClassPerformance) {
					t.Fatalf("CPU %d in cpu_core only: %q %v (%+v)", id, class, ok, ct)
				}
			case 2:
				if hybrid && (!ok || class != snapshot.CoreClassEfficiency) {
					t.Fatalf("CPU %d in cpu_atom only: %q %v (%+v)", id, class, ok, ct)
				}
			case 3:
				if ok {
					t.Fatalf("CPU %d in both PMUs has class %q", id, class)
				}
			case 0:
				if ok || !containsInt(ct.Unlisted, id) {
					t.Fatalf("CPU %d in no PMU: class %q %v, unlisted %v", id, class, ok, ct.Unlisted)
				}
			}
		}
		only := func(m byte) bool {
			n := 0
			for _, k := range kinds {
				if k%4 == m {
					n++
				}
			}
			return n > 0
		}
		if want := only(1) && only(2); hybrid != want {
			t.Fatalf("kind %s with P-only CPUs %v and E-only CPUs %v", ct.Kind, only(1), only(2))
		}
	})
}

func containsInt(l []int, v int) bool {
	for _, x := range l {
		if x == v {
			return true
		}
	}
	return false
}

// TestCoreTypesFixtures: the hybrid fixture hosts and hosts of one core
// type read as their kernels' files say.
func TestCoreTypesFixtures(t *testing.T) {
	want := map[string]string{
		"adl-desktop":    "hybrid performance:cpu_core=0-15 efficiency:cpu_atom=16-23",
		"ecore-pinned":   "hybrid performance:cpu_core=0-15 efficiency:cpu_atom=16-23",
		"hybrid-server":  "hybrid performance:cpu_core=0-15 efficiency:cpu_atom=16-31",
		"arm-biglittle":  "hybrid performance:capacity 1024=4-5 efficiency:capacity 485=0-3",
		"arm-kunpeng":    "uniform",
		"rhel9":          "uniform",
		"cgroup-v2":      "unknown", // a guest
		"rhel8":          "unknown", // 4.18: a hybrid part shows one "cpu" PMU too
		"rhel6":          "unknown", // no PMU directory at all
		"power9-lpar":    "unknown",
		"interleaved-4n": "unknown",
	}
	for _, f := range fixture.Fixtures() {
		w, ok := want[f.Name]
		if !ok {
			continue
		}
		delete(want, f.Name)
		s := collectFixture(t, f)
		if got := typeText(s.Topology.CoreTypes); got != w {
			t.Errorf("%s: core types %q, want %q (%s)", f.Name, got, w, s.Topology.CoreTypes.Evidence)
		}
	}
	if len(want) > 0 {
		t.Errorf("fixtures missing: %v", want)
	}
}
