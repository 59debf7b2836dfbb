package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// fleetReports is n hosts: every one fails memory.swappiness (with 60, or
// 30 on every tenth), every seventh also fails numa.disabled-at-boot; the
// hosts' names are long, and db0001 is there twice (two snapshots).
func fleetReports(n int) []rules.Report {
	var out []rules.Report
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("db%04d.a-rather-long-domain.example.com", i)
		file := fmt.Sprintf("fleet/%d.json", i)
		if i == n-1 && n > 2 {
			name = "db0001.a-rather-long-domain.example.com"
		}
		cur := "60"
		if i%10 == 0 {
			cur = "30"
		}
		r := rules.Report{Host: name, File: file, Findings: []rules.Finding{
			{ID: "memory.swappiness", Severity: rules.SevWarning, Title: "swappiness " + strings.Repeat("very ", 60) + "long", Setting: "vm.swappiness", Current: cur},
		}}
		if i%7 == 0 {
			r.Findings = append(r.Findings, rules.Finding{ID: "numa.disabled-at-boot", Severity: rules.SevCritical, Title: "NUMA off", Setting: "cmdline:numa", Current: "numa=off"})
		} else {
			r.Passed = append(r.Passed, rules.Result{ID: "numa.disabled-at-boot"})
		}
		out = append(out, r)
	}
	return out
}

func fleetOf(reps []rules.Report) *Fleet {
	f := NewFleet()
	for _, r := range reps {
		f.Add(r, r.File)
	}
	return f
}

// The fleet view stays readable at any size: no line wider than asked, a
// rule's hosts named up to a few then counted, the hosts that differ from
// the majority grouped, two snapshots of one host told apart by file.
func TestFleetTextAnySize(t *testing.T) {
	for _, n := range []int{3, 50, 1000} {
		for _, width := range []int{60, 80, 200} {
			var b bytes.Buffer
			if err := fleetOf(fleetReports(n)).Text(&b, FleetOptions{Width: width}); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, l := range strings.Split(out, "\n") {
				if visibleLen(l) > width {
					t.Errorf("%d hosts, width %d: line of %d: %q", n, width, visibleLen(l), l)
				}
			}
			crit := (n + 6) / 7
			if !strings.Contains(out, fmt.Sprintf("fails on %s of %s hosts", count(crit), count(n))) {
				t.Errorf("%d hosts: no count of numa.disabled-at-boot's hosts (%d):\n%s", n, crit, out)
			}
			if n >= 50 && !strings.Contains(out, " more") {
				t.Errorf("%d hosts: no +N more:\n%s", n, out)
			}
			if n == 1000 && len(strings.Split(out, "\n")) > 60 {
				t.Errorf("1000 hosts, width %d: %d lines", width, len(strings.Split(out, "\n")))
			}
		}
	}
	var b bytes.Buffer
	fleetOf(fleetReports(3)).Text(&b, FleetOptions{Width: 200})
	out := b.String()
	for _, want := range []string{
		"db0001.a-rather-long-domain.example.com (1.json), db0001.a-rather-long-domain.example.com (2.json)", // two snapshots of one host
		"The majority, 2 of 3 hosts, fail the same rules: memory.swappiness",
		"  1 host also fails numa.disabled-at-boot\n      db0000.a-rather-long-domain.example.com\n",
		"vm.swappiness=60 on 2: db0001.a-rather-long-domain.example.com (1.json), db0001.a-rather-long-domain.example.com (2.json)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// Colour never counts toward the width.
	b.Reset()
	fleetOf(fleetReports(30)).Text(&b, FleetOptions{Width: 70, Color: true})
	for _, l := range strings.Split(b.String(), "\n") {
		if visibleLen(l) > 70 {
			t.Errorf("coloured line %q", l)
		}
	}
}

func TestFitItems(t *testing.T) {
	items := []string{"aaaa", "bbbb", "cccc", "dddd"}
	for _, c := range []struct {
		width, max int
		want       string
	}{
		{100, 8, "x: aaaa, bbbb, cccc, dddd"},
		{100, 2, "x: aaaa, bbbb +2 more"},
		{22, 8, "x: aaaa, bbbb +2 more"},
		{14, 8, "x: aa… +3 more"},
		{12, 8, "x: +4 more"},
	} {
		if got := fitList("x: ", items, c.width, c.max); got != c.want || visibleLen(got) > c.width {
			t.Errorf("fitList(width %d, max %d) = %q, want %q", c.width, c.max, got, c.want)
		}
	}
}

// The streamed JSON is byte for byte what encoding/json makes of the whole
// document, for no host, one and several.
func TestFindingsJSONWriter(t *testing.T) {
	for _, n := range []int{0, 1, 4} {
		reps := fleetReports(n)
		got, err := FindingsJSON(reps, FindingsOptions{Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		doc := findingsDoc{SchemaVersion: FindingsSchemaVersion, Hosts: []rules.Report{}}
		for _, r := range reps {
			if r.Findings == nil {
				r.Findings = []rules.Finding{}
			}
			doc.Hosts = append(doc.Hosts, r)
		}
		want, _ := json.MarshalIndent(doc, "", "  ")
		if string(got) != string(want)+"\n" {
			t.Errorf("%d hosts:\n%s\nwant\n%s", n, got, want)
		}
	}
}

// A fleet of Linux and AIX hosts: the systems counted, each rule's hosts
// counted among those of the systems it judges ("1 of 2 AIX hosts", not of
// every host), each system's hosts compared with their own majority (an
// AIX host does not "not fail" the Linux rules), in text, Markdown and HTML.
func TestFleetMixedSystems(t *testing.T) {
	aix, err := snapshot.Load("../facts/aix/testdata/golden/aix72.json")
	if err != nil {
		t.Fatal(err)
	}
	var reps []rules.Report
	for i, h := range []string{"rhel9", "interleaved-4n", "rhel9"} {
		_, r := fixtureReport(t, h)
		r.File = fmt.Sprintf("linux%d.json", i)
		reps = append(reps, r)
	}
	for i := range 2 {
		r := rules.Run(&rules.Input{Snap: aix, Workload: rules.WorkloadOLTP, DB: "oracle"})
		r.Host, r.File = fmt.Sprintf("aixdb%d", i), fmt.Sprintf("aix%d.json", i)
		reps = append(reps, r)
	}
	if reps[3].OS != rules.OSAIX || reps[0].OS != "" {
		t.Fatalf("report OS: %q %q", reps[3].OS, reps[0].OS)
	}
	f := NewFleet()
	for _, r := range reps {
		f.Add(r, r.File)
	}
	var b bytes.Buffer
	if err := f.Text(&b, FleetOptions{Width: 200}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	aixRule, linuxRule := reps[3].Findings[0].ID, ""
	for _, x := range reps[1].Findings {
		if l, _ := rules.Lookup(x.ID); !l.RunsOn(rules.OSAIX) {
			linuxRule = x.ID
			break
		}
	}
	linuxFail := 0
	for _, r := range reps[:3] {
		for _, x := range r.Findings {
			if x.ID == linuxRule {
				linuxFail++
				break
			}
		}
	}
	for _, want := range []string{"Audit of 5 hosts (3 Linux, 2 AIX)", aixRule + " — ", "fails on 2 of 2 AIX hosts: aixdb0, aixdb1",
		fmt.Sprintf("fails on %d of 3 Linux hosts", linuxFail), "Linux hosts (3):", "AIX hosts (2):", "Every host is like the majority."} {
		if !strings.Contains(out, want) {
			t.Errorf("fleet text: %q missing:\n%s", want, out)
		}
	}
	if strings.Contains(out, "of 5 hosts:") {
		t.Errorf("a rule of one system counted over every host:\n%s", out)
	}
	// The AIX hosts are alike; a Linux rule is never "not failed" by them.
	differ := out[strings.Index(out, "HOSTS THAT DIFFER"):]
	aixPart := differ[strings.Index(differ, "AIX hosts (2):"):]
	if strings.Contains(aixPart, linuxRule) || !strings.Contains(aixPart, "Every host is like the majority.") {
		t.Errorf("the AIX hosts compared with Linux's rules:\n%s", differ)
	}
	b.Reset()
	if err := f.Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "| 2 of 2 AIX hosts |") || !strings.Contains(md, "# Audit of 5 hosts (3 Linux, 2 AIX)") {
		t.Errorf("fleet Markdown:\n%s", md)
	}
	doc := parseDOM(t, fleetPageOf(t, reps))
	if got := doc.one(t, "#systems").text(); !strings.Contains(got, "3 Linux, 2 AIX") {
		t.Errorf("systems: %q", got)
	}
	art := doc.one(t, "article#"+ruleAnchor(aixRule))
	if !strings.Contains(art.one(t, "div.fails").text(), "Fails on 2 of 2 AIX hosts") || art.Attr["data-fail"] != "2" {
		t.Errorf("%s: %q", aixRule, art.one(t, "div.fails").text())
	}
	if len(doc.sel("#majority-linux")) != 1 || len(doc.sel("#majority-aix")) != 1 || !strings.Contains(doc.one(t, "section#differ").text(), "AIX hosts (2)") {
		t.Error("each system's majority apart in the HTML")
	}
	// The fleet JSON says which hosts are AIX.
	js, err := json.Marshal(reps[3])
	if err != nil || !strings.Contains(string(js), `"os":"aix"`) {
		t.Errorf("an AIX host's JSON: %s", js)
	}
	if js, _ := json.Marshal(reps[0]); strings.Contains(string(js), `"os"`) {
		t.Errorf("a Linux host's JSON unchanged: %s", js)
	}
}
