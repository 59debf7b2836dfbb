package facts

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestParseNumaMaps(t *testing.T) {
	in := `55d4c8a00000 default file=/usr/lib/postgresql/15/bin/postgres mapped=200 N0=150 N1=50 kernelpagesize_kB=4
55d4c8e00000 default file=/usr/lib/postgresql/15/bin/postgres anon=3 dirty=3 N0=3 kernelpagesize_kB=4
55d4ca000000 default heap anon=100 dirty=100 N1=100 kernelpagesize_kB=4
7f0000000000 interleave:0-1 file=/SYSV00000000\040(deleted) huge dirty=4 N0=2 N1=2 kernelpagesize_kB=2048
7f1000000000 bind:1 file=/dev/hugepages/sga dirty=1 N1=1 kernelpagesize_kB=1048576
7f2000000000 default file=/SYSV0052e2c1\040(deleted) dirty=10 N0=6 N1=4 kernelpagesize_kB=4
7f3000000000 default file=/dev/shm/ora_ORCL_1 dirty=8 N0=8 kernelpagesize_kB=4
7f4000000000 default anon=16 dirty=16 N0=16 kernelpagesize_kB=4
7ff028827000 default file=/dev/zero\040(deleted) dirty=2699 mapmax=7 active=0 N0=2699 kernelpagesize_kB=4
7ff028900000 default file=/anon_hugepage\040(deleted) huge dirty=3 N1=3 kernelpagesize_kB=2048
7f5000000000 prefer (many):0-1 anon=1 dirty=1 N0=1 kernelpagesize_kB=4
7f6000000000 default
7ffc00000000 default stack anon=5 dirty=5 N0=5 kernelpagesize_kB=4

7ffd00000000 default file=/usr/lib/locale/C.utf8/LC_CTYPE
`
	got, sysv, err := parseNumaMaps(strings.NewReader(in + "7f7000000000 default file=/SYSVffffffff\\040(deleted) huge kernelpagesize_kB=2048\n"))
	if err != nil {
		t.Fatal(err)
	}
	// An untouched SHM_HUGETLB mapping (no pages yet) still says "huge".
	if w := map[uint32]shmBacking{0: {huge: true}, 0x52e2c1: {small: true}, 0xffffffff: {huge: true}}; !reflect.DeepEqual(sysv, w) {
		t.Errorf("sysv = %+v, want %+v", sysv, w)
	}
	want := []snapshot.NodeMem{
		{Node: 0, AnonKB: (3 + 16 + 1 + 5) * 4, FileKB: 150 * 4, HugeKB: 2 * 2048, ShmKB: (6 + 8 + 2699) * 4},
		{Node: 1, AnonKB: 100 * 4, FileKB: 50 * 4, HugeKB: (2+3)*2048 + 1048576, ShmKB: 4 * 4},
	}
	for i := range want {
		w := &want[i]
		w.TotalKB = w.AnonKB + w.FileKB + w.HugeKB + w.ShmKB
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseNumaMapsEmpty(t *testing.T) {
	got, _, err := parseNumaMaps(strings.NewReader("7f6000000000 default\n"))
	if err != nil || got == nil || len(got) != 0 {
		t.Errorf("got %v %v, want an empty list", got, err)
	}
}

func TestParseNumaMapsMalformed(t *testing.T) {
	for _, bad := range []string{
		"7f0000000000\n",
		"zzzz default anon=1 N0=1 kernelpagesize_kB=4\n",
		"7f0000000000 default anon=1 N0=1\n",
		"7f0000000000 default anon=1 N0=x kernelpagesize_kB=4\n",
		"7f0000000000 default anon=1 N0=-1 kernelpagesize_kB=4\n",
		"7f0000000000 default anon=1 N99999=1 kernelpagesize_kB=4\n",
		"7f0000000000 default anon=1 N0=1 kernelpagesize_kB=0\n",
		"7f0000000000 default anon=1 N0=1 kernelpagesize_kB=four\n",
		"7f0000000000 default anon=1 N0=99999999999999999 kernelpagesize_kB=4\n",
	} {
		_, _, err := parseNumaMaps(strings.NewReader(bad))
		if _, ok := err.(*ParseError); !ok {
			t.Errorf("%q: got %v, want a *ParseError", bad, err)
		}
	}
}

func FuzzParseNumaMaps(f *testing.F) {
	f.Add([]byte("7f0000000000 default file=/SYSV0\\040(deleted) huge N0=2 kernelpagesize_kB=2048\n7f1 default heap anon=1 N1=1 kernelpagesize_kB=4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, sysv, err := parseNumaMaps(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		for k, b := range sysv {
			if !b.huge && !b.small {
				t.Fatalf("key %x: a mapping of neither kind", k)
			}
		}
		for i, m := range got {
			if i > 0 && got[i-1].Node >= m.Node {
				t.Fatal("nodes not sorted/unique")
			}
			if m.AnonKB < 0 || m.FileKB < 0 || m.HugeKB < 0 || m.ShmKB < 0 || m.TotalKB != m.AnonKB+m.FileKB+m.HugeKB+m.ShmKB {
				t.Fatalf("bad sums %+v", m)
			}
		}
	})
}

func TestNumaMapsCap(t *testing.T) {
	var ps []fakeProc
	for i := 0; i < maxNumaMapsProcs+3; i++ {
		ps = append(ps, fakeProc{pid: 1000 + i, comm: "mysqld", cmdline: "mysqld\x00", ppid: 1, uid: 27,
			numaMaps: "7f0000000000 default anon=1 N0=1 kernelpagesize_kB=4\n"})
	}
	c := newTestCollector(t, fakeProcFiles(ps))
	readProcesses(c)
	withNUMA := 0
	for _, p := range c.Snap.Processes {
		if p.NUMA != nil {
			withNUMA++
		}
	}
	if withNUMA != maxNumaMapsProcs {
		t.Errorf("numa_maps read for %d processes, want %d", withNUMA, maxNumaMapsProcs)
	}
	if a := absentFor(c, "processes.numa"); len(a) != 1 || !strings.Contains(a[0].Reason, "3 more skipped") {
		t.Errorf("absent = %+v", a)
	}
}

// TestShmHuge: a SysV segment's backing comes from the numa_maps mappings of
// its key; an IPC_PRIVATE segment's (key 0, shared by every private
// segment) only from its creator's or last attacher's, and only when they
// agree.
func TestShmHuge(t *testing.T) {
	maps := map[int]map[uint32]shmBacking{
		100: {0: {huge: true}, 0x52e2c1: {small: true}},
		200: {0: {small: true}, 0xffffffff: {huge: true}},
		300: {0: {huge: true, small: true}},
	}
	for _, tc := range []struct {
		seg  snapshot.ShmSegment
		want string
	}{
		{snapshot.ShmSegment{Key: "0", CPID: 100, LPID: 100}, "true"},
		{snapshot.ShmSegment{Key: "0", CPID: 200, LPID: 999}, "false"},
		{snapshot.ShmSegment{Key: "0", CPID: 100, LPID: 200}, "nil"}, // its two processes disagree
		{snapshot.ShmSegment{Key: "0", CPID: 300, LPID: 300}, "nil"}, // one process maps both kinds
		{snapshot.ShmSegment{Key: "0", CPID: 999, LPID: 998}, "nil"}, // nobody read maps it
		{snapshot.ShmSegment{Key: "5432001", CPID: 999, LPID: 999}, "false"},
		{snapshot.ShmSegment{Key: "-1", CPID: 999, LPID: 999}, "true"},
		{snapshot.ShmSegment{Key: "77", CPID: 100, LPID: 100}, "nil"},
		{snapshot.ShmSegment{Key: "x", CPID: 100, LPID: 100}, "nil"},
	} {
		got := "nil"
		if h := shmHuge(tc.seg, maps); h != nil {
			got = strconv.FormatBool(*h)
		}
		if got != tc.want {
			t.Errorf("%+v: huge = %s, want %s", tc.seg, got, tc.want)
		}
	}
}
