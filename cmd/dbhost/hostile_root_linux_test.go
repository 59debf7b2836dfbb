package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRootIsThisHost (issue 24, item 14): --root naming this host's own
// root directory ("/", "//", "/.", a path through "..", a link to /) is
// refused with exit 2 and a message to omit --root, by every command
// that takes a tree (read-only ones here: this machine is never touched).
func TestRootIsThisHost(t *testing.T) {
	link := filepath.Join(t.TempDir(), "slash")
	must(t, os.Symlink("/", link))
	up := strings.Repeat("../", strings.Count(t.TempDir(), "/"))
	for _, root := range []string{"/", "//", "/.", t.TempDir() + "/" + up, link} {
		for _, args := range [][]string{
			{"collect", "--root", root, "--format", "json"},
			{"audit", "--root", root},
			{"apply", "--root", root, "--dry-run", "--workload", "oltp", "--db", "oracle"},
		} {
			r := dbhostExec(t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "omit --root to work on this host") {
				t.Errorf("dbhost %s: exit %d, want 2 saying to omit --root:\n%s", strings.Join(args, " "), r.code, r.stderr)
			}
		}
	}
}

// TestStateDirIsAFile (issue 24, item 15): a regular file given as
// --state-dir is bad input (exit 2, saying it is not a directory), for
// every command that takes it; the file keeps its bytes.
func TestStateDirIsAFile(t *testing.T) {
	tree := copyFixture(t, "laptop-2s")
	file := filepath.Join(t.TempDir(), "state")
	must(t, os.WriteFile(file, []byte("not a directory\n"), 0o644))
	for _, args := range [][]string{
		{"apply", "--root", tree, "--state-dir", file, "--workload", "oltp", "--db", "oracle"},
		{"apply", "--root", tree, "--state-dir", file, "--dry-run", "--workload", "oltp", "--db", "oracle"},
		{"verify", "--root", tree, "--state-dir", file},
		{"rollback", "--root", tree, "--state-dir", file},
	} {
		r := dbhostExec(t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.stderr, file+": not a directory (a regular file)") {
			t.Errorf("dbhost %s: exit %d, want 2 naming the file:\n%s", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != "not a directory\n" {
		t.Errorf("the file given as --state-dir changed: %q", b)
	}
}
