package artifacts

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/lazyre"
)

var (
	reSnapBegin  = lazyre.New(`(?i)Begin\s+Snap:\s+(\d[\d,]*)\s+(\d{1,2}-\w{3}-\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?)?`)
	reSnapEnd    = lazyre.New(`(?i)End\s+Snap:\s+(\d[\d,]*)\s+(\d{1,2}-\w{3}-\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?)?`)
	reSnapElapse = lazyre.New(`(?i)Elapsed:\s+([\d,.]+)\s*\(mins?\)`)
	reSnapDBTime = lazyre.New(`(?i)DB\s+time:\s+([\d,.]+)\s*\(mins?\)`)
	reLabelValue = lazyre.New(`^\s*(.+?):\s+(\S+)`)
	reLabelPairs = lazyre.New(`([A-Za-z%][^:]*?)\s*:\s*(-?[\d][\d,.]*|-?\.\d+)`)
	reHostCPUs   = lazyre.New(`(?i)CPUs:\s*(\d+)\s+Cores:\s*(\d+)\s+Sockets:\s*(\d+)`)
	reSPHost     = lazyre.New(`(?i)^\s*Host\s+Name:\s+(\S+)`)
	reSPNumCPUs  = lazyre.New(`(?i)Num\s+CPUs:\s+(\d+)`)
	reSPPhysMem  = lazyre.New(`(?i)Phys\s+Memory\s+\(MB\):\s+([\d,.]+)`)
	reHTMLTitle  = lazyre.New(`(?i)Report for DB:\s*([^,\s]+)\s*,\s*Inst:\s*([^,\s]+)\s*,\s*Snaps:\s*(\d+)\s*-\s*(\d+)`)
	reSizeCell   = lazyre.New(`^([\d,.]+)\s*([KMGT]?)B?$`)
)

// fill maps the document's tables onto the report.
func (r *AWRReport) fill(doc *awrDoc, el *errList) {
	best := map[string]*awrTable{}
	var instStats []*awrTable
	for _, t := range doc.tables {
		if t.section == "" {
			continue
		}
		if t.section == secInstStats {
			instStats = append(instStats, t)
		}
		if b, ok := best[t.section]; !ok || t.rank < b.rank {
			best[t.section] = t
		}
	}
	use := func(sec string) *awrTable {
		t := best[sec]
		if t == nil {
			return nil
		}
		r.SectionLine[sec] = t.line
		r.Sections = append(r.Sections, t.name())
		if t.capped() && sec != secTopEvents { // top events: their own note
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %s rows, the first %s read (the limit for one table: docs/limits.md)", t.name(), thousands(t.total), thousands(AWRMaxRows)))
		}
		return t
	}
	bad := func(t *awrTable, line int, format string, a ...any) {
		if line == 0 {
			line = t.line
		}
		el.add(errAt(line, "%s: %s", t.name(), fmt.Sprintf(format, a...)))
	}

	if t := use(secGlobalDB); t != nil {
		r.Global, r.RAC = true, true
		r.mapGlobalDB(t)
	}
	if t := use(secGlobalInst); t != nil {
		r.Global, r.RAC = true, true
		r.mapGlobalInstances(t)
	}
	if t := use(secDBInfo); t != nil {
		r.mapDBInfo(t)
	}
	if t := use(secInstInfo); t != nil {
		r.mapDBInfo(t)
	}
	if t := use(secHostInfo); t != nil {
		r.mapHostInfo(t)
	}
	if t := use(secSnap); t != nil {
		r.mapSnap(t)
	}
	if t := use(secLoadProfile); t != nil {
		if !r.mapLoadProfile(t) {
			bad(t, 0, "no \"label: value\" rows (expected DB Time(s):, Logical reads:, Transactions: ...)")
		}
	}
	if t := use(secEfficiency); t != nil {
		r.Efficiency = labelPairs(t)
	}
	if t := use(secTopEvents); t != nil {
		evs, inst, errs := mapEvents(t, "top events")
		for _, e := range errs {
			bad(t, e.line, "%s", e.msg)
		}
		dropped := t.total - len(t.rows) // rows past AWRMaxRows, not mapped
		r.TopEvents = r.capTop(evs, dropped, t.name())
		if c := eventColumns(t, "event"); c.pct >= 0 {
			r.TopEventsPctOf = pctOf(t.header[c.pct])
		}
		if len(inst) > 0 {
			r.Global, r.RAC = true, true
			for n, es := range inst {
				inst[n] = r.capTop(es, 0, fmt.Sprintf("%s, instance %d", t.name(), n))
			}
			for i := range r.Instances {
				r.Instances[i].TopEvents = inst[r.Instances[i].Number]
			}
			for n, es := range inst {
				if !r.hasInstance(n) {
					r.Instances = append(r.Instances, AWRInstance{Number: n, TopEvents: es})
				}
			}
		}
	}
	if t := use(secWaitClasses); t != nil {
		for _, e := range r.mapWaitClasses(t) {
			bad(t, e.line, "%s", e.msg)
		}
	}
	for _, x := range []struct {
		sec string
		dst *[]AWREvent
	}{{secFgEvents, &r.ForegroundEvents}, {secBgEvents, &r.BackgroundEvents}} {
		sec, dst := x.sec, x.dst
		if t := use(sec); t != nil {
			evs, _, errs := mapEvents(t, "events")
			for _, e := range errs {
				bad(t, e.line, "%s", e.msg)
			}
			*dst = evs
		}
	}
	if t := use(secHostCPU); t != nil {
		r.mapHostCPU(t)
	}
	if t := use(secInstCPU); t != nil {
		r.mapInstanceCPU(t)
	}
	if t := use(secOSStats); t != nil {
		r.mapOSStats(t)
	}
	if t := use(secGCLoad); t != nil {
		r.mapGCLoad(t)
	}
	if t := use(secGCWorkload); t != nil {
		r.mapGCWorkload(t)
	}
	if t := use(secGlobalOSStat); t != nil {
		r.mapGlobalOSStats(t)
	}
	if t := use(secTimeModel); t != nil {
		r.TimeModel = nameValues(t, func(h string) bool { return strings.Contains(h, "time") && !strings.Contains(h, "%") })
	}
	if use(secInstStats) != nil {
		r.mapInstStats(instStats)
	}
	if t := use(secInitOra); t != nil {
		r.mapInitOra(t)
	}
	if t := use(secMemStats); t != nil {
		r.mapMemory(t)
	}
	if t := use(secCacheSizes); t != nil {
		r.mapCacheSizes(t)
	}
	r.fallbacks(doc)
}

// name is the section's title as printed, without the page title or the
// numbers some titles carry ("Host CPU (CPUs: 8 ...)"); the report header's
// untitled tables are named by their section id.
func (t *awrTable) name() string {
	switch t.section {
	case secDBInfo, secInstInfo, secHostInfo, secSnap:
		return t.section
	}
	n := t.title
	if i := strings.Index(n, "  "); i > 0 {
		n = n[:i]
	}
	if i := strings.Index(n, " ("); i > 0 && t.section == secHostCPU {
		n = n[:i]
	}
	n = strings.TrimRight(n, " ~")
	if n == "" {
		return t.section
	}
	return n
}

func (r *AWRReport) hasInstance(n int64) bool {
	for _, i := range r.Instances {
		if i.Number == n {
			return true
		}
	}
	return false
}

// fallbacks fills what the tables did not say from what else the report
// prints: the HTML <title>, the text page titles, Statspack's "Host Name:"
// lines and the OS statistics.
func (r *AWRReport) fallbacks(doc *awrDoc) {
	if m := reHTMLTitle().FindStringSubmatch(doc.title); m != nil {
		if r.DBName == "" {
			r.DBName = m[1]
		}
		if r.Instance == "" && !r.Global {
			r.Instance = m[2]
		}
		if r.BeginSnap == nil {
			r.BeginSnap = intPtr(m[3])
		}
		if r.EndSnap == nil {
			r.EndSnap = intPtr(m[4])
		}
	}
	if m := reAWRDBInst().FindStringSubmatch(doc.dbInst); m != nil {
		db, inst := m[1], m[2]
		if db == "" {
			db, inst = m[3], m[4] // 8i/9i: "for DB: X  Instance: x"
		}
		if r.DBName == "" {
			r.DBName = db
		}
		if r.Instance == "" && !r.Global {
			r.Instance = inst
		}
	}
	for _, l := range doc.head {
		if m := reSPHost().FindStringSubmatch(l); m != nil && r.Host.Name == "" {
			r.Host.Name = m[1]
		}
		if m := reSPNumCPUs().FindStringSubmatch(l); m != nil && r.Host.CPUs == nil {
			r.Host.CPUs = intPtr(m[1])
		}
		if m := reSPPhysMem().FindStringSubmatch(l); m != nil && r.Host.MemoryGB == nil {
			if v := numPtr(m[1]); v != nil {
				r.Host.MemoryGB = ptr(math.Round(*v/1024*100) / 100)
			}
		}
	}
	if r.Host.CPUs == nil {
		if v, ok := r.OSStats["NUM_CPUS"]; ok {
			r.Host.CPUs = ptr(int64(v))
		}
	}
	if r.Host.Cores == nil {
		if v, ok := r.OSStats["NUM_CPU_CORES"]; ok {
			r.Host.Cores = ptr(int64(v))
		}
	}
	if r.Host.Sockets == nil {
		if v, ok := r.OSStats["NUM_CPU_SOCKETS"]; ok {
			r.Host.Sockets = ptr(int64(v))
		}
	}
	if r.Host.MemoryGB == nil {
		if v, ok := r.OSStats["PHYSICAL_MEMORY_BYTES"]; ok {
			r.Host.MemoryGB = ptr(math.Round(v/(1<<30)*100) / 100)
		}
	}
	if r.DBTimeMin == nil {
		if v, ok := r.TimeModel["DB time"]; ok {
			r.DBTimeMin = ptr(math.Round(v/60*100) / 100)
		}
	}
}

// firstDataRow is the first row with a non-blank cell.
func firstDataRow(t *awrTable) (awrRow, bool) {
	for _, row := range t.rows {
		for _, c := range row.cells {
			if c != "" {
				return row, true
			}
		}
	}
	return awrRow{}, false
}

func yes(s string) bool {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "YES", "Y", "TRUE":
		return true
	}
	return false
}

func (r *AWRReport) mapDBInfo(t *awrTable) {
	row, ok := firstDataRow(t)
	if !ok {
		return
	}
	for i, h := range t.header {
		v := row.cell(i)
		if v == "" {
			continue
		}
		switch k := foldKey(h); {
		case k == "dbname" || k == "database" || k == "name":
			r.DBName = v
		case k == "dbid" || k == "id":
			r.DBID = intPtr(v)
		case k == "instance" || k == "instancename":
			r.Instance = v
		case k == "instnum" || k == "instancenumber" || k == "inst#":
			r.InstanceNum = intPtr(v)
		case k == "release" || k == "version":
			r.Version = v
		case k == "rac" || k == "cluster" || k == "ops":
			r.RAC = yes(v)
		case k == "host" || k == "hostname":
			r.Host.Name = v
		}
	}
}

func (r *AWRReport) mapHostInfo(t *awrTable) {
	row, ok := firstDataRow(t)
	if !ok {
		return
	}
	for i, h := range t.header {
		v := row.cell(i)
		if v == "" {
			continue
		}
		switch k := foldKey(h); {
		case k == "hostname" || k == "host" || k == "name" || k == "hostname:":
			r.Host.Name = v
		case k == "platform":
			r.Host.Platform = v
		case k == "cpus" || k == "numcpus":
			r.Host.CPUs = intPtr(v)
		case k == "cores":
			r.Host.Cores = intPtr(v)
		case k == "sockets":
			r.Host.Sockets = intPtr(v)
		case strings.HasPrefix(k, "memory"):
			if n := numPtr(v); n != nil {
				if strings.Contains(k, "(mb)") {
					*n = math.Round(*n/1024*100) / 100
				}
				r.Host.MemoryGB = n
			}
		}
	}
}

func (r *AWRReport) mapSnap(t *awrTable) {
	for _, row := range t.rows {
		l := row.raw
		if m := reSnapBegin().FindStringSubmatch(l); m != nil {
			r.BeginSnap, r.BeginTime = intPtr(m[1]), collapse(m[2])
		}
		if m := reSnapEnd().FindStringSubmatch(l); m != nil {
			r.EndSnap, r.EndTime = intPtr(m[1]), collapse(m[2])
		}
		if m := reSnapElapse().FindStringSubmatch(l); m != nil {
			r.ElapsedMin = numPtr(m[1])
		}
		if m := reSnapDBTime().FindStringSubmatch(l); m != nil {
			r.DBTimeMin = numPtr(m[1])
		}
	}
}

// loadFields maps Load Profile labels (folded) to the report's fields.
func (r *AWRReport) loadField(label string) **float64 {
	lp := &r.LoadProfile
	switch strings.TrimSuffix(foldKey(label), ":") {
	case "dbtime(s)", "dbtimes", "dbtime":
		return &lp.DBTimePerS
	case "dbcpu(s)", "dbcpus", "dbcpu":
		return &lp.DBCPUPerS
	case "redosize", "redosize(bytes)", "redosizebytes":
		return &lp.RedoBytesPerS
	case "logicalreads", "logicalread(blocks)", "logicalread", "logicalreadsblocks", "logicalreads(blocks)":
		return &lp.LogicalReadsPerS
	case "physicalreads", "physicalread(blocks)", "physicalread", "physicalreads(blocks)":
		return &lp.PhysicalReadsPerS
	case "physicalwrites", "physicalwrite(blocks)", "physicalwrite", "physicalwrites(blocks)":
		return &lp.PhysicalWritesPerS
	case "transactions":
		return &lp.TransactionsPerS
	case "usercalls":
		return &lp.UserCallsPerS
	case "executes", "executes(sql)":
		return &lp.ExecutesPerS
	case "hardparses", "hardparses(sql)":
		return &lp.HardParsesPerS
	}
	return nil
}

func (r *AWRReport) mapLoadProfile(t *awrTable) bool {
	found := false
	for _, row := range t.rows {
		m := reLabelValue().FindStringSubmatch(row.raw)
		if m == nil {
			continue
		}
		f := r.loadField(m[1])
		if f == nil {
			if _, ok := parseAWRNum(m[2]); ok {
				found = true
			}
			continue
		}
		if v := numPtr(m[2]); v != nil {
			*f = v
			found = true
		}
	}
	return found
}

// labelPairs reads "label: value" pairs, several per line ("Buffer Nowait %:
// 99.99   Redo NoWait %: 100.00").
func labelPairs(t *awrTable) map[string]float64 {
	out := map[string]float64{}
	for _, row := range t.rows {
		for _, m := range reLabelPairs().FindAllStringSubmatch(row.raw, -1) {
			if v := numPtr(m[2]); v != nil {
				out[collapse(m[1])] = *v
			}
		}
	}
	return out
}

// rowErr is a problem with one row of a section.
type rowErr struct {
	line int
	msg  string
}

// eventCols are the columns of an event table (-1 when absent).
type eventCols struct {
	inst, class, event, waits, timeouts, time, avg, pct int
	timeUnit, avgUnit                                   string
}

// eventColumns finds the columns of a wait event or wait class table from
// its headings, whatever the version calls them: "Time (s)", "Time(s)",
// "Total Wait Time (sec)", "Wait Time (cs)" (8i), "Total(s)" (global);
// "Avg wait (ms)", "Wait Avg(ms)", "Avg Wait" (12.2+, units in the cells);
// "% DB time", "%Total Call Time", "% Total Ela Time", "% bg time".
func eventColumns(t *awrTable, first string) eventCols {
	c := eventCols{inst: -1, class: -1, event: -1, waits: -1, timeouts: -1, time: -1, avg: -1, pct: -1}
	taken := map[int]bool{}
	pick := func(dst *int, f func(h string) bool) {
		for i, h := range t.header {
			if taken[i] {
				continue
			}
			if f(strings.ToLower(h)) {
				*dst = i
				taken[i] = true
				return
			}
		}
	}
	pick(&c.inst, func(h string) bool { return foldKey(h) == "i#" || foldKey(h) == "inst" || foldKey(h) == "inst#" })
	if first == "class" {
		pick(&c.event, func(h string) bool { return strings.Contains(h, "class") })
	} else {
		pick(&c.class, func(h string) bool { return strings.Contains(h, "class") })
	}
	pick(&c.timeouts, func(h string) bool {
		return strings.Contains(h, "-outs") || strings.Contains(h, "timeouts") || strings.Contains(h, "time outs") ||
			strings.HasPrefix(h, "%tim") || strings.HasSuffix(h, " out")
	})
	var waitsTxn int = -1
	pick(&waitsTxn, func(h string) bool { return strings.Contains(h, "/txn") || strings.Contains(h, "per trans") })
	pick(&c.pct, func(h string) bool { return strings.Contains(h, "%") || strings.Contains(h, "pct") })
	pick(&c.avg, func(h string) bool {
		return strings.Contains(h, "avg") || strings.TrimSpace(h) == "(ms)" || strings.HasPrefix(h, "wait (ms)")
	})
	pick(&c.time, func(h string) bool {
		return strings.Contains(h, "time") || strings.Contains(h, "(s)") || strings.Contains(h, "(sec)") || strings.Contains(h, "total")
	})
	pick(&c.waits, func(h string) bool { return strings.Contains(h, "waits") })
	if first != "class" {
		pick(&c.event, func(h string) bool { return strings.Contains(h, "event") })
		if c.event < 0 && len(t.header) > 0 && !taken[0] {
			c.event = 0
		}
	}
	if c.time >= 0 {
		c.timeUnit = headUnit(t.header[c.time])
	}
	if c.avg >= 0 {
		c.avgUnit = headUnit(t.header[c.avg])
		if c.avgUnit == "" {
			c.avgUnit = "ms"
		}
	}
	return c
}

// capTop keeps the first AWRMaxTop events of a top list, in the report's
// order, with a note of the full count (dropped: rows of the table not
// even kept, past AWRMaxRows).
func (r *AWRReport) capTop(evs []AWREvent, dropped int, what string) []AWREvent {
	if len(evs) <= AWRMaxTop && dropped == 0 {
		return evs
	}
	n := min(len(evs), AWRMaxTop)
	r.Notes = append(r.Notes, fmt.Sprintf("%s: %s rows, %d shown (a top list keeps its first %d: docs/limits.md)", what, thousands(len(evs)+dropped), n, AWRMaxTop))
	return append([]AWREvent{}, evs[:n]...)
}

// thousands writes n with thousands separators (250,000).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// mapEvents reads a wait event table. For a global (awrgrpt) table with an
// I# column, the cluster-wide rows ("*") are returned as the events and the
// others by instance number.
func mapEvents(t *awrTable, what string) ([]AWREvent, map[int64][]AWREvent, []rowErr) {
	c := eventColumns(t, "event")
	var errs []rowErr
	if c.event < 0 || c.time < 0 {
		return []AWREvent{}, nil, []rowErr{{t.line, fmt.Sprintf("expected columns Event and a wait time (\"Time (s)\", \"Total Wait Time (sec)\"), got %q", t.header)}}
	}
	out := []AWREvent{}
	var inst map[int64][]AWREvent
	curInst := ""
	for _, row := range t.rows {
		name := row.cell(c.event)
		if name == "" || strings.Trim(name, "-~= ") == "" {
			continue
		}
		if c.inst >= 0 {
			if v := strings.TrimSpace(row.cell(c.inst)); v != "" {
				curInst = v // printed on a group's first row only (SQL*Plus BREAK)
			}
		}
		e := AWREvent{Event: name, Line: row.line}
		timeCell := row.cell(c.time)
		n, ok := parseAWRNum(timeCell)
		if !ok {
			errs = append(errs, rowErr{row.line, fmt.Sprintf("event %q: wait time %q is not a number", name, timeCell)})
			continue
		}
		e.TimeS = ptr(round6(n.toS(c.timeUnit)))
		if c.waits >= 0 {
			e.Waits = intPtr(row.cell(c.waits))
		}
		if c.avg >= 0 {
			if a, ok := parseAWRNum(row.cell(c.avg)); ok {
				e.AvgMS = ptr(round6(a.toMS(c.avgUnit)))
			}
		}
		if c.pct >= 0 {
			e.PctDBTime = numPtr(strings.TrimSuffix(row.cell(c.pct), "%"))
		}
		if c.class >= 0 {
			if cl := row.cell(c.class); cl != "" {
				e.WaitClass = ptr(cl)
			}
		}
		if c.inst >= 0 && curInst != "*" && curInst != "" {
			if k := intPtr(curInst); k != nil {
				if inst == nil {
					inst = map[int64][]AWREvent{}
				}
				inst[*k] = append(inst[*k], e)
				continue
			}
		}
		out = append(out, e)
	}
	if len(out) == 0 && len(inst) == 0 && len(errs) == 0 {
		errs = append(errs, rowErr{t.line, fmt.Sprintf("no %s rows under the column headings %q", what, t.header)})
	}
	return out, inst, errs
}

// pctOf names what a percentage column is of, from its heading.
func pctOf(h string) string {
	switch k := foldKey(h); {
	case strings.Contains(k, "dbtime"):
		return "db time"
	case strings.Contains(k, "call"):
		return "call time"
	case strings.Contains(k, "ela"):
		return "elapsed time"
	case strings.Contains(k, "wt") || strings.Contains(k, "wait"):
		return "wait time"
	case strings.Contains(k, "bg"):
		return "background time"
	}
	return ""
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func (r *AWRReport) mapWaitClasses(t *awrTable) []rowErr {
	c := eventColumns(t, "class")
	if c.event < 0 {
		c.event = 0
	}
	var errs []rowErr
	for _, row := range t.rows {
		name := row.cell(c.event)
		if name == "" || strings.Trim(name, "-~= ") == "" {
			continue
		}
		w := AWRWaitClass{WaitClass: name}
		if c.time >= 0 {
			if n, ok := parseAWRNum(row.cell(c.time)); ok {
				w.TimeS = ptr(round6(n.toS(c.timeUnit)))
			} else {
				errs = append(errs, rowErr{row.line, fmt.Sprintf("wait class %q: wait time %q is not a number", name, row.cell(c.time))})
				continue
			}
		}
		if c.waits >= 0 {
			w.Waits = intPtr(row.cell(c.waits))
		}
		if c.avg >= 0 {
			if a, ok := parseAWRNum(row.cell(c.avg)); ok {
				w.AvgMS = ptr(round6(a.toMS(c.avgUnit)))
			}
		}
		if c.pct >= 0 {
			w.PctDBTime = numPtr(row.cell(c.pct))
		}
		r.WaitClasses = append(r.WaitClasses, w)
	}
	return errs
}

func (r *AWRReport) mapHostCPU(t *awrTable) {
	if m := reHostCPUs().FindStringSubmatch(t.title); m != nil {
		if r.Host.CPUs == nil {
			r.Host.CPUs = intPtr(m[1])
		}
		if r.Host.Cores == nil {
			r.Host.Cores = intPtr(m[2])
		}
		if r.Host.Sockets == nil {
			r.Host.Sockets = intPtr(m[3])
		}
	}
	var row awrRow
	found := false
	for _, rw := range t.rows {
		n := 0
		for _, c := range rw.cells {
			if _, ok := parseAWRNum(c); ok {
				n++
			}
		}
		if n >= 3 {
			row, found = rw, true
			break
		}
	}
	if !found {
		return
	}
	h := &AWRHostCPU{}
	for i, hd := range t.header {
		v := numPtr(row.cell(i))
		if v == nil {
			continue
		}
		switch k := foldKey(hd); {
		case strings.Contains(k, "begin"):
			h.LoadBegin = v
		case strings.HasSuffix(k, "end") || k == "end":
			h.LoadEnd = v
		case strings.Contains(k, "user") || strings.Contains(k, "usr"):
			h.PctUser = v
		case strings.Contains(k, "sys"):
			h.PctSystem = v
		case strings.Contains(k, "wio") || strings.Contains(k, "iowait"):
			h.PctWIO = v
		case strings.Contains(k, "idle") || strings.Contains(k, "idl"):
			h.PctIdle = v
		case k == "cpus" && r.Host.CPUs == nil:
			r.Host.CPUs = ptr(int64(*v))
		case k == "cores" && r.Host.Cores == nil:
			r.Host.Cores = ptr(int64(*v))
		case k == "sockets" && r.Host.Sockets == nil:
			r.Host.Sockets = ptr(int64(*v))
		}
	}
	r.HostCPU = h
}

func (r *AWRReport) mapInstanceCPU(t *awrTable) {
	ic := &AWRInstanceCPU{}
	set := func(label string, v *float64) {
		switch k := foldKey(label); {
		case strings.Contains(k, "waitingforcpu") || strings.Contains(k, "resource"):
			ic.PctDBTimeWaitingCPURM = v
		case strings.Contains(k, "busycpu"):
			ic.PctBusyCPU = v
		case strings.Contains(k, "totalcpu") && !strings.Contains(k, "(s)"):
			ic.PctTotalCPU = v
		}
	}
	// 12c+: a table with the three percentages as columns.
	if len(t.header) >= 2 {
		if row, ok := firstDataRow(t); ok {
			for i, h := range t.header {
				if v := numPtr(row.cell(i)); v != nil {
					set(h, v)
				}
			}
		}
	}
	for _, row := range t.rows {
		if m := reLabelValue().FindStringSubmatch(row.raw); m != nil {
			if v := numPtr(m[2]); v != nil {
				set(m[1], v)
			}
		}
	}
	if ic.PctBusyCPU != nil || ic.PctTotalCPU != nil || ic.PctDBTimeWaitingCPURM != nil {
		r.InstanceCPU = ic
	}
}

// nameValues reads a two-column "name value" table; valueCol picks the
// value column by heading (the second column when none matches).
func nameValues(t *awrTable, valueCol func(h string) bool) map[string]float64 {
	out := map[string]float64{}
	vc := t.col(valueCol)
	if vc <= 0 {
		vc = 1
	}
	for _, row := range t.rows {
		name := row.cell(0)
		if name == "" {
			continue
		}
		if v := numPtr(row.cell(vc)); v != nil {
			out[name] = *v
		}
	}
	return out
}

func (r *AWRReport) mapOSStats(t *awrTable) {
	for k, v := range nameValues(t, func(h string) bool { return h == "value" || h == "total" || strings.HasPrefix(h, "value") }) {
		r.OSStats[k] = v
	}
}

func (r *AWRReport) mapInstStats(ts []*awrTable) {
	r.Stats = map[string]AWRStat{}
	for _, t := range ts { // full list first (rank 0), then the key statistics
		if t.rank != 0 {
			continue
		}
		r.addStats(t)
	}
	for _, t := range ts {
		if t.rank != 0 {
			r.addStats(t)
		}
	}
}

func (r *AWRReport) addStats(t *awrTable) {
	tc := t.col(func(h string) bool { return h == "total" || strings.HasPrefix(h, "total") })
	pc := t.col(func(h string) bool { return strings.Contains(h, "per second") || strings.Contains(h, "per sec") })
	for _, row := range t.rows {
		name := row.cell(0)
		if name == "" {
			continue
		}
		if _, ok := r.Stats[name]; ok {
			continue
		}
		s := AWRStat{}
		if tc > 0 {
			s.Total = numPtr(row.cell(tc))
		}
		if pc > 0 {
			s.PerSecond = numPtr(row.cell(pc))
		}
		if s.Total != nil || s.PerSecond != nil {
			r.Stats[name] = s
		}
	}
}

func (r *AWRReport) mapInitOra(t *awrTable) {
	bc := t.col(func(h string) bool { return strings.Contains(h, "begin") })
	ec := t.col(func(h string) bool { return strings.Contains(h, "end") })
	if bc < 0 {
		bc = 1
	}
	for _, row := range t.rows {
		name := strings.ToLower(row.cell(0))
		if name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		v := row.cell(bc)
		if ec >= 0 && row.cell(ec) != "" {
			v = row.cell(ec)
		}
		r.Parameters[name] = v
		r.ParamLine[name] = row.line
	}
}

func (r *AWRReport) memory() *AWRMemory {
	if r.Memory == nil {
		r.Memory = &AWRMemory{}
	}
	return r.Memory
}

func (r *AWRReport) mapMemory(t *awrTable) {
	for _, row := range t.rows {
		m := reLabelValue().FindStringSubmatch(row.raw)
		if m == nil {
			continue
		}
		// The end value: the last number of the line.
		var last *float64
		for _, tok := range strings.Fields(row.raw[len(m[0])-len(m[2]):]) {
			if v := numPtr(tok); v != nil {
				last = v
			}
		}
		if last == nil {
			continue
		}
		switch k := foldKey(m[1]); {
		case strings.HasPrefix(k, "hostmem"):
			r.memory().HostMemMB = last
		case strings.HasPrefix(k, "sgause"):
			r.memory().SGAUseMB = last
		case strings.HasPrefix(k, "pgause"):
			r.memory().PGAUseMB = last
		}
	}
}

// sizeMB reads a Cache Sizes cell ("10,240M", "344,184K", "8K") in MB
// (binary multiples, as the report computed them).
func sizeMB(s string) (float64, bool) {
	m := reSizeCell().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, false
	}
	n, ok := parseAWRNum(m[1])
	if !ok {
		return 0, false
	}
	switch m[2] {
	case "K":
		return n.v / 1024, true
	case "G":
		return n.v * 1024, true
	case "T":
		return n.v * 1024 * 1024, true
	case "":
		return n.v / (1 << 20), true
	}
	return n.v, true
}

var reCachePair = lazyre.New(`(?:^|\s)([A-Za-z][A-Za-z ]*?)\s*:\s+([\d,.]+\s*[KMGT]?)`)

func (r *AWRReport) mapCacheSizes(t *awrTable) {
	for _, row := range t.rows {
		for _, m := range reCachePair().FindAllStringSubmatch(row.raw, -1) {
			v, ok := sizeMB(m[2])
			if !ok {
				continue
			}
			switch k := foldKey(m[1]); {
			case strings.HasPrefix(k, "buffercache"):
				r.memory().BufferCacheMB = ptr(v)
			case strings.HasPrefix(k, "sharedpool"):
				r.memory().SharedPoolMB = ptr(v)
			case strings.HasPrefix(k, "logbuffer"):
				r.memory().LogBufferKB = ptr(v * 1024)
			}
		}
	}
}

// ---- global (awrgrpt) reports ----

func (r *AWRReport) mapGlobalDB(t *awrTable) {
	row, ok := firstDataRow(t)
	if !ok {
		return
	}
	for i, h := range t.header {
		v := row.cell(i)
		if v == "" {
			continue
		}
		k := foldKey(h)
		switch {
		case strings.HasSuffix(k, "id") && !strings.Contains(k, "snap") && r.DBID == nil:
			r.DBID = intPtr(v)
		case strings.HasSuffix(k, "name") && r.DBName == "":
			r.DBName = v
		case strings.HasSuffix(k, "begin") && r.BeginSnap == nil:
			r.BeginSnap = intPtr(v)
		case strings.HasSuffix(k, "end") && r.EndSnap == nil:
			r.EndSnap = intPtr(v)
		case strings.Contains(k, "dbtime") && r.DBTimeMin == nil:
			r.DBTimeMin = numPtr(v)
		case strings.Contains(k, "elapsed") && r.ElapsedMin == nil:
			r.ElapsedMin = numPtr(v)
		}
	}
}

func (r *AWRReport) mapGlobalInstances(t *awrTable) {
	ic := t.col(func(h string) bool { return foldKey(h) == "i#" })
	if ic < 0 {
		ic = 0
	}
	nc := t.col(func(h string) bool { k := foldKey(h); return k == "instance" || strings.HasSuffix(k, "instance") })
	hc := t.col(func(h string) bool { return strings.Contains(foldKey(h), "host") })
	vc := t.col(func(h string) bool { return strings.Contains(foldKey(h), "release") })
	dc := t.col(func(h string) bool { return strings.Contains(foldKey(h), "dbtime") })
	ec := t.col(func(h string) bool { return strings.Contains(foldKey(h), "elapsed") })
	for _, row := range t.rows {
		n := intPtr(row.cell(ic))
		if n == nil {
			continue
		}
		in := AWRInstance{Number: *n, Name: row.cell(nc), Host: row.cell(hc), Version: row.cell(vc)}
		if dc >= 0 {
			in.DBTimeMin = numPtr(row.cell(dc))
		}
		if r.Version == "" {
			r.Version = in.Version
		}
		if ec >= 0 && r.ElapsedMin == nil {
			r.ElapsedMin = numPtr(row.cell(ec))
		}
		r.Instances = append(r.Instances, in)
	}
}

// mapGlobalOSStats sets the host's CPUs, cores and sockets when every
// instance's host has the same.
func (r *AWRReport) mapGlobalOSStats(t *awrTable) {
	cols := map[string]int{
		"cpus":  t.col(func(h string) bool { return strings.Contains(foldKey(h), "cpus") }),
		"cores": t.col(func(h string) bool { return strings.Contains(foldKey(h), "core") }),
		"sockets": t.col(func(h string) bool {
			return strings.Contains(foldKey(h), "sock") || strings.Contains(foldKey(h), "sckt")
		}),
	}
	for what, c := range cols {
		if c < 0 {
			continue
		}
		var v *int64
		same := true
		for _, row := range t.rows {
			x := intPtr(row.cell(c))
			if x == nil {
				continue
			}
			if v != nil && *v != *x {
				same = false
			}
			v = x
		}
		if !same || v == nil {
			continue
		}
		switch what {
		case "cpus":
			r.Host.CPUs = v
		case "cores":
			r.Host.Cores = v
		case "sockets":
			r.Host.Sockets = v
		}
	}
}

var (
	// reGCLoadRow: a Global Cache Load Profile row, its first number per
	// second ("  Global Cache blocks received:   12.06   3.98"; "Estd
	// Interconnect traffic (KB)   217.01" has no colon).
	reGCLoadRow = lazyre.New(`^\s*([A-Za-z][A-Za-z/ ]*[A-Za-z)](?:\s*\(KB\))?)\s*:?\s+(-?[\d][\d,.]*|-?\.\d+)(?:\s|$)`)
	// reGCWorkRow: "Avg global cache cr block receive time (ms):  0.4",
	// "(us)" from 12.2; "Global cache log flushes for cr blocks served %:  2.3".
	reGCWorkRow = lazyre.New(`^\s*([A-Za-z][^:(]*?[A-Za-z%])\s*(?:\((ms|us|µs)\))?\s*(%?)\s*:\s*(-?[\d][\d,.]*|-?\.\d+)\s*$`)
)

func (r *AWRReport) gc() *AWRGlobalCache {
	if r.GlobalCache == nil {
		r.GlobalCache = &AWRGlobalCache{}
	}
	return r.GlobalCache
}

// mapGCLoad reads the Global Cache Load Profile: per second values.
func (r *AWRReport) mapGCLoad(t *awrTable) {
	for _, row := range t.rows {
		m := reGCLoadRow().FindStringSubmatch(row.raw)
		if m == nil {
			continue
		}
		label := collapse(m[1])
		if strings.EqualFold(label, "Per Second") {
			continue
		}
		if v := numPtr(m[2]); v != nil {
			g := r.gc()
			if g.Load == nil {
				g.Load = map[string]float64{}
			}
			g.Load[label] = *v
		}
	}
}

// mapGCWorkload reads Global Cache and Enqueue Services - Workload
// Characteristics: averages in ms (us converted), percentages as printed.
func (r *AWRReport) mapGCWorkload(t *awrTable) {
	for _, row := range t.rows {
		m := reGCWorkRow().FindStringSubmatch(row.raw)
		if m == nil {
			continue
		}
		v := numPtr(m[4])
		if v == nil {
			continue
		}
		x := *v
		if m[2] == "us" || m[2] == "µs" {
			x /= 1000
		}
		label := collapse(m[1])
		if m[3] == "%" && !strings.HasSuffix(label, "%") {
			label += " %"
		}
		g := r.gc()
		if g.Workload == nil {
			g.Workload = map[string]float64{}
		}
		g.Workload[label] = x
	}
}
