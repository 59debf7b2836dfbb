package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dbhost/dbhost/internal/rules"
)

// The fleet report (`dbhost report --snapshot 'fleet/*.json'`) is written
// one host at a time, as the text fleet view is: FleetHostHTML renders each
// host's section as it is audited (the caller keeps them in a spill file),
// and Fleet.HTML writes the page around them from what the Fleet kept
// (per host its name, file, counts and failing rule ids; per rule its hosts
// and, once, its fix and sources). Nothing of a host's report is held.

//go:embed htmlassets/fleet.tmpl
var fleetTmpl string

// fleetTemplate is parsed on first use (see htmlTemplate).
var fleetTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("fleet").Parse(fleetTmpl))
})

// FleetHTMLMeta is what the fleet page says about its making.
type FleetHTMLMeta struct {
	Pattern   string // the --snapshot glob
	Version   string
	Generated time.Time
}

// fleetFew is how many hosts a list names before "+N more".
const fleetFew = 8

type fleetPage struct {
	Title, Version, Generated, Pattern string
	Style                              template.CSS
	Script                             template.JS
	Hosts, Findings, Failing           int
	Counts, Worst                      []sevCount
	Areas                              []*fleetArea
	Systems                            string // "2 Linux, 3 AIX" for a fleet of several systems
	Differ                             []fleetDiffer
	Documents                          []string
}

// fleetDiffer is the hosts of one system that differ from their majority
// (a fleet of one system has one, unnamed).
type fleetDiffer struct {
	Name, ID                   string // "AIX", "-aix" (the ids' suffix); "" for a fleet of one system
	Hosts                      int
	Majority                   []hostLink // the majority's failing rules, linked
	MajorityHosts              int
	HasMajority, AllLike       bool
	Groups                     []fleetGroup
	MoreGroups, MoreGroupHosts int
}

type fleetArea struct {
	Area, Name string
	Rules      []*fleetRuleView
}

type fleetRuleView struct {
	ID, Anchor, Title, Sev, Label, Area string
	Fail, Cannot, Of                    int
	OfWhat                              string // "hosts", "AIX hosts": the hosts the rule judges
	Hosts                               hostList
	Values                              []fleetValue
	MoreValues, MoreValueHosts          int
	Why, Risk, Fix, FixHost             string
	Sources                             []string
}

type fleetValue struct {
	Value string
	N     int
	Hosts hostList
}

type fleetGroup struct {
	Also, Not []string
	Hosts     hostList
}

// hostList names the first hosts of a list; More (expandable) the rest,
// or, when not expandable, only their number.
type hostList struct {
	First, More []hostLink
	N, Rest     int // hosts in all; after First
}

type hostLink struct{ Anchor, Label string }

func (f *Fleet) hostList(hs []int32, labels []string, expand bool) hostList {
	var l hostList
	for i, h := range hs {
		link := hostLink{Anchor: fmt.Sprintf("h-%d", h), Label: labels[h]}
		switch {
		case i < fleetFew:
			l.First = append(l.First, link)
		case expand:
			l.More = append(l.More, link)
		}
	}
	l.N, l.Rest = len(hs), max(0, len(hs)-fleetFew)
	return l
}

func ruleAnchor(id string) string { return "r-" + anchorName(id) }

// HTML writes the fleet page: the summary, per failing rule how many hosts
// fail it and which (the first few, then the rest behind "+N more"), the
// values they have, the rule's fix and sources once; the hosts that differ
// from the majority; then hosts, each host's section as FleetHostHTML wrote
// it; and the checksum trailer of a report dbhost wrote (IsOwnHTML).
func (f *Fleet) HTML(w io.Writer, hosts io.Reader, m FleetHTMLMeta) error {
	h := sha256.New()
	mw := io.MultiWriter(w, h)
	p := f.fleetPage(m)
	if err := fleetTemplate().ExecuteTemplate(mw, "head", p); err != nil {
		return err
	}
	if _, err := io.Copy(mw, hosts); err != nil {
		return err
	}
	if err := fleetTemplate().ExecuteTemplate(mw, "tail", p); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s%s -->\n", htmlTrailerPrefix, hex.EncodeToString(h.Sum(nil)))
	return err
}

func (f *Fleet) fleetPage(m FleetHTMLMeta) *fleetPage {
	n := len(f.hosts)
	p := &fleetPage{Title: fmt.Sprintf("dbhost fleet report: %s hosts", count(n)), Version: m.Version, Pattern: m.Pattern,
		Generated: m.Generated.UTC().Format("2006-01-02 15:04:05 UTC"), Style: template.CSS(reportCSS),
		Script: template.JS("/*<![CDATA[*/\n" + reportJS + "/*]]>*/"), Hosts: n}
	byWorst := [4]int{}
	for _, h := range f.hosts {
		byWorst[h.worst]++
	}
	for k := 3; k >= 1; k-- {
		p.Counts = append(p.Counts, sevCount{Sev: sevNames[k], Label: sevLabel(sevNames[k]), N: f.findings[k]})
		p.Worst = append(p.Worst, sevCount{Sev: sevNames[k], Label: sevLabel(sevNames[k]), N: byWorst[k]})
		p.Findings += f.findings[k]
	}
	p.Worst = append(p.Worst, sevCount{Sev: "none", Label: "no finding", N: byWorst[0]})
	labels := f.labels()
	areas := map[string]*fleetArea{}
	docs := map[string]bool{}
	var order []string
	for _, r := range f.failingRules() {
		sev := sevNames[r.sev]
		of, what := f.judged(r.id)
		v := &fleetRuleView{ID: r.id, Anchor: ruleAnchor(r.id), Title: r.title, Sev: sev, Label: sevLabel(sev), Area: r.area, Of: of, OfWhat: what,
			Fail: len(r.fail), Cannot: r.cannot, Hosts: f.hostList(r.fail, labels, true),
			Why: r.why, Risk: r.risk, Fix: strings.Join(r.fix, "\n"), FixHost: r.fixHost, Sources: r.sources}
		for _, d := range r.docs {
			docs[d] = true
		}
		vals := r.valuesByCount()
		const shownValues = 5
		for i, x := range vals {
			if i == shownValues {
				v.MoreValues = len(vals) - i
				for _, x := range vals[i:] {
					v.MoreValueHosts += len(r.values[x])
				}
				break
			}
			v.Values = append(v.Values, fleetValue{Value: clip(oneLine(x), 300), N: len(r.values[x]), Hosts: f.hostList(r.values[x], labels, false)})
		}
		a := areas[r.area]
		if a == nil {
			a = &fleetArea{Area: r.area, Name: areaName(r.area)}
			areas[r.area] = a
			order = append(order, r.area)
		}
		a.Rules = append(a.Rules, v)
		p.Failing++
	}
	// Areas in the order of their worst rule (failingRules is worst first).
	for _, a := range order {
		p.Areas = append(p.Areas, areas[a])
	}
	for d := range docs {
		p.Documents = append(p.Documents, d)
	}
	sort.Strings(p.Documents)
	p.Systems = strings.TrimSuffix(strings.TrimPrefix(f.systemsLine(), " ("), ")")
	for _, os := range f.systemList() {
		d := fleetDiffer{Hosts: f.systems[os]}
		if f.mixed() {
			d.Name, d.ID = systemNames[os], "-"+os
		}
		key, hs := f.majority(os)
		for _, id := range strings.Fields(key) {
			d.Majority = append(d.Majority, hostLink{Anchor: ruleAnchor(id), Label: id})
		}
		d.MajorityHosts, d.HasMajority = len(hs), 2*len(hs) > d.Hosts
		d.AllLike = len(hs) == d.Hosts
		const shownGroups = 50
		for i, g := range f.differGroups(os, key) {
			if i >= shownGroups {
				d.MoreGroups++
				d.MoreGroupHosts += len(g.hosts)
				continue
			}
			d.Groups = append(d.Groups, fleetGroup{Also: g.also, Not: g.not, Hosts: f.hostList(g.hosts, labels, true)})
		}
		p.Differ = append(p.Differ, d)
	}
	return p
}

type fleetHostView struct {
	I                               int
	Host, File, CollectedAt         string
	Workload, DB                    string
	Worst                           string
	Crit, Warn, Info, Cannot, Total int
	Findings                        []fleetHostFinding
}

type fleetHostFinding struct {
	Severity, Label, ID, Anchor, Setting, Current string
}

// FleetHostHTML writes host i's section of the fleet page: its name and
// file, its counts, and one line per finding (severity, rule linked to the
// rule's section, setting and current value; the fix and sources are the
// rule's, once, above).
func FleetHostHTML(w io.Writer, r rules.Report, i int) error {
	h := fleetHostView{I: i, Host: cleanLine(orDash(r.Host)), File: cleanLine(r.File), CollectedAt: r.CollectedAt, Workload: r.Workload, DB: r.DB,
		Cannot: len(r.CannotCheck), Total: len(r.Findings), Worst: "none"}
	worst := 0
	for _, x := range r.Findings {
		switch x.Severity {
		case rules.SevCritical:
			h.Crit++
		case rules.SevWarning:
			h.Warn++
		case rules.SevInfo:
			h.Info++
		}
		if k := rules.SeverityRank(x.Severity); k > worst {
			worst = k
		}
		h.Findings = append(h.Findings, fleetHostFinding{Severity: x.Severity, Label: sevLabel(x.Severity), ID: x.ID,
			Anchor: ruleAnchor(x.ID), Setting: cleanLine(x.Setting), Current: clip(oneLine(cleanLine(x.Current)), 160)})
	}
	h.Worst = sevNames[worst]
	return fleetTemplate().ExecuteTemplate(w, "host", h)
}
