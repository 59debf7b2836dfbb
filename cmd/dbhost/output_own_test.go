package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSingleFileOutputIsOwnOnly: -o FILE means for every single-file
// output what it means for report -o and the plan directory: a new file is
// written, dbhost's own unchanged output is replaced, and a file dbhost did
// not write — or one it wrote that was edited since — is refused (exit 2,
// named) and left byte for byte as it was. Every command's -o goes through
// the one helper (outdir.CreateOwnFile); each is run here through the real
// binary.
func TestSingleFileOutputIsOwnOnly(t *testing.T) {
	host, _ := filepath.Abs("../../testdata/hosts/laptop-2s")
	awr, _ := filepath.Abs("../../internal/artifacts/testdata/awr/awrrpt_1_205_206_11203.txt")
	dir := t.TempDir()
	snapA, snapB := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, p := range []string{snapA, snapB} {
		if r := dbhostExec(t, nil, "collect", "--root", host, "--format", "json", "-o", p); r.code != 0 {
			t.Fatalf("collect: exit %d: %s", r.code, r.stderr)
		}
	}
	state := filepath.Join(dir, "state")
	benchA, benchB := filepath.Join(dir, "bench-a.json"), filepath.Join(dir, "bench-b.json")
	for _, p := range []string{benchA, benchB} {
		if r := dbhostExec(t, nil, "bench", "mq", "--duration", "100ms", "--state-dir", state, "--format", "json", "-o", p); r.code != 0 {
			t.Fatalf("bench: exit %d: %s", r.code, r.stderr)
		}
	}
	tree := copyFixture(t, "laptop-2s")
	plan := filepath.Join(dir, "plan")
	if r := dbhostExec(t, nil, "plan", "--root", host, "-o", plan); r.code != 0 {
		t.Fatalf("plan: exit %d: %s", r.code, r.stderr)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"apply", []string{"apply", "--dry-run", "--root", tree, "--state-dir", state}},
		{"verify", []string{"verify", "--plan", plan, "--root", host, "--state-dir", state, "--format", "markdown"}},
		{"bench", []string{"bench", "mq", "--duration", "100ms", "--state-dir", state}},
		{"compare", []string{"compare", benchA, benchB}},
		{"collect", []string{"collect", "--root", host}},
		{"collect-json", []string{"collect", "--root", host, "--format", "json"}},
		{"audit", []string{"audit", "--root", host}},
		{"audit-json", []string{"audit", "--root", host, "--format", "json"}},
		{"numa", []string{"numa", "--root", host}},
		{"awr", []string{"awr", awr}},
		{"diff", []string{"diff", snapA, snapB}},
		{"rules", []string{"rules", "list"}},
	} {
		out := filepath.Join(dir, c.name+".out")
		// diff and verify exit 3 when something differs: an output all the same.
		ok := func(code int) bool {
			return code == 0 || (c.name == "diff" || c.name == "verify") && code == exitFindings
		}
		run := func() execResult { return dbhostExec(t, nil, append(c.args, "-o", out)...) }
		// New, then replaced: dbhost's own unchanged output.
		for i := 0; i < 2; i++ {
			if r := run(); !ok(r.code) {
				t.Fatalf("%s -o (run %d): exit %d: %s", c.name, i+1, r.code, r.stderr)
			}
		}
		// Edited since (appended to, same file): refused, untouched.
		f, err := os.OpenFile(out, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("# my note\n")
		f.Close()
		edited, _ := os.ReadFile(out)
		if r := run(); r.code != exitUsage || !strings.Contains(r.stderr, out) || !strings.Contains(r.stderr, "not written by dbhost") {
			t.Errorf("%s -o over an edited output: exit %d, stderr %q; want 2 naming it", c.name, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(out); string(b) != string(edited) {
			t.Errorf("%s -o changed the edited file", c.name)
		}
		// Someone else's file: refused, untouched.
		foreign := filepath.Join(dir, c.name+".notes")
		os.WriteFile(foreign, []byte("the DBA's notes\n"), 0o644)
		if r := dbhostExec(t, nil, append(c.args, "-o", foreign)...); r.code != exitUsage || !strings.Contains(r.stderr, foreign) {
			t.Errorf("%s -o over a foreign file: exit %d, stderr %q; want 2 naming it", c.name, r.code, r.stderr)
		}
		if b, _ := os.ReadFile(foreign); string(b) != "the DBA's notes\n" {
			t.Errorf("%s -o overwrote a foreign file: %q", c.name, b)
		}
		// An empty file (mktemp's) and /dev/null are written.
		empty := filepath.Join(dir, c.name+".empty")
		os.WriteFile(empty, nil, 0o600)
		if r := dbhostExec(t, nil, append(c.args, "-o", empty)...); !ok(r.code) {
			t.Errorf("%s -o into an empty file: exit %d: %s", c.name, r.code, r.stderr)
		}
		if r := dbhostExec(t, nil, append(c.args, "-o", os.DevNull)...); !ok(r.code) {
			t.Errorf("%s -o /dev/null: exit %d: %s", c.name, r.code, r.stderr)
		}
	}
	// The snapshots written with -o were dbhost's: collect replaces them.
	if r := dbhostExec(t, nil, "collect", "--root", host, "--format", "json", "-o", snapA); r.code != 0 {
		t.Fatalf("collect over its own snapshot: exit %d: %s", r.code, r.stderr)
	}
}
