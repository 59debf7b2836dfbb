package facts

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseMeminfo(t *testing.T) {
	m, node, err := parseMeminfo(strings.NewReader(meminfoA))
	if err != nil || node != -1 || m["MemTotal"] != 16303460 || m["HugePages_Total"] != 512 || m["Hugepagesize"] != 2048 || len(m) != 11 {
		t.Errorf("parseMeminfo = %v, %d, %v", m, node, err)
	}
	m, node, err = parseMeminfo(strings.NewReader("Node 1 MemTotal:  16384 kB\nNode 1 MemFree: 100 kB\nNode 1 HugePages_Total: 4\n"))
	if err != nil || node != 1 || m["MemTotal"] != 16384 || m["HugePages_Total"] != 4 {
		t.Errorf("node meminfo = %v, %d, %v", m, node, err)
	}
	for _, bad := range []string{"", "MemTotal 5 kB\n", "MemTotal: 5 MB\n", "MemTotal: x kB\n", "Node 0 A: 1\nNode 1 B: 2\n", "Node x A: 1\n", "MemTotal: 1 kB extra\n"} {
		if _, _, err := parseMeminfo(strings.NewReader(bad)); err == nil {
			t.Errorf("parseMeminfo(%q) accepted", bad)
		}
	}
}

func FuzzParseMeminfo(f *testing.F) {
	f.Add([]byte(meminfoA))
	f.Add([]byte("Node 0 MemTotal: 100 kB\nNode 0 HugePages_Total: 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, node, err := parseMeminfo(strings.NewReader(string(b)))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || m != nil || node != -1 {
				t.Fatalf("error %v (%T) with %v, node %d", err, err, m, node)
			}
			return
		}
		if len(m) == 0 || node < -1 {
			t.Fatalf("ok with %v, node %d", m, node)
		}
		for k := range m {
			if k == "" || k != strings.TrimSpace(k) {
				t.Fatalf("bad key %q", k)
			}
		}
	})
}

// FuzzParseMeminfoNode: a node's meminfo as sysfs prints it ("Node N Key:
// value kB", the keys the words of the fuzzer's text, the values its
// bytes) parses back to that node and those values; the same lines without
// the "Node N" prefix are /proc/meminfo (node -1); lines of two nodes fail.
func FuzzParseMeminfoNode(f *testing.F) {
	for _, s := range []string{"Node 0 MemTotal: 10 kB\nNode 0 MemFree: 5 kB\n", "MemTotal: 1 kB\nHugePages_Total: 4\n", "Node 0 A: 1\nNode 1 A: 1\n", "Node x", ":"} {
		f.Add(s, uint16(1), []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, s string, node uint16, vals []byte) {
		if m, n, err := parseMeminfo(strings.NewReader(s)); err == nil && (len(m) == 0 || n < -1) {
			t.Fatalf("parse of %q: %v %d", s, m, n)
		}
		want := map[string]int64{}
		var node0, global strings.Builder
		for i, k := range strings.Fields(strings.ReplaceAll(s, ":", " ")) {
			if _, dup := want[k]; dup || strings.HasPrefix(k, "Node") {
				continue
			}
			v := int64(i) * 4099
			if i < len(vals) {
				v = int64(vals[i]) << (i % 40)
			}
			want[k] = v
			unit := " kB"
			if strings.HasPrefix(k, "HugePages_") {
				unit = "" // counts, not sizes
			}
			fmt.Fprintf(&node0, "Node %d %-15s %8d%s\n", node, k+":", v, unit)
			fmt.Fprintf(&global, "%-15s %8d%s\n", k+":", v, unit)
		}
		if len(want) == 0 {
			return
		}
		if m, n, err := parseMeminfo(strings.NewReader(node0.String())); err != nil || n != int(node) || !reflect.DeepEqual(m, want) {
			t.Fatalf("%q → %v node %d %v, want %v node %d", node0.String(), m, n, err, want, node)
		}
		if m, n, err := parseMeminfo(strings.NewReader(global.String())); err != nil || n != -1 || !reflect.DeepEqual(m, want) {
			t.Fatalf("%q → %v node %d %v, want %v node -1", global.String(), m, n, err, want)
		}
		other := fmt.Sprintf("Node %d Extra: 1 kB\n", int(node)+1)
		if _, _, err := parseMeminfo(strings.NewReader(node0.String() + other)); err == nil {
			t.Fatalf("lines of nodes %d and %d accepted", node, node+1)
		}
	})
}
