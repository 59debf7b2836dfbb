package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const awrData = "../../internal/artifacts/testdata/awr/"

func TestCLIAWRText(t *testing.T) {
	code, out, errOut := cliRun(t, "awr", awrData+"awrrpt_1_205_206_11203.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantContains(t, "awr text", out, "AWR text report, LOBTEST/lobtest (11.2.0.3.0, single instance)",
		"Host labdb02.example.: Linux x86 64-bit, 8 CPUs, 4 cores, 1 sockets, 31.33 GB",
		"Snapshots 205-206 (08-May-14 13:40:11 to 08-May-14 14:05:06): elapsed 24.92 min",
		"enq: HW - contention", "62,717", "Configurat", "Wait classes", "Diagnosis:")
	if strings.Contains(out, "Comparison") {
		t.Error("one report compared")
	}
}

func TestCLIAWRJSONAndCompare(t *testing.T) {
	code, out, errOut := cliRun(t, "awr", "--format", "json", awrData+"awrrpt_1_412_413_12102.txt", awrData+"awrrpt_2_2201_2202_19c_rac.html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		SchemaVersion int `json:"schema_version"`
		Reports       []struct {
			File      string           `json:"file"`
			Kind      string           `json:"kind"`
			Format    string           `json:"format"`
			TopEvents []map[string]any `json:"top_events"`
			Findings  []any            `json:"findings"`
		} `json:"reports"`
		Comparison *struct {
			Baseline string `json:"baseline"`
			Events   []struct {
				Event      string     `json:"event"`
				DeltaTimeS []*float64 `json:"delta_time_s"`
			} `json:"events"`
		} `json:"comparison"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if doc.SchemaVersion != 1 || len(doc.Reports) != 2 || doc.Reports[1].Format != "html" || doc.Reports[0].Findings == nil ||
		doc.Reports[1].TopEvents[5]["avg_ms"] != 0.42051 {
		t.Fatalf("%+v", doc)
	}
	if doc.Comparison == nil || doc.Comparison.Baseline != awrData+"awrrpt_1_412_413_12102.txt" {
		t.Fatalf("comparison: %+v", doc.Comparison)
	}
	found := false
	for _, e := range doc.Comparison.Events {
		if e.Event == "log file sync" && e.DeltaTimeS[0] == nil && e.DeltaTimeS[1] != nil && *e.DeltaTimeS[1] == 2760.8 {
			found = true
		}
	}
	if !found {
		t.Errorf("log file sync delta missing: %+v", doc.Comparison.Events)
	}
}

func TestCLIAWRBadInput(t *testing.T) {
	d := t.TempDir()
	notReport := filepath.Join(d, "notes.txt")
	os.WriteFile(notReport, []byte("top of the morning\n"), 0o644)
	code, _, errOut := cliRun(t, "awr", notReport)
	if code != 2 || !strings.Contains(errOut, notReport+": not an AWR or Statspack report: expected") {
		t.Errorf("not a report: exit %d %s", code, errOut)
	}
	code, _, errOut = cliRun(t, "awr", filepath.Join(d, "missing.html"))
	if code != 2 || !strings.Contains(errOut, "missing.html: cannot read: no such file") {
		t.Errorf("missing: exit %d %s", code, errOut)
	}
	code, _, errOut = cliRun(t, "awr", "")
	if code != 2 || !strings.Contains(errOut, "empty file name") {
		t.Errorf("empty: exit %d %s", code, errOut)
	}
	code, _, _ = cliRun(t, "awr")
	if code != 2 {
		t.Errorf("no argument: exit %d", code)
	}
	// A report with an unreadable section: printed, the section named, exit 2.
	b, _ := os.ReadFile(awrData + "awrrpt_1_205_206_11203.txt")
	bad := filepath.Join(d, "awrrpt_bad.txt")
	os.WriteFile(bad, []byte(strings.Replace(string(b), "62,717         918", "62,717         ###", 1)), 0o644)
	code, out, errOut := cliRun(t, "awr", bad, notReport)
	if code != 2 || !strings.Contains(errOut, "awrrpt_bad.txt:61: Top 5 Timed Foreground Events:") ||
		!strings.Contains(out, "could not read: "+bad+":61") || !strings.Contains(out, "direct path write") {
		t.Errorf("bad section: exit %d\n%s\n%s", code, errOut, out)
	}
}

// dbhost audit --artifact REPORT: the report's diagnoses joined with the
// host's facts (here a --root tree: 2 CPUs, one NUMA node), with Oracle
// detected from the report.
func TestCLIAuditWithAWR(t *testing.T) {
	root := cliTree(t)
	code, out, errOut := cliRun(t, "audit", "--root", root, "--format", "json", "--explain",
		"--artifact", awrData+"awrrpt_1_30_31_12102_caging.txt", "--artifact", awrData+"awrrpt_1_412_413_12102.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Hosts []struct {
			DB       string `json:"db"`
			DBSource string `json:"db_source"`
			Findings []struct {
				ID       string `json:"id"`
				Evidence string `json:"evidence"`
			} `json:"findings"`
			Passed []struct {
				ID     string `json:"id"`
				Reason string `json:"reason"`
			} `json:"passed"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	h := doc.Hosts[0]
	if h.DB != "oracle" || !strings.Contains(h.DBSource, "oracle-awr-report") {
		t.Fatalf("db %q (%s)", h.DB, h.DBSource)
	}
	found := false
	for _, f := range h.Findings {
		if f.ID == "db.awr-resmgr-cpu-quantum" {
			found = true
			wantContains(t, "evidence", f.Evidence, "this host: 2 CPU threads, 1 NUMA node(s)", "the report was taken on host bdtsrv, the facts below are of clihost",
				"no NUMA node of this host has 9 CPUs")
		}
	}
	if !found {
		t.Errorf("no resmgr finding: %+v", h.Findings)
	}
	// The host answers what the report alone could not: one NUMA node.
	numa := ""
	for _, p := range h.Passed {
		if p.ID == "numa.awr-mutex-numa-balancing" {
			numa = p.Reason
		}
	}
	if !strings.Contains(numa, "one NUMA node") {
		t.Errorf("mutex/NUMA not decided by the host: %q", numa)
	}
}

// awr --format markdown through the binary: a global RAC report and a
// Statspack one compared, to standard output and with -o; the same view as
// the text; an unknown format is exit 2 naming the formats.
func TestCLIAWRMarkdown(t *testing.T) {
	a, _ := filepath.Abs(awrData + "awrgrpt_510_511_23ai.html") // the binary runs in a directory of its own
	b, _ := filepath.Abs(awrData + "sp_8811_8812_9208.lst")
	code, md, errOut := runBin(t, "awr", "--format", "markdown", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	wantContains(t, "awr markdown", md, "# "+a+" — AWR HTML report, RAC23 (23.0.0.0.0, RAC, all 2 instances (global report))\n",
		"\n| Top events | waits | time (s) | avg (ms) | % DB time | class |\n|---|", "\n| Instance 2 RAC232 (exa01db02) | waits |",
		"\n## Diagnosis: 1 info\n\n- [INFO] ", "no init.ora Parameters",
		"\n# "+b+" — Statspack text report, ", "\n# Comparison (each report against the first, "+a+")\n",
		"\n| Event (time s / avg ms / % DB time) | [1] | [2] | [2]-[1] time s | % DB time |\n|---|")
	// The global report gives no parameters: whether the Resource Manager's
	// waits are caging is unknown, so no cpu_count is set (issue 27).
	if strings.Contains(md, "cpu_count=49") {
		t.Errorf("a cpu_count for a report without parameters:\n%s", md)
	}
	_, text, _ := runBin(t, "awr", a, b)
	for _, l := range []string{"Top events", "Comparison (each report against the first, " + a + ")", "Could not decide (what would):"} {
		if !strings.Contains(text, l) {
			t.Errorf("text lacks %q", l)
		}
	}
	out := filepath.Join(t.TempDir(), "awr.md")
	if code, stdout, errOut := runBin(t, "awr", "--format", "markdown", "-o", out, a, b); code != 0 || stdout != "" {
		t.Fatalf("-o: exit %d, stdout %q: %s", code, stdout, errOut)
	}
	if got, err := os.ReadFile(out); err != nil || string(got) != md {
		t.Errorf("-o %s: %v\n%s", out, err, got)
	}
	code, _, errOut = runBin(t, "awr", "--format", "html", a)
	if code != 2 || !strings.Contains(errOut, `--format "html": expected one of [text json markdown]`) {
		t.Errorf("unknown format: exit %d: %s", code, errOut)
	}
}
