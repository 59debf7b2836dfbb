package facts

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseNumactlHardware(t *testing.T) {
	i64 := func(v int64) *int64 { return &v }
	got, err := parseNumactlHardware(strings.NewReader(numactlTwoNodes))
	if err != nil {
		t.Fatal(err)
	}
	want := []numactlNode{
		{ID: 0, CPUs: []int{0, 2, 4, 6}, SizeMB: i64(32156), FreeMB: i64(1234), Distances: []int{10, 21}},
		{ID: 1, CPUs: []int{1, 3, 5, 7}, SizeMB: i64(32253), FreeMB: i64(30000), Distances: []int{21, 10}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("two nodes:\n got %+v\nwant %+v", got, want)
	}

	got, err = parseNumactlHardware(strings.NewReader(numactlFourNodes))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || len(got[3].CPUs) != 0 || *got[2].SizeMB != 0 || !reflect.DeepEqual(got[2].Distances, []int{30, 40, 10, 20}) {
		t.Errorf("four nodes: %+v", got)
	}
	if got[3].CPUs == nil {
		t.Error("a CPU-less node must have an empty, not nil, CPU list")
	}

	// Columns and rows out of order are put in node-id order.
	shuffled := `available: 2 nodes (4,9)
node 9 cpus: 0
node 4 cpus: 1
node distances:
node   9   4
  9:  10  31
  4:  31  11
`
	got, err = parseNumactlHardware(strings.NewReader(shuffled))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].ID != 4 || !reflect.DeepEqual(got[0].Distances, []int{11, 31}) || !reflect.DeepEqual(got[1].Distances, []int{31, 10}) {
		t.Errorf("shuffled: %+v", got)
	}
	if got[0].SizeMB != nil {
		t.Error("a node without a size line must have nil size, not 0")
	}

	// Without a distance matrix (old numactl, or cut short): nodes, no distances.
	got, err = parseNumactlHardware(strings.NewReader("available: 1 nodes (0)\nnode 0 cpus: 0 1\nnode 0 size: 10 MB\n"))
	if err != nil || got[0].Distances != nil || *got[0].SizeMB != 10 {
		t.Errorf("no matrix: %+v, %v", got, err)
	}
}

func TestParseNumactlHardwareErrors(t *testing.T) {
	cases := map[string]string{
		"No NUMA available on this system\n": "No NUMA available",
		"":                                   "no nodes",
		"available: 2 nodes (0)\n":           "N ids in LIST",
		"available: 1 nodes (0)\nnode 0 cpus: 0 x\n":                                  "line 2",
		"available: 1 nodes (0)\nnode 0 size: 12 GB\n":                                "line 2",
		"available: 1 nodes (0)\nnode 1 cpus: 0\n":                                    "not in the available list",
		"available: 1 nodes (0)\nnode 0 cpus: 0\nnode distances:\nnode 0\n0: 10 20\n": "line 5",
		"available: 2 nodes (0-1)\nnode distances:\nnode 0 1\n0: 10 20\n":             "matrix is 1x2",
		"available: 1 nodes (0)\nnode distances:\nnode 0\n0: 999\n":                   "line 4",
		"hello world\n": "line 1",
		"available: 1 nodes (0)\nnode 0 wobble: 1\n": "line 2",
	}
	for in, want := range cases {
		_, err := parseNumactlHardware(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("parseNumactlHardware(%q) error = %v, want it to mention %q", in, err, want)
		}
		if _, ok := err.(*ParseError); !ok {
			t.Errorf("parseNumactlHardware(%q) error is %T, want *ParseError", in, err)
		}
	}
}

func FuzzParseNumactlHardware(f *testing.F) {
	for _, s := range []string{numactlOneNode, numactlTwoNodes, numactlFourNodes, "No NUMA available on this system\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		nodes, err := parseNumactlHardware(strings.NewReader(s))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T is not a *ParseError", err)
			}
			return
		}
		for i, n := range nodes {
			if i > 0 && nodes[i-1].ID >= n.ID {
				t.Fatalf("nodes not sorted: %+v", nodes)
			}
			if n.CPUs == nil {
				t.Fatalf("nil CPU list")
			}
			if n.Distances != nil && len(n.Distances) != len(nodes) {
				t.Fatalf("node %d: %d distances for %d nodes", n.ID, len(n.Distances), len(nodes))
			}
			for j := 1; j < len(n.CPUs); j++ {
				if n.CPUs[j-1] >= n.CPUs[j] {
					t.Fatalf("cpus not sorted/unique: %v", n.CPUs)
				}
			}
		}
	})
}
