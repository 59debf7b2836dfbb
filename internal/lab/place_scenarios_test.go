package lab

import (
	"os"
	"strings"
	"testing"
)

// placeResult is a real place-two-node run (6.1.0-56 guest) from testdata.
func placeResult(t *testing.T) *Result {
	t.Helper()
	r := &Result{Files: map[string][]byte{}}
	b, err := os.ReadFile("testdata/place/guest.out")
	if err != nil {
		t.Fatal(err)
	}
	r.Guest = string(b)
	for _, f := range []string{"numa_maps", "numa_maps_v1"} {
		if r.Files[f], err = os.ReadFile("testdata/place/" + f); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestCheckPlaceGuest: the real run passes; each kind of wrong result fails
// with its expected … got … line.
func TestCheckPlaceGuest(t *testing.T) {
	if err := checkPlaceGuest(placeResult(t)); err != nil {
		t.Fatalf("real run: %v", err)
	}
	for _, c := range []struct{ from, to, want string }{
		{"place applied comm=postgres cpus=2-3", "place applied comm=postgres cpus=0-3", `applied cpus: expected "2-3", got "0-3"`},
		{"place v1applied cpus=0-1 mems=0 ", "place v1applied cpus=0-1 mems=0-1 ", `v1applied mems: expected "0", got "0-1"`},
		{"place k7 apply=137 rollback=0 comm=postgres cpus=0-3 mems=0-1 cgroup=0::/ ", "place k7 apply=137 rollback=0 comm=postgres cpus=0-3 mems=0-1 cgroup=0::/dbhost_pg ", `k7 cgroup: expected "0::/", got "0::/dbhost_pg"`},
		{"place rolledback comm=postgres cpus=0-3 mems=0-1 cgroup=0::/ groups= subtree= ", "place rolledback comm=postgres cpus=0-3 mems=0-1 cgroup=0::/ groups= subtree=cpuset ", `rolledback subtree: expected "", got "cpuset"`},
		{"place again rc=0 journals=1", "place again rc=0 journals=2", `again journals: expected "1", got "2"`},
	} {
		r := placeResult(t)
		if !strings.Contains(r.Guest, c.from) {
			t.Fatalf("testdata lacks %q", c.from)
		}
		r.Guest = strings.Replace(r.Guest, c.from, c.to, 1)
		if err := checkPlaceGuest(r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.to, err, c.want)
		}
	}
	// Pages on the wrong node.
	r := placeResult(t)
	r.Files["numa_maps"] = []byte(strings.ReplaceAll(string(r.Files["numa_maps"]), "N1=", "N0="))
	if err := checkPlaceGuest(r); err == nil || !strings.Contains(err.Error(), "numa_maps: expected the 24 MB allocated after the move on node 1") {
		t.Errorf("pages on node 0: %v", err)
	}
	// The kill loop cut short.
	r = placeResult(t)
	i := strings.Index(r.Guest, "place k30 ")
	j := strings.Index(r.Guest, "place v1mount")
	r.Guest = r.Guest[:i] + r.Guest[j:]
	if err := checkPlaceGuest(r); err == nil || !strings.Contains(err.Error(), "still killed at step 29") {
		t.Errorf("kill loop cut: %v", err)
	}
}

// FuzzParsePlaceGuest: any guest output gives phases of key=value pairs or
// an error, never a panic or an empty key.
func FuzzParsePlaceGuest(f *testing.F) {
	f.Add("place orig comm=postgres cpus=0-3 mems=0-1 cgroup=0::/ groups= subtree= hp1=0\n")
	f.Add("place a x=1\nplace a y=2\n")
	f.Add("place b novalue\nnoise\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parsePlaceGuest(s)
		if err != nil {
			return
		}
		for phase, kv := range m {
			if phase == "" {
				t.Fatal("empty phase")
			}
			for k := range kv {
				if k == "" || strings.ContainsAny(k, " \t\n") {
					t.Fatalf("bad key %q", k)
				}
			}
		}
	})
}
