package rules

import (
	"strings"
	"testing"
)

func TestPGSharedBuffers(t *testing.T) {
	const id = "db.pg-shared-buffers"
	s := liveHost(0, 0)
	s.Memory.Meminfo["MemTotal"] = 24 << 20 // 24 GiB
	// 6 GiB (25 %) and effective_cache_size 18 GiB: quiet.
	d := pgLive(s, "shared_buffers=786432", "effective_cache_size=2359296")
	d.Setting("effective_cache_size").Unit = "8kB"
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// The default 128 MB on 24 GiB: a warning, 6 GiB recommended; the fix
	// raises effective_cache_size too (4 GB default below the new 6 GiB).
	setLive(d, "shared_buffers=16384", "effective_cache_size=524288")
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	fix := strings.Join(f.Fix.Runtime, "\n")
	if f.Severity != SevWarning || !strings.Contains(f.Recommended, "6.0 GiB") || !strings.Contains(fix, "shared_buffers = '6144MB'") ||
		!strings.Contains(fix, "effective_cache_size = '18432MB'") || !strings.Contains(f.Why, OwnThreshold) {
		t.Fatalf("%+v", f)
	}
	// Following the fix raises nothing more.
	setLive(d, "shared_buffers=786432", "effective_cache_size=2359296")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// Half of memory: info (above the docs' 40 %).
	setLive(d, "shared_buffers=1572864")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Severity != SevInfo || f.Setting != "shared_buffers" {
		t.Fatalf("%+v", f)
	}
	// effective_cache_size above memory: a warning.
	setLive(d, "shared_buffers=786432", "effective_cache_size=8388608")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Setting != "effective_cache_size" || f.Severity != SevWarning {
		t.Fatalf("%+v", f)
	}
	// Bound to node 0 of two (12 GiB each): judged against the node's memory.
	setLive(d, "effective_cache_size=2359296")
	for i := range s.Topology.Nodes {
		kb := int64(12 << 20)
		s.Topology.Nodes[i].MemTotalKB = &kb
	}
	postmaster(s, "/srv/pg/data", []int{0}, nil)
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Setting != "effective_cache_size" || !strings.Contains(f.Evidence, "node(s) 0 the postmaster") {
		t.Fatalf("%+v", f)
	}
	// No MemTotal: could not check.
	delete(s.Memory.Meminfo, "MemTotal")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "MemTotal")
}
