package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var aixBundle = filepath.Join("..", "..", "internal", "facts", "aix", "testdata", "bundles", "aix72")

// collect, audit and report read an AIX bundle; the Linux sections are
// absent with the reason; bad bundles are exit 2.
func TestCLIAIXBundle(t *testing.T) {
	code, out, errs := cliRun(t, "collect", "--aix-bundle", aixBundle, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var s struct {
		Source struct{ Kind string }
		AIX    *struct {
			OSLevel string `json:"oslevel"`
			LPAR    struct {
				SMT int `json:"smt"`
			} `json:"lpar"`
		} `json:"aix"`
		Absent []struct{ Fact, Reason string }
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if s.Source.Kind != "aix-bundle" || s.AIX == nil || s.AIX.OSLevel != "7200-05-03-2148" || s.AIX.LPAR.SMT != 8 {
		t.Errorf("%+v", s)
	}
	linux := false
	for _, a := range s.Absent {
		if a.Fact == "topology" && strings.Contains(a.Reason, "an AIX host has no /proc") {
			linux = true
		}
	}
	if !linux {
		t.Errorf("topology is not absent with the AIX reason: %v", s.Absent)
	}
	code, out, errs = cliRun(t, "collect", "--aix-bundle", aixBundle)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "collect --aix-bundle", out, "AIX level 7200-05-03-2148", "LPAR db1: Shared-SMT-8", "hdisk10  Available  1", "Other FC SCSI Disk Drive", "fcs0     8 GBIT  2048",
		"Hardware prefetch (dscrctl -q): on, default prefetch depth 5; 16 hardware streams", "PowerHA (lssrc -ls clstrmgrES): not installed", ", vmo restricted 26")
	if strings.Contains(out, "Topology:") {
		t.Errorf("an AIX host's summary shows the Linux topology:\n%s", out)
	}
	code, out, errs = cliRun(t, "collect", "--aix-bundle", aixBundle, "--format", "markdown")
	if code != 0 {
		t.Fatalf("markdown: exit %d: %s", code, errs)
	}
	wantContains(t, "collect --aix-bundle markdown", out, "## AIX level 7200-05-03-2148", "| hdisk10 | Available | ", "| fcs0 | 8 GBIT | 2048 |")
	// audit and report: the same contract as on Linux (exit 0 or 3, never a usage or internal error).
	code, _, errs = cliRun(t, "audit", "--aix-bundle", aixBundle, "--format", "json")
	if code != 0 && code != 3 {
		t.Errorf("audit exit %d: %s", code, errs)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, errs := cliRun(t, "report", "--aix-bundle", aixBundle, "-o", html); code != 0 && code != 3 {
		t.Errorf("report exit %d: %s", code, errs)
	} else if b, _ := os.ReadFile(html); !strings.Contains(string(b), "db1") {
		t.Errorf("report does not name the host")
	}
	if code, _, errs := cliRun(t, "audit", "--aix-bundle", aixBundle, "--format", "prometheus"); code != 0 && code != 3 {
		t.Errorf("audit --format prometheus exit %d: %s", code, errs)
	}
	// Bad input: exit 2 with the file named.
	notBundle := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"collect", "--aix-bundle", notBundle}, "not an AIX bundle"},
		{[]string{"collect", "--aix-bundle", ""}, "empty value"},
		{[]string{"collect", "--aix-bundle", aixBundle, "--sosreport", notBundle}, "only one of"},
		{[]string{"numa", "--aix-bundle", aixBundle}, "unknown flag"},
		{[]string{"collect", "--aix-bundle", aixBundle, "--libvirt"}, "an AIX bundle has none"},
	} {
		code, _, errs := cliRun(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%q: exit %d, %q", c.args, code, errs)
		}
	}
}
