//go:build testhooks

package rules

// Run with go test -tags testhooks: DBHOST_TEST_PANIC works only in a
// testhooks build (internal/testhooks).

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/fixture"
)

// TestReaderPanicIsCouldNotCheck: a fact reader that panics (a bug, or a
// file shape it did not expect) leaves the part of the snapshot it fills
// absent under the name rules ask about, so the rules that need it say
// "could not check" with the internal error, never pass on what is missing.
// DBHOST_TEST_PANIC=reader:NAME panics in the reader's goroutine, worker:NAME
// in its per-CPU or per-device workers (a partial result is dropped).
func TestReaderPanicIsCouldNotCheck(t *testing.T) {
	dir := t.TempDir()
	if err := fixture.RHEL71().Build().Write(dir); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		panic string
		rules []string
	}{
		{"reader:cpupower", []string{"cpu.deep-cstates-latency", "cpu.governor-not-performance", "cpu.intel-pstate-min-perf"}},
		{"worker:cpupower", []string{"cpu.deep-cstates-latency", "cpu.governor-not-performance"}},
		{"reader:memory", []string{"memory.thp-enabled", "memory.hugepages-too-few"}},
		{"reader:topology", []string{"numa.hugepages-node-exhausted", "cgroup.cpuset-mems-not-local"}},
	}
	audit := func() map[string]string {
		s := facts.Collect(facts.Root{Dir: dir}, facts.Options{Version: "test"})
		rep := Run(&Input{Snap: s, Workload: WorkloadOLTP, DB: DBOracle})
		out := map[string]string{}
		for _, f := range rep.Findings {
			out[f.ID] = "finding"
		}
		for _, r := range rep.Passed {
			out[r.ID] = "passed"
		}
		for _, r := range rep.NotApplicable {
			out[r.ID] = "not applicable"
		}
		for _, r := range rep.CannotCheck {
			out[r.ID] = "could not check: " + r.Reason
		}
		return out
	}
	before := audit()
	for _, tc := range cases {
		t.Run(tc.panic, func(t *testing.T) {
			for _, id := range tc.rules {
				if strings.HasPrefix(before[id], "could not check") {
					t.Fatalf("%s could not check without a panic: %s", id, before[id])
				}
			}
			t.Setenv("DBHOST_TEST_PANIC", tc.panic)
			got := audit()
			for _, id := range tc.rules {
				if !strings.HasPrefix(got[id], "could not check") || !strings.Contains(got[id], "internal error in the") {
					t.Errorf("%s after a panic in %s: %s (before: %s)", id, tc.panic, got[id], before[id])
				}
			}
		})
	}
}
