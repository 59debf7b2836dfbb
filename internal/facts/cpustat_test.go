package facts

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// bTree is a small host tree in t.TempDir() for the storage, network, IRQ
// and CPU-load reader tests.
type bTree struct {
	t   *testing.T
	dir string
}

func newBTree(t *testing.T) *bTree {
	t.Helper()
	return &bTree{t: t, dir: t.TempDir()}
}

// file writes a host path (parents created).
func (b *bTree) file(p, content string) *bTree {
	b.t.Helper()
	full := filepath.Join(b.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// files writes several files under one directory: name → content.
func (b *bTree) files(dir string, m map[string]string) *bTree {
	b.t.Helper()
	for k, v := range m {
		b.file(dir+"/"+k, v)
	}
	return b
}

// mkdir creates a host directory.
func (b *bTree) mkdir(p string) *bTree {
	b.t.Helper()
	if err := os.MkdirAll(filepath.Join(b.dir, p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// link creates the symlink p → target (target as the kernel writes it,
// usually relative such as "../devices/pci0000:00/.../block/sda").
func (b *bTree) link(p, target string) *bTree {
	b.t.Helper()
	full := filepath.Join(b.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.Symlink(target, full); err != nil {
		b.t.Fatal(err)
	}
	return b
}

// collect runs one reader against the tree.
func (b *bTree) collect(fn func(*Collector)) *snapshot.Snapshot {
	s := &snapshot.Snapshot{Sysctl: map[string]string{}, Absent: []snapshot.Absence{}}
	c := &Collector{Root: Root{Dir: b.dir}, Snap: s}
	fn(c)
	normalize(s)
	return s
}

func absentFacts(s *snapshot.Snapshot) []string {
	out := []string{}
	for _, a := range s.Absent {
		out = append(out, a.Fact)
	}
	return out
}

func hasAbsent(s *snapshot.Snapshot, fact, reasonPart string) bool {
	for _, a := range s.Absent {
		if a.Fact == fact && strings.Contains(a.Reason, reasonPart) {
			return true
		}
	}
	return false
}

const statSample = `cpu  5547 10 4675 102463 124 3 118 7 0 0
cpu0 2625 4 2262 51498 20 1 49 3 0 0
cpu2 2921 6 2412 50964 103 2 68 4 0 0
intr 183647 0 0 0 0 0 1 1 8
ctxt 361226
btime 1763673420
processes 4242
procs_running 2
procs_blocked 0
softirq 1 2 3
`

func TestParseStat(t *testing.T) {
	l, err := parseStat(statSample)
	if err != nil {
		t.Fatal(err)
	}
	want := snapshot.CPULoad{
		ClockTicks: 100,
		Total:      &snapshot.CPUTime{CPU: -1, User: 5547, Nice: 10, System: 4675, Idle: 102463, IOWait: 124, IRQ: 3, SoftIRQ: 118, Steal: 7},
		PerCPU: []snapshot.CPUTime{
			{CPU: 0, User: 2625, Nice: 4, System: 2262, Idle: 51498, IOWait: 20, IRQ: 1, SoftIRQ: 49, Steal: 3},
			{CPU: 2, User: 2921, Nice: 6, System: 2412, Idle: 50964, IOWait: 103, IRQ: 2, SoftIRQ: 68, Steal: 4},
		},
		BootTime: 1763673420,
	}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("parseStat =\n%+v\nwant\n%+v", l, want)
	}
}

func TestParseStatOutOfOrderAndOldKernel(t *testing.T) {
	// 8 counters (no guest columns) is enough; CPUs come back sorted.
	l, err := parseStat("cpu 1 2 3 4 5 6 7 8\ncpu3 1 1 1 1 1 1 1 1\ncpu1 2 2 2 2 2 2 2 2\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.PerCPU) != 2 || l.PerCPU[0].CPU != 1 || l.PerCPU[1].CPU != 3 || l.PerCPU[0].User != 2 {
		t.Errorf("PerCPU = %+v", l.PerCPU)
	}
	if l.BootTime != 0 || l.Total.Steal != 8 {
		t.Errorf("got %+v", l)
	}
}

func TestParseStatMalformed(t *testing.T) {
	for _, in := range []string{
		"",
		"intr 1 2 3\n",                    // no aggregate line
		"cpu 1 2 3 4\n",                   // too few counters
		"cpu 1 2 3 4 5 6 7 x\n",           // not a number
		"cpu 1 2 3 4 5 6 7 -8\n",          // negative
		"cpu 1 2 3 4 5 6 7 8\ncpux 1 2\n", // bad id
		"cpu 1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\ncpu0 1 2 3 4 5 6 7 8\n",
		"cpu 1 2 3 4 5 6 7 8\ncpu 1 2 3 4 5 6 7 8\n",
		"cpu 1 2 3 4 5 6 7 8\nbtime x\n",
		"cpu 1 2 3 4 5 6 7 8\ncpu-1 1 2 3 4 5 6 7 8\n",
	} {
		if _, err := parseStat(in); err == nil {
			t.Errorf("parseStat(%q) succeeded, want an error", in)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("parseStat(%q) error %T, want *ParseError", in, err)
		}
	}
}

func TestReadCPUStat(t *testing.T) {
	s := newBTree(t).file("/proc/stat", statSample).collect(readCPUStat)
	if s.CPULoad.Total == nil || len(s.CPULoad.PerCPU) != 2 || s.CPULoad.BootTime != 1763673420 || s.CPULoad.ClockTicks != 100 {
		t.Errorf("CPULoad = %+v", s.CPULoad)
	}
	if len(s.Absent) != 0 {
		t.Errorf("Absent = %v", s.Absent)
	}

	s = newBTree(t).collect(readCPUStat)
	if s.CPULoad.Total != nil || s.CPULoad.PerCPU == nil || !hasAbsent(s, "cpu_load", "not present") {
		t.Errorf("missing /proc/stat: CPULoad=%+v Absent=%v", s.CPULoad, s.Absent)
	}

	s = newBTree(t).file("/proc/stat", "cpu 1 2\n").collect(readCPUStat)
	if s.CPULoad.Total != nil || !hasAbsent(s, "cpu_load", "malformed: line 1") {
		t.Errorf("malformed /proc/stat: CPULoad=%+v Absent=%v", s.CPULoad, s.Absent)
	}

	s = newBTree(t).file("/proc/stat", "cpu 1 2 3 4 5 6 7 8\n").collect(readCPUStat)
	if s.CPULoad.Total == nil || !hasAbsent(s, "cpu_load.boot_time", "no btime") {
		t.Errorf("no btime: CPULoad=%+v Absent=%v", s.CPULoad, s.Absent)
	}
}

func FuzzParseStat(f *testing.F) {
	f.Add(statSample)
	f.Add("cpu 1 2 3 4 5 6 7 8\ncpu3 1 1 1 1 1 1 1 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		l, err := parseStat(in)
		if err != nil {
			return
		}
		if l.Total == nil || l.Total.CPU != -1 || l.ClockTicks != userHZ {
			t.Fatalf("parsed load without a proper total: %+v", l)
		}
		for i := range l.PerCPU {
			if l.PerCPU[i].CPU < 0 || (i > 0 && l.PerCPU[i].CPU <= l.PerCPU[i-1].CPU) {
				t.Fatalf("PerCPU not sorted/unique: %+v", l.PerCPU)
			}
		}
	})
}

// FuzzParseBtime: a /proc/stat with the boot time the fuzzer chose on its
// "btime" line, among any other lines (the fuzzed text without its own cpu
// and btime lines, plus an aggregate cpu line), with LF or CRLF endings,
// gives that boot time; a btime line that is not a positive number of
// seconds is an error naming its line (parseStat is the one reader of
// btime: facts' cpu_load.boot_time and verify's reboot cause).
func FuzzParseBtime(f *testing.F) {
	f.Add("cpu  1 2 3 4\nbtime 1793400000\nprocesses 5\n", int64(1793400000))
	f.Add("btime -1\nbtime x\n", int64(0))
	f.Fuzz(func(t *testing.T, s string, v int64) {
		other := []string{"cpu  1 2 3 4 5 6 7 8"}
		for _, line := range strings.Split(s, "\n") {
			if !strings.HasPrefix(line, "cpu") && !strings.HasPrefix(line, "btime") {
				other = append(other, strings.TrimSuffix(line, "\r"))
			}
		}
		if v <= 0 {
			v = -(v+1)/2 + 1 // any positive value, without overflowing
		}
		half := len(other) / 2
		for _, nl := range []string{"\n", "\r\n"} {
			stat := strings.Join(append(append(append([]string{}, other[:half]...), fmt.Sprintf("btime %d", v)), other[half:]...), nl)
			load, err := parseStat(stat)
			if err != nil || load.BootTime != v {
				t.Fatalf("parseStat(%q): boot time %d, %v; want %d", stat, load.BootTime, err, v)
			}
			for _, bad := range []string{"0", "-" + strconv.FormatInt(v, 10), "x", ""} {
				stat := strings.Join(append(append([]string{}, other...), "btime "+bad), nl)
				_, err := parseStat(stat)
				if want := fmt.Sprintf("line %d", len(other)+1); err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("parseStat(%q): %v, want an error at %s", stat, err, want)
				}
			}
		}
	})
}
