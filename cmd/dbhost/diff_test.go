package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLIDiff(t *testing.T) {
	tree := cliTree(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	if code, _, errs := cliRun(t, "collect", "--root", tree, "--format", "json", "-o", a); code != 0 {
		t.Fatalf("collect: %s", errs)
	}
	code, out, errs := cliRun(t, "diff", a, a)
	if code != 0 || !strings.Contains(out, "No drift") {
		t.Fatalf("same snapshot: exit %d\n%s%s", code, out, errs)
	}
	// A changed sysctl and a CPU gone offline.
	os.WriteFile(filepath.Join(tree, "proc/sys/vm/swappiness"), []byte("10\n"), 0o644)
	os.WriteFile(filepath.Join(tree, "sys/devices/system/cpu/online"), []byte("0\n"), 0o644)
	if code, _, errs := cliRun(t, "collect", "--root", tree, "--format", "json", "-o", b); code != 0 {
		t.Fatalf("collect: %s", errs)
	}
	code, out, _ = cliRun(t, "diff", a, b)
	if code != exitFindings {
		t.Fatalf("drift: exit %d, want %d\n%s", code, exitFindings, out)
	}
	wantContains(t, "diff text", out, "Drift of clihost from "+a, "SETTINGS (", "  ~ sysctl.vm.swappiness: 60 → 10\n", "TOPOLOGY (", "  ~ topology.cpus_online: 0-1 → 0\n")
	code, out, _ = cliRun(t, "diff", a, b, "--format", "markdown")
	if code != exitFindings {
		t.Fatalf("markdown: exit %d", code)
	}
	wantContains(t, "diff markdown", out, "# Drift of clihost from "+a, "## SETTINGS (", "- ~ `sysctl.vm.swappiness`: `60` → `10`\n")
	code, out, _ = cliRun(t, "diff", a, b, "--format", "json")
	var d struct {
		SameHost bool `json:"same_host"`
		A        struct{ File string }
		Changes  []struct{ Section, Path, Kind string }
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil || code != exitFindings || !d.SameHost || d.A.File != a || len(d.Changes) == 0 {
		t.Fatalf("json: exit %d, %v\n%s", code, err, out)
	}
	for _, args := range [][]string{{"diff", a}, {"diff", a, filepath.Join(dir, "nope.json")}, {"diff", a, b, "--format", "xml"}} {
		if code, _, errs := cliRun(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}
