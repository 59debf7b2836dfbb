package facts

import (
	"reflect"
	"strings"
	"testing"
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

func FuzzParsePIDStatus(f *testing.F) {
	f.Add([]byte(pidStatusText("x", 1, 0, 1, 10, "0-3", "0")))
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := parsePIDStatus(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		if st.UID < 0 || st.PPID < 0 || st.Threads < 0 || st.RSSKB < 0 {
			t.Fatalf("negative values %+v", st)
		}
	})
}
