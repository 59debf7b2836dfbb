package place

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSpecErrorsHaveLines(t *testing.T) {
	base := "strategy: binding\ninstances:\n  - name: erp\n    engine: oracle\n    cpus: 20\n    memory_gb: 64\n    class: guaranteed\n"
	if s, err := ParseSpec("ok.yaml", []byte(base)); err != nil || len(s.Instances) != 1 || s.Instances[0].MemoryGB != 64 {
		t.Fatalf("valid spec: %v %+v", err, s)
	}
	cases := []struct{ name, in, want string }{
		{"unknown key", base + "    bogus: 1\n", "f.yaml:8: "},
		{"unknown top key", "strategy: binding\nfoo: 1\n", "f.yaml:2: "},
		{"bad strategy", strings.Replace(base, "binding", "pinning", 1), `f.yaml:1: strategy "pinning"`},
		{"bad engine", strings.Replace(base, "oracle", "db2", 1), `f.yaml:4: erp: engine "db2"`},
		{"zero cpus", strings.Replace(base, "cpus: 20", "cpus: 0", 1), "f.yaml:5: erp: cpus 0"},
		{"string cpus", strings.Replace(base, "cpus: 20", "cpus: many", 1), "f.yaml:5: "},
		{"negative memory", strings.Replace(base, "memory_gb: 64", "memory_gb: -1", 1), "f.yaml:6: erp: memory_gb -1"},
		{"bad class", strings.Replace(base, "guaranteed", "gold", 1), `f.yaml:7: erp: class "gold"`},
		{"missing class", strings.Replace(base, "    class: guaranteed\n", "", 1), "f.yaml:3: erp: class: required"},
		{"duplicate name", base + strings.Replace(base[len("strategy: binding\ninstances:\n"):], "erp", "ERP", 1), `f.yaml:8: name "ERP": already used by the instance on line 3`},
		{"bad name", strings.Replace(base, "erp", "a/b", 1), `f.yaml:3: name "a/b"`},
		{"no instances", "strategy: mix\n", "f.yaml:1: instances: expected at least one"},
		{"empty", "", "f.yaml:1: empty spec"},
		{"syntax", "strategy: [binding\n", "f.yaml:"},
		{"duplicate key", "strategy: binding\nstrategy: caging\n", "f.yaml:2: "},
	}
	for _, c := range cases {
		_, err := ParseSpec("f.yaml", []byte(c.in))
		var se *SpecError
		if !errors.As(err, &se) {
			t.Errorf("%s: %v is not a SpecError", c.name, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %q, want prefix %q", c.name, err, c.want)
		}
	}
}

func FuzzParseSpec(f *testing.F) {
	for _, p := range []string{"case1-caging.yaml", "case2-binding.yaml", "case2-mix.yaml", "case3-binding-option1.yaml", "case3-caging-option1.yaml"} {
		if b, err := os.ReadFile(filepath.Join(examplesDir, p)); err == nil {
			f.Add(b)
		}
	}
	host := mkHost(hostSpec{ids: []int{0, 2, 3}, cores: []int{4, 0, 4}, smt: true, memGB: []int64{8, 8, 0}})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := ParseSpec("fuzz.yaml", b)
		if err != nil {
			// Every refusal names a line of the input (issue 24).
			var se *SpecError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a SpecError", err)
			}
			if se.Line < 1 || se.Line > lineCount(b)+1 {
				t.Fatalf("error %v: not on a line of the input (%d lines)", err, lineCount(b))
			}
			return
		}
		if len(s.Instances) == 0 || len(s.Instances) > MaxInstances {
			t.Fatal("accepted a spec without instances")
		}
		for _, in := range s.Instances {
			if in.line < 1 || in.line > lineCount(b) {
				t.Fatalf("instance %s on line %d of %d", in.Name, in.line, lineCount(b))
			}
			if in.CPUs < 1 || in.Name == "" || in.MemoryGB < 0 {
				t.Fatalf("accepted %+v", in)
			}
		}
		if len(s.Instances) <= 64 {
			r := Plan(host, s)
			checkPlan(t, host, s, r)
		}
	})
}
