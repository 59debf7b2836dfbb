package facts

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseSysvShm(t *testing.T) {
	segs, err := parseSysvShm(strings.NewReader(shmHeaderA))
	if err != nil || segs == nil || len(segs) != 0 {
		t.Errorf("header only = %v, %v; want empty list", segs, err)
	}
	for _, bad := range []string{
		"",
		"key shmid perms size\n", // lacks columns
		shmHeaderA + "0 1 600 4096 1 2 1 0 0 0 0 0 0 0 0\n", // one column short
		shmHeaderA + "0 1 999 4096 1 2 1 0 0 0 0 0 0 0 0 0\n",
		shmHeaderA + "0 1 600 -4096 1 2 1 0 0 0 0 0 0 0 0 0\n",
		shmHeaderA + "x 1 600 4096 1 2 1 0 0 0 0 0 0 0 0 0\n",
		"key key shmid perms size cpid lpid nattch uid\n",
	} {
		if segs, err := parseSysvShm(strings.NewReader(bad)); err == nil {
			t.Errorf("parseSysvShm(%q) = %v, want error", bad, segs)
		}
	}
}

// SysV shm owners are named by parsePasswd's uid → name map: the first
// entry of a uid wins, as in getpwuid(3).
func TestShmPasswdNames(t *testing.T) {
	_, got, _ := parsePasswd(strings.NewReader(passwdA))
	want := map[int]string{0: "root", 1001: "oracle"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parsePasswd names = %v, want %v", got, want)
	}
}

func FuzzParseSysvShm(f *testing.F) {
	f.Add([]byte(shmA))
	f.Add([]byte(shmHeaderA))
	f.Fuzz(func(t *testing.T, b []byte) {
		segs, err := parseSysvShm(strings.NewReader(string(b)))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || segs != nil {
				t.Fatalf("error %v (%T) with %v", err, err, segs)
			}
			return
		}
		for i, s := range segs {
			if s.SizeBytes < 0 || s.ShmID < 0 || s.UID < 0 || s.Nattch < 0 || s.Perms == "" || s.Key == "" || s.Huge != nil {
				t.Fatalf("bad segment %+v", s)
			}
			if (s.RSSBytes != nil && *s.RSSBytes < 0) || (s.SwapBytes != nil && *s.SwapBytes < 0) {
				t.Fatalf("negative rss/swap %+v", s)
			}
			if i > 0 && segs[i-1].ShmID > s.ShmID {
				t.Fatalf("not sorted by shmid: %+v", segs)
			}
		}
	})
}
