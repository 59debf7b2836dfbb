package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestParseLimits(t *testing.T) {
	in := `# /etc/security/limits.conf
*               soft    core            0
oracle   soft   nofile  1024   # trailing comment
oracle   HARD   memlock unlimited

@dba     -      nproc   16384
oracle   soft   bogus   1
oracle   soft
grid     maybe  nofile  1
grid     soft   nofile  lots
grid     soft   nice    -5
`
	got, errs := parseLimits(strings.NewReader(in))
	want := []snapshot.LimitEntry{
		{Line: 2, Domain: "*", Type: "soft", Item: "core", Value: "0"},
		{Line: 3, Domain: "oracle", Type: "soft", Item: "nofile", Value: "1024"},
		{Line: 4, Domain: "oracle", Type: "hard", Item: "memlock", Value: "unlimited"},
		{Line: 6, Domain: "@dba", Type: "-", Item: "nproc", Value: "16384"},
		{Line: 11, Domain: "grid", Type: "soft", Item: "nice", Value: "-5"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", got, want)
	}
	var lines []int
	for _, e := range errs {
		pe, ok := e.(*ParseError)
		if !ok {
			t.Fatalf("error %v is not a *ParseError", e)
		}
		lines = append(lines, pe.Line)
	}
	if !reflect.DeepEqual(lines, []int{7, 8, 9, 10}) {
		t.Errorf("bad lines = %v, want [7 8 9 10]", lines)
	}
}

func FuzzParseLimits(f *testing.F) {
	f.Add([]byte("oracle soft nofile 1024\n# c\n@dba - memlock unlimited\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, errs := parseLimits(strings.NewReader(string(b)))
		for _, e := range ents {
			if e.Line < 1 || e.Domain == "" || e.Value == "" {
				t.Fatalf("bad entry %+v", e)
			}
		}
		for _, e := range errs {
			if _, ok := e.(*ParseError); !ok {
				t.Fatalf("error %T", e)
			}
		}
	})
}
