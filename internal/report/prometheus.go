package report

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"
)

// Audit is one audit of one host as the Prometheus metrics expose it: the
// report, the snapshot it was made from, when it ran and how long it took.
// Prev, when set, is the previous audit's snapshot of the same host: per-node
// CPU busy is measured between the two.
type Audit struct {
	Report   rules.Report
	Snap     *snapshot.Snapshot
	At       time.Time
	Duration time.Duration
	Prev     *snapshot.Snapshot
	Version  string // dbhost's
	// The build behind Version (internal/version), for dbhost_build_info.
	Revision, GoVersion string
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("dbhost_"+name, help, labels, nil)
}

var (
	descFinding = desc("finding", "One finding of the audit: 1 per rule and setting that fails (severity, area, the setting it is about).",
		"rule", "severity", "area", "setting")
	descFindings  = desc("findings", "Findings of the last audit by severity.", "severity")
	descRules     = desc("rules", "Rules of the last audit by result: failing, passed, could_not_check, not_applicable, skipped.", "result")
	descInfo      = desc("info", "The audited host and the audit's scope (value 1).", "host", "kernel", "workload", "db", "version")
	descBuild     = desc("build_info", "The dbhost build that ran the audit (value 1): its version, VCS commit (empty when not recorded) and Go toolchain.", "version", "revision", "goversion")
	descLastAudit = desc("last_audit_timestamp_seconds", "When the last audit ran (Unix time).")
	descAuditTime = desc("audit_duration_seconds", "How long the last audit took (facts read and rules run).")
	descNodeMem   = desc("node_memory_bytes", "Memory of a NUMA node (node meminfo MemTotal).", "node")
	descNodeKind  = desc("node_memory_kind", "Always 1: what a NUMA node's memory is (dram, pmem, cxl, hbm, far, movable, cpu-only, empty, unknown), from the kernel files the snapshot quotes.", "node", "kind")
	descNodeFree  = desc("node_memory_free_bytes", "Free memory of a NUMA node (node meminfo MemFree).", "node")
	descNodeHuge  = desc("node_hugepages", "Hugepages of one size allocated on a NUMA node (nr_hugepages).", "node", "size_bytes")
	descNodeHFree = desc("node_hugepages_free", "Free hugepages of one size on a NUMA node (free_hugepages).", "node", "size_bytes")
	descNodeCPU   = desc("node_cpu_seconds_total", "CPU time of a NUMA node's online CPUs since boot (/proc/stat): busy (user, nice, system, irq, softirq, steal) or idle (idle, iowait).", "node", "mode")
	descNodeBusy  = desc("node_cpu_busy_ratio", "Share of a NUMA node's CPU time that was busy between the last two audits (0 to 1).", "node")
	descNumaMiss  = desc("numa_miss_total", "Pages allocated on a node other than the one asked for (vmstat numa_miss).")
	descNumaFrgn  = desc("numa_foreign_total", "Pages meant for a node but allocated elsewhere (vmstat numa_foreign).")
	descNumaHit   = desc("numa_hit_total", "Pages allocated on the node asked for (vmstat numa_hit).")
	descNodeIRQ   = desc("node_interrupts_total", "Device interrupts served by a NUMA node's CPUs since boot (/proc/interrupts, numbered rows: a node's share of the host's is where its devices' IRQs land).", "node")
	descNumaMigr  = desc("numa_pages_migrated_total", "Pages moved by automatic NUMA balancing (vmstat numa_pages_migrated).")
	descPgMigrate = desc("pages_migrated_total", "Pages migrated successfully, by any cause (vmstat pgmigrate_success).")
	descAbsent    = desc("facts_absent", "Facts the last audit could not read (not present, permission denied, malformed).")
	descDBUp      = desc("database_up", "1 when a live database server (--pg, --mysql, --db as root) was read, 0 when it could not be (refused, wrong password, timeout: its rules could not check).", "engine", "instance")

	// An AIX host (the snapshot's aix section): the equivalents of the
	// per-node gauges, from lssrad -av, svmon -G, fcstat -e, lsattr -El,
	// vmstat -v and iostat -D.
	descAIXSRADMem    = desc("aix_srad_memory_bytes", "Memory of an AIX SRAD (lssrad -av MEM).", "srad", "ref1")
	descAIXSRADCPUs   = desc("aix_srad_cpus", "Logical CPUs of an AIX SRAD (lssrad -av CPU).", "srad", "ref1")
	descAIXPoolSize   = desc("aix_page_pool_bytes", "Size of an AIX page size pool with a fixed size (svmon -G PoolSize x page size: the 16 MB pool is vmo lgpg_regions pages).", "page_size_bytes")
	descAIXPoolInuse  = desc("aix_page_pool_inuse_bytes", "Memory in use in pages of one size (svmon -G inuse, 4 KB frames).", "page_size_bytes")
	descAIXPoolPin    = desc("aix_page_pool_pinned_bytes", "Pinned memory in pages of one size (svmon -G pin, 4 KB frames).", "page_size_bytes")
	descAIXBlocked    = desc("aix_io_blocked_total", "I/Os blocked for want of a buffer since boot (vmstat -v \"... I/Os blocked with no pbuf|psbuf|fsbuf\"): buffer pbuf (LVM), psbuf (paging space), fsbuf (JFS), client_fsbuf (NFS, VxFS), external_pager_fsbuf (JFS2).", "buffer")
	descAIXFCNoDMA    = desc("aix_fc_no_dma_resource_total", "fcstat -e No DMA Resource Count of a Fibre Channel adapter (max_xfer_size too small when it grows).", "adapter")
	descAIXFCNoElems  = desc("aix_fc_no_adapter_elements_total", "fcstat -e No Adapter Elements Count of a Fibre Channel adapter.", "adapter")
	descAIXFCNoCmd    = desc("aix_fc_no_command_resource_total", "fcstat -e No Command Resource Count of a Fibre Channel adapter (num_cmd_elems too small when it grows).", "adapter")
	descAIXFCCmdElems = desc("aix_fc_num_cmd_elems", "num_cmd_elems of a Fibre Channel adapter (lsattr -El fcsN): commands it may have outstanding.", "adapter")
	descAIXFCXfer     = desc("aix_fc_max_xfer_size_bytes", "max_xfer_size of a Fibre Channel adapter (lsattr -El fcsN).", "adapter")
	descAIXFCSpeed    = desc("aix_fc_port_speed_bytes_per_second", "Running port speed of a Fibre Channel adapter (fcstat -e Port Speed (running), N GBIT as N x 10^9 / 8 bytes per second).", "adapter")
	descAIXQDepth     = desc("aix_disk_queue_depth", "queue_depth of an hdisk (lsattr -El hdiskN).", "disk")
	descAIXSQFull     = desc("aix_disk_sqfull_per_second", "Times per second an hdisk's service queue was full (iostat -D sqfull, the interval reports averaged; the since-boot report when there is none).", "disk")
	descAIXReadServ   = desc("aix_disk_read_service_seconds", "Average read service time of an hdisk (iostat -D read avgserv, interval reports weighted by reads).", "disk")
	descAIXWriteServ  = desc("aix_disk_write_service_seconds", "Average write service time of an hdisk (iostat -D write avgserv, interval reports weighted by writes).", "disk")
	descAIXQueueTime  = desc("aix_disk_wait_queue_seconds", "Average time an I/O waited in an hdisk's wait queue (iostat -D queue avgtime, interval reports weighted by transfers).", "disk")
)

// Metrics are the audit's metrics, as constant metrics (what the exporter
// serves from its cache and what audit --format prometheus prints).
func (a Audit) Metrics() []prometheus.Metric {
	var out []prometheus.Metric
	// Label values come from the host (names, settings): invalid UTF-8 is
	// replaced, never a reason to fail a scrape, and control characters are
	// escaped as in every text view (the exposition format escapes only
	// newline, quote and backslash: an ESC would reach a terminal raw).
	add := func(d *prometheus.Desc, t prometheus.ValueType, v float64, lv ...string) {
		for i := range lv {
			lv[i] = cleanLine(strings.ToValidUTF8(lv[i], "\uFFFD"))
		}
		out = append(out, prometheus.MustNewConstMetric(d, t, v, lv...))
	}
	gauge := func(d *prometheus.Desc, v float64, lv ...string) { add(d, prometheus.GaugeValue, v, lv...) }
	counter := func(d *prometheus.Desc, v float64, lv ...string) { add(d, prometheus.CounterValue, v, lv...) }
	r, s := a.Report, a.Snap
	// One series per rule and setting: a rule reporting several findings on
	// one setting (rare) is one series at its worst severity.
	type key struct{ rule, setting string }
	worst := map[key]rules.Finding{}
	var keys []key
	bySev := map[string]int{}
	failing := map[string]bool{}
	for _, f := range r.Findings {
		bySev[f.Severity]++
		failing[f.ID] = true
		k := key{f.ID, f.Setting}
		if old, ok := worst[k]; !ok {
			keys = append(keys, k)
			worst[k] = f
		} else if rules.SeverityRank(f.Severity) > rules.SeverityRank(old.Severity) {
			worst[k] = f
		}
	}
	for _, k := range keys {
		f := worst[k]
		gauge(descFinding, 1, f.ID, f.Severity, f.Area, f.Setting)
	}
	for _, sev := range []string{rules.SevCritical, rules.SevWarning, rules.SevInfo} {
		gauge(descFindings, float64(bySev[sev]), sev)
	}
	gauge(descRules, float64(len(failing)), "failing")
	gauge(descRules, float64(len(r.Passed)), "passed")
	gauge(descRules, float64(len(r.CannotCheck)), "could_not_check")
	gauge(descRules, float64(len(r.NotApplicable)), "not_applicable")
	gauge(descRules, float64(len(r.Skipped)), "skipped")
	kernel := s.Host.Kernel
	if kernel == "" && s.AIX != nil && s.AIX.OSLevel != nil {
		kernel = "AIX " + *s.AIX.OSLevel // an AIX host's kernel is its level (oslevel -s)
	}
	gauge(descInfo, 1, r.Host, kernel, r.Workload, r.DB, a.Version)
	gauge(descBuild, 1, a.Version, a.Revision, a.GoVersion)
	gauge(descLastAudit, float64(a.At.UnixNano())/1e9)
	gauge(descAuditTime, a.Duration.Seconds())
	gauge(descAbsent, float64(len(s.Absent)))
	// One series per server; a server named twice is up only when every
	// read of it succeeded (a duplicate series would fail the scrape).
	type dbKey struct{ engine, instance string }
	up := map[dbKey]float64{}
	var dbs []dbKey
	for i := range s.Databases {
		d := &s.Databases[i]
		k := dbKey{d.Engine, d.Connection}
		if _, ok := up[k]; !ok {
			dbs = append(dbs, k)
			up[k] = 1
		}
		if d.Error != "" {
			up[k] = 0
		}
	}
	for _, k := range dbs {
		gauge(descDBUp, up[k], k.engine, k.instance)
	}
	for _, n := range s.Topology.Nodes {
		node := strconv.Itoa(n.ID)
		if n.MemTotalKB != nil {
			gauge(descNodeMem, float64(*n.MemTotalKB)*1024, node)
		}
		if n.MemFreeKB != nil {
			gauge(descNodeFree, float64(*n.MemFreeKB)*1024, node)
		}
		if n.Kind != "" {
			gauge(descNodeKind, 1, node, n.Kind)
		}
		for _, h := range n.Hugepages {
			size := strconv.FormatInt(h.SizeKB*1024, 10)
			gauge(descNodeHuge, float64(h.Total), node, size)
			gauge(descNodeHFree, float64(h.Free), node, size)
		}
	}
	busy, total := nodeTicks(s)
	hz := float64(s.CPULoad.ClockTicks)
	if hz <= 0 {
		hz = 100
	}
	var prevBusy, prevTotal map[int]uint64
	if a.Prev != nil {
		prevBusy, prevTotal = nodeTicks(a.Prev)
	}
	for _, node := range sortedKeys(total) {
		id := strconv.Itoa(node)
		counter(descNodeCPU, float64(busy[node])/hz, id, "busy")
		counter(descNodeCPU, float64(total[node]-busy[node])/hz, id, "idle")
		if pt, ok := prevTotal[node]; ok && total[node] > pt && busy[node] >= prevBusy[node] {
			gauge(descNodeBusy, float64(busy[node]-prevBusy[node])/float64(total[node]-pt), id)
		}
	}
	irqs := nodeInterrupts(s)
	for _, node := range sortedKeys(irqs) {
		counter(descNodeIRQ, float64(irqs[node]), strconv.Itoa(node))
	}
	for _, c := range []struct {
		d   *prometheus.Desc
		key string
	}{
		{descNumaMiss, "numa_miss"}, {descNumaFrgn, "numa_foreign"}, {descNumaHit, "numa_hit"},
		{descNumaMigr, "numa_pages_migrated"}, {descPgMigrate, "pgmigrate_success"},
	} {
		if v, ok := s.Memory.Vmstat[c.key]; ok {
			counter(c.d, float64(v))
		}
	}
	if s.AIX != nil {
		aixMetrics(s.AIX, gauge, counter)
	}
	return out
}

// aixMetrics are an AIX host's gauges and counters: what the aix section
// holds, a series only for a fact that was read (absent is not zero).
func aixMetrics(a *snapshot.AIX, gauge, counter func(*prometheus.Desc, float64, ...string)) {
	for _, r := range a.SRADs {
		srad, ref1 := strconv.Itoa(r.SRAD), strconv.Itoa(r.REF1)
		if r.MemMB != nil {
			gauge(descAIXSRADMem, *r.MemMB*1024*1024, srad, ref1)
		}
		gauge(descAIXSRADCPUs, float64(len(r.CPUs)), srad, ref1)
	}
	for _, p := range a.PagePools {
		size := strconv.FormatInt(p.SizeKB*1024, 10)
		if p.PoolSize != nil {
			gauge(descAIXPoolSize, float64(*p.PoolSize)*float64(p.SizeKB)*1024, size)
		}
		if p.Inuse != nil {
			gauge(descAIXPoolInuse, float64(*p.Inuse)*4096, size)
		}
		if p.Pin != nil {
			gauge(descAIXPoolPin, float64(*p.Pin)*4096, size)
		}
	}
	for _, b := range aixBlockedCounters {
		if v, ok := a.VmstatV[b.Label]; ok {
			counter(descAIXBlocked, v, b.Buffer)
		}
	}
	for _, f := range a.FCAdapters {
		for _, c := range []struct {
			d *prometheus.Desc
			v *int64
			t func(*prometheus.Desc, float64, ...string)
		}{
			{descAIXFCNoDMA, f.NoDMAResourceCount, counter}, {descAIXFCNoElems, f.NoAdapterElementsCount, counter},
			{descAIXFCNoCmd, f.NoCommandResourceCount, counter}, {descAIXFCCmdElems, f.NumCmdElems, gauge}, {descAIXFCXfer, f.MaxXferSize, gauge},
		} {
			if c.v != nil {
				c.t(c.d, float64(*c.v), f.Name)
			}
		}
		if f.PortSpeedGbit != nil {
			gauge(descAIXFCSpeed, *f.PortSpeedGbit*1e9/8, f.Name)
		}
	}
	for _, d := range a.Disks {
		if d.QueueDepth != nil {
			gauge(descAIXQDepth, float64(*d.QueueDepth), d.Name)
		}
		io, ok := aixDiskStats(d)
		if !ok {
			continue
		}
		for _, c := range []struct {
			d     *prometheus.Desc
			v     *float64
			scale float64
		}{
			{descAIXSQFull, io.SQFull, 1}, {descAIXReadServ, io.ReadServMS, 1e-3}, {descAIXWriteServ, io.WriteServMS, 1e-3}, {descAIXQueueTime, io.QueueTimeMS, 1e-3},
		} {
			if c.v != nil {
				gauge(c.d, *c.v*c.scale, d.Name)
			}
		}
	}
}

// nodeTicks sums /proc/stat's per-CPU times by NUMA node: busy ticks and
// all ticks.
func nodeTicks(s *snapshot.Snapshot) (busy, total map[int]uint64) {
	nodeOf := map[int]int{}
	for _, c := range s.Topology.CPUs {
		nodeOf[c.ID] = c.Node
	}
	busy, total = map[int]uint64{}, map[int]uint64{}
	for _, t := range s.CPULoad.PerCPU {
		node, ok := nodeOf[t.CPU]
		if !ok || node < 0 {
			continue
		}
		b := t.User + t.Nice + t.System + t.IRQ + t.SoftIRQ + t.Steal
		busy[node] += b
		total[node] += b + t.Idle + t.IOWait
	}
	return busy, total
}

// nodeInterrupts sums /proc/interrupts' numbered (device) rows per node of
// the CPU columns; a node with CPUs but no interrupts counts 0, a host whose
// interrupts were not read has no series.
func nodeInterrupts(s *snapshot.Snapshot) map[int]uint64 {
	out := map[int]uint64{}
	if len(s.IRQs.CPUs) == 0 {
		return out
	}
	nodeOf := map[int]int{}
	for _, c := range s.Topology.CPUs {
		if c.Node >= 0 {
			nodeOf[c.ID] = c.Node
			out[c.Node] += 0
		}
	}
	for _, q := range s.IRQs.IRQs {
		if _, err := strconv.Atoi(q.IRQ); err != nil {
			continue
		}
		for k, n := range q.Counts {
			if k >= len(s.IRQs.CPUs) {
				break
			}
			if node, ok := nodeOf[s.IRQs.CPUs[k]]; ok {
				out[node] += n
			}
		}
	}
	return out
}

func sortedKeys(m map[int]uint64) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

// MetricsCollector serves a fixed set of metrics (Describe sends nothing:
// an unchecked collector, its series vary with the host).
type MetricsCollector func() []prometheus.Metric

// Describe implements prometheus.Collector.
func (MetricsCollector) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector.
func (m MetricsCollector) Collect(ch chan<- prometheus.Metric) {
	for _, x := range m() {
		ch <- x
	}
}

// FindingsPrometheus renders one audit in the Prometheus text format, for
// node_exporter's textfile collector (no timestamps, no process metrics).
func FindingsPrometheus(a Audit) ([]byte, error) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(MetricsCollector(a.Metrics)); err != nil {
		return nil, err
	}
	mfs, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}
