package report

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/place"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestCoreTypesShown: collect's summary, numa (text, Markdown, JSON) and
// the HTML report say which CPUs are performance and efficiency cores,
// and from which files; a host whose files cannot tell says "unknown".
func TestCoreTypesShown(t *testing.T) {
	load := func(name string) *snapshot.Snapshot {
		s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := load("adl-desktop")
	want := "Core types: hybrid: performance (cpu_core) CPUs 0-15; efficiency (cpu_atom) CPUs 16-23 (from /sys/devices/cpu_core/cpus, /sys/devices/cpu_atom/cpus)"
	v := NUMANodes(s)
	for name, b := range map[string][]byte{"summary": Summary(s), "summary markdown": SummaryMarkdown(s), "numa text": v.Text(), "numa markdown": v.Markdown()} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q:\n%s", name, want, b)
		}
	}
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(j), `"core_types":{"kind":"hybrid"`) {
		t.Errorf("numa JSON lacks core_types: %s", j)
	}
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: rules.DBPostgres})
	h, err := HTML(HTMLInput{Snap: s, Report: rep, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(h), "Core types") || !strings.Contains(string(h), "efficiency (cpu_atom) CPUs 16-23") {
		t.Errorf("HTML report lacks the core types")
	}
	// ARM capacities, and a kernel that cannot tell.
	if got := CoreTypesText(load("arm-biglittle").Topology.CoreTypes); !strings.Contains(got, "performance (capacity 1024) CPUs 4-5; efficiency (capacity 485) CPUs 0-3") {
		t.Errorf("arm-biglittle: %q", got)
	}
	if got := string(Summary(load("rhel8"))); !strings.Contains(got, "Core types: unknown (kernel 4.18") {
		t.Errorf("rhel8 summary does not say the core types are unknown:\n%s", got)
	}
	if got := CoreTypesText(load("rhel9").Topology.CoreTypes); !strings.HasPrefix(got, "Core types: one core type (the core PMU is /sys/devices/cpu") {
		t.Errorf("rhel9: %q", got)
	}
}

// TestPlaceSaysCoreTypes: the placement's text and Markdown say that the
// performance cores were given first.
func TestPlaceSaysCoreTypes(t *testing.T) {
	s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", "arm-biglittle.json"))
	if err != nil {
		t.Fatal(err)
	}
	r := place.Plan(s, &place.Spec{Strategy: "binding", Instances: []place.Instance{{Name: "erp", Engine: "postgres", CPUs: 2, MemoryGB: 0.5, Class: "guaranteed"}}})
	want := "Core types: hybrid CPU: the instances are given the performance cores (CPUs 4-5) first"
	for name, b := range map[string][]byte{"text": PlaceText(r), "markdown": PlaceMarkdown(r)} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %q:\n%s", name, want, b)
		}
	}
}
