package report

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/rules"
)

// RulesText is `dbhost rules list`: the catalog, a rule per row.
func RulesText(all []rules.Rule) []byte {
	return draw(newTextDoc(0), func(d doc) { rulesView(d, all) })
}

// RulesMarkdown is RulesText's view in Markdown.
func RulesMarkdown(all []rules.Rule) []byte {
	return draw(&mdDoc{}, func(d doc) {
		d.title("dbhost rules")
		rulesView(d, all)
	})
}

func rulesView(d doc, all []rules.Rule) {
	t := docTable{head: []string{"ID", "SEVERITY", "APPLIES TO", "TITLE", "SOURCES"}, pad: 2}
	for _, r := range all {
		t.rows = append(t.rows, []string{d.code(r.ID), r.Severity, appliesTo(r), r.Title, shortSources(r.Sources)})
	}
	d.table(t)
	d.note(fmt.Sprintf("%d rules. 'dbhost rules show ID' prints one with its scope and full citations.", len(all)))
}

// RuleText is `dbhost rules show ID`: what the rule checks, its sources
// (each cited with its section and quote), its own thresholds, its scope.
func RuleText(r rules.Rule) []byte {
	return draw(newTextDoc(0), func(d doc) { ruleView(d, r) })
}

// RuleMarkdown is RuleText's view in Markdown.
func RuleMarkdown(r rules.Rule) []byte {
	return draw(&mdDoc{}, func(d doc) { ruleView(d, r) })
}

func ruleView(d doc, r rules.Rule) {
	d.title(fmt.Sprintf("%s — %s", d.code(r.ID), r.Title))
	d.line("")
	t := docTable{head: []string{"", ""}, pad: 2, textNoHead: true}
	add := func(k, v string) { t.rows = append(t.rows, []string{k, v}) }
	add("area", r.Area)
	add("severity", r.Severity+" (default; a finding may be raised or lowered by what it found)")
	add("applies to", appliesTo(r))
	for i, s := range r.Sources {
		k := ""
		if i == 0 {
			k = "sources"
		}
		add(k, s.Cite())
	}
	for i, th := range r.Thresholds {
		k := ""
		if i == 0 {
			k = "own thresholds"
		}
		add(k, th+" (dbhost's, no source gives one)")
	}
	for _, kv := range [][2]string{{"kernels", r.Scope.Kernels}, {"distributions", r.Scope.Distros},
		{"db versions", r.Scope.DBVersions}, {"note", r.Scope.Note}} {
		if kv[1] != "" {
			add(kv[0], kv[1])
		}
	}
	d.table(t)
	if r.Description != "" {
		d.note(strings.TrimSpace(r.Description))
	}
}

func appliesTo(r rules.Rule) string {
	w, db := "all workloads", "any database"
	if len(r.Workloads) > 0 {
		w = strings.Join(r.Workloads, "|")
	}
	if len(r.DBs) > 0 {
		db = strings.Join(r.DBs, "|")
	}
	return r.Systems() + " hosts, " + w + ", " + db
}

// shortSources names the cited documents once each ("HP 2015, Red Hat
// 2015"); 'rules show' prints them in full with the sections.
func shortSources(ss []rules.Source) string {
	var parts []string
	seen := map[string]bool{}
	for _, s := range ss {
		doc := s.DocShort()
		if !seen[doc] {
			seen[doc] = true
			parts = append(parts, doc)
		}
	}
	return strings.Join(parts, ", ")
}
