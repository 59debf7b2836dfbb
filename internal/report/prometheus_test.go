package report

import (
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// The metrics of the 8-node fixture: one series per node for memory,
// hugepages and CPU time, the NUMA counters from vmstat, the busy share
// only with a previous audit, and label values made valid UTF-8.
func TestPrometheusMetrics(t *testing.T) {
	s, err := snapshot.Load("../../testdata/golden/odd-8n.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadMixed, DB: "none"})
	rep.Host = "bad\xffname"
	a := Audit{Report: rep, Snap: s, At: time.Unix(1_800_000_000, 0), Duration: 250 * time.Millisecond, Version: "t"}
	b, err := FindingsPrometheus(a)
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	nodes := len(s.Topology.Nodes)
	for name, want := range map[string]int{
		"dbhost_node_memory_bytes{":                     nodes,
		"dbhost_node_cpu_seconds_total{mode=\"busy\"":   nodes,
		"dbhost_node_cpu_seconds_total{mode=\"idle\"":   nodes,
		"dbhost_node_hugepages{":                        nodes * len(s.Topology.Nodes[0].Hugepages),
		"dbhost_finding{":                               -1,
		"dbhost_node_cpu_busy_ratio{":                   0,
		"dbhost_last_audit_timestamp_seconds 1.8e+09\n": 1,
		"dbhost_audit_duration_seconds 0.25\n":          1,
	} {
		n := strings.Count(out, "\n"+name)
		if want < 0 && n == 0 || want >= 0 && n != want {
			t.Errorf("%s: %d series, want %d", name, n, want)
		}
	}
	for key, metric := range map[string]string{"numa_miss": "dbhost_numa_miss_total", "numa_pages_migrated": "dbhost_numa_pages_migrated_total", "pgmigrate_success": "dbhost_pages_migrated_total"} {
		if _, ok := s.Memory.Vmstat[key]; ok != strings.Contains(out, "\n"+metric+" ") {
			t.Errorf("vmstat %s present %v, %s exposed %v", key, ok, metric, !ok)
		}
	}
	if !strings.Contains(out, `host="bad`+"\uFFFD"+`name"`) {
		t.Errorf("invalid UTF-8 label not replaced:\n%s", out)
	}
	// With a previous audit 1,000 ticks earlier on every CPU, 250 of them
	// busy: a busy share of 0.25 per node.
	prev := *s
	prev.CPULoad.PerCPU = append([]snapshot.CPUTime(nil), s.CPULoad.PerCPU...)
	for i := range prev.CPULoad.PerCPU {
		c := &prev.CPULoad.PerCPU[i]
		c.User -= 250
		c.Idle -= 750
	}
	a.Prev = &prev
	b, _ = FindingsPrometheus(a)
	if n := strings.Count(string(b), "\ndbhost_node_cpu_busy_ratio{"); n != nodes {
		t.Fatalf("busy ratio: %d series, want %d:\n%s", n, nodes, b)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "dbhost_node_cpu_busy_ratio{") && !strings.HasSuffix(l, "} 0.25") {
			t.Errorf("busy ratio %q, want 0.25", l)
		}
	}
}
