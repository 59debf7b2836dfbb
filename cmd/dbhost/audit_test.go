package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
)

type auditDoc struct {
	SchemaVersion int `json:"schema_version"`
	Hosts         []struct {
		Host        string          `json:"host"`
		Workload    string          `json:"workload"`
		DB          string          `json:"db"`
		Findings    []rules.Finding `json:"findings"`
		Passed      []rules.Result  `json:"passed"`
		CannotCheck []rules.Result  `json:"cannot_check"`
	} `json:"hosts"`
}

func findingIDs(d auditDoc, host int) string {
	var ids []string
	for _, f := range d.Hosts[host].Findings {
		ids = append(ids, f.ID)
	}
	return strings.Join(ids, " ")
}

func TestCLIAuditRootJSONAndFailOn(t *testing.T) {
	tree := sles11Kernel(t, cliTree(t)) // vm.swappiness 60, no SwapTotal line: memory.swappiness fires (a warning on 3.0)
	code, out, errs := cliRun(t, "audit", "--root", tree, "--format", "json", "--workload", "oltp", "--explain")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var d auditDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if d.SchemaVersion < 1 || len(d.Hosts) != 1 || d.Hosts[0].Host != "clihost" || d.Hosts[0].Workload != "oltp" || d.Hosts[0].DB != "none" {
		t.Fatalf("%+v", d)
	}
	if !strings.Contains(findingIDs(d, 0), "memory.swappiness") || len(d.Hosts[0].Passed)+len(d.Hosts[0].CannotCheck) == 0 {
		t.Fatalf("findings %s; explain lists missing:\n%s", findingIDs(d, 0), out)
	}
	code, out, errs = cliRun(t, "audit", "--root", tree, "--fail-on", "warning")
	if code != exitFindings || !strings.Contains(errs, "at or above warning") || !strings.Contains(out, "[WARNING]") {
		t.Fatalf("fail-on warning: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := cliRun(t, "audit", "--root", tree, "--fail-on", "critical"); code != 0 {
		t.Fatalf("fail-on critical: exit %d: %s", code, errs)
	}
	code, out, _ = cliRun(t, "audit", "--root", tree, "--format", "markdown")
	if code != 0 || !strings.HasPrefix(out, "# Audit of clihost") {
		t.Fatalf("markdown: exit %d\n%s", code, out)
	}
}

func TestCLIAuditFleetAndArtifacts(t *testing.T) {
	tree := sles11Kernel(t, cliTree(t))
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if code, _, errs := cliRun(t, "collect", "--root", tree, "--format", "json", "-o", a); code != 0 {
		t.Fatalf("collect: %s", errs)
	}
	b, _ := os.ReadFile(a)
	b2 := strings.Replace(string(b), `"hostname": "clihost"`, `"hostname": "otherhost"`, 1)
	b2 = strings.Replace(b2, `"vm.swappiness": "60"`, `"vm.swappiness": "10"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "b.json"), []byte(b2), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := cliRun(t, "audit", "--snapshot", filepath.Join(dir, "*.json"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "fleet view", out, "Audit of 2 hosts",
		"[WARNING] memory.swappiness — vm.swappiness is above the database profiles' 10\n    fails on 1 of 2 hosts: clihost\n",
		"  1 host does not fail memory.swappiness\n      otherhost\n")
	// A second snapshot of one host: JSON keeps every host with its file,
	// the text tells the two apart by file; --fail-on counts over the fleet.
	c := filepath.Join(dir, "c.json")
	if err := os.WriteFile(c, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = cliRun(t, "audit", "--snapshot", filepath.Join(dir, "*.json"), "--format", "json", "--fail-on", "warning")
	if code != exitFindings || !strings.Contains(errs, "2 finding(s) at or above warning") {
		t.Fatalf("fleet --fail-on: exit %d: %s", code, errs)
	}
	var doc struct {
		Hosts []struct {
			Host, File  string
			CollectedAt string `json:"collected_at"`
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Hosts) != 3 {
		t.Fatalf("json: %v\n%s", err, out)
	}
	for i, want := range []string{"a.json", "b.json", "c.json"} {
		if h := doc.Hosts[i]; h.File != filepath.Join(dir, want) || h.CollectedAt == "" {
			t.Errorf("host %d: %+v, want file %s and its collected_at", i, h, want)
		}
	}
	code, out, _ = cliRun(t, "audit", "--snapshot", filepath.Join(dir, "*.json"), "--explain")
	wantContains(t, "two snapshots of one host", out, "fails on 2 of 3 hosts: clihost (a.json), clihost (c.json)\n", "\nAudit of otherhost")
	md := filepath.Join(dir, "fleet.md")
	if code, _, errs = cliRun(t, "audit", "--snapshot", filepath.Join(dir, "*.json"), "--format", "markdown", "-o", md); code != 0 {
		t.Fatalf("markdown: %s", errs)
	}
	mb, _ := os.ReadFile(md)
	wantContains(t, "fleet markdown", string(mb), "# Audit of 3 hosts", "| warning | `memory.swappiness` | 2 of 3 |", "## Audit of clihost ("+c+")")
	// A bad snapshot in the glob: exit 2 naming it, and -o's file untouched.
	os.WriteFile(filepath.Join(dir, "d.json"), []byte("{"), 0o644)
	code, _, errs = cliRun(t, "audit", "--snapshot", filepath.Join(dir, "*.json"), "--format", "markdown", "-o", md)
	if after, _ := os.ReadFile(md); code != exitUsage || !strings.Contains(errs, "d.json") || string(after) != string(mb) {
		t.Fatalf("bad snapshot: exit %d, %s; -o changed: %v", code, errs, string(after) != string(mb))
	}
	os.Remove(filepath.Join(dir, "d.json"))
	// A missing artifact: its error on stderr, the audit still printed, exit 2.
	code, out, errs = cliRun(t, "audit", "--snapshot", a, "--artifact", filepath.Join(dir, "nope.log"))
	if code != exitUsage || !strings.Contains(errs, "nope.log") || !strings.Contains(out, "Audit of clihost") {
		t.Fatalf("artifact: exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

func TestCLIAuditUsage(t *testing.T) {
	for _, args := range [][]string{
		{"audit", "--workload", "batch"}, {"audit", "--db", "db2"}, {"audit", "--fail-on", "high"}, {"audit", "--format", "html"},
		{"rules", "show", "no.such-rule"}, {"rules", "show"},
	} {
		if code, _, errs := cliRun(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

func TestCLIRules(t *testing.T) {
	code, out, errs := cliRun(t, "rules", "list", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Rules []rules.Rule `json:"rules"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Rules) != len(rules.All()) || len(doc.Rules) == 0 {
		t.Fatalf("%v: %d rules\n%s", err, len(doc.Rules), out)
	}
	for _, r := range doc.Rules {
		if len(r.Sources) == 0 || r.Sources[0].Doc == "" {
			t.Errorf("%s without sources in JSON", r.ID)
		}
	}
	code, out, _ = cliRun(t, "rules", "list")
	wantContains(t, "rules list", out, "numa.disabled-at-boot", "critical", "HP 2015")
	code, out, _ = cliRun(t, "rules", "show", "numa.balancing-with-db-shm")
	wantContains(t, "rules show", out, "“Tuning Red Hat Enterprise Linux for Databases” (Sanjay Rao, Red Hat Summit, 2015) § Memory Tuning – Autonuma", "db versions")
	if strings.Contains(out, rules.Seed003) {
		t.Errorf("rules show names the seed file:\n%s", out)
	}
	if code != 0 {
		t.Fatalf("show: exit %d", code)
	}
}
