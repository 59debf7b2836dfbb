package report

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/dbhost/dbhost/internal/rules"
)

// FindingsSchemaVersion is the version of `dbhost audit --format json`; it is
// bumped on any incompatible change of the document's shape. docs/audit-json.md
// documents every field (TestAuditJSONDocumented keeps it in step).
const FindingsSchemaVersion = 1

// FindingsOptions choose what the audit renderers show.
type FindingsOptions struct {
	Explain bool // also list passed, could-not-check and not-applicable rules
	Color   bool // ANSI colours (only when writing to a terminal)
}

type findingsDoc struct {
	SchemaVersion int            `json:"schema_version"`
	Hosts         []rules.Report `json:"hosts"`
}

// FindingsJSON renders the audit contract:
// {"schema_version":N,"hosts":[{"host":...,"findings":[...]}]}; passed,
// cannot_check and not_applicable lists appear only with Explain.
func FindingsJSON(reps []rules.Report, o FindingsOptions) ([]byte, error) {
	var b bytes.Buffer
	j := NewFindingsJSONWriter(&b, o)
	for _, r := range reps {
		j.Add(r)
	}
	if err := j.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[1;31m"
	ansiYellow = "\x1b[33m"
	ansiCyan   = "\x1b[36m"
	ansiDim    = "\x1b[2m"
)

func sevColor(sev string) string {
	switch sev {
	case rules.SevCritical:
		return ansiRed
	case rules.SevWarning:
		return ansiYellow
	}
	return ansiCyan
}

type painter bool

func (p painter) paint(code, s string) string {
	if !p {
		return s
	}
	return code + s + ansiReset
}

// FindingsText renders findings for people: one host → its findings grouped by
// area (areas with the worst findings first); several hosts → one table of
// which rule fails on which host, then each failing rule once.
func FindingsText(reps []rules.Report, o FindingsOptions) []byte {
	var b bytes.Buffer
	p := painter(o.Color)
	if len(reps) == 1 {
		hostText(&b, reps[0], o, p)
		return b.Bytes()
	}
	fl := NewFleet()
	for _, r := range reps {
		fl.Add(r, r.File)
	}
	fl.Text(&b, FleetOptions{Color: o.Color})
	if o.Explain {
		for _, r := range reps {
			b.WriteString("\n")
			HostText(&b, r, o)
		}
	}
	return b.Bytes()
}

func counts(r rules.Report) string {
	n := map[string]int{}
	for _, f := range r.Findings {
		n[f.Severity]++
	}
	if len(r.Findings) == 0 {
		return "no findings"
	}
	var parts []string
	for _, s := range []string{rules.SevCritical, rules.SevWarning, rules.SevInfo} {
		if n[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n[s], s))
		}
	}
	return strings.Join(parts, ", ")
}

// byArea groups findings by area, the area with the worst finding first.
func byArea(fs []rules.Finding) (areas []string, groups map[string][]rules.Finding) {
	groups = map[string][]rules.Finding{}
	worst := map[string]int{}
	for _, f := range fs {
		if _, ok := groups[f.Area]; !ok {
			areas = append(areas, f.Area)
		}
		groups[f.Area] = append(groups[f.Area], f)
		if r := rules.SeverityRank(f.Severity); r > worst[f.Area] {
			worst[f.Area] = r
		}
	}
	sort.SliceStable(areas, func(i, j int) bool {
		if worst[areas[i]] != worst[areas[j]] {
			return worst[areas[i]] > worst[areas[j]]
		}
		return areas[i] < areas[j]
	})
	return areas, groups
}

// HostText writes one host's audit for people (FindingsText of one host).
func HostText(w io.Writer, r rules.Report, o FindingsOptions) {
	var b bytes.Buffer
	hostText(&b, r, o, painter(o.Color))
	w.Write(b.Bytes())
}

func hostText(b *bytes.Buffer, r rules.Report, o FindingsOptions, p painter) {
	fmt.Fprintf(b, "%s %s (workload %s, database %s): %s\n", p.paint(ansiBold, "Audit of"), p.paint(ansiBold, cleanLine(orDash(r.Host))),
		r.Workload, r.DB, counts(r))
	if r.DBSource != "" {
		fmt.Fprintf(b, "Database: %s\n", cleanLine(r.DBSource))
	}
	for _, d := range r.Databases {
		fmt.Fprintf(b, "Server: %s\n", cleanLine(d))
	}
	fmt.Fprintf(b, "Rules: %d with findings, %d passed, %d could not check, %d not applicable",
		rulesWithFindings(r), len(r.Passed), len(r.CannotCheck), len(r.NotApplicable))
	if n := len(r.Skipped); n > 0 {
		fmt.Fprintf(b, ", %d left out (--skip: %s)", n, resultIDs(r.Skipped))
	}
	b.WriteString("\n")
	areas, groups := byArea(r.Findings)
	for _, a := range areas {
		fmt.Fprintf(b, "\n%s\n", p.paint(ansiBold, strings.ToUpper(a)))
		for _, f := range groups[a] {
			findingText(b, f, p)
		}
	}
	if o.Explain {
		resultsText(b, "Passed", r.Passed, p)
		resultsText(b, "Could not check", r.CannotCheck, p)
		resultsText(b, "Not applicable", r.NotApplicable, p)
	} else if n := len(r.CannotCheck); n > 0 {
		fmt.Fprintf(b, "\n%d rule(s) could not check (facts absent); --explain lists them with the reason.\n", n)
	}
}

// resultIDs lists results' rule ids, the first five and "+N more".
func resultIDs(rs []rules.Result) string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return firstFew(ids, 5)
}

// firstFew joins the first n items and says how many more there are.
func firstFew(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s +%d more", strings.Join(items[:n], ", "), len(items)-n)
}

func rulesWithFindings(r rules.Report) int {
	ids := map[string]bool{}
	for _, f := range r.Findings {
		ids[f.ID] = true
	}
	return len(ids)
}

func findingText(b *bytes.Buffer, f rules.Finding, p painter) {
	d := newTextDoc(0)
	d.lw.sgr = bool(p)
	finding(d, f, p)
	b.Write(d.bytes())
}

// finding writes a finding: its severity, title and rule, then its
// evidence, fix (commands whole, for copy and paste), risk and sources.
func finding(d doc, f rules.Finding, p painter) {
	f = cleanFinding(f)
	tag := p.paint(sevColor(f.Severity), "["+strings.ToUpper(f.Severity)+"]")
	d.item(fmt.Sprintf("%s %s — %s", tag, f.Title, p.paint(ansiDim, d.code(f.ID))))
	var fs []docField
	row := func(k, v string, whole bool) {
		if v != "" {
			fs = append(fs, docField{label: k, value: v, whole: whole})
		}
	}
	row("setting", f.Setting, false)
	row("current", f.Current, false)
	row("recommended", f.Recommended, false)
	row("evidence", f.Evidence, false)
	row("why", f.Why, false)
	for i, c := range f.Fix.Runtime {
		row(label(i, "fix now"), c, true)
	}
	for i, c := range f.Fix.Persistent {
		row(label(i, "persist"), c, true)
	}
	for i, e := range f.Fix.Edits {
		row(label(i, "edit"), e.File+": "+e.Edit+thenRun(e.Then), false)
	}
	if f.RebootRequired {
		row("reboot", "required", false)
	}
	row("risk", f.Risk, false)
	row("sources", sourcesText(f.Sources), false)
	row("scope", scopeText(f.Scope), false)
	d.fields("      ", fs)
}

// textWidth is where long values wrap in text output (the value column).
const textWidth = 96

// wrap splits s at newlines and then at spaces so no line exceeds width
// (a single longer word stays whole).
func wrap(s string, width int) []string {
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range strings.Fields(para) {
			switch {
			case line == "":
				line = w
			case len(line)+1+len(w) > width:
				out = append(out, line)
				line = w
			default:
				line += " " + w
			}
		}
		out = append(out, line)
	}
	return out
}

// thenRun is a file edit's follow-up command as the text report shows it.
func thenRun(cmd string) string {
	if cmd == "" {
		return ""
	}
	return ", then run " + cmd
}

func label(i int, s string) string {
	if i == 0 {
		return s
	}
	return ""
}

func sourcesText(ss []rules.Source) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.Cite())
	}
	return strings.Join(parts, "\n")
}

func scopeText(s rules.Scope) string {
	var parts []string
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+": "+v)
		}
	}
	add("kernels", s.Kernels)
	add("distributions", s.Distros)
	add("db versions", s.DBVersions)
	add("note", s.Note)
	return strings.Join(parts, "; ")
}

func resultsText(b *bytes.Buffer, title string, rs []rules.Result, p painter) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s (%d)\n", p.paint(ansiBold, title), len(rs))
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	for _, r := range rs {
		fmt.Fprintf(tw, "  %s\t%s\n", r.ID, cleanLine(r.Reason))
		if r.Evidence != "" {
			// What a pass read (issue 26), under its reason.
			fmt.Fprintf(tw, "  \t  read: %s\n", cleanLine(r.Evidence))
		}
	}
	tw.Flush()
}

// FindingsMarkdown renders the audit as Markdown (for tickets and wikis).
func FindingsMarkdown(reps []rules.Report, o FindingsOptions) []byte {
	var b bytes.Buffer
	if len(reps) > 1 {
		fl := NewFleet()
		for _, r := range reps {
			fl.Add(r, r.File)
		}
		fl.Markdown(&b)
	}
	for _, r := range reps {
		HostMarkdown(&b, r, len(reps) > 1, o)
	}
	return b.Bytes()
}

// HostMarkdown writes one host's audit in Markdown; in a fleet its
// headings are one level down.
func HostMarkdown(w io.Writer, r rules.Report, inFleet bool, o FindingsOptions) {
	var b bytes.Buffer
	level := "#"
	if inFleet {
		level = "##"
	}
	name := orDash(r.Host)
	if inFleet && r.File != "" {
		name += " (" + r.File + ")"
	}
	fmt.Fprintf(&b, "%s Audit of %s\n\nWorkload %s, database %s: %s.\n\n", level, mdCell(name), r.Workload, r.DB, counts(r))
	if len(r.Findings) > 0 {
		b.WriteString("| severity | rule | setting | current | recommended |\n|---|---|---|---|---|\n")
		for _, f := range r.Findings {
			fmt.Fprintf(&b, "| %s | `%s` | `%s` | %s | %s |\n", f.Severity, f.ID, mdCell(f.Setting), mdCell(f.Current), mdCell(f.Recommended))
		}
		b.WriteString("\n")
	}
	for _, f := range r.Findings {
		f = cleanFinding(f)
		fmt.Fprintf(&b, "%s# %s: %s\n\n", level, strings.ToUpper(f.Severity), f.Title)
		fmt.Fprintf(&b, "- **rule**: `%s` (area %s)\n", f.ID, f.Area)
		mdItem(&b, "setting", "`"+f.Setting+"`")
		mdItem(&b, "current", f.Current)
		mdItem(&b, "recommended", f.Recommended)
		mdItem(&b, "evidence", f.Evidence)
		mdItem(&b, "why", f.Why)
		if f.RebootRequired {
			mdItem(&b, "reboot", "required")
		}
		mdItem(&b, "risk", f.Risk)
		mdItem(&b, "scope", scopeText(f.Scope))
		for _, s := range f.Sources {
			fmt.Fprintf(&b, "- **source**: %s\n", mdCell(s.Cite()))
		}
		if len(f.Fix.Runtime) > 0 {
			run := strings.Join(f.Fix.Runtime, "\n")
			b.WriteString("\nNow:\n" + mdFence(run) + "sh\n" + run + "\n" + mdFence(run) + "\n")
		}
		if len(f.Fix.Persistent) > 0 {
			per := strings.Join(f.Fix.Persistent, "\n")
			b.WriteString("\nPersistent:\n" + mdFence(per) + "\n" + per + "\n" + mdFence(per) + "\n")
		}
		if len(f.Fix.Edits) > 0 {
			b.WriteString("\nEdit (files, not commands):\n\n")
			for _, e := range f.Fix.Edits {
				fmt.Fprintf(&b, "- %s\n", mdCell(e.String()))
			}
		}
		b.WriteString("\n")
	}
	if o.Explain {
		mdResults(&b, "Passed", r.Passed)
		mdResults(&b, "Could not check", r.CannotCheck)
		mdResults(&b, "Not applicable", r.NotApplicable)
	}
	w.Write(b.Bytes())
}

// mdFence is a code fence longer than any run of backticks in s (a name
// with ``` must not end the block).
func mdFence(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence
}

func mdItem(b *bytes.Buffer, k, v string) {
	if v != "" && v != "``" {
		fmt.Fprintf(b, "- **%s**: %s\n", k, strings.ReplaceAll(v, "\n", " "))
	}
}

func mdResults(b *bytes.Buffer, title string, rs []rules.Result) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(b, "**%s**\n\n", title)
	for _, r := range rs {
		fmt.Fprintf(b, "- `%s`: %s\n", r.ID, mdCell(r.Reason))
		if r.Evidence != "" {
			fmt.Fprintf(b, "  - read: %s\n", mdCell(r.Evidence))
		}
	}
	b.WriteString("\n")
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return mdInline(strings.ReplaceAll(s, "\n", " "))
}
