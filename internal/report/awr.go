package report

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/rules"
)

// AWRSchemaVersion is the version of `dbhost awr --format json`.
const AWRSchemaVersion = 1

// AWRItem is one performance report with its diagnosis.
type AWRItem struct {
	Report   *artifacts.AWRReport
	Findings []rules.Finding
	// Problems are the sections of the report that could not be read.
	Problems []string
	// Rules is the number of report diagnoses that ran.
	Rules int
	// CannotCheck are the diagnoses that could not decide, with what
	// would decide them (host facts not given, sections the report lacks).
	CannotCheck []rules.Result
}

type awrJSONReport struct {
	*artifacts.AWRReport
	Findings    []rules.Finding `json:"findings"`
	CannotCheck []rules.Result  `json:"cannot_check,omitempty"`
	Problems    []string        `json:"problems,omitempty"`
}

type awrJSONDoc struct {
	SchemaVersion int                      `json:"schema_version"`
	Reports       []awrJSONReport          `json:"reports"`
	Comparison    *artifacts.AWRComparison `json:"comparison,omitempty"`
}

// AWRJSON renders the `dbhost awr --format json` contract (issue 12):
// {"schema_version":1,"reports":[{...report..., "findings":[...]}],
// "comparison":{...}} — the comparison only for several reports.
func AWRJSON(items []AWRItem, cmp *artifacts.AWRComparison) ([]byte, error) {
	doc := awrJSONDoc{SchemaVersion: AWRSchemaVersion, Reports: make([]awrJSONReport, len(items)), Comparison: cmp}
	for i, it := range items {
		fs := it.Findings
		if fs == nil {
			fs = []rules.Finding{}
		}
		doc.Reports[i] = awrJSONReport{AWRReport: it.Report, Findings: fs, CannotCheck: it.CannotCheck, Problems: it.Problems}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// AWRText renders reports for people: what the report says (host, load,
// top events, wait classes), then the diagnosis, then the comparison.
func AWRText(items []AWRItem, cmp *artifacts.AWRComparison, o FindingsOptions) []byte {
	d := newTextDoc(0)
	d.lw.sgr = o.Color
	return draw(d, func(d doc) { awrView(d, items, cmp, painter(o.Color)) })
}

// AWRMarkdown is AWRText's view in Markdown: a heading per report and for
// the comparison, the tables as pipe tables, findings as nested lists.
func AWRMarkdown(items []AWRItem, cmp *artifacts.AWRComparison) []byte {
	return draw(&mdDoc{}, func(d doc) { awrView(d, items, cmp, painter(false)) })
}

func awrView(d doc, items []AWRItem, cmp *artifacts.AWRComparison, p painter) {
	for i, it := range items {
		if i > 0 {
			d.line("")
		}
		awrReport(d, it, p)
	}
	if cmp != nil {
		d.line("")
		awrCompare(d, cmp, p)
	}
}

func awrReport(d doc, it AWRItem, p painter) {
	r := it.Report
	kind := strings.ToUpper(r.Kind)
	if r.Kind == "statspack" {
		kind = "Statspack"
	}
	format := r.Format
	if format == "html" {
		format = "HTML"
	}
	scope := "single instance"
	switch {
	case r.Global:
		scope = fmt.Sprintf("RAC, all %d instances (global report)", len(r.Instances))
	case r.RAC:
		scope = "RAC instance"
	}
	who := orDash(r.DBName)
	if r.Instance != "" {
		who += "/" + r.Instance
	}
	d.title(fmt.Sprintf("%s — %s %s report, %s (%s, %s)", p.paint(ansiBold, r.File), kind, format, p.paint(ansiBold, who), orDash(r.Version), scope))
	h := r.Host
	var hw []string
	if h.Platform != "" {
		hw = append(hw, h.Platform)
	}
	for _, x := range []struct {
		v    *int64
		what string
	}{{h.CPUs, "CPUs"}, {h.Cores, "cores"}, {h.Sockets, "sockets"}} {
		if x.v != nil {
			hw = append(hw, fmt.Sprintf("%d %s", *x.v, x.what))
		}
	}
	if h.MemoryGB != nil {
		hw = append(hw, fmt.Sprintf("%s GB", num(*h.MemoryGB)))
	}
	d.line(fmt.Sprintf("Host %s: %s", orDash(h.Name), orDash(strings.Join(hw, ", "))))
	if r.BeginSnap != nil && r.EndSnap != nil {
		s := fmt.Sprintf("Snapshots %d-%d", *r.BeginSnap, *r.EndSnap)
		if r.BeginTime != "" {
			s += fmt.Sprintf(" (%s to %s)", r.BeginTime, r.EndTime)
		}
		s += ":"
		if r.ElapsedMin != nil {
			s += fmt.Sprintf(" elapsed %s min", num(*r.ElapsedMin))
		}
		if r.DBTimeMin != nil {
			s += fmt.Sprintf(", DB time %s min", num(*r.DBTimeMin))
			if r.ElapsedMin != nil && *r.ElapsedMin > 0 {
				s += fmt.Sprintf(" (%s average active sessions)", num(*r.DBTimeMin / *r.ElapsedMin))
			}
		}
		d.line(s)
	}
	lp := r.LoadProfile
	var load []string
	for _, x := range []struct {
		v    *float64
		what string
	}{{lp.DBTimePerS, "DB time %s s"}, {lp.DBCPUPerS, "DB CPU %s s"}, {lp.LogicalReadsPerS, "logical reads %s"},
		{lp.PhysicalReadsPerS, "physical reads %s"}, {lp.RedoBytesPerS, "redo %s bytes"}, {lp.TransactionsPerS, "transactions %s"}} {
		if x.v != nil {
			load = append(load, fmt.Sprintf(x.what, num(*x.v)))
		}
	}
	if len(load) > 0 {
		d.line("Load profile per second: " + strings.Join(load, ", "))
	}
	if len(r.TopEvents) > 0 {
		d.line("")
		eventsTable(d, "Top events", r.TopEvents)
		var sum float64
		n := 0
		for _, e := range r.TopEvents {
			if e.PctDBTime != nil {
				sum += *e.PctDBTime
				n++
			}
		}
		if n > 0 {
			d.item(fmt.Sprintf("(the top events account for %s %% of DB time)", num(sum)))
		}
	}
	if len(r.WaitClasses) > 0 {
		d.line("")
		t := awrTable("Wait classes\twaits\ttime (s)\tavg (ms)\t% DB time")
		for _, c := range r.WaitClasses {
			t.rows = append(t.rows, []string{"  " + c.WaitClass, optI(c.Waits), optF(c.TimeS), optF(c.AvgMS), optF(c.PctDBTime)})
		}
		d.table(t)
	}
	for _, in := range r.Instances {
		if len(in.TopEvents) == 0 {
			continue
		}
		d.line("")
		eventsTable(d, fmt.Sprintf("Instance %d %s (%s)", in.Number, in.Name, orDash(in.Host)), in.TopEvents)
	}
	for _, pr := range it.Problems {
		d.line(p.paint(ansiYellow, "could not read:") + " " + pr)
	}
	for _, n := range r.Notes {
		d.line("note: " + n)
	}
	if len(it.Findings) == 0 {
		d.section(fmt.Sprintf("Diagnosis: no finding from the %d report rules.", it.Rules))
	} else {
		d.section(p.paint(ansiBold, "Diagnosis:") + " " + countsOf(it.Findings))
		for _, f := range it.Findings {
			finding(d, f, p)
		}
	}
	if len(it.CannotCheck) > 0 {
		d.section(p.paint(ansiBold, "Could not decide (what would):"))
		for _, c := range it.CannotCheck {
			d.item(c.Title + " — " + p.paint(ansiDim, d.code(c.ID)))
			d.fields("      ", []docField{{value: c.Reason}})
		}
	}
}

// awrTable is a table of the AWR view: its title in the head's first cell
// (head: tab-separated), its rows indented by their first cell ("  " in
// text), the last column open as tabwriter leaves it.
func awrTable(head string) docTable {
	return docTable{head: strings.Split(head, "\t"), pad: 2, open: true}
}

func eventsTable(d doc, title string, evs []artifacts.AWREvent) {
	t := awrTable(title + "\twaits\ttime (s)\tavg (ms)\t% DB time\tclass")
	for _, e := range evs {
		class := ""
		if e.WaitClass != nil {
			class = *e.WaitClass
		}
		t.rows = append(t.rows, []string{"  " + e.Event, optI(e.Waits), optF(e.TimeS), optF(e.AvgMS), optF(e.PctDBTime), class})
	}
	d.table(t)
}

func countsOf(fs []rules.Finding) string {
	return counts(rules.Report{Findings: fs})
}

// num prints a number without noise: thousands grouped, at most the
// digits that matter (3 significant decimals below 1).
func num(v float64) string {
	switch {
	case v == float64(int64(v)) && v < 1e15 && v > -1e15:
		return group(strconv.FormatInt(int64(v), 10))
	case v >= 100 || v <= -100:
		return group(strconv.FormatFloat(v, 'f', 1, 64))
	case v >= 1 || v <= -1:
		return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', 2, 64), "0"), ".")
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// group puts thousands separators into a formatted number.
func group(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	frac := ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s, frac = s[:i], s[i:]
	}
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return sign + string(out) + frac
}

func optF(p *float64) string {
	if p == nil {
		return "-"
	}
	return num(*p)
}

func optI(p *int64) string {
	if p == nil {
		return "-"
	}
	return group(strconv.FormatInt(*p, 10))
}

func awrCompare(d doc, c *artifacts.AWRComparison, p painter) {
	d.title(p.paint(ansiBold, "Comparison") + " (each report against the first, " + c.Baseline + ")")
	for i, r := range c.Reports {
		d.item(fmt.Sprintf("[%d] %s", i+1, r))
	}
	if len(c.Load) > 0 {
		d.line("")
		t := awrTable(compareHeader("Load per second", len(c.Reports), "\t[%d] vs [1]"))
		for _, l := range c.Load {
			row := []string{"  " + l.Metric}
			for _, v := range l.Values {
				row = append(row, optF(v))
			}
			for _, x := range l.ChangePct[1:] {
				row = append(row, pct(x))
			}
			t.rows = append(t.rows, row)
		}
		d.table(t)
	}
	d.line("")
	t := awrTable(compareHeader("Event (time s / avg ms / % DB time)", len(c.Reports), "\t[%d]-[1] time s\t% DB time"))
	for _, e := range c.Events {
		row := []string{"  " + e.Event}
		for _, v := range e.Values {
			if v == nil {
				row = append(row, "(not listed)")
				continue
			}
			row = append(row, fmt.Sprintf("%s / %s / %s", optF(v.TimeS), optF(v.AvgMS), optF(v.PctDBTime)))
		}
		for i := 1; i < len(e.Values); i++ {
			row = append(row, signed(e.DeltaTimeS[i]), signed(e.DeltaPctDBTime[i]))
		}
		t.rows = append(t.rows, row)
	}
	d.table(t)
}

// compareHeader is a comparison table's heading: the title, a column per
// report ([1], [2] ...) and the delta columns of each report after the
// first (delta holds one %d for the report's number).
func compareHeader(title string, n int, delta string) string {
	h := title
	for i := 1; i <= n; i++ {
		h += fmt.Sprintf("\t[%d]", i)
	}
	for i := 2; i <= n; i++ {
		h += strings.Replace(delta, "%d", strconv.Itoa(i), 1)
	}
	return h
}

func pct(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f %%", *p)
}

func signed(p *float64) string {
	if p == nil {
		return "-"
	}
	if *p > 0 {
		return "+" + num(*p)
	}
	return num(*p)
}
