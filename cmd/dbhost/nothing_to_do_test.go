package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingToDoCreatesNothing: rollback and verify in a tree that was
// never applied to (no state directory, or one holding neither journal nor
// lock) say "no journal" (exit 2) and leave the tree byte for byte as it
// was: no var/lib/dbhost, no lock file. The first apply in a tree creates
// the state directory and says so, as a bench does; the next one does not
// repeat it.
func TestNothingToDoCreatesNothing(t *testing.T) {
	tree := cliTree(t)
	emptyState := cliTree(t)
	os.MkdirAll(filepath.Join(emptyState, "var/lib/dbhost"), 0o755)
	for _, dir := range []string{tree, emptyState} {
		before := listTree(t, dir)
		for _, args := range [][]string{
			{"rollback", "--root", dir},
			{"rollback", "--root", dir, "--to", "20260101T000000.000000000Z"},
			{"verify", "--root", dir},
		} {
			r := dbhostExec(t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "no apply journal") {
				t.Errorf("dbhost %s: exit %d, stderr %q; want 2, no journal", strings.Join(args, " "), r.code, r.stderr)
			}
			if after := listTree(t, dir); after != before {
				t.Errorf("dbhost %s changed the tree:\nbefore %s\nafter  %s", strings.Join(args, " "), before, after)
			}
		}
	}
	planPath := swappinessPlan(t)
	r := dbhostExec(t, nil, "apply", "--root", tree, "--plan", planPath)
	state := filepath.Join(tree, "var/lib/dbhost")
	if r.code != 0 || !strings.Contains(r.stderr, "created the state directory "+state) {
		t.Fatalf("first apply: exit %d, stderr %q; want 0 and the state directory announced", r.code, r.stderr)
	}
	r = dbhostExec(t, nil, "rollback", "--root", tree)
	if r.code != 0 || strings.Contains(r.stderr, "created the state directory") {
		t.Fatalf("rollback: exit %d, stderr %q", r.code, r.stderr)
	}
	// A bench makes its state directory (its record of what it creates)
	// and says so, once.
	benchState := filepath.Join(t.TempDir(), "state")
	for i, want := range []bool{true, false} {
		r = dbhostExec(t, nil, "bench", "mq", "--duration", "100ms", "--state-dir", benchState, "-o", os.DevNull)
		if r.code != 0 || strings.Contains(r.stderr, "created the state directory "+benchState) != want {
			t.Fatalf("bench %d: exit %d, stderr %q; announced %v expected", i+1, r.code, r.stderr, want)
		}
	}
}
