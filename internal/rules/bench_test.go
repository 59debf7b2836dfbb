package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/fixture"
)

// BenchmarkRun240 audits a generated 240-CPU, 8-node Oracle host (collect
// excluded): the rules' share of `dbhost audit` on a large machine.
func BenchmarkRun240(b *testing.B) {
	dir := b.TempDir()
	if err := fixture.Big(240, 8, 32, 4).Build().Write(dir); err != nil {
		b.Fatal(err)
	}
	s := facts.Collect(facts.Root{Dir: dir}, facts.Options{Version: "bench"})
	db, _ := DetectDB(s, nil)
	in := &Input{Snap: s, Workload: WorkloadOLTP, DB: db}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Run(in)
	}
}

// BenchmarkCollectAndRun240 is the whole audit of the 240-CPU tree (issue 3: ≤ 100 ms).
func BenchmarkCollectAndRun240(b *testing.B) {
	dir := b.TempDir()
	if err := fixture.Big(240, 8, 32, 4).Build().Write(dir); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := facts.Collect(facts.Root{Dir: dir}, facts.Options{Version: "bench"})
		db, _ := DetectDB(s, nil)
		Run(&Input{Snap: s, Workload: WorkloadOLTP, DB: db})
	}
}

// BenchmarkAuditLiveHost is `dbhost audit` of the machine running the
// benchmark without process start-up (issue 3: median ≤ 20 ms on the 2-core
// build machine). It only reads; it changes nothing.
func BenchmarkAuditLiveHost(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s := facts.Collect(facts.Root{Dir: "/", Live: true}, facts.Options{Version: "bench"})
		db, _ := DetectDB(s, nil)
		Run(&Input{Snap: s, Workload: WorkloadMixed, DB: db})
	}
}
