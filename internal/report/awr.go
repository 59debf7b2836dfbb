package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

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
	var b bytes.Buffer
	p := painter(o.Color)
	for i, it := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		awrReportText(&b, it, p)
	}
	if cmp != nil {
		b.WriteString("\n")
		awrCompareText(&b, cmp, p)
	}
	return b.Bytes()
}

func awrReportText(b *bytes.Buffer, it AWRItem, p painter) {
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
	fmt.Fprintf(b, "%s — %s %s report, %s (%s, %s)\n", p.paint(ansiBold, r.File), kind, format, p.paint(ansiBold, who), orDash(r.Version), scope)
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
	fmt.Fprintf(b, "Host %s: %s\n", orDash(h.Name), orDash(strings.Join(hw, ", ")))
	if r.BeginSnap != nil && r.EndSnap != nil {
		fmt.Fprintf(b, "Snapshots %d-%d", *r.BeginSnap, *r.EndSnap)
		if r.BeginTime != "" {
			fmt.Fprintf(b, " (%s to %s)", r.BeginTime, r.EndTime)
		}
		b.WriteString(":")
		if r.ElapsedMin != nil {
			fmt.Fprintf(b, " elapsed %s min", num(*r.ElapsedMin))
		}
		if r.DBTimeMin != nil {
			fmt.Fprintf(b, ", DB time %s min", num(*r.DBTimeMin))
			if r.ElapsedMin != nil && *r.ElapsedMin > 0 {
				fmt.Fprintf(b, " (%s average active sessions)", num(*r.DBTimeMin / *r.ElapsedMin))
			}
		}
		b.WriteString("\n")
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
		fmt.Fprintf(b, "Load profile per second: %s\n", strings.Join(load, ", "))
	}
	if len(r.TopEvents) > 0 {
		b.WriteString("\n")
		eventsTable(b, "Top events", r.TopEvents)
		var sum float64
		n := 0
		for _, e := range r.TopEvents {
			if e.PctDBTime != nil {
				sum += *e.PctDBTime
				n++
			}
		}
		if n > 0 {
			fmt.Fprintf(b, "  (the top events account for %s %% of DB time)\n", num(sum))
		}
	}
	if len(r.WaitClasses) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "Wait classes\twaits\ttime (s)\tavg (ms)\t% DB time")
		for _, c := range r.WaitClasses {
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", c.WaitClass, optI(c.Waits), optF(c.TimeS), optF(c.AvgMS), optF(c.PctDBTime))
		}
		tw.Flush()
	}
	for _, in := range r.Instances {
		if len(in.TopEvents) == 0 {
			continue
		}
		b.WriteString("\n")
		eventsTable(b, fmt.Sprintf("Instance %d %s (%s)", in.Number, in.Name, orDash(in.Host)), in.TopEvents)
	}
	for _, pr := range it.Problems {
		fmt.Fprintf(b, "%s %s\n", p.paint(ansiYellow, "could not read:"), pr)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(b, "note: %s\n", n)
	}
	b.WriteString("\n")
	if len(it.Findings) == 0 {
		fmt.Fprintf(b, "Diagnosis: no finding from the %d report rules.\n", it.Rules)
	} else {
		fmt.Fprintf(b, "%s %s\n", p.paint(ansiBold, "Diagnosis:"), countsOf(it.Findings))
		for _, f := range it.Findings {
			findingText(b, f, p)
		}
	}
	if len(it.CannotCheck) > 0 {
		fmt.Fprintf(b, "\n%s\n", p.paint(ansiBold, "Could not decide (what would):"))
		for _, c := range it.CannotCheck {
			lines := wrap(c.Reason, textWidth)
			fmt.Fprintf(b, "  %s — %s\n", c.Title, p.paint(ansiDim, c.ID))
			for _, l := range lines {
				fmt.Fprintf(b, "      %s\n", l)
			}
		}
	}
}

func eventsTable(b *bytes.Buffer, title string, evs []artifacts.AWREvent) {
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\twaits\ttime (s)\tavg (ms)\t%% DB time\tclass\n", title)
	for _, e := range evs {
		class := ""
		if e.WaitClass != nil {
			class = *e.WaitClass
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", e.Event, optI(e.Waits), optF(e.TimeS), optF(e.AvgMS), optF(e.PctDBTime), class)
	}
	tw.Flush()
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

func awrCompareText(b *bytes.Buffer, c *artifacts.AWRComparison, p painter) {
	fmt.Fprintf(b, "%s %s\n", p.paint(ansiBold, "Comparison"), "(each report against the first, "+c.Baseline+")")
	names := make([]string, len(c.Reports))
	for i, r := range c.Reports {
		names[i] = fmt.Sprintf("[%d] %s", i+1, r)
	}
	for _, n := range names {
		fmt.Fprintf(b, "  %s\n", n)
	}
	if len(c.Load) > 0 {
		b.WriteString("\n")
		tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, compareHeader("Load per second", len(c.Reports), "\t[%d] vs [1]"))
		for _, l := range c.Load {
			line := "  " + l.Metric
			for _, v := range l.Values {
				line += "\t" + optF(v)
			}
			for _, d := range l.ChangePct[1:] {
				line += "\t" + pct(d)
			}
			fmt.Fprintln(tw, line)
		}
		tw.Flush()
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, compareHeader("Event (time s / avg ms / % DB time)", len(c.Reports), "\t[%d]-[1] time s\t% DB time"))
	for _, e := range c.Events {
		line := "  " + e.Event
		for _, v := range e.Values {
			if v == nil {
				line += "\t(not listed)"
				continue
			}
			line += fmt.Sprintf("\t%s / %s / %s", optF(v.TimeS), optF(v.AvgMS), optF(v.PctDBTime))
		}
		for i := 1; i < len(e.Values); i++ {
			line += "\t" + signed(e.DeltaTimeS[i]) + "\t" + signed(e.DeltaPctDBTime[i])
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
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
