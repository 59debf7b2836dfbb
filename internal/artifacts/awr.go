package artifacts

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/lazyre"
)

// Oracle performance reports: AWR (awrrpt.sql, awrgrpt.sql for a RAC
// database as a whole) in HTML or text, and Statspack (spreport.sql /
// sprepins.sql, text), 8i to 23ai. ParseAWR turns one into an AWRReport; the
// layouts are read by section title and column heading, never by position, so
// that versions which add, drop or rename columns still parse (see
// docs/awr.md for the sections read and the units).

// The kinds of performance reports (artifact kinds; the report's own "kind"
// field is "awr" or "statspack").
const (
	KindAWR       Kind = "oracle-awr-report"
	KindStatspack Kind = "oracle-statspack-report"
)

// AWRReport is one AWR or Statspack report. The JSON names are a contract
// (issue 12, `dbhost awr --format json`): numbers are numbers, times in
// seconds, averages in milliseconds whatever unit the report printed, and
// null where the report gives no value.
type AWRReport struct {
	File   string `json:"file"`
	Kind   string `json:"kind"`   // awr | statspack
	Format string `json:"format"` // html | text
	// Global is true for an awrgrpt report (all instances of a RAC database):
	// TopEvents then holds the cluster-wide rows ("*"), Instances each one.
	Global      bool       `json:"global,omitempty"`
	DBName      string     `json:"db_name"`
	DBID        *int64     `json:"db_id"`
	Instance    string     `json:"instance"`
	InstanceNum *int64     `json:"instance_number,omitempty"`
	Version     string     `json:"version"`
	RAC         bool       `json:"rac"`
	Host        AWRHost    `json:"host"`
	BeginSnap   *int64     `json:"begin_snap"`
	EndSnap     *int64     `json:"end_snap"`
	BeginTime   string     `json:"begin_time,omitempty"` // as printed
	EndTime     string     `json:"end_time,omitempty"`
	ElapsedMin  *float64   `json:"elapsed_min"`
	DBTimeMin   *float64   `json:"db_time_min"`
	LoadProfile AWRLoad    `json:"load_profile"`
	TopEvents   []AWREvent `json:"top_events"`
	// TopEventsPctOf is what the top events' percentages are of: "db time"
	// (11g+), "call time" (10g, Statspack 10g+: DB CPU and waits), "elapsed
	// time" (Statspack 9i), "wait time" (Statspack 8i).
	TopEventsPctOf string `json:"top_events_pct_of,omitempty"`
	// WaitClasses: "Wait Classes by Total Wait Time" (12c+), else "Foreground
	// Wait Class" (11gR2), else "Wait Class" (10g, 11gR1).
	WaitClasses []AWRWaitClass     `json:"wait_classes"`
	OSStats     map[string]float64 `json:"os_stats"`   // Operating System Statistics, names as printed
	Parameters  map[string]string  `json:"parameters"` // init.ora Parameters (end value when it differs)

	// Beyond the contract: what the diagnoses read.
	HostCPU          *AWRHostCPU        `json:"host_cpu,omitempty"`
	InstanceCPU      *AWRInstanceCPU    `json:"instance_cpu,omitempty"`
	Memory           *AWRMemory         `json:"memory,omitempty"`
	Efficiency       map[string]float64 `json:"efficiency,omitempty"` // Instance Efficiency Percentages / Indicators
	TimeModel        map[string]float64 `json:"time_model,omitempty"` // seconds
	ForegroundEvents []AWREvent         `json:"foreground_events,omitempty"`
	BackgroundEvents []AWREvent         `json:"background_events,omitempty"`
	Stats            map[string]AWRStat `json:"instance_stats,omitempty"` // Instance Activity Stats
	Instances        []AWRInstance      `json:"instances,omitempty"`      // global reports
	// GlobalCache is a RAC instance's Global Cache Load Profile and Global
	// Cache and Enqueue Services - Workload Characteristics (nil when the
	// report has neither).
	GlobalCache *AWRGlobalCache `json:"global_cache,omitempty"`
	// Sections lists the sections read, by their printed title.
	Sections []string `json:"sections"`
	// Notes say what was tolerated (a section missing, a value unreadable).
	Notes []string `json:"notes,omitempty"`

	// ParamLine is where each parameter was read (1-based line of the file).
	ParamLine map[string]int `json:"-"`
	// SectionLine is where each section starts (1-based), by section id.
	SectionLine map[string]int `json:"-"`
}

// AWRHost is the host the report was taken on, as the report says.
type AWRHost struct {
	Name     string   `json:"name"`
	Platform string   `json:"platform"`
	CPUs     *int64   `json:"cpus"`
	Cores    *int64   `json:"cores"`
	Sockets  *int64   `json:"sockets"`
	MemoryGB *float64 `json:"memory_gb"`
}

// AWRLoad is the Load Profile, per second.
type AWRLoad struct {
	DBTimePerS        *float64 `json:"db_time_per_s"`
	DBCPUPerS         *float64 `json:"db_cpu_per_s"`
	LogicalReadsPerS  *float64 `json:"logical_reads_per_s"`
	PhysicalReadsPerS *float64 `json:"physical_reads_per_s"`
	RedoBytesPerS     *float64 `json:"redo_bytes_per_s"`
	TransactionsPerS  *float64 `json:"transactions_per_s"`

	PhysicalWritesPerS *float64 `json:"physical_writes_per_s,omitempty"`
	UserCallsPerS      *float64 `json:"user_calls_per_s,omitempty"`
	ExecutesPerS       *float64 `json:"executes_per_s,omitempty"`
	HardParsesPerS     *float64 `json:"hard_parses_per_s,omitempty"`
}

// AWREvent is one wait event row (DB CPU / CPU time included, with null
// waits, average and class).
type AWREvent struct {
	Event     string   `json:"event"` // exactly as printed (possibly truncated by the report)
	Waits     *int64   `json:"waits"`
	TimeS     *float64 `json:"time_s"`
	AvgMS     *float64 `json:"avg_ms"`
	PctDBTime *float64 `json:"pct_db_time"` // % DB time (% bg time for background events, % of call/elapsed time in 10g/Statspack)
	WaitClass *string  `json:"wait_class"`
	Line      int      `json:"-"`
}

// AWRWaitClass is one wait class row.
type AWRWaitClass struct {
	WaitClass string   `json:"wait_class"`
	Waits     *int64   `json:"waits"`
	TimeS     *float64 `json:"time_s"`
	AvgMS     *float64 `json:"avg_ms"`
	PctDBTime *float64 `json:"pct_db_time"`
}

// AWRHostCPU is the Host CPU section.
type AWRHostCPU struct {
	LoadBegin *float64 `json:"load_average_begin"`
	LoadEnd   *float64 `json:"load_average_end"`
	PctUser   *float64 `json:"pct_user"`
	PctSystem *float64 `json:"pct_system"`
	PctWIO    *float64 `json:"pct_wio"`
	PctIdle   *float64 `json:"pct_idle"`
}

// AWRInstanceCPU is the Instance CPU section.
type AWRInstanceCPU struct {
	PctTotalCPU *float64 `json:"pct_total_cpu"`
	PctBusyCPU  *float64 `json:"pct_busy_cpu"`
	// PctDBTimeWaitingCPURM is "%DB time waiting for CPU (Resource Manager)".
	PctDBTimeWaitingCPURM *float64 `json:"pct_db_time_waiting_for_cpu_rm"`
}

// AWRMemory is the Memory Statistics section (end values) and Cache Sizes.
type AWRMemory struct {
	HostMemMB     *float64 `json:"host_mem_mb,omitempty"`
	SGAUseMB      *float64 `json:"sga_use_mb,omitempty"`
	PGAUseMB      *float64 `json:"pga_use_mb,omitempty"`
	BufferCacheMB *float64 `json:"buffer_cache_mb,omitempty"`
	SharedPoolMB  *float64 `json:"shared_pool_mb,omitempty"`
	LogBufferKB   *float64 `json:"log_buffer_kb,omitempty"`
}

// AWRStat is one Instance Activity statistic.
type AWRStat struct {
	Total     *float64 `json:"total"`
	PerSecond *float64 `json:"per_second"`
}

// AWRGlobalCache is what a RAC instance's report says of cache fusion.
type AWRGlobalCache struct {
	// Load is the Global Cache Load Profile, per second, by label as
	// printed ("Global Cache blocks received", "GCS/GES messages sent",
	// "Estd Interconnect traffic (KB)").
	Load map[string]float64 `json:"load,omitempty"`
	// Workload is Global Cache and Enqueue Services - Workload
	// Characteristics by label without its unit ("Avg global cache cr
	// block receive time"): times in milliseconds whatever the report
	// printed (ms through 12.1, us from 12.2), percentages as printed.
	Workload map[string]float64 `json:"workload,omitempty"`
}

// GCReceiveMS is the average receive time of a global cache block, cr or
// current, in milliseconds.
func (g *AWRGlobalCache) GCReceiveMS(kind string) (float64, bool) {
	if g == nil {
		return 0, false
	}
	v, ok := g.Workload["Avg global cache "+kind+" block receive time"]
	return v, ok
}

// AWRInstance is one instance of a global (awrgrpt) report.
type AWRInstance struct {
	Number    int64      `json:"number"`
	Name      string     `json:"name"`
	Host      string     `json:"host"`
	Version   string     `json:"version,omitempty"`
	DBTimeMin *float64   `json:"db_time_min,omitempty"`
	TopEvents []AWREvent `json:"top_events,omitempty"`
}

// The sections a report may hold, by id (the keys of SectionLine).
const (
	secDBInfo       = "database"
	secInstInfo     = "instance"
	secHostInfo     = "host"
	secSnap         = "snapshots"
	secLoadProfile  = "load profile"
	secEfficiency   = "instance efficiency"
	secTopEvents    = "top events"
	secWaitClasses  = "wait classes"
	secFgEvents     = "foreground wait events"
	secBgEvents     = "background wait events"
	secHostCPU      = "host cpu"
	secInstCPU      = "instance cpu"
	secOSStats      = "operating system statistics"
	secTimeModel    = "time model"
	secInstStats    = "instance activity stats"
	secInitOra      = "init.ora parameters"
	secMemStats     = "memory statistics"
	secCacheSizes   = "cache sizes"
	secGlobalDB     = "database summary"
	secGlobalInst   = "database instances"
	secGlobalOSStat = "os statistics by instance"
	secGCLoad       = "global cache load profile"
	secGCWorkload   = "global cache workload"
)

// Has says whether the report holds the section (a secXxx id).
func (r *AWRReport) Has(section string) bool {
	_, ok := r.SectionLine[section]
	return ok
}

// Section ids the rules ask about.
const (
	AWRSectionTopEvents   = secTopEvents
	AWRSectionWaitClasses = secWaitClasses
	AWRSectionBgEvents    = secBgEvents
	AWRSectionFgEvents    = secFgEvents
	AWRSectionOSStats     = secOSStats
	AWRSectionHostCPU     = secHostCPU
	AWRSectionInstStats   = secInstStats
	AWRSectionInitOra     = secInitOra
	AWRSectionLoadProfile = secLoadProfile
	AWRSectionMemory      = secMemStats
)

// Where names the file and line a section (a secXxx id) starts at:
// "awrrpt_1_10_11.html:120 (Top 10 Foreground Events by Total Wait Time)".
func (r *AWRReport) Where(section string) string {
	if l, ok := r.SectionLine[section]; ok && l > 0 {
		return fmt.Sprintf("%s:%d", r.File, l)
	}
	return r.File
}

// Label names the report for people: "awrrpt_1_10_11.html (ORCL/orcl1, snaps 10-11)".
func (r *AWRReport) Label() string {
	var who []string
	if r.DBName != "" || r.Instance != "" {
		s := r.DBName
		if r.Instance != "" {
			s += "/" + r.Instance
		}
		who = append(who, s)
	}
	if r.BeginSnap != nil && r.EndSnap != nil {
		who = append(who, fmt.Sprintf("snaps %d-%d", *r.BeginSnap, *r.EndSnap))
	}
	if len(who) == 0 {
		return r.File
	}
	return r.File + " (" + strings.Join(who, ", ") + ")"
}

// Event returns the event named name from the top events, else the
// foreground events, else the background events. A name the report
// truncated to its column width ("log file switch (checkpoint in") matches
// the full name. ok is false when no list holds it.
func (r *AWRReport) Event(name string) (AWREvent, bool) {
	for _, list := range [][]AWREvent{r.TopEvents, r.ForegroundEvents, r.BackgroundEvents} {
		for _, e := range list {
			if EventIs(e.Event, name) {
				return e, true
			}
		}
	}
	return AWREvent{}, false
}

// TopEvent returns the event from the top events only.
func (r *AWRReport) TopEvent(name string) (AWREvent, bool) {
	for _, e := range r.TopEvents {
		if EventIs(e.Event, name) {
			return e, true
		}
	}
	return AWREvent{}, false
}

// EventIs says whether printed (an event name as a report printed it,
// possibly cut at its column width) is the event full. Names compare
// case-insensitively with runs of blanks as one; a cut name matches when it
// is a prefix of at least 18 characters.
func EventIs(printed, full string) bool {
	p := strings.ToLower(strings.Join(strings.Fields(printed), " "))
	f := strings.ToLower(full)
	if p == f {
		return true
	}
	return len(p) >= 18 && len(p) < len(f) && strings.HasPrefix(f, p)
}

// IsCPU says whether an event row is the CPU row ("DB CPU", "CPU time").
func IsCPU(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return n == "db cpu" || n == "cpu time" || n == "cpu + wait for cpu"
}

// CPUEvent returns the DB CPU row of the top events.
func (r *AWRReport) CPUEvent() (AWREvent, bool) {
	for _, e := range r.TopEvents {
		if IsCPU(e.Event) {
			return e, true
		}
	}
	return AWREvent{}, false
}

// Param returns an init.ora parameter (name case-insensitive) with the line
// it was read from.
func (r *AWRReport) Param(name string) (value string, line int, ok bool) {
	v, ok := r.Parameters[strings.ToLower(name)]
	return v, r.ParamLine[strings.ToLower(name)], ok
}

// awrNum is a number read from a report cell, with the unit the cell
// printed ("us", "ms", "s" for times; "" otherwise).
type awrNum struct {
	v    float64
	unit string
}

var reAWRNum = lazyre.New(`^([-+]?)(\d[\d,.' ]*\d|\d|\.\d+|\d+\.)\s*([KMGTkmgt]|us|µs|ms|ns|cs|s|sec|secs|min|mins|%)?$`)

// parseAWRNum reads a report cell: thousands separators (1,234,567 or
// 1.234.567,5 with a decimal comma), a leading dot (.4), scale suffixes
// K, M, G, T (powers of 1000, as AWR prints counts and times: 29.3K) and
// time units (420.51us, 2.45ms, 1.2s). ok is false for an empty cell,
// "N/A", "####" (a value too wide for its column) and anything else.
func parseAWRNum(s string) (awrNum, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\u00a0", " "))
	if s == "" {
		return awrNum{}, false
	}
	m := reAWRNum().FindStringSubmatch(s)
	if m == nil {
		return awrNum{}, false
	}
	digits := awrGrouping.Replace(m[2])
	digits = normalizeSeparators(digits)
	if digits == "" {
		return awrNum{}, false
	}
	v, err := strconv.ParseFloat(digits, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return awrNum{}, false
	}
	if m[1] == "-" {
		v = -v
	}
	n := awrNum{v: v}
	switch m[3] {
	case "K", "k":
		n.v *= 1e3
	case "M", "m":
		n.v *= 1e6
	case "G", "g":
		n.v *= 1e9
	case "T", "t":
		n.v *= 1e12
	case "us", "µs":
		n.unit = "us"
	case "ms":
		n.unit = "ms"
	case "ns":
		n.unit = "ns"
	case "cs":
		n.unit = "cs"
	case "s", "sec", "secs":
		n.unit = "s"
	case "min", "mins":
		n.unit = "min"
	}
	return n, true
}

// awrGrouping drops the blanks and apostrophes some locales group digits
// with (built once, on first use: a Replacer per cell cost 26 KB each).
var awrGrouping = strings.NewReplacer(" ", "", "'", "")

// normalizeSeparators turns "1,234,567.8", "1.234.567,8", "1,5" and
// "62,717" into Go float syntax: the last separator is the decimal point
// unless it is followed by exactly three digits and the other separators
// agree with thousands grouping.
func normalizeSeparators(d string) string {
	lastDot, lastComma := strings.LastIndexByte(d, '.'), strings.LastIndexByte(d, ',')
	switch {
	case lastDot < 0 && lastComma < 0:
		return d
	case lastComma < 0:
		if strings.Count(d, ".") > 1 { // 1.234.567: dots group thousands
			return strings.ReplaceAll(d, ".", "")
		}
		return d
	case lastDot < 0:
		if strings.Count(d, ",") == 1 && len(d)-lastComma-1 != 3 {
			return strings.Replace(d, ",", ".", 1) // decimal comma: 1,5
		}
		return strings.ReplaceAll(d, ",", "")
	case lastDot > lastComma: // 1,234.5
		return strings.ReplaceAll(d, ",", "")
	default: // 1.234,5
		return strings.Replace(strings.ReplaceAll(d, ".", ""), ",", ".", 1)
	}
}

// unitSeconds is the length of each time unit a report prints.
var unitSeconds = map[string]float64{"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "cs": 1e-2, "s": 1, "min": 60}

// in converts a time to the unit want: the cell's own unit first, else the
// column's (headUnit), else dflt.
func (n awrNum) in(want, headUnit, dflt string) float64 {
	u := n.unit
	if u == "" {
		u = headUnit
	}
	if u == "" {
		u = dflt
	}
	return n.v * unitSeconds[u] / unitSeconds[want]
}

// toMS converts a number to milliseconds ("" units mean ms).
func (n awrNum) toMS(headUnit string) float64 { return n.in("ms", headUnit, "ms") }

// toS converts a number to seconds ("" units mean seconds).
func (n awrNum) toS(headUnit string) float64 { return n.in("s", headUnit, "s") }

// numPtr reads a plain number (scale suffixes applied, a time unit ignored).
func numPtr(s string) *float64 {
	n, ok := parseAWRNum(s)
	if !ok {
		return nil
	}
	return ptr(n.v)
}

func intPtr(s string) *int64 {
	n, ok := parseAWRNum(s)
	if !ok || n.unit != "" || n.v < 0 || n.v > math.MaxInt64/2 {
		return nil
	}
	return ptr(int64(math.Round(n.v)))
}

// headUnit is the unit a column heading names: "Time (s)" → s, "Avg wait
// (ms)" → ms, "Time (cs)" → cs, "(us)" → us; "" when it names none.
func headUnit(h string) string {
	h = strings.ToLower(h)
	switch {
	case strings.Contains(h, "(us)") || strings.Contains(h, "(µs)"):
		return "us"
	case strings.Contains(h, "(ms)") || strings.Contains(h, "msec"):
		return "ms"
	case strings.Contains(h, "(cs)"):
		return "cs"
	case strings.Contains(h, "(min)") || strings.Contains(h, "(mins)"):
		return "min"
	case strings.Contains(h, "(s)") || strings.Contains(h, "(sec)") || strings.Contains(h, "(secs)"):
		return "s"
	}
	return ""
}

// foldKey normalises a label for lookup: lower case, letters, digits and
// the characters that distinguish labels ("(", ")", "%", "/").
func foldKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '(', r == ')', r == '%', r == '/', r == '#':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// collapse trims s and turns runs of white space into one blank.
func collapse(s string) string {
	if !strings.ContainsAny(s, "\t\n\r\u00a0") && !strings.Contains(s, "  ") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\u00a0", " ")), " ")
}

// ParseAWR parses an AWR (HTML or text, single instance or global RAC) or
// Statspack report. It returns what it could read and one *Error per section
// it found but could not read (naming the section and its line); a file that
// is no such report is a single error saying what was expected.
func ParseAWR(b []byte) (*AWRReport, []error) {
	r := &AWRReport{OSStats: map[string]float64{}, Parameters: map[string]string{}, TopEvents: []AWREvent{},
		WaitClasses: []AWRWaitClass{}, Sections: []string{}, ParamLine: map[string]int{}, SectionLine: map[string]int{}}
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	kind, format := awrKind(b)
	if kind == "" {
		if other := awrOther(b); other != "" {
			return r, []error{errAt(0, "%s; %s", other, awrExpected)}
		}
		return r, []error{errAt(0, "%s", awrExpected)}
	}
	r.Kind, r.Format = kind, format
	var doc *awrDoc
	if format == "html" {
		doc = parseAWRHTML(b)
	} else {
		doc = parseAWRText(b)
	}
	var el errList
	r.fill(doc, &el)
	if !r.Has(secTopEvents) && !r.Has(secLoadProfile) && !r.Has(secDBInfo) && !r.Has(secGlobalInst) {
		el.add(errAt(0, "no section of a %s report could be read (expected the report header, Load Profile and the top timed events)", kind))
	}
	sort.Strings(r.Notes)
	return r, el.list()
}

// awrExpected is what a file handed as a performance report should be.
const awrExpected = "not an AWR or Statspack report: expected the HTML or text output of awrrpt.sql/awrgrpt.sql " +
	"(\"WORKLOAD REPOSITORY report for\", \"WORKLOAD REPOSITORY REPORT (RAC)\") or of spreport.sql (\"STATSPACK report for\")"

var (
	reAWRHTMLTitle = lazyre.New(`(?i)<title>\s*AWR (?:RAC )?Report for DB:|<h1[^>]*>\s*WORKLOAD REPOSITORY (?:report for|REPORT \(RAC\))`)
	reAWRText      = lazyre.New(`(?im)^\s*WORKLOAD REPOSITORY (?:report for|REPORT \(RAC\))`)
	reStatspack    = lazyre.New(`(?im)^\s*STATSPACK (?:Statistics )?report for\b`)
	reAWRExcerpt1  = lazyre.New(`(?m)^\s*Load Profile\b`)
	reAWRExcerpt2  = lazyre.New(`(?m)^\s*Top (?:\d+ )?(?:Timed (?:Foreground )?Events|Foreground Events by Total Wait Time)`)
)

var (
	reAWRCompare = lazyre.New(`(?i)WORKLOAD REPOSITORY COMPARE PERIOD REPORT|AWR Compare Period Report`)
	reASHReport  = lazyre.New(`(?i)ASH Report For\b`)
	reADDMReport = lazyre.New(`(?i)ADDM Report for Task`)
)

// awrOther names the Oracle reports that are not read, so that the error
// says what the file is ("" for anything else).
func awrOther(b []byte) string {
	head := b[:min(len(b), sniffLen)]
	switch {
	case reAWRCompare().Match(head):
		return "an AWR compare-periods report (awrddrpt.sql) is not read: give each period's awrrpt report to dbhost awr, which compares them"
	case reASHReport().Match(head):
		return "an ASH report (ashrpt.sql) is not read"
	case reADDMReport().Match(head):
		return "an ADDM report (addmrpt.sql) is not read"
	}
	return ""
}

// awrKind recognises a performance report: ("awr"|"statspack", "html"|"text"),
// or "" when b is none.
func awrKind(b []byte) (kind, format string) {
	head := b
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	t := bytes.TrimSpace(head)
	if len(t) > 0 && t[0] == '<' && reAWRHTMLTitle().Match(head) {
		return "awr", "html"
	}
	if reStatspack().Match(head) {
		return "statspack", "text"
	}
	if reAWRText().Match(head) {
		return "awr", "text"
	}
	// An excerpt without the first lines still has these two sections.
	if reAWRExcerpt1().Match(head) && reAWRExcerpt2().Match(head) && bytes.Contains(head, []byte("~~~~")) {
		return "awr", "text"
	}
	return "", ""
}

// LoadAWR reads performance reports (the arguments of `dbhost awr`): each
// file is read whole up to the artifact size limit and must be an AWR or
// Statspack report. It returns the reports it could parse, in the order
// given, and one *Error per problem (file and line); a report with an
// unreadable section is returned with its errors.
func LoadAWR(paths []string) ([]*AWRReport, []error) {
	var out []*AWRReport
	var errs []error
	for _, p := range paths {
		r, err := readArtifact(p)
		if err != nil {
			errs = append(errs, &Error{File: p, Msg: readReason(err)})
			continue
		}
		if r.note != "" { // a file over the limit that is no report
			errs = append(errs, &Error{File: p, Msg: awrExpected})
			continue
		}
		rep, es := ParseAWR(r.b)
		rep.File = p
		for _, e := range es {
			if pe, ok := e.(*Error); ok && pe.File == "" {
				pe.File = p
			}
		}
		errs = append(errs, es...)
		if rep.Kind == "" {
			continue
		}
		out = append(out, rep)
	}
	return out, errs
}
