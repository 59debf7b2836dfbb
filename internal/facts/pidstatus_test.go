package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/cpulist"
)

func TestParsePIDStatus(t *testing.T) {
	st, err := parsePIDStatus(strings.NewReader(pidStatusText("x", 7, 1000, 12, 4096, "0,2-3", "0")))
	if err != nil {
		t.Fatal(err)
	}
	want := pidStatus{Name: "x", State: "S", UID: 1000, PPID: 7, Threads: 12, RSSKB: 4096, CPUs: []int{0, 2, 3}, Mems: []int{0}}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got %+v want %+v", st, want)
	}
	// A kernel thread has no VmRSS and no Mems_allowed_list here: those
	// fields are missing, the rest is kept.
	st, err = parsePIDStatus(strings.NewReader("Name:\tkthreadd\nPPid:\t0\nUid:\t0\t0\t0\t0\nThreads:\t1\nCpus_allowed_list:\t0-1\n"))
	if err != nil || st.RSSKB != 0 || st.Mems != nil || st.Missing["rss_kb"] == nil || st.Missing["mems_allowed"] == nil ||
		st.Missing["uid"] != nil || st.UID != 0 || len(st.CPUs) != 2 {
		t.Errorf("kthread: %+v %v", st, err)
	}
	// Each malformed or missing line costs its field only.
	for _, c := range []struct {
		in    string
		field string
	}{
		{"PPid:\t1\nThreads:\t1\n", "uid"},
		{"Uid:\t0\nThreads:\t1\n", "ppid"},
		{"Uid:\t0\nPPid:\t1\n", "threads"},
		{"Uid:\tx\nPPid:\t1\nThreads:\t1\n", "uid"},
		{"Uid:\nPPid:\t1\nThreads:\t1\n", "uid"},
		{"Uid:\t0\nPPid:\t1\nThreads:\t1\nVmRSS:\t12 MB\n", "rss_kb"},
		{"Uid:\t0\nPPid:\t1\nThreads:\t1\nCpus_allowed_list:\t3-1\n", "cpus_allowed"},
	} {
		st, err := parsePIDStatus(strings.NewReader(c.in))
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		if _, ok := st.Missing[c.field].(*ParseError); !ok {
			t.Errorf("%q: missing %s = %v", c.in, c.field, st.Missing)
		}
	}
	if _, err := parsePIDStatus(strings.NewReader("garbage\n\n")); err == nil {
		t.Error("no status lines: no error")
	}
}

// A 2.6.18-era status (RHEL 5) prints only the Cpus_allowed and
// Mems_allowed masks: the lists come from them.
func TestParsePIDStatusMasks(t *testing.T) {
	in := "Name:\toracle\nState:\tS (sleeping)\nPPid:\t1\nUid:\t500\t500\t500\t500\nVmRSS:\t  2048 kB\nThreads:\t1\n" +
		"Cpus_allowed:\t00000000,0000000f\nMems_allowed:\t00000000,00000002\n"
	st, err := parsePIDStatus(strings.NewReader(in))
	if err != nil || !reflect.DeepEqual(st.CPUs, []int{0, 1, 2, 3}) || !reflect.DeepEqual(st.Mems, []int{1}) || st.Missing != nil {
		t.Errorf("%+v %v", st, err)
	}
	st, _ = parsePIDStatus(strings.NewReader("Uid:\t0\nPPid:\t1\nThreads:\t1\nVmRSS:\t1 kB\nMems_allowed_list:\t0\nCpus_allowed:\tzz\n"))
	if st.CPUs != nil || st.Missing["cpus_allowed"] == nil || !strings.Contains(st.Missing["cpus_allowed"].Error(), "Cpus_allowed mask") {
		t.Errorf("bad mask: %+v", st)
	}
}

// FuzzParsePIDStatus: a status file the kernel could print (any name, the
// kernel escaping \n and \\ in it; the values drawn by the fuzzer) parses
// back to those values; and any text gives each field either a value or
// the reason it is missing, never both.
func FuzzParsePIDStatus(f *testing.F) {
	f.Add([]byte(pidStatusText("x", 1, 0, 1, 10, "0-3", "0")), "x", uint32(1), uint32(0), uint16(1), uint32(10), uint64(0xf), uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, name string, ppid, uid uint32, threads uint16, rss uint32, cpus, mems uint64) {
		st, err := parsePIDStatus(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
		} else {
			if st.UID < -1 || st.PPID < -1 || st.Threads < 0 || st.RSSKB < 0 {
				t.Fatalf("values out of range %+v", st)
			}
			if (st.UID >= 0) == (st.Missing["uid"] != nil) || (st.PPID >= 0) == (st.Missing["ppid"] != nil) ||
				(st.CPUs != nil) == (st.Missing["cpus_allowed"] != nil) || (st.Mems != nil) == (st.Missing["mems_allowed"] != nil) {
				t.Fatalf("a field both read and missing, or neither: %+v", st)
			}
		}

		// The kernel prints the name with \n and \\ escaped (proc_task_name).
		esc := strings.NewReplacer("\\", "\\\\", "\n", "\\n").Replace(name)
		want := pidStatus{Name: strings.TrimSpace(esc), State: "S", UID: int(uid), PPID: int(ppid), Threads: int(threads),
			RSSKB: int64(rss), CPUs: maskIDs(cpus), Mems: maskIDs(mems)}
		text := pidStatusText(esc, want.PPID, want.UID, want.Threads, want.RSSKB, cpulist.Format(want.CPUs), cpulist.Format(want.Mems))
		got, err := parsePIDStatus(strings.NewReader(text))
		if err != nil {
			t.Fatalf("a status the kernel could print does not parse: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v\n%s", got, want, text)
		}
	})
}

// maskIDs lists the set bits of m (empty, not nil, for none: an
// *_allowed_list line that is printed but empty).
func maskIDs(m uint64) []int {
	ids := []int{}
	for i := 0; i < 64; i++ {
		if m&(1<<i) != 0 {
			ids = append(ids, i)
		}
	}
	return ids
}
