package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/experiment"
)

// BenchFile is one --bench file of `dbhost report`: a bench result
// (`dbhost bench X --format json`), a comparison (`dbhost compare
// --format json`) or an experiment (`dbhost experiment --format json`).
type BenchFile struct {
	Name       string
	Result     *bench.Result
	Compare    *bench.Comparison
	Experiment *experiment.Result
}

// ParseBenchFile recognises a --bench file by its keys; name is for the
// error message (which names the line of a JSON syntax error).
func ParseBenchFile(name string, data []byte) (BenchFile, error) {
	const want = "expected the JSON of dbhost bench, compare or experiment (--format json)"
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			line := 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
			return BenchFile{}, fmt.Errorf("%s: line %d: %v: %s", name, line, err, want)
		}
		return BenchFile{}, fmt.Errorf("%s: %v: %s", name, err, want)
	}
	has := func(ks ...string) bool {
		for _, k := range ks {
			if _, ok := keys[k]; !ok {
				return false
			}
		}
		return true
	}
	f := BenchFile{Name: name}
	switch {
	case has("schema_version", "bench", "results"):
		r, err := bench.ParseResult(name, data)
		if err != nil {
			return f, err
		}
		f.Result = r
	case has("effect", "runs", "bench_results"):
		var x experiment.Result
		if err := json.Unmarshal(data, &x); err != nil {
			return f, fmt.Errorf("%s: %v: %s", name, err, want)
		}
		if len(x.Runs) == 0 {
			return f, fmt.Errorf("%s: an experiment without runs: %s", name, want)
		}
		f.Experiment = &x
	case has("a", "b", "cases"):
		var c bench.Comparison
		if err := json.Unmarshal(data, &c); err != nil {
			return f, fmt.Errorf("%s: %v: %s", name, err, want)
		}
		f.Compare = &c
	default:
		return f, fmt.Errorf("%s: neither a bench result, a comparison nor an experiment: %s", name, want)
	}
	return f, nil
}

type htmlBench struct {
	Anchor, Title, File, Host string
	Notes, Warnings           []string
	Matrices                  []htmlMatrix
	Charts                    []template.HTML
	Table                     *htmlTable
	Verdict, VerdictClass     string
	Why                       string
}

type htmlMatrix struct {
	Title, Caption string
	Head           []string
	Rows           []heatRow
}

type htmlTable struct {
	Caption string
	Head    []string
	Rows    [][]string
}

func buildBench(f *BenchFile, i int) *htmlBench {
	b := &htmlBench{Anchor: fmt.Sprintf("bench-%d", i+1), File: f.Name}
	switch {
	case f.Result != nil:
		r := f.Result
		b.Title = "dbhost bench " + r.Bench
		b.Host = fmt.Sprintf("%s, %s, %d CPUs, %d NUMA node(s), started %s, load %s", r.Host.Hostname, r.Host.Kernel,
			r.Host.CPUs, r.Host.NUMANodes, r.Host.Started.UTC().Format("2006-01-02 15:04 UTC"), orDash(r.Host.LoadAverage))
		b.Notes = r.Notes
		if r.Bench == "numa" {
			b.Matrices = numaMatrices(r)
		}
		benchCases(b, r)
	case f.Compare != nil:
		compareCharts(b, f.Compare)
	case f.Experiment != nil:
		experimentCharts(b, f.Experiment)
	}
	return b
}

// numaMatrices: rows CPU node, columns memory node, as `bench numa` prints.
func numaMatrices(r *bench.Result) []htmlMatrix {
	cpus, mems, get := numaGrid(r)
	if len(get) == 0 {
		return nil
	}
	matrix := func(title, caption string, higherWorse bool, val func(*bench.Row) (float64, string, bool)) htmlMatrix {
		m := htmlMatrix{Title: title, Caption: caption}
		for _, mn := range mems {
			m.Head = append(m.Head, fmt.Sprintf("mem node %d", mn))
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, row := range get {
			if v, _, ok := val(row); ok {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
		for _, c := range cpus {
			hr := heatRow{Head: fmt.Sprintf("CPU node %d", c)}
			for _, mn := range mems {
				cell := heatCell{Text: "-", Title: "not measured"}
				if row := get[[2]int{c, mn}]; row != nil {
					if v, text, ok := val(row); ok {
						x := v
						if !higherWorse {
							x = lo + hi - v
						}
						cell = heatCell{Text: text, Style: heat(x, lo, hi), Title: fmt.Sprintf("CPU node %d, memory node %d: %s", c, mn, text)}
						if p := row.Labels["pages"]; p != "" {
							cell.Title += " (pages: " + p + ")"
						}
					}
				}
				hr.Cells = append(hr.Cells, cell)
			}
			m.Rows = append(m.Rows, hr)
		}
		return m
	}
	return []htmlMatrix{
		matrix("Dependent-load latency (ns per load)", "darker is slower", true, nsPerLoadCell),
		matrix("Streaming read bandwidth (GB/s)", "darker is slower", false, readGBCell),
		matrix("Latency against the CPU node's local latency (SLIT / 10 in parentheses)", "the seeds' rule of thumb: remote costs about the SLIT ratio (seed 001: 2.15x at distance 22)", true, vsLocalCell),
	}
}

// fnum formats a figure with 3 significant digits at least.
func fnum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// meanCI is the mean of xs and its 95 % confidence interval (Student t);
// ok is false below 2 values.
func meanCI(xs []float64) (mean, lo, hi float64, ok bool) {
	mean, sd := bench.MeanSD(xs)
	if len(xs) < 2 {
		return mean, mean, mean, false
	}
	h := bench.StudentTQuantile(0.975, float64(len(xs)-1)) * sd / math.Sqrt(float64(len(xs)))
	return mean, mean - h, mean + h, true
}

// benchCases: each case's primary figure, mean over its repeats with the
// 95 % confidence interval, one chart per metric.
func benchCases(b *htmlBench, r *bench.Result) {
	t := &htmlTable{Caption: "Every case: the figure it is judged by, over its repeats",
		Head: []string{"case", "metric", "median (row)", "mean", "95 % CI of the mean", "repeats", "latency p50 / p99 (µs)"}}
	byMetric := map[string][]barRow{}
	var metrics []string
	for _, row := range r.Results {
		m, ok := r.Primary(row.Case)
		if !ok {
			continue
		}
		xs := r.Values(row.Case, m.Name)
		mean, lo, hi, ciOK := meanCI(xs)
		ci := "- (one repeat)"
		br := barRow{Label: row.Case, Value: mean, Dots: xs, Text: fnum(mean) + " " + m.Unit}
		if ciOK {
			ci = fmt.Sprintf("%s … %s", fnum(lo), fnum(hi))
			br.Lo, br.Hi, br.HasCI = lo, hi, true
		}
		lat := "-"
		if l := row.LatencyUS; l != nil && l.Count > 0 {
			lat = fnum(l.P50) + " / " + fnum(l.P99)
		}
		t.Rows = append(t.Rows, []string{row.Case, m.Name + " (" + m.Unit + ")", rowFigure(row, m.Name), fnum(mean), ci, strconv.Itoa(len(xs)), lat})
		if _, seen := byMetric[m.Name]; !seen {
			metrics = append(metrics, m.Name)
		}
		byMetric[m.Name] = append(byMetric[m.Name], br)
	}
	if len(t.Rows) > 0 {
		b.Table = t
	}
	if r.Bench == "numa" {
		return // the matrices say it better than 64 bars
	}
	for _, name := range metrics {
		m, _ := bench.MetricByName(name)
		dir := "higher is better"
		if !m.HigherBetter {
			dir = "lower is better"
		}
		b.Charts = append(b.Charts, svgBars(fmt.Sprintf("%s (%s), mean over repeats with 95 %% CI; dots are the repeats; %s", name, m.Unit, dir), byMetric[name]))
	}
}

func rowFigure(row bench.Row, metric string) string {
	var p *float64
	switch metric {
	case "throughput_gbps":
		p = row.ThroughputGbps
	case "ops_per_sec":
		p = row.OpsPerSec
	case "ns_per_load":
		p = row.NsPerLoad
	case "latency_mean_us":
		if row.LatencyUS != nil {
			v := row.LatencyUS.Mean
			p = &v
		}
	case "latency_p99_us":
		if row.LatencyUS != nil {
			v := row.LatencyUS.P99
			p = &v
		}
	}
	if p == nil {
		return "-"
	}
	return fnum(*p)
}

func compareCharts(b *htmlBench, c *bench.Comparison) {
	b.Title = "dbhost compare (" + c.Bench + "): " + c.B + " against " + c.A
	b.Warnings = c.Warnings
	t := &htmlTable{Caption: "B against A, every case and figure both carry",
		Head: []string{"case", "metric", "A mean", "B mean", "B/A", "difference (95 % CI)", "verdict"}}
	var rows []effectRow
	for _, cc := range c.Cases {
		for _, e := range cc.Effects {
			t.Rows = append(t.Rows, effectCells(cc.Case, e))
			rows = append(rows, newEffectRow(cc.Case+" "+e.Metric, e))
		}
	}
	b.Table = t
	b.Charts = append(b.Charts, svgEffects(fmt.Sprintf("Difference of B from A in %% of A with its 95 %% CI (min effect ±%g %%)", c.MinEffect), rows, c.MinEffect))
	for _, s := range c.OnlyInA {
		b.Notes = append(b.Notes, "only in "+c.A+": "+s)
	}
	for _, s := range c.OnlyInB {
		b.Notes = append(b.Notes, "only in "+c.B+": "+s)
	}
}

func effectCells(cas string, e bench.Effect) []string {
	diff := fmt.Sprintf("%+.1f %%", e.DiffPct)
	if e.CIPct != nil {
		diff += fmt.Sprintf(" (%+.1f … %+.1f)", e.CIPct[0], e.CIPct[1])
	}
	return []string{cas, e.Metric, fnum(e.MeanA), fnum(e.MeanB), fmt.Sprintf("%.3f", e.Ratio), diff, e.Verdict}
}

func experimentCharts(b *htmlBench, x *experiment.Result) {
	b.Title = fmt.Sprintf("dbhost experiment: rules %s, bench '%s'", strings.Join(x.Rules, ", "), x.Bench)
	e := x.Effect
	b.Verdict, b.VerdictClass = e.Verdict, strings.ReplaceAll(e.Verdict, " ", "-")
	b.Why = strings.TrimSpace(e.Reason + "; " + x.Why)
	var a, bb []float64
	for _, r := range x.Runs {
		if r.Side == "A" {
			a = append(a, r.Value)
		} else {
			bb = append(bb, r.Value)
		}
	}
	side := func(label string, xs []float64) barRow {
		mean, lo, hi, ok := meanCI(xs)
		return barRow{Label: label, Value: mean, Lo: lo, Hi: hi, HasCI: ok, Dots: xs, Text: fnum(mean)}
	}
	unit := ""
	if m, ok := bench.MetricByName(x.Metric); ok {
		unit = " (" + m.Unit + ")"
	}
	b.Charts = append(b.Charts,
		svgBars(fmt.Sprintf("Before / after: %s %s%s, mean of the runs with 95 %% CI; dots are the runs", x.Case, x.Metric, unit),
			[]barRow{side("A: without the changes", a), side("B: with the changes", bb)}),
		svgEffects("Effect: B against A in % of A with its 95 % CI", []effectRow{newEffectRow(x.Case+" "+x.Metric, e)}, 0))
	t := &htmlTable{Caption: "The changes made on the B side", Head: []string{"setting", "before", "during B", "rule"}}
	for _, s := range x.Changes {
		t.Rows = append(t.Rows, []string{s.Setting, s.Old, s.New, s.Rule})
	}
	b.Table = t
	for _, r := range x.Runs {
		b.Notes = append(b.Notes, fmt.Sprintf("run %d %s: %s", r.N, r.Side, fnum(r.Value)))
	}
}

// ---- inline SVG charts ----

type barRow struct {
	Label  string
	Value  float64
	Lo, Hi float64
	HasCI  bool
	Dots   []float64
	Text   string
}

type effectRow struct {
	Label, Verdict string
	Diff, Lo, Hi   float64
	HasCI          bool
}

func newEffectRow(label string, e bench.Effect) effectRow {
	r := effectRow{Label: label, Verdict: e.Verdict, Diff: e.DiffPct}
	if e.CIPct != nil {
		r.Lo, r.Hi, r.HasCI = e.CIPct[0], e.CIPct[1], true
	}
	return r
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// svgBars draws horizontal bars from 0 with CI whiskers and the single
// values as dots; each bar's number is written beside it.
func svgBars(title string, rows []barRow) template.HTML {
	const labelW, plotW, rowH, valW = 200.0, 420.0, 30.0, 300.0
	hi := 0.0
	for _, r := range rows {
		hi = math.Max(hi, math.Max(r.Value, r.Hi))
		for _, d := range r.Dots {
			hi = math.Max(hi, d)
		}
	}
	if hi <= 0 {
		hi = 1
	}
	hi *= 1.08
	x := func(v float64) float64 { return labelW + plotW*math.Max(0, v)/hi }
	h := rowH*float64(len(rows)) + 34
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f"><title>%s</title>`,
		esc(title), labelW+plotW+valW, h, labelW+plotW+valW, h, esc(title))
	for k := 0; k <= 4; k++ {
		v := hi / 1.08 * float64(k) / 4
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" y1="4" x2="%.1f" y2="%.1f"/><text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`,
			x(v), x(v), h-22, x(v), h-6, esc(fnum(v)))
	}
	for i, r := range rows {
		y := 6 + rowH*float64(i)
		fmt.Fprintf(&s, `<g><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, labelW-8, y+15, esc(trunc(r.Label, 32)))
		fmt.Fprintf(&s, `<rect x="%.1f" y="%.1f" width="%.1f" height="18" fill="#1f77b4" fill-opacity="0.55"><title>%s: %s</title></rect>`,
			labelW, y+2, x(r.Value)-labelW, esc(r.Label), esc(r.Text))
		if r.HasCI {
			fmt.Fprintf(&s, `<path class="ax" d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f"/>`,
				x(r.Lo), y+5, y+17, x(r.Lo), y+11, x(r.Hi), x(r.Hi), y+5, y+17)
		}
		for _, d := range r.Dots {
			fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="#111"/>`, x(d), y+11)
		}
		txt := r.Text
		if r.HasCI {
			txt += fmt.Sprintf(" [%s … %s]", fnum(r.Lo), fnum(r.Hi))
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%.1f">%s</text></g>`, labelW+plotW+6, y+15, esc(txt))
	}
	fmt.Fprintf(&s, `<line class="ax" x1="%.1f" y1="4" x2="%.1f" y2="%.1f"/></svg>`, labelW, labelW, h-22)
	return template.HTML(s.String())
}

// svgEffects draws differences in % with their confidence intervals
// around a zero line, the ±minEffect band shaded (none when 0).
func svgEffects(title string, rows []effectRow, minEffect float64) template.HTML {
	const labelW, plotW, rowH, valW = 200.0, 420.0, 30.0, 300.0
	ext := math.Max(5, minEffect)
	for _, r := range rows {
		ext = math.Max(ext, math.Abs(r.Diff))
		if r.HasCI {
			ext = math.Max(ext, math.Max(math.Abs(r.Lo), math.Abs(r.Hi)))
		}
	}
	ext *= 1.1
	x := func(v float64) float64 { return labelW + plotW*(v+ext)/(2*ext) }
	h := rowH*float64(len(rows)) + 34
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="%s" viewBox="0 0 %.0f %.0f" width="%.0f" height="%.0f"><title>%s</title>`,
		esc(title), labelW+plotW+valW, h, labelW+plotW+valW, h, esc(title))
	if minEffect > 0 {
		fmt.Fprintf(&s, `<rect x="%.1f" y="4" width="%.1f" height="%.1f" fill="#e8ecf1"><title>within ±%g %%: no measurable difference</title></rect>`,
			x(-minEffect), x(minEffect)-x(-minEffect), h-26, minEffect)
	}
	for _, v := range []float64{-ext / 1.1, -ext / 2.2, 0, ext / 2.2, ext / 1.1} {
		fmt.Fprintf(&s, `<line class="grid" x1="%.1f" y1="4" x2="%.1f" y2="%.1f"/><text x="%.1f" y="%.1f" text-anchor="middle">%+.0f%%</text>`,
			x(v), x(v), h-22, x(v), h-6, v)
	}
	fmt.Fprintf(&s, `<line class="ax" x1="%.1f" y1="4" x2="%.1f" y2="%.1f" stroke-dasharray="4 3"/>`, x(0), x(0), h-22)
	for i, r := range rows {
		y := 6 + rowH*float64(i)
		fmt.Fprintf(&s, `<g><text x="%.1f" y="%.1f" text-anchor="end">%s</text>`, labelW-8, y+15, esc(trunc(r.Label, 32)))
		if r.HasCI {
			fmt.Fprintf(&s, `<path class="ax" stroke-width="2" d="M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fV%.1f"/>`,
				x(r.Lo), y+5, y+17, x(r.Lo), y+11, x(r.Hi), x(r.Hi), y+5, y+17)
		}
		fmt.Fprintf(&s, `<rect x="%.1f" y="%.1f" width="9" height="9" fill="#111"><title>%+.1f %%</title></rect>`, x(r.Diff)-4.5, y+6.5, r.Diff)
		txt := fmt.Sprintf("%+.1f %%", r.Diff)
		if r.HasCI {
			txt += fmt.Sprintf(" [%+.1f, %+.1f]", r.Lo, r.Hi)
		}
		fmt.Fprintf(&s, `<text x="%.1f" y="%.1f">%s: %s</text></g>`, labelW+plotW+6, y+15, esc(txt), esc(r.Verdict))
	}
	s.WriteString(`</svg>`)
	return template.HTML(s.String())
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
