package place

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/goccy/go-yaml/ast"
)

// aliasBomb is a spec of about 600 bytes whose instance name is nine
// levels of aliases, each ten times the one before: 10^9 nodes expanded.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("strategy: binding\ninstances:\n  - name: &a0 [x, x, x, x, x, x, x, x, x, x]\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  - name: &a%d [%s]\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// manyInstances is a spec of n instances (each five lines).
func manyInstances(n int) string {
	var b strings.Builder
	b.WriteString("strategy: binding\ninstances:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "  - name: db%d\n    engine: oracle\n    cpus: 2\n    memory_gb: 1\n    class: guaranteed\n", i)
	}
	return b.String()
}

const okSpec = "strategy: binding\ninstances:\n  - name: erp\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n"

// TestSpecShapeBounds: the hostile specs of issue 24 (a 1 KB alias bomb,
// 200 KB of nested brackets, 100,000 instances) and their kin are refused
// by a named bound with the line it was crossed on, before go-yaml
// expands or recurses (before the bounds: 3.85 GB, 8 GB, 2.5 GB).
func TestSpecShapeBounds(t *testing.T) {
	deep := "strategy: binding\ninstances: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"
	dashes := "strategy: binding\ninstances:\n" + strings.Repeat("- ", 200_000) + "x\n"
	indent := "strategy: binding\ninstances:\n"
	for i := 0; i < 100; i++ {
		indent += strings.Repeat(" ", i+1) + fmt.Sprintf("k%d:\n", i)
	}
	flowInst := "strategy: binding\ninstances: [" + strings.Repeat("{name: a, engine: oracle, cpus: 2, class: guaranteed}, ", MaxInstances+1) + "]\n"
	// 62 levels as written; 65 through the alias.
	nested := "strategy: binding\ninstances:\n  - &d " + strings.Repeat("[", 60) + strings.Repeat("]", 60) + "\n  - [[[*d]]]\n"
	for _, c := range []struct {
		name, in string
		line     int
		want     string
	}{
		{"alias bomb", aliasBomb(), 19, "more than 100000 YAML nodes"},
		{"200 KB of [", deep, 2, "nested more than 64 levels"},
		{"- - - -", dashes, 3, "nested more than 64 levels"},
		{"indented keys", indent, 3 + 63, "nested more than 64 levels"},
		{"100,000 instances", manyInstances(100_000), 3 + 5*MaxInstances, "instances: more than 4096 listed"},
		{"4097 instances in a flow sequence", flowInst, 2, "instances: 4097 listed, at most 4096"},
		{"depth through an alias", nested, 4, "alias *d nests more than 64 levels"},
		{"commas", "strategy: binding\ninstances: [" + strings.Repeat(",", 200_000) + "]\n", 2, "more than 100000 YAML nodes"},
		{"unclosed quote", okSpec + "    nic: 'eno1\n", 7, "quoted string not closed on its line"},
		{"stray bracket", okSpec + "]\n", 7, `']' without its opening bracket`},
		{"2 MiB of YAML", okSpec + "    nic: \"" + strings.Repeat("x", 2<<20) + "\"\n", 7, "more than 2 MiB of YAML"},
	} {
		_, err := ParseSpec("f.yaml", []byte(c.in))
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v, want a SpecError", c.name, err)
			continue
		}
		if se.Line != c.line || !strings.Contains(se.Msg, c.want) {
			t.Errorf("%s: %v, want line %d and %q", c.name, err, c.line, c.want)
		}
	}
	// At the bounds: 4096 instances, and comments and blank lines (not
	// given to go-yaml: lines are still the spec's).
	if s, err := ParseSpec("f.yaml", []byte(manyInstances(MaxInstances))); err != nil || len(s.Instances) != MaxInstances {
		t.Errorf("4096 instances: %v", err)
	}
	padded := okSpec + strings.Repeat("# a comment [[[ {{{ 'x\n\n", 500_000) + "    colour: red\n"
	_, err := ParseSpec("f.yaml", []byte(padded))
	if want := fmt.Sprintf("f.yaml:%d: ", 7+1_000_000); err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "colour") {
		t.Errorf("an unknown key after a million comment and blank lines: %v, want %q", err, want)
	}
	s, err := ParseSpec("f.yaml", []byte("# head\n\n"+strings.Replace(okSpec, "instances:\n", "instances:   # the list\n\n", 1)))
	if err != nil || s.Instances[0].line != 6 {
		t.Errorf("instance line with comments: %v %+v", err, s)
	}
}

// TestSpecErrorsThroughAliases: an instance or a value written through an
// alias or a merge key is reported on its own line, naming the line its
// value is on; no spec error is on line 0.
func TestSpecErrorsThroughAliases(t *testing.T) {
	inst := "  - &a\n    name: x\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n"
	for _, c := range []struct{ name, in, want string }{
		{"duplicate through an alias", "strategy: binding\ninstances:\n" + inst + "  - *a\n",
			`f.yaml:8: name "x": already used by the instance on line 3 (names are unique, case-insensitively) (the instance is the alias *a: its name is on line 4)`},
		{"bad value in an anchored instance", "strategy: binding\ninstances:\n" + strings.Replace(inst, "cpus: 2", "cpus: 0", 1),
			"f.yaml:6: x: cpus 0:"},
		{"bad value merged in", "strategy: binding\ninstances:\n  - name: y\n    cpus: 2\n    class: guaranteed\n    <<: &c {engine: db2}\n",
			`f.yaml:3: y: engine "db2": expected oracle, postgres, mysql, other or kvm-guest (its engine is on line 6, merged in with <<)`},
		{"merged key", "strategy: binding\ninstances:\n  - name: y\n    <<: &c {engine: oracle, class: guaranteed}\n    cpus: 2\n  - name: z\n    <<: *c\n    cpus: 70000\n",
			"f.yaml:8: z: cpus 70000"},
		{"missing instances", "strategy: binding\n", "f.yaml:1: instances: expected at least one instance"},
		{"missing strategy", "\n\ninstances:\n" + inst, "f.yaml:3: strategy: required"},
		{"flow duplicate", "strategy: binding\ninstances: [&a {name: x, engine: oracle, cpus: 2, class: guaranteed},\n  *a]\n",
			`f.yaml:3: name "x": already used by the instance on line 2`},
	} {
		_, err := ParseSpec("f.yaml", []byte(c.in))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant prefix %s", c.name, err, c.want)
		}
	}
}

// lineCount is the number of lines of b (a last line without '\n' counts).
func lineCount(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// FuzzSpecPrescan checks prescan's promise: go-yaml never parses more
// nodes or deeper nesting than prescan counted (it may count more), so the
// bounds hold whatever the bytes; and its output keeps the spec's lines.
func FuzzSpecPrescan(f *testing.F) {
	for _, s := range []string{okSpec, aliasBomb(), "a: [b, {c: d}, 'e #]', \"f\\\"]\"]\n", "- - - x\n- y\n", "a:\n- b\n- c:\n  - d\n", "a: |\n  [[[\n  '\nb: c\n", "? a\n: b\n", "{a: b}: c\n", "a: b # c [\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		yml, lines, sc, err := prescanCount("fuzz.yaml", b)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) || se.Line < 1 || se.Line > lineCount(b)+1 {
				t.Fatalf("prescan error %v: not a SpecError on a line of the input (%d lines)", err, lineCount(b))
			}
			return
		}
		if len(yml) > MaxSpecYAMLBytes+1 || lineCount(yml) != len(lines) {
			t.Fatalf("output of %d bytes, %d lines, %d line numbers", len(yml), lineCount(yml), len(lines))
		}
		for i, l := range lines {
			if l < 1 || l > lineCount(b) || (i > 0 && l <= lines[i-1]) {
				t.Fatalf("line map %v", lines)
			}
		}
		af, err := parse(yml)
		if err != nil {
			return
		}
		nodes, depth := 0, 0
		var walk func(n ast.Node, d int)
		walk = func(n ast.Node, d int) {
			switch v := n.(type) {
			case nil:
			case *ast.DocumentNode:
				walk(v.Body, d)
			case *ast.AnchorNode:
				walk(v.Value, d)
			case *ast.TagNode:
				walk(v.Value, d)
			case *ast.MappingKeyNode:
				walk(v.Value, d)
			case *ast.SequenceEntryNode:
				walk(v.Value, d)
			case *ast.MappingValueNode:
				walk(v.Key, d+1)
				walk(v.Value, d+1)
			case *ast.MappingNode:
				nodes++
				depth = max(depth, d)
				for _, mv := range v.Values {
					walk(mv, d)
				}
			case *ast.SequenceNode:
				nodes++
				depth = max(depth, d)
				for _, e := range v.Values {
					walk(e, d+1)
				}
			case *ast.CommentGroupNode, *ast.CommentNode:
			default:
				nodes++
				depth = max(depth, d)
			}
		}
		for _, d := range af.Docs {
			walk(d, 1)
		}
		// A block mapping and a missing value are nodes prescan does
		// not count: at most three of go-yaml's nodes per one of its.
		if nodes > 3*sc.nodes+3 || depth > sc.depth+2 {
			t.Fatalf("go-yaml parsed %d nodes %d deep; prescan counted %d nodes %d deep\n%q", nodes, depth, sc.nodes, sc.depth, b)
		}
	})
}
