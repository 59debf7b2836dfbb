package artifacts

import (
	"regexp"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/lazyre"
)

// awrDoc is a report reduced to its tables, whatever its format: the HTML
// reader turns each <table> into one, the text reader each section (a title
// line, column headings over a dashed underline, rows). The section mappers
// (awr_map.go) read only awrDocs, so HTML and text share them.
type awrDoc struct {
	title  string // HTML <title>, or the text report's first line
	tables []*awrTable
	// dbInst is the first "DB/Inst: NAME/INST" page title of a text report.
	dbInst string
	// head is the first lines of a text report (Statspack's "Host Name:" lines).
	head []string
}

// awrTable is one table of a report.
type awrTable struct {
	section string   // a secXxx id, "" when the table is none the mappers read
	rank    int      // lower wins when a section appears in several forms
	title   string   // the section title as printed ("" for the report header tables)
	summary string   // HTML summary attribute
	line    int      // 1-based line of the title (or of the table)
	header  []string // column headings, one per column (multi-line headings joined)
	rows    []awrRow // the first AWRMaxRows rows
	total   int      // the rows the table has, those not kept included
}

// AWRMaxRows bounds the rows kept of one table: the sections dbhost reads
// have at most a few thousand (Instance Activity Stats), and a report of
// 250,000 rows in one table (63 MB) must not cost a gigabyte of cells. The
// rows past it are counted, not kept, and a note says so.
const AWRMaxRows = 10000

// AWRMaxTop bounds a top-N list (Top events, per instance too): the report
// prints 5 to 12; a longer one keeps its first rows, in the report's order,
// and a note gives the full count.
const AWRMaxTop = 25

// add appends a row, or only counts it once AWRMaxRows are kept.
func (t *awrTable) add(r awrRow) {
	t.total++
	if len(t.rows) < AWRMaxRows {
		t.rows = append(t.rows, r)
	}
}

// capped says whether rows were counted but not kept.
func (t *awrTable) capped() bool { return t.total > len(t.rows) }

// awrRow is one row: its cells by column and the row as one line of text
// (the text line itself, or the HTML cells joined by two blanks) for the
// "label: value" sections.
type awrRow struct {
	cells []string
	raw   string
	line  int
}

// col returns the index of the first column whose heading satisfies f, or -1.
func (t *awrTable) col(f func(h string) bool) int {
	for i, h := range t.header {
		if f(strings.ToLower(h)) {
			return i
		}
	}
	return -1
}

func (r awrRow) cell(i int) string {
	if i < 0 || i >= len(r.cells) {
		return ""
	}
	return r.cells[i]
}

// awrTitle recognises a section by its printed title.
type awrTitle struct {
	sec  string
	rank int
	re   func() *regexp.Regexp
}

// The section titles, as printed by awrrpt/awrgrpt (10g-23ai) and
// sprepins.sql (8i-19c). A title is followed by the end of the line, two
// blanks and more text (page title "DB/Inst: ...", column headings), or
// "(" (Host CPU (CPUs: 16 ...)). "Wait Class" and "Wait Events" alone are
// also column headings, so they need the page title or the end of the line.
var awrTitles = []awrTitle{
	{secTopEvents, 0, lazyre.New(`^\s*Top\s+(?:\d+\s+)?(?:Timed\s+(?:Foreground\s+)?Events|Foreground\s+Events\s+by\s+Total\s+Wait\s+Time|Wait\s+Events)(?:\s*$|\s{2,}|\s*~)`)},
	{secWaitClasses, 0, lazyre.New(`^\s*Wait\s+Classes\s+by\s+Total\s+Wait\s+Time(?:\s*$|\s{2,})`)},
	{secWaitClasses, 1, lazyre.New(`^\s*Foreground\s+Wait\s+Class(?:\s*$|\s{2,})`)},
	{secWaitClasses, 2, lazyre.New(`^\s*Wait\s+Class(?:\s*$|\s+DB/Inst:|\s+for\s+DB:)`)},
	{secFgEvents, 0, lazyre.New(`^\s*Foreground\s+Wait\s+Events(?:\s*$|\s{2,}|\s+for\s+DB:)`)},
	{secFgEvents, 1, lazyre.New(`^\s*Wait\s+Events(?:\s*$|\s+DB/Inst:|\s+for\s+DB:)`)},
	{secBgEvents, 0, lazyre.New(`^\s*Background\s+Wait\s+Events(?:\s*$|\s{2,}|\s+for\s+DB:)`)},
	{secLoadProfile, 0, lazyre.New(`^\s*Load\s+Profile(?:\s*$|\s{2,}|\s*~)`)},
	{secEfficiency, 0, lazyre.New(`^\s*Instance\s+Efficiency\s+(?:Percentages|Indicators)`)},
	{secHostCPU, 0, lazyre.New(`^\s*Host\s+CPU(?:\s*$|\s{2,}|\s*\()`)},
	{secInstCPU, 0, lazyre.New(`^\s*Instance\s+CPU(?:\s*$|\s{2,})`)},
	{secOSStats, 0, lazyre.New(`^\s*Operating\s+System\s+Statistics(?:\s*$|\s+DB/Inst|\s+for\s+DB:)`)},
	{secTimeModel, 0, lazyre.New(`^\s*Time\s+Model\s+(?:Statistics|System\s+Stats)(?:\s*$|\s{2,}|\s+for\s+DB:)`)},
	{secInstStats, 0, lazyre.New(`^\s*Instance\s+Activity\s+Stats(?:\s*$|\s+DB/Inst|\s+for\s+DB:)`)},
	{secInstStats, 1, lazyre.New(`^\s*Key\s+Instance\s+Activity\s+Stats(?:\s*$|\s{2,})`)},
	{secInitOra, 0, lazyre.New(`^\s*init\.ora\s+Parameters(?:\s*$|\s{2,}|\s+for\s+DB:)`)},
	{secMemStats, 0, lazyre.New(`^\s*Memory\s+Statistics(?:\s*$|\s{2,}\S|\s*~)`)},
	{secCacheSizes, 0, lazyre.New(`^\s*Cache\s+Sizes(?:\s*$|\s{2,}|\s*\(|\s*~)`)},
	{secGlobalDB, 0, lazyre.New(`^\s*Database\s+Summary(?:\s*$|\s{2,})`)},
	{secGlobalInst, 0, lazyre.New(`^\s*Database\s+Instances\s+Included\s+In\s+Report`)},
	{secGlobalOSStat, 0, lazyre.New(`^\s*OS\s+Statistics\s+By\s+Instance`)},
	{secGCLoad, 0, lazyre.New(`^\s*Global\s+Cache\s+Load\s+Profile(?:\s*$|\s{2,}|\s*~)`)},
	{secGCWorkload, 0, lazyre.New(`^\s*Global\s+Cache\s+and\s+Enqueue\s+Services\s*-\s*Workload\s+Characteristics`)},
}

// titleSection returns the section a title line or HTML caption names.
// Only the patterns of titles that start with the line's first word are
// tried: most lines of a report start with no title word at all.
func titleSection(s string) (sec string, rank int, ok bool) {
	if len(s) > 300 {
		return "", 0, false
	}
	t := strings.TrimLeft(s, " ")
	i := strings.IndexByte(t, ' ')
	if i < 0 {
		i = len(t)
	}
	if i == 0 || i > 10 {
		return "", 0, false
	}
	for _, k := range titlesByWord()[strings.ToLower(t[:i])] {
		if awrTitles[k].re().MatchString(s) {
			return awrTitles[k].sec, awrTitles[k].rank, true
		}
	}
	return "", 0, false
}

// titlesByWord indexes awrTitles by the first word of each pattern.
var titlesByWord = sync.OnceValue(func() map[string][]int {
	m := map[string][]int{}
	for k, t := range awrTitles {
		p := strings.TrimPrefix(t.re().String(), `^\s*`)
		w := p
		if j := strings.Index(p, `\s`); j > 0 {
			w = p[:j]
		}
		w = strings.ToLower(strings.ReplaceAll(w, `\.`, "."))
		m[w] = append(m[w], k)
	}
	return m
})

// The HTML summary attributes of 11gR2+ reports ("This table displays ...").
var awrSummaries = []struct {
	sec, contains, not string
	rank               int
}{
	{secDBInfo, "database instance information", "", 0},
	{secDBInfo, "pdb instance information", "", 1},
	{secHostInfo, "host information", "", 0},
	{secSnap, "snapshot information", "", 0},
	{secLoadProfile, "load profile", "global cache", 0},
	{secEfficiency, "instance efficiency", "", 0},
	{secTopEvents, "top 10 wait events", "", 0},
	{secTopEvents, "top 5 timed", "", 0},
	{secTopEvents, "top timed events", "", 0},
	{secWaitClasses, "wait class statistics ordered by total wait time", "", 0},
	{secWaitClasses, "foreground wait class", "", 1},
	{secFgEvents, "foreground wait events", "", 0},
	{secBgEvents, "background wait events", "", 0},
	{secHostCPU, "system load statistics", "", 0},
	{secInstCPU, "cpu usage and wait statistics", "", 0},
	{secOSStats, "operating system statistics", "detail", 0},
	{secTimeModel, "time model statistics", "", 0},
	{secInstStats, "key instance activity", "", 1},
	{secInstStats, "instance activity stat", "absolute", 0},
	{secInitOra, "init.ora parameters", "multi", 0},
	{secMemStats, "memory statistics", "", 0},
	{secCacheSizes, "cache sizes", "", 0},
	{secGlobalDB, "database summary", "", 0},
	{secGlobalInst, "database instances included in report", "", 0},
	{secGlobalOSStat, "os statistics by instance", "", 0},
	{secGCLoad, "global cache load profile", "", 0},
	{secGCWorkload, "workload characteristics", "", 0},
}

// classify names a table's section from its summary, title or headings.
func classify(t *awrTable) {
	if s := strings.ToLower(t.summary); s != "" {
		for _, m := range awrSummaries {
			if strings.Contains(s, m.contains) && (m.not == "" || !strings.Contains(s, m.not)) && !strings.Contains(s, "activity by") {
				t.section, t.rank = m.sec, m.rank
				if m.sec == secDBInfo && len(t.header) > 0 && foldKey(t.header[0]) == "instance" {
					t.section = secInstInfo // 12.2+: the instance has its own table
				}
				return
			}
		}
	}
	if sec, rank, ok := titleSection(t.title); ok {
		t.section, t.rank = sec, rank
		return
	}
	t.section = headerSection(t.header)
}

// headerSection recognises the untitled tables (the report header's) and,
// for reports without summaries or titles, tables by their headings.
func headerSection(h []string) string {
	if len(h) == 0 {
		return ""
	}
	var keys []string
	for _, x := range h {
		keys = append(keys, foldKey(x))
	}
	has := func(k string) bool {
		for _, x := range keys {
			if x == k {
				return true
			}
		}
		return false
	}
	all := strings.Join(keys, " ")
	switch {
	case (has("dbid") || strings.Contains(all, "dbid")) && (has("dbname") || has("database") || has("instance") || has("release")):
		return secDBInfo
	case keys[0] == "instance" && (has("instnum") || strings.Contains(all, "instnum")):
		return secInstInfo
	case has("platform") || (strings.HasPrefix(keys[0], "host") && (has("cpus") || strings.Contains(all, "memory"))):
		return secHostInfo
	case strings.Contains(all, "snapid") && strings.Contains(all, "snaptime"):
		return secSnap
	case keys[0] == "statisticname" && len(keys) >= 2 && strings.Contains(keys[1], "time"):
		return secTimeModel
	case keys[0] == "statistic" && len(keys) >= 3 && has("total") && (has("persecond") || has("persec")):
		return secInstStats
	case keys[0] == "statistic" && (len(keys) == 2 && has("total") || has("value")):
		return secOSStats
	case keys[0] == "parametername" && len(keys) >= 2 && strings.Contains(keys[1], "begin"):
		return secInitOra
	}
	return ""
}

// ---- text reports ----

var (
	reAWRNote    = lazyre.New(`^\s*->`)
	reAWRDBInst  = lazyre.New(`DB/Inst:\s*([^/\s]+)/(\S+)|for DB:\s*(\S+)\s+Instance:\s*(\S+)`)
	reAWRLabelLn = lazyre.New(`^\s*[A-Za-z%][^:]{0,60}:\s+[-+.\d]`)
)

// textLines splits a text report into lines: CR LF and lone CR ends, tabs
// expanded to 8-column stops (what a terminal shows, and what the column
// underlines were printed for).
func textLines(b []byte) []string {
	s := string(b)
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.IndexByte(l, '\t') >= 0 {
			lines[i] = expandTabs(l)
		}
	}
	return lines
}

func expandTabs(l string) string {
	var b strings.Builder
	col := 0
	for _, r := range l {
		if r == '\t' {
			n := 8 - col%8
			b.WriteString(strings.Repeat(" ", n))
			col += n
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// span is one column of a text table: [start, end) in bytes of the line.
type span struct{ start, end int }

// underline returns the column spans of a heading underline ("----- ---- ~~~~"):
// two or more runs of '-' or '~' and nothing but blanks between them.
func underline(l string) []span {
	var sp []span
	in := false
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case c == '-' || c == '~' || c == '=':
			if !in {
				sp = append(sp, span{start: i})
				in = true
			}
		case c == ' ':
			if in {
				sp[len(sp)-1].end = i
				in = false
			}
		default:
			return nil
		}
	}
	if in {
		sp[len(sp)-1].end = len(l)
	}
	if len(sp) < 2 {
		return nil
	}
	return sp
}

// isFooter is a section's closing rule: one long run of dashes.
func isFooter(l string) bool {
	t := strings.TrimSpace(l)
	return len(t) >= 20 && strings.Trim(t, "-") == ""
}

func blank(l string) bool { return strings.TrimSpace(l) == "" }

// token is a run of non-blank bytes of a line and where it is.
type token struct {
	s          string
	start, end int
}

func tokens(l string) []token {
	var ts []token
	i := 0
	for i < len(l) {
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i >= len(l) {
			break
		}
		j := i
		for j < len(l) && l[j] != ' ' {
			j++
		}
		ts = append(ts, token{l[i:j], i, j})
		i = j
	}
	return ts
}

// splitCells assigns the tokens of a line to the columns of an underline: a
// token goes to the column it overlaps most (the nearest one when it
// overlaps none), and the first column takes everything left of the second
// (a row label or an event name, which the report cut at that width).
func splitCells(l string, sp []span) []string {
	cells := make([]string, len(sp))
	first := len(l)
	if len(sp) > 1 {
		first = sp[1].start
	}
	if first > len(l) {
		first = len(l)
	}
	// A first-column text that runs into the second column's blanks is
	// still the first column's (right-aligned numbers never start there).
	cut := first
	for cut < len(l) && cut < sp[1].end && l[cut] != ' ' && cut > 0 && l[cut-1] != ' ' {
		cut++
	}
	cells[0] = strings.TrimSpace(l[:cut])
	ts := tokens(l[cut:])
	for i := range ts {
		ts[i].start += cut
		ts[i].end += cut
	}
	assignTokens(cells, ts, sp, 1)
	return cells
}

// assignTokens appends each token to the column (from index from on) it
// overlaps most, or the nearest one when it overlaps none; a column's
// tokens are joined by one blank.
func assignTokens(cells []string, ts []token, sp []span, from int) {
	for _, t := range ts {
		best, bestOv, bestDist := -1, 0, 1<<30
		for k := from; k < len(sp); k++ {
			ov := min(t.end, sp[k].end) - max(t.start, sp[k].start)
			dist := 0
			if ov <= 0 {
				dist = max(sp[k].start-t.end, t.start-sp[k].end)
			}
			if ov > bestOv || (bestOv <= 0 && ov <= 0 && dist < bestDist) {
				best, bestOv, bestDist = k, ov, dist
			}
		}
		if best < 0 {
			continue
		}
		if cells[best] != "" {
			cells[best] += " "
		}
		cells[best] += t.s
	}
}

// parseAWRText reads a text report (AWR or Statspack) into tables.
func parseAWRText(b []byte) *awrDoc {
	lines := textLines(b)
	doc := &awrDoc{}
	for _, l := range lines {
		if !blank(l) {
			doc.title = strings.TrimSpace(l)
			break
		}
	}
	doc.head = lines[:min(len(lines), 300)]
	for i := 0; i < len(lines) && i < 400; i++ {
		if m := reAWRDBInst().FindString(lines[i]); m != "" {
			doc.dbInst = m
			break
		}
	}
	used := make([]bool, len(lines))
	// The report header's untitled tables (database, instance, host,
	// snapshots) come before the first sections.
	headerEnd := min(len(lines), 400)
	for i := 0; i < len(lines); i++ {
		if used[i] || blank(lines[i]) {
			continue
		}
		if sec, rank, ok := titleSection(lines[i]); ok {
			if sec == secLoadProfile || sec == secTopEvents {
				headerEnd = min(headerEnd, i)
			}
			t, next := textSection(lines, i, used)
			t.section, t.rank = sec, rank
			doc.tables = append(doc.tables, t)
			if next > i {
				i = next - 1
			}
			continue
		}
		// An underline nobody claimed: the report header's untitled tables.
		if i >= headerEnd {
			continue
		}
		if sp := underline(lines[i]); sp != nil && i > 0 {
			h := i - 1
			for h > 0 && h > i-3 && !blank(lines[h-1]) && !used[h-1] && underline(lines[h-1]) == nil {
				h--
			}
			if blank(lines[h]) || used[h] {
				continue
			}
			t := &awrTable{line: h + 1}
			t.header = headings(lines[h:i], sp, "")
			t.section = headerSection(t.header)
			if t.section == "" {
				continue
			}
			next := textRows(lines, i+1, sp, t, used)
			doc.tables = append(doc.tables, t)
			i = next - 1
		}
	}
	return doc
}

// textSection reads the section whose title is at lines[at]: column
// headings over an underline and rows, or "label: value" lines.
func textSection(lines []string, at int, used []bool) (*awrTable, int) {
	title := strings.TrimSpace(lines[at])
	t := &awrTable{line: at + 1, title: title}
	used[at] = true
	// Find the heading underline within the next lines; a "label: value"
	// line, another title or the section's footer first means there is none.
	u := -1
	for j := at + 1; j < len(lines) && j <= at+16; j++ {
		l := lines[j]
		if blank(l) || reAWRNote().MatchString(l) {
			continue
		}
		if isFooter(l) {
			break
		}
		if _, _, ok := titleSection(l); ok {
			break
		}
		if sp := underline(l); sp != nil {
			u = j
			break
		}
		if reAWRLabelLn().MatchString(l) {
			break
		}
	}
	if u < 0 {
		// "label: value" lines up to the first blank line after some.
		sec, _, _ := titleSection(lines[at])
		j := at + 1
		seen := false
		for ; j < len(lines) && j < at+60; j++ {
			l := lines[j]
			if blank(l) {
				if seen && !(sec == secGCWorkload && nextIsLabel(lines, j)) {
					break
				}
				continue
			}
			if isFooter(l) {
				break
			}
			if _, _, ok := titleSection(l); ok && j > at+1 {
				break
			}
			used[j] = true
			if reAWRLabelLn().MatchString(l) {
				seen = true
			}
			t.add(awrRow{cells: []string{strings.TrimSpace(l)}, raw: l, line: j + 1})
		}
		return t, j
	}
	// Two-level headings (group titles over their own underline, then the
	// column headings over the table's): the table's is the last underline
	// of the run of heading lines.
	for k := u + 1; k <= u+2 && k+1 < len(lines); k++ {
		if blank(lines[k]) || underline(lines[k]) != nil {
			break
		}
		if underline(lines[k+1]) != nil {
			u = k + 1
			break
		}
	}
	sp := underline(lines[u])
	// Headings: the non-blank, non-note lines just above the underline, the
	// title line included when it carries headings (its title blanked out).
	h := u
	for h > at+1 && !blank(lines[h-1]) && !reAWRNote().MatchString(lines[h-1]) {
		h--
	}
	hl := append([]string(nil), lines[h:u]...)
	if h == at+1 {
		// Blank out the title itself (up to the first run of blanks).
		first := lines[at]
		name := title
		if i := strings.Index(name, "  "); i > 0 {
			name = name[:i]
		}
		loc := strings.Index(first, name)
		rest := strings.Repeat(" ", loc+len(name)) + first[loc+len(name):]
		hl = append([]string{rest}, hl...)
	}
	for k := at; k <= u; k++ {
		used[k] = true
	}
	t.header = headings(hl, sp, title)
	next := textRows(lines, u+1, sp, t, used)
	return t, next
}

// headings joins the heading lines' tokens by column. Tilde runs (the
// title's underline, which shares a line with headings in some layouts)
// and page titles ("DB/Inst: ...") are left out, as is the section title.
func headings(hl []string, sp []span, title string) []string {
	out := make([]string, len(sp))
	for _, l := range hl {
		if i := strings.Index(l, "DB/Inst:"); i >= 0 {
			l = l[:i]
		}
		l = strings.Map(func(r rune) rune {
			if r == '~' {
				return ' '
			}
			return r
		}, l)
		if underline(l) != nil || blank(l) {
			continue
		}
		for k, c := range splitHeading(l, sp) {
			if c == "" {
				continue
			}
			if out[k] != "" {
				out[k] += " "
			}
			out[k] += c
		}
	}
	for k := range out {
		out[k] = collapse(out[k])
	}
	return out
}

// splitHeading assigns heading words to columns by overlap, like
// splitCells, but without the first column's row-label rule.
func splitHeading(l string, sp []span) []string {
	cells := make([]string, len(sp))
	assignTokens(cells, tokens(l), sp, 0)
	return cells
}

// textRows reads the rows under an underline up to a blank line, a footer
// or another title. A row whose first column is blank continues the row
// above (a value the report wrapped within its column). Rows that continue
// after a page break (the page title and the same headings repeated, as
// Statspack prints every 60 lines) are read on.
func textRows(lines []string, from int, sp []span, t *awrTable, used []bool) int {
	j := from
	for j < len(lines) {
		l := lines[j]
		if blank(l) || isFooter(l) {
			if k := pageContinues(lines, j, sp, t); k > 0 {
				for x := j; x < k; x++ {
					used[x] = true
				}
				j = k
				continue
			}
			break
		}
		if _, _, ok := titleSection(l); ok {
			break
		}
		used[j] = true
		cells := splitCells(l, sp)
		if cells[0] == "" && len(t.rows) > 0 && continuation(cells) {
			if t.capped() {
				j++ // the continuation of a row not kept
				continue
			}
			prev := &t.rows[len(t.rows)-1]
			for k, c := range cells {
				if c == "" {
					continue
				}
				sep := " "
				if w := sp[k].end - sp[k].start; len(prev.cells[k]) >= w {
					sep = "" // the value filled its column: cut mid-word
				}
				if len(prev.cells[k]) < maxCell {
					prev.cells[k] = strings.TrimSpace(prev.cells[k] + sep + c)
				}
			}
			if len(prev.raw) < maxCell {
				prev.raw += " " + strings.TrimSpace(l)
			}
			j++
			continue
		}
		t.add(awrRow{cells: cells, raw: l, line: j + 1})
		j++
	}
	return j
}

// maxCell bounds a cell joined from continuation lines: a value wrapped
// over thousands of lines (a SQL text) must not cost quadratic time.
const maxCell = 4096

// continuation: a row with a blank first column is the rest of the row
// above when it holds text and no number (a value wrapped within its
// column), not a row of its own whose first column SQL*Plus left blank
// (BREAK ON a repeated value) or whose label is missing.
func continuation(cells []string) bool {
	text := false
	for _, c := range cells[1:] {
		if c == "" {
			continue
		}
		if _, ok := parseAWRNum(c); ok {
			return false
		}
		text = true
	}
	return text
}

// pageContinues looks past a blank line or footer at j for the same table
// continued on the next page: within a few lines, an underline with the same
// columns. It returns the line after that underline, or 0.
func pageContinues(lines []string, j int, sp []span, t *awrTable) int {
	if t.title == "" {
		return 0
	}
	key := t.title
	if len(key) > 24 {
		key = key[:24]
	}
	sawTitle := false
	for k := j; k < len(lines) && k < j+12; k++ {
		l := lines[k]
		if strings.HasPrefix(strings.TrimSpace(l), key) {
			sawTitle = true
			continue
		}
		if u := underline(l); u != nil {
			if sawTitle && sameSpans(u, sp) {
				return k + 1
			}
			return 0
		}
		if !sawTitle && !blank(l) && !isFooter(l) {
			return 0
		}
	}
	return 0
}

func sameSpans(a, b []span) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// nextIsLabel says whether the first non-blank line after j is a "label:
// value" line that is not a title: Global Cache and Enqueue Services -
// Workload Characteristics groups its lines with blank ones between.
func nextIsLabel(lines []string, j int) bool {
	for k := j + 1; k < len(lines) && k <= j+3; k++ {
		if blank(lines[k]) {
			continue
		}
		_, _, title := titleSection(lines[k])
		return !title && reAWRLabelLn().MatchString(lines[k])
	}
	return false
}
