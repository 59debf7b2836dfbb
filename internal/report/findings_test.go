package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
)

func sampleReports() []rules.Report {
	src := []rules.Source{{Doc: rules.Seed000, Section: "Table 13", Quote: "Allowed C-states\t0, 1"}}
	a := rules.Report{Host: "db1", Workload: "oltp", DB: "oracle", Findings: []rules.Finding{
		{ID: "numa.disabled-at-boot", Severity: "critical", Area: "numa", Title: "NUMA off", Setting: "cmdline:numa",
			Current: "numa=off", Recommended: "no numa=", Evidence: "/proc/cmdline", Why: strings.Repeat("word ", 40),
			Fix:            rules.Fix{Runtime: []string{}, Persistent: []string{"grubby --update-kernel=ALL --remove-args=numa   (RHEL, Oracle Linux, SLES with grubby) and a long tail"}},
			RebootRequired: true, Sources: src},
		{ID: "memory.swappiness", Severity: "warning", Area: "memory", Title: "swappiness", Setting: "vm.swappiness",
			Current: "60", Recommended: "10", Fix: rules.Fix{Runtime: []string{"sysctl -w vm.swappiness=10"}}, Sources: src},
		{ID: "memory.dirty-ratios", Severity: "info", Area: "memory", Title: "dirty", Setting: "vm.dirty_ratio", Current: "20", Recommended: "40", Sources: src},
	},
		Passed:      []rules.Result{{ID: "memory.zone-reclaim", Reason: "vm.zone_reclaim_mode = 0", Evidence: "vm.zone_reclaim_mode = 0 (/proc/sys/vm/zone_reclaim_mode)"}},
		CannotCheck: []rules.Result{{ID: "numa.db-memory-remote", Reason: "processes.numa: permission denied"}},
	}
	b := rules.Report{Host: "db2", Workload: "oltp", DB: "none", Findings: []rules.Finding{
		{ID: "memory.swappiness", Severity: "warning", Area: "memory", Title: "swappiness", Setting: "vm.swappiness", Current: "30", Recommended: "10", Sources: src},
	}, Passed: []rules.Result{{ID: "numa.disabled-at-boot", Reason: "ok"}}, CannotCheck: []rules.Result{{ID: "memory.dirty-ratios", Reason: "absent"}}}
	return []rules.Report{a, b}
}

func TestFindingsJSONContract(t *testing.T) {
	reps := sampleReports()
	b, err := FindingsJSON(reps[:1], FindingsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion int                          `json:"schema_version"`
		Hosts         []map[string]json.RawMessage `json:"hosts"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.SchemaVersion != FindingsSchemaVersion || len(doc.Hosts) != 1 || string(doc.Hosts[0]["host"]) != `"db1"` {
		t.Fatalf("%s", b)
	}
	if _, ok := doc.Hosts[0]["passed"]; ok {
		t.Fatalf("passed listed without --explain: %s", b)
	}
	var fs []map[string]any
	if err := json.Unmarshal(doc.Hosts[0]["findings"], &fs); err != nil || len(fs) != 3 {
		t.Fatalf("findings: %v %s", err, b)
	}
	for _, k := range []string{"id", "severity", "area", "title", "setting", "current", "recommended", "evidence", "why", "fix",
		"reboot_required", "risk", "sources", "scope"} {
		if _, ok := fs[0][k]; !ok {
			t.Errorf("finding lacks %q", k)
		}
	}
	b, _ = FindingsJSON(reps[:1], FindingsOptions{Explain: true})
	if !strings.Contains(string(b), `"passed"`) || !strings.Contains(string(b), `"cannot_check"`) {
		t.Fatalf("--explain lists missing: %s", b)
	}
	b, _ = FindingsJSON([]rules.Report{{Host: "x"}}, FindingsOptions{})
	if !strings.Contains(string(b), `"findings": []`) {
		t.Fatalf("no findings must be [], not null: %s", b)
	}
}

func TestFindingsTextOneHost(t *testing.T) {
	out := string(FindingsText(sampleReports()[:1], FindingsOptions{}))
	if strings.Contains(out, "\x1b[") {
		t.Fatal("colour without Color")
	}
	numa, mem := strings.Index(out, "\nNUMA\n"), strings.Index(out, "\nMEMORY\n")
	if numa < 0 || mem < 0 || numa > mem {
		t.Fatalf("areas not grouped worst first:\n%s", out)
	}
	if strings.Index(out, "[WARNING]") > strings.Index(out, "[INFO]") {
		t.Fatalf("warning after info:\n%s", out)
	}
	for _, want := range []string{"1 critical, 1 warning, 1 info", "reboot       required",
		"grubby --update-kernel=ALL --remove-args=numa   (RHEL, Oracle Linux, SLES with grubby) and a long tail",
		"1 rule(s) could not check"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "why") && len(l) > 20+textWidth {
			t.Errorf("why not wrapped: %q", l)
		}
	}
	col := string(FindingsText(sampleReports()[:1], FindingsOptions{Color: true, Explain: true}))
	if !strings.Contains(col, ansiRed+"[CRITICAL]") || !strings.Contains(col, "Could not check") || !strings.Contains(col, "permission denied") {
		t.Fatalf("colour/explain:\n%s", col)
	}
}

// TestPassShowsWhatItRead: under --explain a pass shows the evidence it
// read (issue 26) in text, Markdown, JSON and HTML; the default text does not.
func TestPassShowsWhatItRead(t *testing.T) {
	const ev = "vm.zone_reclaim_mode = 0 (/proc/sys/vm/zone_reclaim_mode)"
	reps := sampleReports()[:1]
	if out := string(FindingsText(reps, FindingsOptions{})); strings.Contains(out, ev) {
		t.Fatalf("evidence of a pass without --explain:\n%s", out)
	}
	if out := string(FindingsText(reps, FindingsOptions{Explain: true})); !strings.Contains(out, "read: "+ev) {
		t.Fatalf("text --explain lacks the pass's evidence:\n%s", out)
	}
	if out := string(FindingsMarkdown(reps, FindingsOptions{Explain: true})); !strings.Contains(out, "  - read: "+ev) {
		t.Fatalf("markdown --explain lacks the pass's evidence:\n%s", out)
	}
	if b, _ := FindingsJSON(reps, FindingsOptions{Explain: true}); !strings.Contains(string(b), `"evidence": "`+ev+`"`) {
		t.Fatalf("JSON --explain lacks the pass's evidence:\n%s", b)
	}
}

func TestFindingsTextFleet(t *testing.T) {
	out := string(FindingsText(sampleReports(), FindingsOptions{}))
	for _, want := range []string{
		"Audit of 2 hosts: 4 findings (1 critical, 2 warning, 1 info)",
		"[CRITICAL] numa.disabled-at-boot — NUMA off\n    fails on 1 of 2 hosts: db1\n",
		"[WARNING] memory.swappiness — swappiness\n    fails on 2 of 2 hosts: db1, db2\n",
		"      vm.swappiness=30 on 1: db2\n      vm.swappiness=60 on 1: db1\n",
		"    fails on 1 of 2 hosts (could not check on 1): db1\n",
		"No majority: the most common set of failing rules, on 1 of 2 hosts: memory.dirty-ratios, memory.swappiness, numa.disabled-at-boot\n",
		"  1 host does not fail memory.dirty-ratios, numa.disabled-at-boot\n      db2\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestFindingsMarkdown(t *testing.T) {
	out := string(FindingsMarkdown(sampleReports(), FindingsOptions{Explain: true}))
	for _, want := range []string{"# Audit of 2 hosts", "| critical | `numa.disabled-at-boot` | 1 of 2 | db1 |", "| 1 |  | memory.dirty-ratios, numa.disabled-at-boot | db2 |", "## Audit of db1",
		"| critical | `numa.disabled-at-boot` | `cmdline:numa` | numa=off | no numa= |", "```sh\nsysctl -w vm.swappiness=10\n```",
		"- **source**: “Optimizing Linux performance on HP Integrity Superdome X” (Hewlett-Packard, 2015) § Table 13: “Allowed C-states 0, 1”", "**Could not check**"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

// TestSourcesNamedForPeople: text and Markdown name the document (title,
// publisher, year), never the seed file; JSON keeps the file name.
func TestSourcesNamedForPeople(t *testing.T) {
	reps := sampleReports()
	for name, out := range map[string][]byte{
		"text":     FindingsText(reps[:1], FindingsOptions{Explain: true}),
		"fleet":    FindingsText(reps, FindingsOptions{Explain: true}),
		"markdown": FindingsMarkdown(reps, FindingsOptions{Explain: true}),
	} {
		if strings.Contains(string(out), rules.Seed000) || strings.Contains(string(out), "211b0b645b2f1cc8") {
			t.Errorf("%s names the seed file:\n%s", name, out)
		}
		if !strings.Contains(string(out), "Optimizing Linux performance on HP Integrity Superdome X” (Hewlett-Packard, 2015)") {
			t.Errorf("%s does not name the document:\n%s", name, out)
		}
	}
	b, err := FindingsJSON(reps[:1], FindingsOptions{})
	if err != nil || !strings.Contains(string(b), `"doc": "`+rules.Seed000+`"`) {
		t.Fatalf("JSON lost the file name: %v\n%s", err, b)
	}
}
