package artifacts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reports in testdata/awr were written for these tests after the
// layouts awrrpt.sql, awrgrpt.sql and sprepins.sql print (see docs/awr.md);
// their numbers follow the seed documents' cases: 000 Table 10 (library
// cache mutex on an 8-socket host), 001 (caging: resmgr:cpu quantum;
// remote NUMA memory: 2.1 M logical reads/s), 002 (enq: HW - contention with
// BasicFile LOBs), 004 (log file sync 28 ms with demoted redo I/O on AIX).

func readAWR(t *testing.T, name string) *AWRReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "awr", name))
	if err != nil {
		t.Fatal(err)
	}
	r, errs := ParseAWR(b)
	if len(errs) > 0 {
		t.Fatalf("%s: %v", name, errs)
	}
	return r
}

func fv(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func iv(p *int64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

func sv(p *string) string {
	if p == nil {
		return "null"
	}
	return *p
}

// ev renders an event row compactly: "name waits time avg pct class".
func ev(e AWREvent) string {
	return strings.Join([]string{e.Event, iv(e.Waits), fv(e.TimeS), fv(e.AvgMS), fv(e.PctDBTime), sv(e.WaitClass)}, "|")
}

func TestParseAWRReports(t *testing.T) {
	type want struct {
		kind, format, db, inst, version string
		dbid                            string
		rac, global                     bool
		host                            string // name|platform|cpus|cores|sockets|memgb
		snaps                           string // begin-end elapsed dbtime
		load                            string // dbtime dbcpu lio pio redo tx
		top                             []string
		classes                         int
		sections                        []string // must be among Sections
	}
	cases := map[string]want{
		"awrrpt_1_412_413_12102.txt": {
			kind: "awr", format: "text", db: "NUKYD", inst: "NUKYD1", version: "12.1.0.2.0", dbid: "873125606",
			host:  "sdx-db01|Linux x86 64-bit|240|120|8|2015.62",
			snaps: "412-413 5.03 848.18",
			load:  "168.6 97.1 3.1042205e+06 33871.4 5.24183376e+07 3027.9",
			top: []string{
				"DB CPU|null|29300|null|57.6|null",
				"library cache: mutex X|862670|1458.5|1.69|2.9|Concurre",
				"latch: enqueue hash chains|261074|1438|5.51|2.8|Other",
				"log file sync|25302|203.7|8.05|0.4|Commit",
			},
			classes:  9,
			sections: []string{"Top 10 Foreground Events by Total Wait Time", "Wait Classes by Total Wait Time", "Host CPU", "init.ora Parameters"},
		},
		"awrrpt_1_205_206_11203.txt": {
			kind: "awr", format: "text", db: "LOBTEST", inst: "lobtest", version: "11.2.0.3.0", dbid: "1936027165",
			host:  "labdb02.example.|Linux x86 64-bit|8|4|1|31.33",
			snaps: "205-206 24.92 47.52",
			load:  "1.9 0.1 14806.4 194.3 1.8043112e+06 60.6",
			top: []string{
				"enq: HW - contention|62717|918|15|32.2|Configurat",
				"direct path write|93156|277|3|9.7|User I/O",
				"db file sequential read|64995|199|3|7|User I/O",
				"DB CPU|null|91|null|3.2|null",
				"buffer busy waits|26578|1|0|0|Concurrenc",
			},
			classes:  5,
			sections: []string{"Top 5 Timed Foreground Events", "Foreground Wait Class", "Instance CPU", "Memory Statistics", "Cache Sizes"},
		},
		"awrrpt_2_2201_2202_19c_rac.html": {
			kind: "awr", format: "html", db: "RAC19", inst: "RAC192", version: "19.0.0.0.0", dbid: "3312704751", rac: true,
			host:  "racnode2|Linux x86 64-bit|64|32|2|754.52",
			snaps: "2201-2202 60.02 360.3",
			load:  "6 2.3 402118.3 618.9 3.1184407e+06 503.4",
			top: []string{
				"db file sequential read|2061337|8677.7|4.21|40.1|User I/O",
				"DB CPU|null|8236.4|null|38.1|null",
				"log file sync|1210004|2964.5|2.45|13.7|Commit",
				"gc buffer busy acquire|98002|1097.6|11.2|5.1|Cluster",
				"direct path read|43110|393.2|9.12|1.8|User I/O",
				"gc cr block 2-way|501220|210.8|0.42051|1|Cluster",
				"enq: TX - index contention|9811|87.3|8.9|0.4|Concurrency",
				"gc current block 2-way|188003|71.5|0.3802|0.3|Cluster",
				"log file switch completion|55|17.1|310.98|0.1|Configuration",
				"PGA memory operation|1200000|12.1|0.0101|0.1|Other",
			},
			classes:  9,
			sections: []string{"instance", "Instance Activity Stats", "Instance CPU", "Operating System Statistics"},
		},
		"awrrpt_1_1211_1212_10204.txt": {
			kind: "awr", format: "text", db: "MTP10G", inst: "mtp10g", version: "10.2.0.4.0", dbid: "1802931047",
			host:  "p570lp3||16|8|null|64",
			snaps: "1211-1212 60.47 1201.15",
			load:  "null null 101224.71 2101.47 1.81140233e+06 401.69",
			top: []string{
				"log file sync|2229324|62628|28|58.2|Commit",
				"log file parallel write|1380115|33120|24|30.8|System I/O",
				"CPU time|null|6102|null|5.7|null",
			},
			classes:  4,
			sections: []string{"Top 5 Timed Events", "Wait Class", "Wait Events", "Background Wait Events"},
		},
		"awrrpt_1_3301_3302_10205.html": {
			kind: "awr", format: "html", db: "PROD10", inst: "prod10", version: "10.2.0.5.0", dbid: "4011237881",
			host:  "lxdb07||4|null|null|16",
			snaps: "3301-3302 60.2 470.44",
			load:  "null null 48207.11 3401.76 2.91833012e+06 179.88",
			top: []string{
				"free buffer waits|902117|10411|12|36.9|Configuration",
				"db file sequential read|6114002|8902|1|31.5|User I/O",
				"log buffer space|41220|3011|73|10.7|Configuration",
				"CPU time|null|2604|null|9.2|null",
			},
			sections: []string{"Top 5 Timed Events", "Wait Events", "Operating System Statistics", "init.ora Parameters"},
		},
		"awrgrpt_510_511_23ai.html": {
			kind: "awr", format: "html", db: "RAC23", inst: "", version: "23.0.0.0.0", dbid: "1244102881", rac: true, global: true,
			host:  "||96|48|2|null",
			snaps: "510-511 60.04 2904.66",
			load:  "null null null null null null",
			top: []string{
				"DB CPU|null|101223.6|null|58.08|null",
				"resmgr:cpu quantum|2411002|51804.2|21.49|29.72|Scheduler",
				"cell single block physical read|30114220|9611.9|0.31918|5.51|User I/O",
			},
			sections: []string{"Database Summary", "Database Instances Included In Report", "Top Timed Events"},
		},
		"sp_31_32_12102_crlf.lst": {
			kind: "statspack", format: "text", db: "BDT12CG", inst: "bdt12cg_1", version: "12.1.0.2.0", dbid: "2214339901",
			host:  "bdtsrv|Linux x86 64-bit|160|80|8|1511.5",
			snaps: "31-32 3.03 24.34",
			load:  "8 7.8 2.1338796e+06 0.1 2801.3 0",
			top: []string{
				"CPU time|null|1426|null|97.7|null",
				"latch: cache buffers chains|18441|11|1|0.8|null",
			},
			sections: []string{"Top 5 Timed Events", "Instance Efficiency Indicators", "Time Model System Stats", "Instance Activity Stats"},
		},
		"sp_8811_8812_9208.lst": {
			kind: "statspack", format: "text", db: "FIN92", inst: "fin92", version: "9.2.0.8.0", dbid: "3718405217",
			host:  "hpfin01||null|null|null|null",
			snaps: "8811-8812 60.02 null",
			load:  "null null 61804.21 4117.02 412337.15 42.03",
			top: []string{
				"db file sequential read|12210448|69114|null|61.82|null",
				"CPU time|null|21330|null|19.08|null",
				"free buffer waits|411220|9912|null|8.87|null",
			},
			sections: []string{"Top 5 Timed Events", "Wait Events for DB: FIN92", "Background Wait Events for DB: FIN92"},
		},
		"sp_551_552_8174.lst": {
			kind: "statspack", format: "text", db: "LEGACY", inst: "legacy", version: "8.1.7.4.0", dbid: "72119030",
			host:  "sun4u-db1||null|null|null|null",
			snaps: "551-552 60.02 null",
			load:  "null null 22041.89 1203.44 98114.21 24.52",
			top: []string{
				// Wait Time (cs): 2,114,830 centiseconds.
				"db file sequential read|3411024|21148.3|null|58.12|null",
			},
			sections: []string{"Top 5 Wait Events"},
		},
	}
	for name, w := range cases {
		t.Run(name, func(t *testing.T) {
			r := readAWR(t, name)
			got := fmt.Sprintf("%s %s %s %s %s %s %v %v", r.Kind, r.Format, r.DBName, r.Instance, r.Version, iv(r.DBID), r.RAC, r.Global)
			if exp := fmt.Sprintf("%s %s %s %s %s %s %v %v", w.kind, w.format, w.db, w.inst, w.version, w.dbid, w.rac, w.global); got != exp {
				t.Errorf("identity = %q, want %q", got, exp)
			}
			h := r.Host
			if got := strings.Join([]string{h.Name, h.Platform, iv(h.CPUs), iv(h.Cores), iv(h.Sockets), fv(h.MemoryGB)}, "|"); got != w.host {
				t.Errorf("host = %q, want %q", got, w.host)
			}
			if got := fmt.Sprintf("%s-%s %s %s", iv(r.BeginSnap), iv(r.EndSnap), fv(r.ElapsedMin), fv(r.DBTimeMin)); got != w.snaps {
				t.Errorf("snaps = %q, want %q", got, w.snaps)
			}
			lp := r.LoadProfile
			if got := strings.Join([]string{fv(lp.DBTimePerS), fv(lp.DBCPUPerS), fv(lp.LogicalReadsPerS), fv(lp.PhysicalReadsPerS),
				fv(lp.RedoBytesPerS), fv(lp.TransactionsPerS)}, " "); got != w.load {
				t.Errorf("load profile = %q, want %q", got, w.load)
			}
			if len(r.TopEvents) < len(w.top) {
				t.Fatalf("top events: %d, want at least %d: %+v", len(r.TopEvents), len(w.top), r.TopEvents)
			}
			for i, exp := range w.top {
				if got := ev(r.TopEvents[i]); got != exp {
					t.Errorf("top event %d = %q, want %q", i, got, exp)
				}
			}
			if w.classes > 0 && len(r.WaitClasses) != w.classes {
				t.Errorf("wait classes: %d, want %d", len(r.WaitClasses), w.classes)
			}
			for _, s := range w.sections {
				found := false
				for _, x := range r.Sections {
					if strings.HasPrefix(x, s) {
						found = true
					}
				}
				if !found {
					t.Errorf("section %q not read; sections %q", s, r.Sections)
				}
			}
		})
	}
}

// Details the diagnoses read, per layout.
func TestParseAWRDetails(t *testing.T) {
	r := readAWR(t, "awrrpt_1_412_413_12102.txt")
	// A value SQL*Plus wrapped within its column (33 characters wide) is
	// joined back without a blank when it filled the column.
	if v, line, ok := r.Param("control_files"); !ok || v != "+DATA/NUKYD/CONTROLFILE/current.261.876220397, +FRA/NUKYD/CONTROLFILE/current.256.876220397" || line == 0 {
		t.Errorf("control_files = %q line %d", v, line)
	}
	// Names the report cut at 26 characters are kept as printed and still
	// match the full name.
	e, ok := r.Event("latch: In memory undo latch")
	if !ok || e.Event != "latch: In memory undo latch" {
		t.Errorf("top event lookup: %+v %v", e, ok)
	}
	found := false
	for _, e := range r.ForegroundEvents {
		if e.Event == "latch: In memory undo latc" && EventIs(e.Event, "latch: In memory undo latch") {
			found = true
		}
	}
	if !found {
		t.Errorf("truncated foreground event not kept as printed: %+v", r.ForegroundEvents)
	}
	if e, ok := r.Event("log file parallel write"); !ok || fv(e.AvgMS) != "2" || fv(e.PctDBTime) != "15.2" {
		t.Errorf("background event: %+v", e)
	}
	if r.HostCPU == nil || fv(r.HostCPU.LoadEnd) != "212.77" || fv(r.HostCPU.PctIdle) != "38.1" {
		t.Errorf("host cpu: %+v", r.HostCPU)
	}
	if r.InstanceCPU == nil || fv(r.InstanceCPU.PctBusyCPU) != "72.1" || fv(r.InstanceCPU.PctDBTimeWaitingCPURM) != "0" {
		t.Errorf("instance cpu: %+v", r.InstanceCPU)
	}
	if r.OSStats["NUM_CPUS"] != 240 || r.OSStats["PHYSICAL_MEMORY_BYTES"] != 2164259569664 {
		t.Errorf("os stats: %v", r.OSStats)
	}
	if s := r.Stats["session logical reads"]; fv(s.PerSecond) != "3.1042205e+06" || fv(s.Total) != "9.36763204e+08" {
		t.Errorf("instance stats: %+v", s)
	}
	if r.TimeModel["DB time"] != 50890.8 || r.Efficiency["Latch Hit %"] != 99.12 {
		t.Errorf("time model %v efficiency %v", r.TimeModel, r.Efficiency)
	}
	if r.Memory == nil || fv(r.Memory.SGAUseMB) != "614400" || fv(r.Memory.PGAUseMB) != "10311.6" {
		t.Errorf("memory: %+v", r.Memory)
	}
	if r.Where(AWRSectionTopEvents) != ":49" {
		t.Errorf("where = %q", r.Where(AWRSectionTopEvents))
	}

	r = readAWR(t, "awrrpt_1_205_206_11203.txt")
	if s := r.Stats["physical writes direct (lob)"]; fv(s.Total) != "125316" {
		t.Errorf("lob writes: %+v", s)
	}
	if v, _, _ := r.Param("memory_target"); v != "2684354560" {
		t.Errorf("memory_target %q", v)
	}
	if r.Memory == nil || fv(r.Memory.LogBufferKB) != "7044" || fv(r.Memory.BufferCacheMB) != "1536" {
		t.Errorf("cache sizes: %+v", r.Memory)
	}

	r = readAWR(t, "awrrpt_2_2201_2202_19c_rac.html")
	// Units in the cells: 420.48us and 10.10us in ms.
	if e, ok := r.Event("log file parallel write"); !ok || fv(e.AvgMS) != "0.42048" {
		t.Errorf("lfpw: %+v", e)
	}
	if r.InstanceCPU == nil || fv(r.InstanceCPU.PctBusyCPU) != "4.8" || r.HostCPU == nil || fv(r.HostCPU.PctIdle) != "9.5" {
		t.Errorf("cpu: %+v %+v", r.InstanceCPU, r.HostCPU)
	}
	if s := r.Stats["free buffer requested"]; fv(s.PerSecond) != "666.9" {
		t.Errorf("stats from the full list: %+v", s)
	}
	if v, _, _ := r.Param("use_large_pages"); v != "ONLY" {
		t.Errorf("use_large_pages %q", v)
	}

	r = readAWR(t, "sp_31_32_12102_crlf.lst")
	// Statspack repeats the page title and headings every 60 lines.
	if s := r.Stats["session logical reads"]; fv(s.PerSecond) != "2.1338796e+06" {
		t.Errorf("stats after the page break: %+v (%v)", s, r.Stats)
	}
	if v, _, _ := r.Param("_enable_NUMA_support"); v != "FALSE" {
		t.Errorf("_enable_NUMA_support %q", v)
	}

	r = readAWR(t, "awrgrpt_510_511_23ai.html")
	if len(r.Instances) != 2 || r.Instances[1].Name != "RAC232" || len(r.Instances[1].TopEvents) != 3 ||
		ev(r.Instances[1].TopEvents[1]) != "resmgr:cpu quantum|786999|14901.9|18.94|20.64|Scheduler" {
		t.Errorf("instances: %+v", r.Instances)
	}
}

// The same report with CR LF line ends, tabs for blanks, or a byte order
// mark parses to the same result.
func TestParseAWRLineEnds(t *testing.T) {
	for _, name := range []string{"awrrpt_1_412_413_12102.txt", "awrrpt_1_205_206_11203.txt", "sp_8811_8812_9208.lst", "awrrpt_2_2201_2202_19c_rac.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", "awr", name))
		if err != nil {
			t.Fatal(err)
		}
		base, errs := ParseAWR(b)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		want, _ := json.Marshal(base)
		crlf := bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
		bom := append([]byte("\xef\xbb\xbf"), b...)
		for what, v := range map[string][]byte{"crlf": crlf, "bom": bom} {
			r, errs := ParseAWR(v)
			if len(errs) > 0 {
				t.Fatalf("%s %s: %v", name, what, errs)
			}
			if got, _ := json.Marshal(r); !bytes.Equal(got, want) {
				t.Errorf("%s %s: differs:\n%s\n%s", name, what, got, want)
			}
		}
	}
	// A text report whose column runs were turned into tabs (8-column stops).
	b, _ := os.ReadFile(filepath.Join("testdata", "awr", "awrrpt_1_205_206_11203.txt"))
	var tabbed bytes.Buffer
	for _, l := range strings.Split(string(b), "\n") {
		tabbed.WriteString(unexpand(l) + "\n")
	}
	r, errs := ParseAWR(tabbed.Bytes())
	if len(errs) > 0 || len(r.TopEvents) != 5 || ev(r.TopEvents[0]) != "enq: HW - contention|62717|918|15|32.2|Configurat" {
		t.Errorf("tabs: %v %+v", errs, r.TopEvents)
	}
}

// unexpand turns runs of blanks that reach an 8-column stop into tabs, as
// unexpand(1) -a does.
func unexpand(l string) string {
	var b strings.Builder
	col, pending := 0, 0
	for _, c := range l {
		if c == ' ' {
			pending++
			col++
			if col%8 == 0 {
				if pending > 1 {
					b.WriteByte('\t')
				} else {
					b.WriteByte(' ')
				}
				pending = 0
			}
			continue
		}
		b.WriteString(strings.Repeat(" ", pending))
		pending = 0
		b.WriteRune(c)
		col++
	}
	return b.String()
}

func TestParseAWRNum(t *testing.T) {
	for _, c := range []struct {
		in   string
		v    float64
		unit string
		ok   bool
	}{
		{"62,717", 62717, "", true}, {"1,234,567.8", 1234567.8, "", true}, {".4", 0.4, "", true}, {"29.3K", 29300, "", true},
		{"1.2K", 1200, "", true}, {"3.4M", 3400000, "", true}, {"420.51us", 420.51, "us", true}, {"2.45ms", 2.45, "ms", true},
		{"1.2s", 1.2, "s", true}, {"1.234.567,5", 1234567.5, "", true}, {"1,5", 1.5, "", true}, {"  7.8 ", 7.8, "", true},
		{"-3", -3, "", true}, {"89.92 (mins)", 0, "", false}, {"N/A", 0, "", false}, {"####", 0, "", false}, {"", 0, "", false},
		{"&#160;", 0, "", false}, {"1e309", 0, "", false}, {"12 345", 12345, "", true},
	} {
		n, ok := parseAWRNum(c.in)
		if ok != c.ok || ok && (math.Abs(n.v-c.v) > 1e-9 || n.unit != c.unit) {
			t.Errorf("parseAWRNum(%q) = %+v %v, want %v %q %v", c.in, n, ok, c.v, c.unit, c.ok)
		}
	}
	if got := (awrNum{v: 420.51, unit: "us"}).toMS("ms"); math.Abs(got-0.42051) > 1e-12 {
		t.Errorf("us → ms: %v", got)
	}
	if got := (awrNum{v: 250}).toS("cs"); got != 2.5 {
		t.Errorf("cs → s: %v", got)
	}
}

// The JSON contract: field names and types (waits an integer, null where
// the report gives no value).
func TestAWRJSONContract(t *testing.T) {
	r := readAWR(t, "awrrpt_1_412_413_12102.txt")
	r.File = "awrrpt_1_412_413_12102.txt"
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"file", "kind", "format", "db_name", "db_id", "instance", "version", "rac", "host", "begin_snap",
		"end_snap", "elapsed_min", "db_time_min", "load_profile", "top_events", "wait_classes", "os_stats", "parameters"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q in %s", k, b)
		}
	}
	host := m["host"].(map[string]any)
	for _, k := range []string{"name", "platform", "cpus", "cores", "sockets", "memory_gb"} {
		if _, ok := host[k]; !ok {
			t.Errorf("host has no %q", k)
		}
	}
	lp := m["load_profile"].(map[string]any)
	for _, k := range []string{"db_time_per_s", "db_cpu_per_s", "logical_reads_per_s", "physical_reads_per_s", "redo_bytes_per_s", "transactions_per_s"} {
		if _, ok := lp[k]; !ok {
			t.Errorf("load_profile has no %q", k)
		}
	}
	top := m["top_events"].([]any)
	cpu := top[0].(map[string]any)
	if cpu["event"] != "DB CPU" || cpu["waits"] != nil || cpu["avg_ms"] != nil || cpu["wait_class"] != nil || cpu["time_s"] != 29300.0 {
		t.Errorf("DB CPU row: %v", cpu)
	}
	mutex := top[1].(map[string]any)
	if w, ok := mutex["waits"].(float64); !ok || w != 862670 || !strings.Contains(string(b), `"waits":862670,`) {
		t.Errorf("waits not an integer: %v", mutex)
	}
	for _, k := range []string{"event", "waits", "time_s", "avg_ms", "pct_db_time", "wait_class"} {
		if _, ok := mutex[k]; !ok {
			t.Errorf("event has no %q", k)
		}
	}
	if m["db_id"] != 873125606.0 || m["rac"] != false {
		t.Errorf("db_id/rac: %v %v", m["db_id"], m["rac"])
	}
}

func TestParseAWROtherOracleReports(t *testing.T) {
	for in, want := range map[string]string{
		"WORKLOAD REPOSITORY COMPARE PERIOD REPORT\n\nSnapshot Set  DB Id\n": "compare-periods report (awrddrpt.sql) is not read",
		"<html><title>ASH Report For ORCL/orcl</title>":                      "an ASH report",
		"          ADDM Report for Task 'TASK_1234'\n":                       "an ADDM report",
	} {
		_, errs := ParseAWR([]byte(in))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), want) || !strings.Contains(errs[0].Error(), "expected the HTML or text output of awrrpt.sql") {
			t.Errorf("%q: %v", in, errs)
		}
	}
}

func TestParseAWRNotAReport(t *testing.T) {
	for _, in := range []string{"", "hello\n", "*.db_name=X\n", "<html><body><table><tr><td>x</td></tr></table></body></html>",
		"Load Profile\nsomething\n"} {
		_, errs := ParseAWR([]byte(in))
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), "not an AWR or Statspack report: expected") ||
			!strings.Contains(errs[0].Error(), "WORKLOAD REPOSITORY report for") || !strings.Contains(errs[0].Error(), "STATSPACK report for") {
			t.Errorf("%q: %v", in, errs)
		}
		if Recognize([]byte(in)) == KindAWR {
			t.Errorf("%q recognised as AWR", in)
		}
	}
}

// A section the report prints but that cannot be read is an error naming
// it and its line; the rest of the report is still read. A section that is
// missing is no error: its fields stay null.
func TestParseAWRBadAndMissingSections(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "awr", "awrrpt_1_205_206_11203.txt"))
	bad := strings.Replace(string(b), "enq: HW - contention                 62,717         918", "enq: HW - contention                 62,717         ###", 1)
	r, errs := ParseAWR([]byte(bad))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "Top 5 Timed Foreground Events") ||
		!strings.Contains(errs[0].Error(), `event "enq: HW - contention": wait time "###" is not a number`) {
		t.Fatalf("errs = %v", errs)
	}
	var pe *Error
	if e, ok := errs[0].(*Error); ok {
		pe = e
	}
	if pe == nil || pe.Line != 61 {
		t.Errorf("error line: %+v", errs[0])
	}
	if len(r.TopEvents) != 4 || r.LoadProfile.LogicalReadsPerS == nil {
		t.Errorf("rest not read: %+v", r.TopEvents)
	}

	// Cut after the top events: no OS statistics, no parameters, no error.
	i := strings.Index(string(b), "Host CPU")
	r, errs = ParseAWR(b[:i])
	if len(errs) > 0 || len(r.TopEvents) != 5 || len(r.OSStats) != 0 || len(r.Parameters) != 0 || r.HostCPU != nil || r.Has(secOSStats) {
		t.Errorf("truncated: %v %+v", errs, r)
	}

	// Headings the parser cannot map: the section is named.
	weird := strings.Replace(string(b), "Event                                 Waits     Time(s)   (ms)   time Wait Class",
		"Foo                                   Bar       Baz       Qux    Quux Corge", 1)
	_, errs = ParseAWR([]byte(weird))
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "Top 5 Timed Foreground Events: expected columns Event and a wait time") {
		t.Errorf("weird headings: %v", errs)
	}
}

// An excerpt without the report's first lines (Load Profile and the top
// events pasted from a report) is still read.
func TestParseAWRExcerpt(t *testing.T) {
	b, _ := os.ReadFile(filepath.Join("testdata", "awr", "awrrpt_1_205_206_11203.txt"))
	i := strings.Index(string(b), "Load Profile")
	r, errs := ParseAWR(b[i:])
	if len(errs) > 0 || r.Kind != "awr" || len(r.TopEvents) != 5 || r.DBName != "LOBTEST" {
		t.Errorf("excerpt: %v %+v", errs, r)
	}
}

func TestRecognizeAWR(t *testing.T) {
	want := map[string]Kind{
		"awrrpt_1_412_413_12102.txt": KindAWR, "awrrpt_1_205_206_11203.txt": KindAWR, "awrrpt_2_2201_2202_19c_rac.html": KindAWR,
		"awrrpt_1_1211_1212_10204.txt": KindAWR, "awrrpt_1_3301_3302_10205.html": KindAWR, "awrgrpt_510_511_23ai.html": KindAWR,
		"sp_31_32_12102_crlf.lst": KindStatspack, "sp_8811_8812_9208.lst": KindStatspack, "sp_551_552_8174.lst": KindStatspack,
	}
	for f, k := range want {
		b, err := os.ReadFile(filepath.Join("testdata", "awr", f))
		if err != nil {
			t.Fatal(err)
		}
		if got := Recognize(b); got != k {
			t.Errorf("Recognize(%s) = %q, want %q", f, got, k)
		}
	}
}

func TestLoadAWR(t *testing.T) {
	set, errs := Load([]string{"testdata/awr/awrrpt_1_412_413_12102.txt", "testdata/awr/sp_551_552_8174.lst", "testdata/initORCL.ora"})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(set.AWR) != 2 || set.AWR[0].File != "testdata/awr/awrrpt_1_412_413_12102.txt" || set.Files[1].Kind != KindStatspack || len(set.Params) != 1 {
		t.Fatalf("%+v", set)
	}
	// The set's JSON carries the reports.
	b, _ := json.Marshal(set)
	if !strings.Contains(string(b), `"awr_reports":[{"file":"testdata/awr/awrrpt_1_412_413_12102.txt"`) {
		t.Errorf("%s", b[:200])
	}
}

func TestEventIs(t *testing.T) {
	for _, c := range []struct {
		printed, full string
		want          bool
	}{
		{"log file sync", "log file sync", true}, {"Log File  Sync", "log file sync", true},
		{"log file switch (checkpoint in", "log file switch (checkpoint incomplete)", true},
		{"log file", "log file sync", false}, {"db file sequential read", "db file scattered read", false},
		{"latch: In memory undo latc", "latch: In memory undo latch", true},
	} {
		if got := EventIs(c.printed, c.full); got != c.want {
			t.Errorf("EventIs(%q, %q) = %v", c.printed, c.full, got)
		}
	}
}

func FuzzParseAWR(f *testing.F) {
	f.Add([]byte("WORKLOAD REPOSITORY report for\n\nTop 5 Timed Events\n~~~~\nEvent  Waits Time(s)\n----- ----- -----\nx 1 2\n"))
	f.Add([]byte("<html><title>AWR Report for DB: X, Inst: x, Snaps: 1-2</title><p />Load Profile<p /><table><tr><th></th><th>Per Second</th></tr><tr><td>DB Time(s):</td><td>1</td></tr></table>"))
	f.Add([]byte("STATSPACK report for\nLoad Profile\n  Redo size:  1.0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, errs := ParseAWR(b)
		if r == nil {
			t.Fatal("nil report")
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
		for _, e := range errs {
			if e == nil || e.Error() == "" {
				t.Fatal("empty error")
			}
		}
		for _, e := range r.TopEvents {
			if e.Event == "" || e.TimeS == nil {
				t.Fatalf("event without name or time: %+v", e)
			}
		}
	})
}

// Every title pattern is reachable by its first word.
func TestAWRTitleIndex(t *testing.T) {
	n := 0
	for w, ks := range titlesByWord() {
		if w == "" || strings.ContainsAny(w, `\()[]?*+`) {
			t.Errorf("bad first word %q", w)
		}
		n += len(ks)
	}
	if n != len(awrTitles) {
		t.Errorf("%d of %d title patterns indexed", n, len(awrTitles))
	}
	for _, l := range []string{"Top 10 Foreground Events by Total Wait Time", "init.ora Parameters  DB/Inst: X/x", "Host CPU (CPUs: 8 Cores: 4 Sockets: 1)",
		"Key Instance Activity Stats", "OS Statistics By Instance", "Wait Class    DB/Inst: X/x  Snaps: 1-2"} {
		if _, _, ok := titleSection(l); !ok {
			t.Errorf("%q not a title", l)
		}
	}
	for _, l := range []string{"Wait Class                  Waits       Time (sec)", "Time (s)    Executions", "Top SQL with Top Events"} {
		if _, _, ok := titleSection(l); ok {
			t.Errorf("%q taken for a title", l)
		}
	}
}

// A report over the artifact size limit is refused whole (its end holds
// the parameters and statistics), naming the limit; so is a file over it
// that is no report.
func TestLoadAWRSizeLimit(t *testing.T) {
	defer func(old int64) { maxFileSize = old }(maxFileSize)
	maxFileSize = 4096
	b, _ := os.ReadFile(filepath.Join("testdata", "awr", "awrrpt_1_205_206_11203.txt"))
	p := filepath.Join(t.TempDir(), "awrrpt_big.txt")
	os.WriteFile(p, b, 0o644)
	reps, errs := LoadAWR([]string{p})
	if len(reps) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "KiB is more than the 4 KiB limit for an artifact") {
		t.Errorf("LoadAWR: %v %v", reps, errs)
	}
	set, errs := Load([]string{p})
	if len(set.AWR) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "limit for an artifact") {
		t.Errorf("Load: %+v %v", set, errs)
	}
	other := filepath.Join(t.TempDir(), "big.txt")
	os.WriteFile(other, bytes.Repeat([]byte("x\n"), 4000), 0o644)
	if _, errs := LoadAWR([]string{other}); len(errs) != 1 || !strings.Contains(errs[0].Error(), "not an AWR or Statspack report") {
		t.Errorf("big non-report: %v", errs)
	}
}

func TestAWRPctOf(t *testing.T) {
	for f, want := range map[string]string{"awrrpt_1_412_413_12102.txt": "db time", "awrrpt_1_1211_1212_10204.txt": "call time",
		"sp_8811_8812_9208.lst": "elapsed time", "sp_551_552_8174.lst": "wait time", "awrgrpt_510_511_23ai.html": "db time",
		"sp_31_32_12102_crlf.lst": "call time", "awrrpt_1_3301_3302_10205.html": "call time"} {
		if got := readAWR(t, f).TopEventsPctOf; got != want {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
}

// Group headings over their own underline (as in the RAC reports' per-
// instance tables): the columns are the last underline's, the group titles
// prefix the headings, and an instance number printed on a group's first
// row only (SQL*Plus BREAK) holds for the rows below it.
func TestAWRTextTwoLevelHeadings(t *testing.T) {
	doc := parseAWRText([]byte(strings.Join([]string{
		"WORKLOAD REPOSITORY REPORT (RAC)",
		"",
		"Top Timed Events               DB/Inst: RAC/rac1  Snaps: 1-2",
		"",
		"                                                       Wait           Event   Wait Time",
		"       ---------------------------------------- ---------------------- --------------------",
		"  I#   Class      Event                            Waits %Timeouts     Total(s)  Avg(ms) %DB time",
		"----   ---------- --------------------------- ---------- --------- ------------ -------- --------",
		"   *              DB CPU                             N/A       N/A      4,567.8              55.3",
		"       User I/O   db file sequential read      1,234,567       0.0      1,234.5     1.00     14.9",
		"   1              DB CPU                             N/A       N/A      2,300.1              54.0",
		"       User I/O   db file sequential read        600,000       0.0        610.2     1.02     14.6",
		"",
	}, "\n")))
	var top *awrTable
	for _, tb := range doc.tables {
		if tb.section == secTopEvents {
			top = tb
		}
	}
	if top == nil || len(top.header) != 8 || !strings.HasSuffix(top.header[5], "Total(s)") {
		t.Fatalf("%+v", top)
	}
	evs, inst, errs := mapEvents(top, "top events")
	if len(errs) > 0 || len(evs) != 2 || len(inst[1]) != 2 || ev(evs[1]) != "db file sequential read|1234567|1234.5|1|14.9|User I/O" ||
		ev(inst[1][1]) != "db file sequential read|600000|610.2|1.02|14.6|User I/O" {
		t.Errorf("%v %+v %+v", errs, evs, inst)
	}
}
