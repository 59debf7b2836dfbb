package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The -o tamper tests run the real binary on fixture trees: a directory
// output never loses or mixes with a file dbhost did not write.

// runBinary runs the real binary (dbhostExec).
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := dbhostExec(t, nil, args...)
	return r.stdout, r.stderr, r.code
}

// fixtureRoot is a committed fixture tree, absolute (the binary runs in a
// directory of its own).
func fixtureRoot(name string) string {
	p, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "hosts", name))
	return p
}

// snapshotDir maps a directory's files to their bytes.
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			m[rel] = string(b)
		}
		return nil
	})
	return m
}

// TestTamperPlanOutput: plan -o into a directory holding a file it did not
// write (the issue's `mkdir d; touch d/keep`), a home directory, an
// /etc/tuned-like directory, a previous plan with a file added or one of
// its files edited: exit 2 naming the file, nothing there changed. A new
// directory, and a previous plan, are written; applying the plan, then
// planning again into the same directory, works.
func TestTamperPlanOutput(t *testing.T) {
	root := fixtureRoot("numa-off")
	base := t.TempDir()
	mk := func(name string, files map[string]string) string {
		d := filepath.Join(base, name)
		os.MkdirAll(d, 0o755)
		for n, c := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(d, n)), 0o755)
			os.WriteFile(filepath.Join(d, n), []byte(c), 0o644)
		}
		return d
	}
	plan := filepath.Join(base, "plan")
	if _, stderr, code := runBinary(t, "plan", "--root", root, "-o", plan); code != 0 {
		t.Fatalf("plan into a new directory: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(plan, ".dbhost-manifest")); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := runBinary(t, "plan", "--root", root, "-o", plan); code != 0 {
		t.Fatalf("plan over the previous plan: exit %d\n%s", code, stderr)
	}
	added := filepath.Join(base, "plan-added")
	runBinary(t, "plan", "--root", root, "-o", added)
	os.WriteFile(filepath.Join(added, "NOTES"), []byte("mine\n"), 0o644)
	edited := filepath.Join(base, "plan-edited")
	runBinary(t, "plan", "--root", root, "-o", edited)
	os.WriteFile(filepath.Join(edited, "tuned.conf"), []byte("[main]\ninclude=mine\n"), 0o644)
	for _, c := range []struct {
		dir, file string
	}{
		{mk("d", map[string]string{"keep": ""}), "keep"},
		{mk("home", map[string]string{".bashrc": "alias ll='ls -l'\n", ".ssh/authorized_keys": "ssh-ed25519 AAAA\n"}), ".bashrc"},
		{mk("etc-tuned", map[string]string{"tuned-main.conf": "daemon = 1\n", "active_profile": "throughput-performance\n", "bootcmdline": ""}), "active_profile"},
		{added, "NOTES"},
		{edited, "tuned.conf"},
	} {
		before := snapshotDir(t, c.dir)
		stdout, stderr, code := runBinary(t, "plan", "--root", root, "-o", c.dir)
		if code != 2 || stdout != "" || !strings.Contains(stderr, filepath.Join(c.dir, c.file)) || !strings.Contains(stderr, "refusing") {
			t.Errorf("plan -o %s: exit %d (want 2), stdout %q, stderr %q (want the file %s named)", c.dir, code, stdout, stderr, c.file)
		}
		if after := snapshotDir(t, c.dir); len(after) != len(before) || after[c.file] != before[c.file] {
			t.Errorf("plan -o %s changed the directory", c.dir)
		}
	}
}

// TestTamperPlaceOutput: place -o writes a new directory, replaces its own
// previous output, and refuses it once it holds a foreign file.
func TestTamperPlaceOutput(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: ORCL\n    engine: oracle\n    cpus: 1\n    memory_gb: 1\n    class: guaranteed\n"), 0o644)
	root := fixtureRoot("cgroup-v2")
	out := filepath.Join(t.TempDir(), "place")
	for i := 0; i < 2; i++ {
		if _, stderr, code := runBinary(t, "place", "--spec", spec, "--root", root, "-o", out); code != 0 {
			t.Fatalf("place -o (run %d): exit %d\n%s", i+1, code, stderr)
		}
	}
	os.WriteFile(filepath.Join(out, "my-notes.txt"), []byte("x"), 0o644)
	before := snapshotDir(t, out)
	_, stderr, code := runBinary(t, "place", "--spec", spec, "--root", root, "-o", out)
	if code != 2 || !strings.Contains(stderr, "my-notes.txt") {
		t.Fatalf("place -o with a foreign file: exit %d\n%s", code, stderr)
	}
	if after := snapshotDir(t, out); len(after) != len(before) {
		t.Errorf("place -o changed the directory")
	}
}

// TestTamperOutputCannotWrite: -o naming a place that cannot be written (a
// file in the way, a directory of /proc) is the operator's mistake, exit 2
// with the reason, for the directory outputs as for the single-file ones.
func TestTamperOutputCannotWrite(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: ORCL\n    engine: oracle\n    cpus: 1\n    memory_gb: 1\n    class: guaranteed\n"), 0o644)
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, []byte("x"), 0o644)
	for _, dir := range []string{filepath.Join(file, "sub"), "/proc/sys/dbhost-test-output"} {
		for _, args := range [][]string{
			{"plan", "--root", fixtureRoot("numa-off"), "-o", dir},
			{"place", "--spec", spec, "--root", fixtureRoot("cgroup-v2"), "-o", dir},
			{"collect", "--root", fixtureRoot("numa-off"), "-o", filepath.Join(dir, "snap.json")},
		} {
			_, stderr, code := runBinary(t, args...)
			if code != 2 || !strings.Contains(stderr, "cannot write there") {
				t.Errorf("%v: exit %d, want 2 saying it cannot write there:\n%s", args, code, stderr)
			}
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "x" {
		t.Errorf("the file in the way was changed: %q", b)
	}
}
