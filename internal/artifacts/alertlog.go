package artifacts

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"strconv"
	"strings"
)

// AlertLog is one Oracle alert log: every instance startup it records.
type AlertLog struct {
	File     string     `json:"file"`
	Startups []*Startup `json:"startups"`
	// AIOEAgain are the "Warning: lio_listio returned EAGAIN" lines (AIX:
	// the asynchronous I/O servers or queue, maxservers/maxreqs, were too
	// few for the I/Os Oracle issued), the first maxAlertEvents of them;
	// AIOEAgainCount counts them all. They may come at any time, not only
	// at a startup.
	AIOEAgain      []AlertEvent `json:"aio_eagain,omitempty"`
	AIOEAgainCount int          `json:"aio_eagain_count,omitempty"`
}

// AlertEvent is one line of an alert log that says something happened.
type AlertEvent struct {
	Line int    `json:"line"`
	Time string `json:"time,omitempty"` // the timestamp line before it, as written
	Text string `json:"text"`
}

// maxAlertEvents bounds the events of one kind kept (the count goes on).
const maxAlertEvents = 16

// Last is the most recent startup in the log, nil when there is none.
func (a *AlertLog) Last() *Startup {
	if a == nil || len(a.Startups) == 0 {
		return nil
	}
	return a.Startups[len(a.Startups)-1]
}

// Startup is what one instance startup ("Starting ORACLE instance") wrote.
// Facts the log did not contain are nil/empty, never zero.
type Startup struct {
	Line    int    `json:"line"`           // line of "Starting ORACLE instance" (or of the first fact when a log starts mid-startup)
	Time    string `json:"time,omitempty"` // the timestamp line before it, as written
	Mode    string `json:"mode,omitempty"` // "normal", "restrict", ... from "Starting ORACLE instance (normal)"
	Banner  string `json:"banner,omitempty"`
	Version string `json:"version,omitempty"` // "12.1.0.2.0", or "19.3.0.0.0" from the "Version" line of 18c+
	SID     string `json:"sid,omitempty"`     // ORACLE_SID / instance name line, else the instance_name parameter
	// ParamSource is where the parameters came from ("server-side spfile
	// /u01/.../spfileORCL.ora", "client-side pfile ..."), from "Using parameter settings in ...".
	ParamSource string `json:"param_source,omitempty"`
	// CPUs, Cores, Sockets are "Initial number of CPU is N", "Number of
	// processor cores in the system is N", "Number of processor sockets in the system is N".
	CPUs    *int `json:"cpus,omitempty"`
	Cores   *int `json:"cores,omitempty"`
	Sockets *int `json:"sockets,omitempty"`
	// Params is the "System parameters with non-default values" block, names
	// lower-cased, quotes kept off; a name repeated on several lines (control_files)
	// has its values joined with ", ".
	Params     map[string]string `json:"params,omitempty"`
	ParamLine  map[string]int    `json:"param_line,omitempty"` // line of each parameter's first occurrence
	SGA        *SGADump          `json:"sga,omitempty"`
	LargePages *LargePagesInfo   `json:"large_pages,omitempty"`
	NUMA       *NUMAInfo         `json:"numa,omitempty"`
	// RedoLogs are the online redo log members the instance wrote after this
	// startup ("Current log# 2 seq# 5 mem# 0: /u02/oradata/ORCL/redo02.log"),
	// each path once, at most 64.
	RedoLogs []RedoMember `json:"redo_logs,omitempty"`
	// Errors are the ORA- lines logged during this startup (at most 32),
	// e.g. ORA-27125 when the SGA cannot be locked or placed in large pages.
	Errors []AlertError `json:"errors,omitempty"`
}

// RedoMember is one online redo log member an alert log names.
type RedoMember struct {
	Line   int    `json:"line"`
	Group  int    `json:"group"`
	Member int    `json:"member"`
	Path   string `json:"path"` // a file, or an ASM name (+REDO/ORCL/ONLINELOG/group_1.261.1)
}

// maxRedoMembers bounds the members kept per startup.
const maxRedoMembers = 64

// AlertError is one ORA- line of an alert log.
type AlertError struct {
	Line int    `json:"line"`
	Code string `json:"code"` // "ORA-27125"
	Text string `json:"text"`
}

// maxAlertErrors bounds the ORA- lines kept per startup.
const maxAlertErrors = 32

// SGADump is the 12c+ "Dump of system resources acquired for SHARED GLOBAL AREA (SGA)" block.
type SGADump struct {
	Line int `json:"line"`
	// MemlockSoft is "Per process system memlock (soft) limit = X" as written;
	// MemlockSoftBytes its value, nil when UNLIMITED or not understood.
	MemlockSoft      string `json:"memlock_soft,omitempty"`
	MemlockSoftBytes *int64 `json:"memlock_soft_bytes,omitempty"`
	MemlockUnlimited bool   `json:"memlock_unlimited,omitempty"`
	// ExpectedMemlock is "...to lock SHARED GLOBAL AREA (SGA) into memory: X".
	ExpectedMemlock      string        `json:"expected_memlock,omitempty"`
	ExpectedMemlockBytes *int64        `json:"expected_memlock_bytes,omitempty"`
	AvailablePageSizesKB []int64       `json:"available_page_sizes_kb,omitempty"`
	PageSizes            []SGAPageSize `json:"page_sizes,omitempty"`
	// Unsupported maps a page size (kB) to the reason Oracle gave for not using it ("Large pagesizes only").
	Unsupported map[int64]string `json:"unsupported,omitempty"`
	// Recommendations are the RECOMMENDATION lines that follow the block, joined per item.
	Recommendations []string `json:"recommendations,omitempty"`
}

// SGAPageSize is one row of "Supported system pagesize(s)". A count Oracle
// printed as a word ("Configured" for 4K) is nil with the word in *Text.
type SGAPageSize struct {
	PageSizeKB    int64  `json:"page_size_kb"`
	Available     *int64 `json:"available,omitempty"`
	AvailableText string `json:"available_text,omitempty"`
	Expected      *int64 `json:"expected,omitempty"`
	Allocated     *int64 `json:"allocated,omitempty"`
	Error         string `json:"error,omitempty"` // "NONE" or the error text
}

// LargePagesInfo is the 11.2 "Large Pages Information" block and the
// "Total Shared Global Region in Large Pages" line. Pages are of PageSizeKB.
type LargePagesInfo struct {
	Line              int    `json:"line"`
	TotalSGAInLargeMB *int64 `json:"total_sga_in_large_mb,omitempty"`
	TotalSGAPercent   *int64 `json:"total_sga_percent,omitempty"`
	InUse             *int64 `json:"in_use,omitempty"`     // "Large Pages used by this instance"
	Unused            *int64 `json:"unused,omitempty"`     // "Large Pages unused system wide"
	Configured        *int64 `json:"configured,omitempty"` // "Large Pages configured system wide"
	PageSizeKB        *int64 `json:"page_size_kb,omitempty"`
	Required          *int64 `json:"required,omitempty"`     // "increase the number of unused Large Pages by atleast N"
	TotalSGAMB        *int64 `json:"total_sga_mb,omitempty"` // "Total Shared Global Region size is N MB"
}

// NUMAInfo is what the startup said about NUMA.
type NUMAInfo struct {
	Nodes *int `json:"nodes,omitempty"` // "NUMA system with N nodes detected"
	// Enabled is Oracle NUMA support: true for "Oracle NUMA support enabled",
	// false for "... not enabled", nil when the log says neither.
	Enabled  *bool         `json:"enabled,omitempty"`
	Mappings []NUMAMapping `json:"mappings,omitempty"`
	Lines    []string      `json:"lines,omitempty"` // every NUMA line as written (evidence)
	Line     int           `json:"line"`
}

// NUMAMapping is "OS NUMA node 3 (30 cpus) mapped to Oracle NUMA node 0".
type NUMAMapping struct {
	OSNode     int  `json:"os_node"`
	CPUs       *int `json:"cpus,omitempty"`
	OracleNode int  `json:"oracle_node"`
}

var (
	reAlertTime     = lazyre.New(`^(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} \d\d:\d\d:\d\d \d{4}|\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d\S*)\s*$`)
	reAlertStart    = lazyre.New(`Starting ORACLE instance(?:\s*\(([^)]*)\))?`)
	reAlertBanner   = lazyre.New(`^Oracle Database .*Release\s+(\d+(?:\.\d+)+)`)
	reAlertVersion  = lazyre.New(`^Version\s+(\d+(?:\.\d+)+)`)
	reAlertSID      = lazyre.New(`^(?:ORACLE_SID|ORACLE SID|Instance name)\s*[:=]\s*"?([^\s"]+)"?`)
	reAlertParam    = lazyre.New(`^\s*("?[A-Za-z_][A-Za-z0-9_$#]*"?)\s*=\s*(.*?)\s*$`)
	reAlertMemlock  = lazyre.New(`Per process system memlock \(soft\) limit\s*=\s*(.*?)\s*$`)
	reAlertExpected = lazyre.New(`SHARED GLOBAL AREA \(SGA\) into memory:\s*(.*?)\s*$`)
	reAlertPSRow    = lazyre.New(`^\s*(\d+[KMGT])\s+(\S+)\s+(\S+)\s+(\S+)(?:\s+(.*?))?\s*$`)
	reAlertReason   = lazyre.New(`^\s*(\d+[KMGT])\s*-\s*(.*?)\s*$`)
	reAlertRecItem  = lazyre.New(`^\s*\d+\.\s*(.*?)\s*$`)
	reAlertStars    = lazyre.New(`^\s*\*{3,}\s*$`)
	reLPTotal       = lazyre.New(`Total Shared Global Region in Large Pages\s*=\s*(\d+)\s*([KMGT]?B)(?:\s*\((\d+)%\))?`)
	reLPUsed        = lazyre.New(`Large Pages used by this instance\s*[:=]\s*(\d+)`)
	reLPUnused      = lazyre.New(`Large Pages unused system wide\s*[:=]\s*(\d+)`)
	reLPConfigured  = lazyre.New(`Large Pages configured system wide\s*[:=]\s*(\d+)`)
	reLPSize        = lazyre.New(`Large Page size\s*=\s*(\d+)\s*([KMGT]?B)`)
	reLPSGASize     = lazyre.New(`Total Shared Global Region size is\s*(\d+)\s*([KMGT]?B)`)
	reLPRequired    = lazyre.New(`unused Large Pages by\s+at\s*least\s+(\d+)`)
	reAlertCount    = lazyre.New(`^(?:Initial number of CPU is|Number of processor cores in the system is|Number of processor sockets in the system is)\s+(\d+)`)
	reORA           = lazyre.New(`\bORA-(\d{5})\b`)
	reAlertRedo     = lazyre.New(`^Current log# (\d+) seq# \d+ mem# (\d+): (\S.*?)\s*$`)
	reNUMANodes     = lazyre.New(`NUMA system with (\d+) nodes? detected`)
	reNUMASupport   = lazyre.New(`NUMA support (not )?enabled`)
	reNUMAMap       = lazyre.New(`OS NUMA node (\d+)\s*(?:\((\d+) cpus?\))?\s*mapped to Oracle NUMA node (\d+)`)
)

// maxSGABlock bounds how many lines an SGA dump may take before it is
// considered ended (a log cut in the middle must not swallow the rest).
const maxSGABlock = 200

// maxNUMALines bounds the NUMA evidence lines kept per startup.
const maxNUMALines = 64

// ParseAlertLog parses an Oracle alert log (text form). It splits the log at
// each "Starting ORACLE instance" and reads, per startup: the version banner,
// the SID, the non-default parameters, the SGA resource dump (12c+), the
// Large Pages information (11.2), and the NUMA lines. Other lines are
// ignored; malformed lines inside a block it knows are errors.
func ParseAlertLog(b []byte) (*AlertLog, []error) {
	a := &AlertLog{Startups: []*Startup{}}
	var el errList
	var cur *Startup
	lastTime := ""
	get := func(line int) *Startup {
		if cur == nil {
			cur = &Startup{Line: line, Time: lastTime}
			a.Startups = append(a.Startups, cur)
		}
		return cur
	}
	inParams := false
	var sga *SGADump
	sgaSection := ""
	sgaLines := 0
	expectVersion := false

	lines := splitLines(b)
	for i, raw := range lines {
		n := i + 1
		ln := strings.TrimRight(raw, "\r")
		t := strings.TrimSpace(ln)

		if (inParams || sga != nil) && isAlertTime(t) {
			// 12.2+ stamps nearly every line; a stamp does not end a block.
			lastTime = t
			continue
		}
		if inParams {
			if m := reAlertParam().FindStringSubmatch(ln); m != nil && t != "" {
				s := get(n)
				name := strings.ToLower(strings.Trim(m[1], `"`))
				val := unquoteAlert(m[2])
				if s.Params == nil {
					s.Params = map[string]string{}
					s.ParamLine = map[string]int{}
				}
				if old, ok := s.Params[name]; ok {
					s.Params[name] = old + ", " + val
				} else {
					s.Params[name] = val
					s.ParamLine[name] = n
				}
				continue
			}
			inParams = false
		}

		if sga != nil {
			sgaLines++
			if isStars(t) || strings.Contains(t, "Starting ORACLE instance") || sgaLines > maxSGABlock {
				sga = nil
				if isStars(t) {
					continue
				}
			} else {
				if parseSGALine(sga, &sgaSection, t, n, &el) {
					continue
				}
			}
		}

		if isAlertTime(t) {
			lastTime = t
			continue
		}
		// Cheap checks guard each regexp: most lines of a big log match none.
		if strings.Contains(t, "Starting ORACLE instance") {
			if m := reAlertStart().FindStringSubmatch(t); m != nil {
				cur = &Startup{Line: n, Time: lastTime, Mode: strings.TrimSpace(m[1])}
				a.Startups = append(a.Startups, cur)
				inParams, sga, expectVersion = false, nil, false
				continue
			}
		}
		if expectVersion {
			expectVersion = false
			if m := reAlertVersion().FindStringSubmatch(t); m != nil {
				get(n).Version = m[1]
				continue
			}
		}
		if strings.HasPrefix(t, "Oracle Database ") {
			if m := reAlertBanner().FindStringSubmatch(t); m != nil {
				s := get(n)
				s.Banner = t
				s.Version = m[1]
				expectVersion = true
				continue
			}
		}
		if strings.HasPrefix(t, "ORACLE") || strings.HasPrefix(t, "Instance name") {
			if m := reAlertSID().FindStringSubmatch(t); m != nil {
				get(n).SID = m[1]
				continue
			}
		}
		if strings.HasPrefix(t, "Using parameter settings in ") {
			get(n).ParamSource = strings.TrimPrefix(t, "Using parameter settings in ")
			continue
		}
		if strings.HasPrefix(t, "Initial number of CPU") || strings.HasPrefix(t, "Number of processor") {
			if m := reAlertCount().FindStringSubmatch(t); m != nil {
				if v, err := strconv.Atoi(m[1]); err == nil {
					s := get(n)
					switch {
					case strings.HasPrefix(t, "Initial"):
						s.CPUs = &v
					case strings.Contains(t, "cores"):
						s.Cores = &v
					default:
						s.Sockets = &v
					}
				}
				continue
			}
		}
		if strings.Contains(t, "System parameters with non-default values") {
			get(n)
			inParams = true
			continue
		}
		if strings.Contains(t, "Dump of system resources acquired for SHARED GLOBAL AREA") {
			s := get(n)
			sga = &SGADump{Line: n}
			s.SGA = sga
			sgaSection, sgaLines = "", 0
			continue
		}
		if strings.Contains(t, "Large Page") || strings.Contains(t, "Shared Global Region") {
			parseLargePagesLine(get, t, n)
			continue
		}
		if strings.Contains(t, "lio_listio returned EAGAIN") {
			a.AIOEAgainCount++
			if len(a.AIOEAgain) < maxAlertEvents {
				a.AIOEAgain = append(a.AIOEAgain, AlertEvent{Line: n, Time: lastTime, Text: trunc(t, 300)})
			}
			continue
		}
		if strings.Contains(t, "ORA-") && cur != nil {
			if m := reORA().FindStringSubmatch(t); m != nil && len(cur.Errors) < maxAlertErrors {
				cur.Errors = append(cur.Errors, AlertError{Line: n, Code: "ORA-" + m[1], Text: trunc(t, 300)})
			}
		}
		if strings.Contains(t, "NUMA") {
			parseNUMALine(get(n), t, n)
		}
		if strings.HasPrefix(t, "Current log#") && cur != nil {
			if m := reAlertRedo().FindStringSubmatch(t); m != nil && len(cur.RedoLogs) < maxRedoMembers {
				g, _ := strconv.Atoi(m[1])
				mem, _ := strconv.Atoi(m[2])
				dup := false
				for _, r := range cur.RedoLogs {
					dup = dup || r.Path == m[3]
				}
				if !dup {
					cur.RedoLogs = append(cur.RedoLogs, RedoMember{Line: n, Group: g, Member: mem, Path: m[3]})
				}
			} else if m == nil {
				el.add(errAt(n, "expected \"Current log# N seq# N mem# N: PATH\", got %q", trunc(t, 80)))
			}
		}
	}
	for _, s := range a.Startups {
		if s.SID == "" && s.Params != nil {
			s.SID = s.Params["instance_name"]
		}
	}
	return a, el.list()
}

// parseSGALine reads one line inside the SGA dump; false when it is not part of it.
func parseSGALine(d *SGADump, section *string, t string, n int, el *errList) bool {
	switch {
	case t == "":
		return true
	case strings.HasPrefix(t, "Per process system memlock (soft) limit"):
		m := reAlertMemlock().FindStringSubmatch(t)
		if m == nil || m[1] == "" {
			el.add(errAt(n, "expected \"Per process system memlock (soft) limit = SIZE\", got %q", trunc(t, 80)))
			return true
		}
		d.MemlockSoft = m[1]
		if strings.EqualFold(m[1], "UNLIMITED") {
			d.MemlockUnlimited = true
		} else if v, err := ParseBytes(m[1]); err == nil {
			d.MemlockSoftBytes = &v
		} else {
			el.add(errAt(n, "memlock limit: %v", err))
		}
		return true
	case strings.HasPrefix(t, "Expected per process system memlock"):
		if m := reAlertExpected().FindStringSubmatch(t); m != nil {
			setExpected(d, m[1], n, el)
		}
		return true
	case strings.Contains(t, "SHARED GLOBAL AREA (SGA) into memory"):
		if m := reAlertExpected().FindStringSubmatch(t); m != nil {
			setExpected(d, m[1], n, el)
		}
		return true
	case strings.HasPrefix(t, "Available system pagesizes"):
		*section = "avail"
		return true
	case strings.HasPrefix(t, "Supported system pagesize"):
		*section = "supported"
		return true
	case strings.HasPrefix(t, "Reason for not supporting"):
		*section = "reason"
		return true
	case strings.HasPrefix(t, "RECOMMENDATION"):
		*section = "recommend"
		return true
	}
	switch *section {
	case "avail":
		for _, f := range strings.Split(t, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			v, err := ParseBytes(f)
			if err != nil {
				el.add(errAt(n, "available page size: %v", err))
				continue
			}
			d.AvailablePageSizesKB = append(d.AvailablePageSizesKB, v>>10)
		}
		return true
	case "supported":
		if strings.HasPrefix(t, "PAGESIZE") {
			return true
		}
		m := reAlertPSRow().FindStringSubmatch(t)
		if m == nil {
			el.add(errAt(n, "expected a page size row \"PAGESIZE AVAILABLE EXPECTED ALLOCATED ERROR\", got %q", trunc(t, 80)))
			return true
		}
		sz, err := ParseBytes(m[1])
		if err != nil {
			el.add(errAt(n, "page size: %v", err))
			return true
		}
		row := SGAPageSize{PageSizeKB: sz >> 10, Error: m[5]}
		if v, err := strconv.ParseInt(m[2], 10, 64); err == nil {
			row.Available = &v
		} else {
			row.AvailableText = m[2]
		}
		if v, err := strconv.ParseInt(m[3], 10, 64); err == nil {
			row.Expected = &v
		}
		if v, err := strconv.ParseInt(m[4], 10, 64); err == nil {
			row.Allocated = &v
		}
		d.PageSizes = append(d.PageSizes, row)
		return true
	case "reason":
		if m := reAlertReason().FindStringSubmatch(t); m != nil {
			if sz, err := ParseBytes(m[1]); err == nil {
				if d.Unsupported == nil {
					d.Unsupported = map[int64]string{}
				}
				d.Unsupported[sz>>10] = m[2]
				return true
			}
		}
		el.add(errAt(n, "expected \"SIZE - reason\", got %q", trunc(t, 80)))
		return true
	case "recommend":
		if m := reAlertRecItem().FindStringSubmatch(t); m != nil {
			d.Recommendations = append(d.Recommendations, m[1])
		} else if k := len(d.Recommendations); k > 0 {
			d.Recommendations[k-1] += " " + t
		} else {
			d.Recommendations = append(d.Recommendations, t)
		}
		return true
	}
	return false
}

func setExpected(d *SGADump, v string, n int, el *errList) {
	d.ExpectedMemlock = v
	if b, err := ParseBytes(v); err == nil {
		d.ExpectedMemlockBytes = &b
	} else {
		el.add(errAt(n, "expected memlock: %v", err))
	}
}

// parseLargePagesLine reads the 11.2 "Large Pages Information" lines.
func parseLargePagesLine(get func(int) *Startup, t string, n int) {
	lp := func() *LargePagesInfo {
		s := get(n)
		if s.LargePages == nil {
			s.LargePages = &LargePagesInfo{Line: n}
		}
		return s.LargePages
	}
	num := func(s string) *int64 {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil
		}
		return &v
	}
	mb := func(v, unit string) *int64 {
		b, err := ParseBytes(v + unit)
		if err != nil {
			return nil
		}
		return ptr(b >> 20)
	}
	switch {
	case strings.Contains(t, "Large Pages Information"):
		lp()
	}
	if m := reLPTotal().FindStringSubmatch(t); m != nil {
		l := lp()
		l.TotalSGAInLargeMB = mb(m[1], m[2])
		if m[3] != "" {
			l.TotalSGAPercent = num(m[3])
		}
	}
	if m := reLPUsed().FindStringSubmatch(t); m != nil {
		lp().InUse = num(m[1])
	}
	if m := reLPUnused().FindStringSubmatch(t); m != nil {
		lp().Unused = num(m[1])
	}
	if m := reLPConfigured().FindStringSubmatch(t); m != nil {
		lp().Configured = num(m[1])
	}
	if m := reLPSize().FindStringSubmatch(t); m != nil {
		if b, err := ParseBytes(m[1] + m[2]); err == nil {
			lp().PageSizeKB = ptr(b >> 10)
		}
	}
	if m := reLPSGASize().FindStringSubmatch(t); m != nil {
		lp().TotalSGAMB = mb(m[1], m[2])
	}
	if m := reLPRequired().FindStringSubmatch(t); m != nil {
		lp().Required = num(m[1])
	}
}

// parseNUMALine reads one line that mentions NUMA.
func parseNUMALine(s *Startup, t string, n int) {
	if s.NUMA == nil {
		s.NUMA = &NUMAInfo{Line: n}
	}
	u := s.NUMA
	if len(u.Lines) < maxNUMALines {
		u.Lines = append(u.Lines, t)
	}
	if m := reNUMANodes().FindStringSubmatch(t); m != nil {
		if v, err := strconv.Atoi(m[1]); err == nil {
			u.Nodes = &v
		}
	}
	if m := reNUMASupport().FindStringSubmatch(t); m != nil {
		u.Enabled = ptr(m[1] == "")
	}
	if m := reNUMAMap().FindStringSubmatch(t); m != nil {
		os, err1 := strconv.Atoi(m[1])
		ora, err2 := strconv.Atoi(m[3])
		if err1 == nil && err2 == nil {
			mp := NUMAMapping{OSNode: os, OracleNode: ora}
			if c, err := strconv.Atoi(m[2]); err == nil {
				mp.CPUs = &c
			}
			u.Mappings = append(u.Mappings, mp)
		}
	}
}

// unquoteAlert drops the double quotes the alert log puts around strings.
func unquoteAlert(v string) string {
	v = strings.TrimSpace(v)
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

// isAlertTime is reAlertTime with a cheap pre-check (most lines are not stamps).
func isAlertTime(t string) bool {
	if len(t) < 19 || len(t) > 48 {
		return false
	}
	c := t[0]
	if !(c >= '0' && c <= '9' || c == 'M' || c == 'T' || c == 'W' || c == 'F' || c == 'S') {
		return false
	}
	return reAlertTime().MatchString(t)
}

// isStars is a line of three or more '*' only.
func isStars(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "*") == ""
}

// shiftLines adds off to every line number (the log was read from line off+1).
func (a *AlertLog) shiftLines(off int) {
	for _, s := range a.Startups {
		s.Line += off
		for k := range s.ParamLine {
			s.ParamLine[k] += off
		}
		if s.SGA != nil {
			s.SGA.Line += off
		}
		if s.LargePages != nil {
			s.LargePages.Line += off
		}
		if s.NUMA != nil {
			s.NUMA.Line += off
		}
		for i := range s.Errors {
			s.Errors[i].Line += off
		}
	}
}
