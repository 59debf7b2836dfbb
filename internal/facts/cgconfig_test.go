package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestParseCgconfig(t *testing.T) {
	in := `# libcgroup configuration
mount {
	cpuset = /cgroup/cpuset;
	cpu = /cgroup/cpu;
}

group db/oracle {
	perm {
		task { uid = oracle; gid = dba; }
		admin { uid = root; gid = root; }
	}
	cpuset {
		cpuset.cpus = "0-3";
		cpuset.mems = "0";   # node 0 only
		cpuset.memory_migrate = 1;
	}
	cpu {
		cpu.shares = 512;
	}
}
template users/%u {
	cpuset { cpuset.cpus = "4-7"; }
}
default { perm { task { uid = root; } } }
namespace { cpu = /daemons; }
group . { cpu { } }
`
	got, err := ParseCgconfig(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []snapshot.CgconfigEntry{
		{Line: 13, Group: "db/oracle", Key: "cpuset.cpus", Value: "0-3"},
		{Line: 14, Group: "db/oracle", Key: "cpuset.mems", Value: "0"},
		{Line: 15, Group: "db/oracle", Key: "cpuset.memory_migrate", Value: "1"},
		{Line: 18, Group: "db/oracle", Key: "cpu.shares", Value: "512"},
		{Line: 22, Group: "template:users/%u", Key: "cpuset.cpus", Value: "4-7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseCgconfigErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
	}{
		{"group a {\n cpuset {\n cpuset.cpus = \"0\"\n }\n}\n", 4}, // missing ';'
		{"group a {\n cpuset {\n", 2},                              // unterminated
		{"bogus {}\n", 1},
		{"group a {\n cpuset { cpuset.cpus = \"0-1; }\n}\n", 2}, // unterminated string
		{"group {\n}\n", 1},
		{"mount {\n cpuset /cgroup;\n}\n", 2},
		{"default { perm {\n", 1},
	} {
		got, err := ParseCgconfig(strings.NewReader(tc.in))
		pe, ok := err.(*ParseError)
		if !ok || got != nil {
			t.Errorf("%q: got %v, %v; want nil and a *ParseError", tc.in, got, err)
			continue
		}
		if pe.Line != tc.line {
			t.Errorf("%q: error %v at line %d, want line %d", tc.in, pe, pe.Line, tc.line)
		}
	}
}

func FuzzParseCgconfig(f *testing.F) {
	f.Add([]byte("group db { cpuset { cpuset.cpus = \"0-3\"; } }\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, err := ParseCgconfig(strings.NewReader(string(b)))
		if err != nil {
			if ents != nil {
				t.Fatal("entries returned with an error")
			}
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		for _, e := range ents {
			if e.Line < 1 || e.Key == "" || e.Group == "" {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}
