package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/dbhost/dbhost/internal/rules"
)

// Fleet aggregates the audits of many hosts, one report at a time: what it
// keeps per host is its name, file, finding counts and the ids of the rules
// it fails, never the report or the snapshot, so a fleet of any size is
// audited in the memory of one host.
type Fleet struct {
	hosts []fleetHost
	rules map[string]*fleetRule
	// profiles are per system (rules.OSLinux, OSAIX) the failing rules'
	// ids joined → hosts: hosts of two systems are judged by different
	// rules, so each system has its own majority.
	profiles map[string]map[string][]int32
	systems  map[string]int // hosts per system
	findings [4]int         // by severity rank
}

type fleetHost struct {
	name, file string
	os         string   // rules.OSLinux or rules.OSAIX
	worst      int      // severity rank of the worst finding, 0 when none
	failing    []string // ids of the rules it fails, sorted
}

type fleetRule struct {
	id, title string
	// From the first finding of the rule: what the fleet HTML shows once
	// per rule (not per host).
	area, why, risk string
	fix             []string
	fixHost         string
	sources, docs   []string
	sev             int                // worst severity rank over the fleet
	fail            []int32            // hosts that fail it
	cannot          int                // hosts where it could not check
	values          map[string][]int32 // current value → hosts that fail with it
}

// NewFleet returns an empty fleet.
func NewFleet() *Fleet {
	return &Fleet{rules: map[string]*fleetRule{}, profiles: map[string]map[string][]int32{}, systems: map[string]int{}}
}

// Len is the number of hosts added.
func (f *Fleet) Len() int { return len(f.hosts) }

// Add takes one host's audit; file is the snapshot it was read from.
func (f *Fleet) Add(r rules.Report, file string) {
	hi := int32(len(f.hosts))
	h := fleetHost{name: r.Host, file: file, os: r.OS}
	if h.os == "" {
		h.os = rules.OSLinux
	}
	f.systems[h.os]++
	seen := map[string]string{}
	for _, x := range r.Findings {
		sev := rules.SeverityRank(x.Severity)
		f.findings[sev]++
		if sev > h.worst {
			h.worst = sev
		}
		row, ok := f.rules[x.ID]
		if !ok {
			row = &fleetRule{id: x.ID, values: map[string][]int32{}}
			f.rules[x.ID] = row
		}
		if row.title == "" {
			row.title, row.area, row.why, row.risk = x.Title, x.Area, x.Why, x.Risk
			row.fix, row.fixHost = x.Fix.Runtime, r.Host
			for _, src := range x.Sources {
				row.sources = append(row.sources, src.Cite())
				row.docs = append(row.docs, src.DocName())
			}
		}
		if sev > row.sev {
			row.sev = sev
		}
		cur := x.Current
		if x.Setting != "" {
			cur = x.Setting + "=" + cur
		}
		if prev, ok := seen[x.ID]; ok {
			seen[x.ID] = prev + "; " + cur
		} else {
			seen[x.ID] = cur
			row.fail = append(row.fail, hi)
		}
	}
	for id, cur := range seen {
		row := f.rules[id]
		row.values[cur] = append(row.values[cur], hi)
		h.failing = append(h.failing, id)
	}
	sort.Strings(h.failing)
	for _, x := range r.CannotCheck {
		if row, ok := f.rules[x.ID]; ok {
			row.cannot++
		} else {
			f.rules[x.ID] = &fleetRule{id: x.ID, cannot: 1, values: map[string][]int32{}}
		}
	}
	key := strings.Join(h.failing, " ")
	if f.profiles[h.os] == nil {
		f.profiles[h.os] = map[string][]int32{}
	}
	f.profiles[h.os][key] = append(f.profiles[h.os][key], hi)
	f.hosts = append(f.hosts, h)
}

// FleetOptions choose how the fleet view is drawn.
type FleetOptions struct {
	Width int  // no line is wider (0: 200)
	Color bool // ANSI colours
	Few   int  // hosts named before "+N more" (0: as many as fit the line, at most 8)
}

// labels are the hosts as the view names them: the host name, with its
// file's base name when two snapshots carry the same host name.
func (f *Fleet) labels() []string {
	n := map[string]int{}
	for _, h := range f.hosts {
		n[h.name]++
	}
	out := make([]string, len(f.hosts))
	for i, h := range f.hosts {
		out[i] = orDash(h.name)
		if n[h.name] > 1 && h.file != "" {
			out[i] += " (" + filepath.Base(h.file) + ")"
		}
	}
	return out
}

// failingRules are the rules at least one host fails, worst first, then by
// how many hosts fail them, then by id.
func (f *Fleet) failingRules() []*fleetRule {
	var out []*fleetRule
	for _, r := range f.rules {
		if len(r.fail) > 0 {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.sev != b.sev {
			return a.sev > b.sev
		}
		if len(a.fail) != len(b.fail) {
			return len(a.fail) > len(b.fail)
		}
		return a.id < b.id
	})
	return out
}

// valuesByCount are the values the failing hosts have, the most common
// first (then by value).
func (r *fleetRule) valuesByCount() []string {
	vals := make([]string, 0, len(r.values))
	for v := range r.values {
		vals = append(vals, v)
	}
	sort.Slice(vals, func(i, j int) bool {
		a, b := len(r.values[vals[i]]), len(r.values[vals[j]])
		if a != b {
			return a > b
		}
		return vals[i] < vals[j]
	})
	return vals
}

// systemNames are how the fleet views name the systems.
var systemNames = map[string]string{rules.OSLinux: "Linux", rules.OSAIX: "AIX"}

// systemList are the systems of the fleet's hosts, Linux first.
func (f *Fleet) systemList() []string {
	var out []string
	for _, o := range []string{rules.OSLinux, rules.OSAIX} {
		if f.systems[o] > 0 {
			out = append(out, o)
		}
	}
	return out
}

// mixed says whether the fleet holds hosts of more than one system.
func (f *Fleet) mixed() bool { return len(f.systemList()) > 1 }

// systemsLine is " (2 Linux, 3 AIX)" for a fleet of several systems, ""
// for one of a single system.
func (f *Fleet) systemsLine() string {
	if !f.mixed() {
		return ""
	}
	var parts []string
	for _, o := range f.systemList() {
		parts = append(parts, count(f.systems[o])+" "+systemNames[o])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// judged is how many hosts a rule judges and what they are called: every
// host in a fleet of one system ("hosts"); in a fleet of several, the hosts
// of the systems the rule judges ("AIX hosts" when only those).
func (f *Fleet) judged(id string) (int, string) {
	rule, ok := rules.Lookup(id)
	if !f.mixed() || !ok {
		return len(f.hosts), "hosts"
	}
	n, names := 0, []string{}
	for _, o := range f.systemList() {
		if rule.RunsOn(o) {
			n += f.systems[o]
			names = append(names, systemNames[o])
		}
	}
	if len(names) == 1 {
		return n, names[0] + " hosts"
	}
	return len(f.hosts), "hosts"
}

// majority is the most common set of failing rules among the hosts of
// system os, and its hosts (ties: the set seen first).
func (f *Fleet) majority(os string) (key string, hosts []int32) {
	for k, hs := range f.profiles[os] {
		if len(hs) > len(hosts) || len(hs) == len(hosts) && hs[0] < hosts[0] {
			key, hosts = k, hs
		}
	}
	return key, hosts
}

var sevNames = [4]string{"none", rules.SevInfo, rules.SevWarning, rules.SevCritical}

// Text renders the fleet for people: counts, then per failing rule how many
// hosts fail it and which (the first few, then "+N more") with the values
// they have, then the hosts that differ from the majority. No line is wider
// than o.Width.
func (f *Fleet) Text(w io.Writer, o FleetOptions) error {
	width := o.Width
	if width <= 0 {
		width = 200
	}
	p := painter(o.Color)
	lw := &lineWriter{w: w, width: width, sgr: o.Color}
	labels := f.labels()
	n := len(f.hosts)
	byWorst := [4]int{}
	for _, h := range f.hosts {
		byWorst[h.worst]++
	}
	lw.line(p.paint(ansiBold, fmt.Sprintf("Audit of %s hosts", count(n))) + f.systemsLine() + fmt.Sprintf(": %s findings (%s critical, %s warning, %s info)",
		count(f.findings[3]+f.findings[2]+f.findings[1]), count(f.findings[3]), count(f.findings[2]), count(f.findings[1])))
	lw.line(fmt.Sprintf("Hosts by their worst finding: %s critical, %s warning, %s info, %s none",
		count(byWorst[3]), count(byWorst[2]), count(byWorst[1]), count(byWorst[0])))
	rows := f.failingRules()
	if len(rows) == 0 {
		lw.line("")
		lw.line("No findings on any host.")
		return lw.err
	}
	lw.line("")
	lw.line(p.paint(ansiBold, "RULES THAT FAIL") + " (worst first; hosts named up to a few, then +N more)")
	for _, r := range rows {
		sev := sevNames[r.sev]
		lw.line("")
		lw.line(p.paint(sevColor(sev), "["+strings.ToUpper(sev)+"]") + " " + r.id + " — " + r.title)
		of, what := f.judged(r.id)
		head := fmt.Sprintf("    fails on %s of %s %s", count(len(r.fail)), count(of), what)
		if r.cannot > 0 {
			head += fmt.Sprintf(" (could not check on %s)", count(r.cannot))
		}
		lw.line(fitHosts(head+": ", r.fail, labels, width, o.Few))
		vals := r.valuesByCount()
		const shownValues = 3
		for i, v := range vals {
			if i == shownValues {
				rest := 0
				for _, v := range vals[i:] {
					rest += len(r.values[v])
				}
				lw.line(fmt.Sprintf("      +%s more values on %s hosts", count(len(vals)-i), count(rest)))
				break
			}
			hs := r.values[v]
			prefix := fmt.Sprintf("      %s on %s: ", clip(oneLine(v), width/2), count(len(hs)))
			if len(vals) == 1 {
				prefix = fmt.Sprintf("      %s (every failing host)", clip(oneLine(v), width/2))
				lw.line(prefix)
				continue
			}
			lw.line(fitHosts(prefix, hs, labels, width, o.Few))
		}
	}
	lw.line("")
	f.differText(lw, labels, p, o)
	lw.line("")
	lw.line("Details: dbhost audit --snapshot FILE (one host); every host with its file: --format json.")
	return lw.err
}

// differText lists the hosts whose failing rules are not the majority's,
// grouped by how they differ (the largest group first).
func (f *Fleet) differText(lw *lineWriter, labels []string, p painter, o FleetOptions) {
	head := p.paint(ansiBold, "HOSTS THAT DIFFER FROM THE MAJORITY")
	if f.mixed() {
		head += " (each system's hosts apart: different rules judge them)"
	}
	lw.line(head)
	for i, os := range f.systemList() {
		if f.mixed() {
			if i > 0 {
				lw.line("")
			}
			lw.line(fmt.Sprintf("%s hosts (%s):", systemNames[os], count(f.systems[os])))
		}
		f.differSystem(lw, labels, o, os)
	}
}

// differSystem is differText for the hosts of one system.
func (f *Fleet) differSystem(lw *lineWriter, labels []string, o FleetOptions, os string) {
	key, hs := f.majority(os)
	n := f.systems[os]
	maj := strings.Fields(key)
	if len(maj) == 0 {
		lw.line(majorityHead(len(hs), n) + "none")
	} else {
		lw.line(fitList(majorityHead(len(hs), n), maj, lw.width, len(maj)))
	}
	if len(hs) == n {
		lw.line("Every host is like the majority.")
		return
	}
	groups := f.differGroups(os, key)
	const shown = 20
	for i, g := range groups {
		if i == shown {
			rest := 0
			for _, g := range groups[i:] {
				rest += len(g.hosts)
			}
			lw.line(fmt.Sprintf("  +%s more groups (%s hosts)", count(len(groups)-i), count(rest)))
			break
		}
		var parts []string
		if len(g.also) > 0 {
			parts = append(parts, fitList("also "+verb(len(g.hosts), "fails", "fail")+" ", g.also, lw.width/2, 6))
		}
		if len(g.not) > 0 {
			parts = append(parts, fitList(verb(len(g.hosts), "does", "do")+" not fail ", g.not, lw.width/2, 6))
		}
		lw.line(fmt.Sprintf("  %s %s", hostsVerb(len(g.hosts)), strings.Join(parts, "; ")))
		lw.line(fitHosts("      ", g.hosts, labels, lw.width, o.Few))
	}
}

// majorityHead introduces the most common set of failing rules.
func majorityHead(k, n int) string {
	if 2*k > n {
		return fmt.Sprintf("The majority, %s of %s hosts, fail the same rules: ", count(k), count(n))
	}
	return fmt.Sprintf("No majority: the most common set of failing rules, on %s of %s hosts: ", count(k), count(n))
}

// hostsVerb is "1 host" or "27 hosts".
func hostsVerb(n int) string { return count(n) + verb(n, " host", " hosts") }

func verb(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// differGroup is the hosts that differ from the majority in the same way.
type differGroup struct {
	also, not []string // rules they fail and the majority does not; and the reverse
	hosts     []int32
}

func (f *Fleet) differGroups(os, majority string) []differGroup {
	in := map[string]bool{}
	maj := strings.Fields(majority)
	for _, id := range maj {
		in[id] = true
	}
	var out []differGroup
	for k, hs := range f.profiles[os] {
		if k == majority {
			continue
		}
		g := differGroup{hosts: hs}
		has := map[string]bool{}
		for _, id := range strings.Fields(k) {
			has[id] = true
			if !in[id] {
				g.also = append(g.also, id)
			}
		}
		for _, id := range maj {
			if !has[id] {
				g.not = append(g.not, id)
			}
		}
		out = append(out, g)
	}
	sort.Slice(out, func(i, j int) bool {
		if len(out[i].hosts) != len(out[j].hosts) {
			return len(out[i].hosts) > len(out[j].hosts)
		}
		return out[i].hosts[0] < out[j].hosts[0]
	})
	return out
}

// fitHosts is prefix followed by as many of the hosts' labels as fit in
// width (at most few, 8 when few is 0), then "+N more".
func fitHosts(prefix string, hs []int32, labels []string, width, few int) string {
	if few <= 0 {
		few = 8
	}
	items := make([]string, 0, min(len(hs), few+1))
	for _, h := range hs {
		if len(items) > few {
			break
		}
		items = append(items, labels[h])
	}
	return fitItems(prefix, items, len(hs), width, few)
}

// fitList is fitHosts for names: prefix, then as many items as fit in
// width (at most max), then "+N more".
func fitList(prefix string, items []string, width, max int) string {
	return fitItems(prefix, items, len(items), width, max)
}

// fitItems joins items (the first of total) after prefix while the line
// stays within width and at most max are named; the rest are counted.
func fitItems(prefix string, items []string, total, width, max int) string {
	line := prefix
	for i, it := range items {
		more := ""
		if rest := total - i - 1; rest > 0 {
			more = fmt.Sprintf(" +%s more", count(rest))
		}
		sep := ", "
		if i == 0 {
			sep = ""
		}
		if i >= max || visibleLen(line+sep+it+more) > width {
			if i == 0 {
				if avail := width - visibleLen(line) - len(more); avail >= 3 {
					return line + clip(it, avail) + more
				}
				return line + fmt.Sprintf("+%s more", count(total))
			}
			return line + fmt.Sprintf(" +%s more", count(total-i))
		}
		line += sep + it
	}
	return line
}

// lineWriter writes lines, clipping each to width (visible characters).
type lineWriter struct {
	w     io.Writer
	width int
	err   error
	// sgr keeps the painter's colour codes (colour on); every other control
	// character of a line is escaped (cleanLine).
	sgr bool
}

func (l *lineWriter) line(s string) {
	if l.err != nil {
		return
	}
	s = clean(s, false, l.sgr)
	if visibleLen(s) > l.width {
		s = clipVisible(s, l.width)
	}
	_, l.err = io.WriteString(l.w, s+"\n")
}

// visibleLen counts the characters a terminal shows (ANSI escapes left out).
func visibleLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			i += j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// clipVisible cuts s to width visible characters, ending with "…" (and a
// colour reset when s was painted).
func clipVisible(s string, width int) string {
	var b strings.Builder
	n := 0
	painted := false
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			b.WriteString(s[i : i+j+1])
			painted = true
			i += j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if n == width-1 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
		i += size
	}
	if painted {
		b.WriteString(ansiReset)
	}
	return b.String()
}

// clip cuts plain s to width characters ("…" at the end when cut).
func clip(s string, width int) string {
	if width < 1 {
		width = 1
	}
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	return clipVisible(s, width)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// count prints n with thousands separators (2,000).
func count(n int) string { return num(float64(n)) }

// Markdown renders the fleet summary as Markdown: per failing rule, its
// hosts (the first few, then +N more), then the hosts that differ.
func (f *Fleet) Markdown(w io.Writer) error {
	var b bytes.Buffer
	labels := f.labels()
	n := len(f.hosts)
	fmt.Fprintf(&b, "# Audit of %s hosts%s\n\n%s findings: %s critical, %s warning, %s info.\n\n", count(n), f.systemsLine(),
		count(f.findings[3]+f.findings[2]+f.findings[1]), count(f.findings[3]), count(f.findings[2]), count(f.findings[1]))
	rows := f.failingRules()
	if len(rows) > 0 {
		b.WriteString("| severity | rule | hosts failing | which |\n|---|---|---|---|\n")
		for _, r := range rows {
			of, what := f.judged(r.id)
			ofText := count(of)
			if f.mixed() {
				ofText += " " + what
			}
			fmt.Fprintf(&b, "| %s | `%s` | %s of %s | %s |\n", sevNames[r.sev], r.id, count(len(r.fail)), ofText,
				mdCell(fitHosts("", r.fail, labels, 160, 8)))
		}
		b.WriteString("\n")
	}
	for _, os := range f.systemList() {
		key, hs := f.majority(os)
		ns := f.systems[os]
		if len(hs) == ns {
			continue
		}
		maj := strings.Fields(key)
		title := "Hosts that differ from the majority"
		if f.mixed() {
			title = systemNames[os] + " hosts that differ from their majority"
		}
		fmt.Fprintf(&b, "## %s\n\n%s%s.\n\n", title, majorityHead(len(hs), ns), mdCell(strings.Join(maj, ", ")))
		b.WriteString("| hosts | also fail | do not fail | which |\n|---|---|---|---|\n")
		for _, g := range f.differGroups(os, key) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", count(len(g.hosts)), mdCell(strings.Join(g.also, ", ")), mdCell(strings.Join(g.not, ", ")),
				mdCell(fitHosts("", g.hosts, labels, 160, 8)))
		}
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// FindingsJSONWriter writes the audit document (FindingsJSON's) one host
// at a time, so that a fleet's JSON is never held in memory whole.
type FindingsJSONWriter struct {
	w   io.Writer
	o   FindingsOptions
	n   int
	err error
}

// NewFindingsJSONWriter starts the document on w.
func NewFindingsJSONWriter(w io.Writer, o FindingsOptions) *FindingsJSONWriter {
	j := &FindingsJSONWriter{w: w, o: o}
	_, j.err = fmt.Fprintf(w, "{\n  \"schema_version\": %d,\n  \"hosts\": [", FindingsSchemaVersion)
	return j
}

// Add writes one host.
func (j *FindingsJSONWriter) Add(r rules.Report) error {
	if j.err != nil {
		return j.err
	}
	if r.Findings == nil {
		r.Findings = []rules.Finding{}
	}
	if !j.o.Explain {
		r.Passed, r.CannotCheck, r.NotApplicable = nil, nil, nil
	}
	b, err := json.MarshalIndent(r, "    ", "  ")
	if err != nil {
		j.err = err
		return err
	}
	sep := "\n    "
	if j.n > 0 {
		sep = ",\n    "
	}
	j.n++
	if _, j.err = io.WriteString(j.w, sep); j.err == nil {
		_, j.err = j.w.Write(b)
	}
	return j.err
}

// Close ends the document.
func (j *FindingsJSONWriter) Close() error {
	if j.err != nil {
		return j.err
	}
	end := "\n  ]\n}\n"
	if j.n == 0 {
		end = "]\n}\n"
	}
	_, j.err = io.WriteString(j.w, end)
	return j.err
}
