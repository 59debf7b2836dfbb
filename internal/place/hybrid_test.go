package place

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func goldenSnap(t *testing.T, name string) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPlacePrefersPerformanceCores: on a hybrid CPU the instances get the
// performance cores first, whatever their CPU numbers (ARM big.LITTLE
// numbers its little cores first), and the plan says so; an instance left
// with efficiency cores is warned of.
func TestPlacePrefersPerformanceCores(t *testing.T) {
	s := goldenSnap(t, "arm-biglittle") // little 0-3 (capacity 485), big 4-5 (1024)
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "erp", Engine: "postgres", CPUs: 2, MemoryGB: 0.5, Class: "guaranteed"},
		{Name: "test", Engine: "postgres", CPUs: 2, MemoryGB: 0.25, Class: "guaranteed"},
	}}
	r := Plan(s, spec)
	checkPlan(t, s, spec, r)
	if !r.Feasible {
		t.Fatalf("infeasible: %v", r.Errors)
	}
	if got := r.Instances[0].CPUs; !reflect.DeepEqual(got, []int{4, 5}) {
		t.Errorf("erp: CPUs %v, want the big cores [4 5]", got)
	}
	if got := r.Instances[1].CPUs; !reflect.DeepEqual(got, []int{0, 1}) {
		t.Errorf("test: CPUs %v, want little cores [0 1]", got)
	}
	if !strings.Contains(r.CoreTypes, "performance cores (CPUs 4-5) first and the efficiency cores (CPUs 0-3) last") {
		t.Errorf("core types note %q", r.CoreTypes)
	}
	warned := false
	for _, w := range r.Warnings {
		if w.Instance == "test" && strings.Contains(w.Message, "efficiency cores only (CPUs 0-1)") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning that test runs on efficiency cores: %+v", r.Warnings)
	}

	// Intel: 8 P-cores with SMT (0-15), 16 E-cores (16-31).
	s = goldenSnap(t, "hybrid-server")
	spec = &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "a", Engine: "oracle", CPUs: 8, MemoryGB: 1, Class: "guaranteed"},
		{Name: "b", Engine: "postgres", CPUs: 12, MemoryGB: 1, Class: "guaranteed"},
	}}
	r = Plan(s, spec)
	checkPlan(t, s, spec, r)
	// The largest first (b: 6 P-cores), then a: the 2 P-cores left and 4 E-cores.
	if got := r.Instances[1].CPUs; !reflect.DeepEqual(got, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}) {
		t.Errorf("b: CPUs %v, want P-cores 0-11", got)
	}
	if got := r.Instances[0].CPUs; !reflect.DeepEqual(got, []int{12, 13, 14, 15, 16, 17, 18, 19}) {
		t.Errorf("a: CPUs %v, want the last P-cores 12-15 and E-cores 16-19", got)
	}
	warned = false
	for _, w := range r.Warnings {
		warned = warned || w.Instance == "a" && strings.Contains(w.Message, "4 of its 8 CPU threads are efficiency cores (CPUs 16-19)")
	}
	if !warned {
		t.Errorf("no warning that a has efficiency cores: %+v", r.Warnings)
	}

	// One core type: nothing said, CPU order kept.
	s = goldenSnap(t, "rhel9")
	spec = &Spec{Strategy: "binding", Instances: []Instance{{Name: "a", Engine: "oracle", CPUs: 4, MemoryGB: 1, Class: "guaranteed"}}}
	if r = Plan(s, spec); r.CoreTypes != "" {
		t.Errorf("rhel9: core types note %q on a host of one core type", r.CoreTypes)
	}
}
