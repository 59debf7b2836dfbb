package report

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/experiment"
)

// BenchText is what `dbhost bench X` prints: the host line, then numa's
// matrices or one line per case (and its latency line), then the notes.
func BenchText(r *bench.Result) []byte {
	return draw(newTextDoc(0), func(d doc) { benchView(d, r) })
}

// BenchMarkdown is BenchText's view in Markdown: the cases (or each NUMA
// matrix, nodes as rows and columns) as tables.
func BenchMarkdown(r *bench.Result) []byte {
	return draw(&mdDoc{}, func(d doc) { benchView(d, r) })
}

func benchView(d doc, r *bench.Result) {
	h := fmt.Sprintf("dbhost bench %s on %s (%s, %d CPUs", r.Bench, r.Host.Hostname, r.Host.Kernel, r.Host.CPUs)
	if r.Host.NUMANodes > 0 {
		h += fmt.Sprintf(", %d NUMA node(s)", r.Host.NUMANodes)
	}
	if r.Host.LoadAverage != "" {
		h += ", load " + r.Host.LoadAverage
	}
	d.title(h + fmt.Sprintf("), %s, %v repeat(s) of %v", r.Host.Started.Format(time.RFC3339), r.Params["repeat"], r.Params["duration"]))
	if r.Bench == "numa" {
		numaMatrixView(d, r)
	} else {
		benchCasesView(d, r)
	}
	for _, n := range r.Notes {
		d.line("note: " + n)
	}
}

// benchCasesView: a case per row, its figures, its latency (a second line
// in text) and its note; the latency and note columns only when a case
// has them.
func benchCasesView(d doc, r *bench.Result) {
	lat, note := -1, -1
	t := docTable{head: []string{"case", "result"}, textNoHead: true}
	for _, row := range r.Results {
		if l := row.LatencyUS; l != nil && l.Count > 0 && lat < 0 {
			lat = 0
		}
		if row.Note != "" && note < 0 {
			note = 0
		}
	}
	if lat == 0 {
		lat = len(t.head)
		t.head = append(t.head, "latency µs")
	}
	if note == 0 {
		note = len(t.head)
		t.head = append(t.head, "note")
	}
	for _, row := range r.Results {
		var fig []string
		if row.ThroughputGbps != nil {
			fig = append(fig, fnum(*row.ThroughputGbps)+" Gb/s")
		}
		if row.OpsPerSec != nil {
			u := row.OpsUnit
			if u == "" {
				u = "ops/s"
			}
			fig = append(fig, fnum(*row.OpsPerSec)+" "+u)
		}
		if row.NsPerLoad != nil {
			fig = append(fig, fnum(*row.NsPerLoad)+" ns/load")
		}
		for _, k := range slices.Sorted(maps.Keys(row.Extra)) {
			fig = append(fig, k+"="+fnum(row.Extra[k]))
		}
		cells := []string{row.Case, strings.Join(fig, " ")}
		if lat > 0 {
			s := ""
			if l := row.LatencyUS; l != nil && l.Count > 0 {
				s = fmt.Sprintf("mean %s sd %s min %s p50 %s p90 %s p99 %s p99.9 %s max %s (%d samples)",
					fnum(l.Mean), fnum(l.Stddev), fnum(l.Min), fnum(l.P50), fnum(l.P90), fnum(l.P99), fnum(l.P999), fnum(l.Max), l.Count)
			}
			cells = append(cells, s)
		}
		if note > 0 {
			cells = append(cells, row.Note)
		}
		t.rows = append(t.rows, cells)
	}
	t.textRow = func(c []string) string {
		s := fmt.Sprintf("%-24s", c[0])
		if c[1] != "" {
			s += " " + c[1]
		}
		if note > 0 && c[note] != "" {
			s += "  (" + c[note] + ")"
		}
		if lat > 0 && c[lat] != "" {
			s += fmt.Sprintf("\n%-24s latency µs: %s", "", c[lat])
		}
		return s
	}
	d.table(t)
}

// numaMatrixView: bench numa's matrices, rows CPU node, columns memory
// node: ns per load, read bandwidth, the SLIT, and each latency against
// the CPU node's local latency next to the SLIT ratio.
func numaMatrixView(d doc, r *bench.Result) {
	cpus, mems, get := numaGrid(r)
	matrix := func(title string, val func(*bench.Row) (float64, string, bool)) {
		d.line(title)
		t := docTable{head: []string{"cpu\\mem"}, right: true}
		for _, m := range mems {
			t.head = append(t.head, fmt.Sprintf("node%d", m))
		}
		for _, c := range cpus {
			row := []string{fmt.Sprintf("node%d", c)}
			for _, m := range mems {
				s := "-"
				if p := get[[2]int{c, m}]; p != nil {
					if _, text, ok := val(p); ok {
						s = text
					}
				}
				row = append(row, s)
			}
			t.rows = append(t.rows, row)
		}
		t.textRow = func(c []string) string {
			s := fmt.Sprintf("%-10s", c[0])
			for _, x := range c[1:] {
				s += fmt.Sprintf(" %10s", x)
			}
			return s
		}
		d.table(t)
	}
	matrix("dependent-load latency (ns/load)", nsPerLoadCell)
	matrix("streaming read bandwidth (GB/s)", readGBCell)
	matrix("SLIT distance", func(p *bench.Row) (float64, string, bool) {
		v := p.Extra["slit_distance"]
		return v, strconv.Itoa(int(v)), true
	})
	matrix("latency / local latency  (SLIT / 10 in parentheses)", vsLocalCell)
}

// numaGrid is bench numa's pairs by CPU node and memory node, the nodes
// sorted.
func numaGrid(r *bench.Result) (cpus, mems []int, get map[[2]int]*bench.Row) {
	get = map[[2]int]*bench.Row{}
	for i := range r.Results {
		row := &r.Results[i]
		c, err1 := strconv.Atoi(row.Labels["cpu_node"])
		m, err2 := strconv.Atoi(row.Labels["mem_node"])
		if err1 != nil || err2 != nil {
			continue
		}
		get[[2]int{c, m}] = row
		if !slices.Contains(cpus, c) {
			cpus = append(cpus, c)
		}
		if !slices.Contains(mems, m) {
			mems = append(mems, m)
		}
	}
	slices.Sort(cpus)
	slices.Sort(mems)
	return cpus, mems, get
}

// A pair's figures of bench numa: the value and the text shown.
func nsPerLoadCell(r *bench.Row) (float64, string, bool) {
	if r.NsPerLoad == nil {
		return 0, "", false
	}
	return *r.NsPerLoad, fnum(*r.NsPerLoad), true
}

func readGBCell(r *bench.Row) (float64, string, bool) {
	if r.ThroughputGbps == nil {
		return 0, "", false
	}
	return *r.ThroughputGbps / 8, fnum(*r.ThroughputGbps / 8), true
}

func vsLocalCell(r *bench.Row) (float64, string, bool) {
	v, ok := r.Extra["latency_vs_local"]
	if !ok {
		return 0, "", false
	}
	return v, fmt.Sprintf("%.2fx (%.1f)", v, r.Extra["slit_distance"]/10), true
}

// CompareText is what `dbhost compare A B` prints: a line per case and
// figure, B against A with its 95 % CI and verdict.
func CompareText(c *bench.Comparison) []byte {
	return draw(newTextDoc(0), func(d doc) { compareView(d, c) })
}

// CompareMarkdown is CompareText's view in Markdown: the effects as a table.
func CompareMarkdown(c *bench.Comparison) []byte {
	return draw(&mdDoc{}, func(d doc) { compareView(d, c) })
}

func compareView(d doc, c *bench.Comparison) {
	d.title(fmt.Sprintf("dbhost compare (%s): A = %s, B = %s; 95 %% confidence intervals (Welch), no measurable difference within ±%g %%", c.Bench, c.A, c.B, c.MinEffect))
	for _, w := range c.Warnings {
		d.line("warning: " + w)
	}
	t := effectTable()
	for _, cc := range c.Cases {
		for _, e := range cc.Effects {
			t.rows = append(t.rows, effectLine(cc.Case, e))
		}
	}
	d.table(t)
	if len(c.OnlyInA) > 0 {
		d.line("only in A: " + strings.Join(c.OnlyInA, ", "))
	}
	if len(c.OnlyInB) > 0 {
		d.line("only in B: " + strings.Join(c.OnlyInB, ", "))
	}
}

// effectTable holds effects, a line each in text: "case metric A … → B
// …: ratio, difference, CI: VERDICT (reason)".
func effectTable() docTable {
	return docTable{head: []string{"case", "metric", "A", "B", "B / A", "difference", "95 % CI", "verdict", "reason"}, textNoHead: true,
		textRow: func(c []string) string {
			return fmt.Sprintf("%-20s %-16s A %s → B %s: %s, %s, %s: %s (%s)", c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])
		}}
}

func effectLine(cas string, e bench.Effect) []string {
	unit := ""
	if m, ok := bench.MetricByName(e.Metric); ok {
		unit = " " + m.Unit
	}
	ci := "no CI"
	if e.CIPct != nil {
		ci = fmt.Sprintf("95 %% CI %+.1f %% .. %+.1f %%", e.CIPct[0], e.CIPct[1])
	}
	return []string{cas, e.Metric,
		fmt.Sprintf("%s%s (n=%d, sd %s)", fnum(e.MeanA), unit, e.NA, fnum(e.SDA)),
		fmt.Sprintf("%s%s (n=%d, sd %s)", fnum(e.MeanB), unit, e.NB, fnum(e.SDB)),
		fmt.Sprintf("%.3fx", e.Ratio), fmt.Sprintf("%+.1f %%", e.DiffPct), ci, strings.ToUpper(e.Verdict), e.Reason}
}

// ExperimentText is what `dbhost experiment` prints: the changes of the B
// side, every run, the effect and the verdict.
func ExperimentText(x *experiment.Result) []byte {
	return draw(newTextDoc(0), func(d doc) { experimentView(d, x) })
}

// ExperimentMarkdown is ExperimentText's view in Markdown.
func ExperimentMarkdown(x *experiment.Result) []byte {
	return draw(&mdDoc{}, func(d doc) { experimentView(d, x) })
}

func experimentView(d doc, x *experiment.Result) {
	d.title(fmt.Sprintf("dbhost experiment: rules %s, bench '%s', %s %s", strings.Join(x.Rules, ", "), x.Bench, x.Case, x.Metric))
	ch := docTable{head: []string{"B changes", "from", "to", "rule"}, textNoHead: true,
		textRow: func(c []string) string { return fmt.Sprintf("  B changes %s: %s → %s  [%s]", c[0], c[1], c[2], c[3]) }}
	for _, s := range x.Changes {
		ch.rows = append(ch.rows, []string{s.Setting, s.Old, s.New, s.Rule})
	}
	if len(ch.rows) > 0 {
		d.table(ch)
	}
	runs := docTable{head: []string{"run", "side", x.Case + " " + x.Metric}, textNoHead: true,
		textRow: func(c []string) string { return fmt.Sprintf("  run %s %s: %s", c[0], c[1], c[2]) }}
	for _, r := range x.Runs {
		runs.rows = append(runs.rows, []string{strconv.Itoa(r.N), r.Side, fmt.Sprintf("%g", r.Value)})
	}
	if len(runs.rows) > 0 {
		d.table(runs)
	}
	t := effectTable()
	t.rows = [][]string{effectLine(x.Case, x.Effect)}
	d.table(t)
	d.line(fmt.Sprintf("verdict: %s; %s", strings.ToUpper(x.Effect.Verdict), x.Why))
}
