package report

import (
	"strconv"
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

// An AIX snapshot's metrics: one series per SRAD, page pool, FC adapter
// counter read, vmstat -v blocked-I/O counter and hdisk, their values from
// the aix section; a fact the bundle lacks has no series (not a zero), and
// a Linux snapshot has no dbhost_aix_ series.
func TestPrometheusAIXMetrics(t *testing.T) {
	series := func(s *snapshot.Snapshot) map[string]string {
		rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: "oracle"})
		b, err := FindingsPrometheus(Audit{Report: rep, Snap: s, At: time.Unix(1_800_000_000, 0), Version: "t"})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "dbhost_aix_") {
				k, v, _ := strings.Cut(l, " ")
				out[k] = v
			}
		}
		return out
	}
	s, err := snapshot.Load("../facts/aix/testdata/golden/aix72.json")
	if err != nil {
		t.Fatal(err)
	}
	a := s.AIX
	got := series(s)
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: "oracle"})
	if b, _ := FindingsPrometheus(Audit{Report: rep, Snap: s, Version: "t"}); !strings.Contains(string(b), `kernel="AIX `+*a.OSLevel+`"`) {
		t.Error("dbhost_info's kernel on AIX is its oslevel -s")
	}
	count := func(prefix string) int {
		n := 0
		for k := range got {
			if strings.HasPrefix(k, prefix+"{") {
				n++
			}
		}
		return n
	}
	fcRead, blocked, disks := 0, 0, 0
	for _, f := range a.FCAdapters {
		if f.NoCommandResourceCount != nil {
			fcRead++
		}
	}
	for _, b := range aixBlockedCounters {
		if _, ok := a.VmstatV[b.Label]; ok {
			blocked++
		}
	}
	for _, d := range a.Disks {
		if d.QueueDepth != nil {
			disks++
		}
	}
	for name, want := range map[string]int{
		"dbhost_aix_srad_memory_bytes":            len(a.SRADs),
		"dbhost_aix_srad_cpus":                    len(a.SRADs),
		"dbhost_aix_page_pool_inuse_bytes":        len(a.PagePools),
		"dbhost_aix_page_pool_bytes":              1, // only the 16 MB pool has a fixed size
		"dbhost_aix_fc_no_command_resource_total": fcRead,
		"dbhost_aix_fc_num_cmd_elems":             len(a.FCAdapters),
		"dbhost_aix_io_blocked_total":             blocked,
		"dbhost_aix_disk_queue_depth":             disks,
	} {
		if n := count(name); n != want || want == 0 {
			t.Errorf("%s: %d series, want %d (and some)", name, n, want)
		}
	}
	if fcRead == len(a.FCAdapters) {
		t.Error("the 7.2 bundle has an FC adapter whose fcstat failed: the test wants one")
	}
	for k, want := range map[string]string{
		`dbhost_aix_srad_memory_bytes{ref1="1",srad="1"}`:            "3.4358689792e+10", // 32767 MB
		`dbhost_aix_srad_cpus{ref1="0",srad="0"}`:                    "16",
		`dbhost_aix_io_blocked_total{buffer="pbuf"}`:                 "1285",
		`dbhost_aix_io_blocked_total{buffer="external_pager_fsbuf"}`: "372210",
		`dbhost_aix_fc_no_command_resource_total{adapter="fcs0"}`:    "1342",
		`dbhost_aix_fc_max_xfer_size_bytes{adapter="fcs1"}`:          "1.048576e+06",
		`dbhost_aix_page_pool_bytes{page_size_bytes="16777216"}`:     "0", // read, and empty
		`dbhost_aix_page_pool_pinned_bytes{page_size_bytes="65536"}`: "5.12e+08",
		`dbhost_aix_disk_queue_depth{disk="hdisk10"}`:                "1",
		`dbhost_aix_fc_port_speed_bytes_per_second{adapter="fcs0"}`:  "1e+09",
	} {
		if got[k] != want {
			t.Errorf("%s = %q, want %q", k, got[k], want)
		}
	}
	if _, ok := got[`dbhost_aix_fc_no_command_resource_total{adapter="fcs1"}`]; ok {
		t.Error("fcs1's fcstat failed: its counters are absent, not a series")
	}
	// The interval reports averaged: hdisk1's sqfull from its reports 2 and 3.
	var sq float64
	n := 0
	for _, d := range a.Disks {
		if d.Name == "hdisk1" {
			for _, r := range d.IOStat[1:] {
				sq += *r.SQFull
				n++
			}
		}
	}
	if want := strconv.FormatFloat(sq/float64(n), 'g', -1, 64); got[`dbhost_aix_disk_sqfull_per_second{disk="hdisk1"}`] != want {
		t.Errorf("hdisk1 sqfull %s, want %s", got[`dbhost_aix_disk_sqfull_per_second{disk="hdisk1"}`], want)
	}

	// AIX 6.1: lssrad missing, so no SRAD series.
	s61, err := snapshot.Load("../facts/aix/testdata/golden/aix61.json")
	if err != nil {
		t.Fatal(err)
	}
	if s61.AIX.SRADs != nil {
		t.Fatal("the 6.1 bundle now has lssrad: the test wants it missing")
	}
	for k := range series(s61) {
		if strings.HasPrefix(k, "dbhost_aix_srad_") {
			t.Errorf("%s: lssrad is absent on this host, no series", k)
		}
	}
	linux, err := snapshot.Load("../../testdata/golden/odd-8n.json")
	if err != nil {
		t.Fatal(err)
	}
	if g := series(linux); len(g) != 0 {
		t.Errorf("a Linux host has AIX series: %v", g)
	}
}

// dbhost_node_interrupts_total: numbered rows only (LOC is the local timer,
// not a device), columns by their CPU id (an offline CPU leaves a gap), a
// node with CPUs and no device interrupts at 0; no series when
// /proc/interrupts was not read.
func TestPrometheusNodeInterrupts(t *testing.T) {
	s := &snapshot.Snapshot{}
	s.Topology.CPUs = []snapshot.CPU{{ID: 0, Node: 0}, {ID: 1, Node: 0}, {ID: 2, Node: 1}, {ID: 3, Node: 1}, {ID: 4, Node: 2}, {ID: 5, Node: -1}}
	if got := nodeInterrupts(s); len(got) != 0 {
		t.Errorf("no /proc/interrupts: %v", got)
	}
	s.IRQs = snapshot.IRQs{CPUs: []int{0, 1, 3, 4}, IRQs: []snapshot.IRQ{
		{IRQ: "24", Counts: []uint64{10, 5, 100, 0}},
		{IRQ: "25", Counts: []uint64{1, 0, 0}}, // fewer columns
		{IRQ: "LOC", Counts: []uint64{1000, 1000, 1000, 1000}},
	}}
	got := nodeInterrupts(s)
	want := map[int]uint64{0: 16, 1: 100, 2: 0}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("node %d: %d, want %d (all %v)", k, got[k], v, got)
		}
	}
}

// Issue 25: the exporter labels each node's kind of memory.
func TestPrometheusNodeKinds(t *testing.T) {
	s, err := snapshot.Load("../../testdata/golden/power9-gpu.json")
	if err != nil {
		t.Fatal(err)
	}
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadMixed, DB: "none"})
	b, err := FindingsPrometheus(Audit{Report: rep, Snap: s, At: time.Unix(1_800_000_000, 0), Version: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`dbhost_node_memory_kind{kind="dram",node="8"} 1`, `dbhost_node_memory_kind{kind="movable",node="252"} 1`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("metrics lack %s", w)
		}
	}
}

// A live server that could not be read is dbhost_database_up 0 with its
// engine and connection; one read is 1; a snapshot without servers has no
// series (absent is not zero); a server named twice is one series.
func TestPrometheusDatabaseUp(t *testing.T) {
	s, err := snapshot.Load("../../testdata/golden/odd-8n.json")
	if err != nil {
		t.Fatal(err)
	}
	s.Databases = nil
	a := Audit{Report: rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadMixed, DB: "none"}), Snap: s, At: time.Unix(1_800_000_000, 0), Version: "t"}
	b, err := FindingsPrometheus(a)
	if err != nil || strings.Contains(string(b), "dbhost_database_up") {
		t.Fatalf("no server: %v\n%s", err, b)
	}
	bad := snapshot.Database{Engine: "postgres", Connection: "user=m host=127.0.0.1 port=5432 dbname=postgres", Error: `FATAL: password authentication failed for user "m"`}
	good := snapshot.Database{Engine: "mariadb", Connection: "root@unix(/run/mysqld/mysqld.sock)/", User: "root@localhost"}
	s.Databases = []snapshot.Database{bad, good, bad}
	a.Report = rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadMixed, DB: "postgres"})
	if b, err = FindingsPrometheus(a); err != nil {
		t.Fatal(err)
	}
	out := string(b)
	for _, want := range []string{
		`dbhost_database_up{engine="postgres",instance="user=m host=127.0.0.1 port=5432 dbname=postgres"} 0` + "\n",
		`dbhost_database_up{engine="mariadb",instance="root@unix(/run/mysqld/mysqld.sock)/"} 1` + "\n",
	} {
		if strings.Count(out, want) != 1 {
			t.Errorf("want one %q in:\n%s", want, out)
		}
	}
}
