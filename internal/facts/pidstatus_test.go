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
	// A kernel thread has no VmRSS: zero, not an error.
	st, err = parsePIDStatus(strings.NewReader("Name:\tkthreadd\nPPid:\t0\nUid:\t0\t0\t0\t0\nThreads:\t1\nCpus_allowed_list:\t0-1\n"))
	if err != nil || st.RSSKB != 0 || st.Mems != nil {
		t.Errorf("kthread: %+v %v", st, err)
	}
	for _, bad := range []string{
		"",
		"PPid:\t1\nThreads:\t1\n",
		"Uid:\t0\nThreads:\t1\n",
		"Uid:\t0\nPPid:\t1\n",
		"Uid:\tx\nPPid:\t1\nThreads:\t1\n",
		"Uid:\t0\nPPid:\t1\nThreads:\t1\nVmRSS:\t12 MB\n",
		"Uid:\t0\nPPid:\t1\nThreads:\t1\nCpus_allowed_list:\t3-1\n",
		"Uid:\nPPid:\t1\nThreads:\t1\n",
	} {
		if _, err := parsePIDStatus(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		} else if _, ok := err.(*ParseError); !ok {
			t.Errorf("%q: error %T", bad, err)
		}
	}
}

// FuzzParsePIDStatus: a status file the kernel could print (any name, the
// kernel escaping \n and \\ in it; the values drawn by the fuzzer) parses
// back to those values; and any text the parser accepts has the required
// lines with the values it returned.
func FuzzParsePIDStatus(f *testing.F) {
	f.Add([]byte(pidStatusText("x", 1, 0, 1, 10, "0-3", "0")), "x", uint32(1), uint32(0), uint16(1), uint32(10), uint64(0xf), uint64(1))
	f.Fuzz(func(t *testing.T, b []byte, name string, ppid, uid uint32, threads uint16, rss uint32, cpus, mems uint64) {
		st, err := parsePIDStatus(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
		} else if st.UID < 0 || st.PPID < 0 || st.Threads < 0 || st.RSSKB < 0 {
			t.Fatalf("negative values %+v", st)
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
