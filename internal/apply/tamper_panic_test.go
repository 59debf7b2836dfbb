package apply

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// checkCrashReport holds a crashed run's output to the promise: "internal
// error" naming the panic, a request to report it with a file that holds
// the stack (in tmp, the run's TMPDIR), the hint to verify and roll back
// with the run's own --root, and no Go stack dump on the terminal.
func checkCrashReport(t *testing.T, what, out, tmp, root string) {
	t.Helper()
	for _, want := range []string{
		"dbhost: internal error: test panic after journal step ",
		"please report it at https://",
		"'dbhost verify --root " + root + "' shows what is in place, 'dbhost rollback --root " + root + "' restores the old values",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("%s: the report lacks %q:\n%s", what, want, out)
		}
	}
	if regexp.MustCompile(`goroutine \d+ \[|\.go:\d+`).MatchString(out) {
		t.Errorf("%s: a Go stack dump on the terminal:\n%s", what, out)
	}
	files, _ := filepath.Glob(filepath.Join(tmp, "dbhost-internal-error-*.txt"))
	if len(files) != 1 || !strings.Contains(out, files[0]) {
		t.Fatalf("%s: stack files %v, not named in:\n%s", what, files, out)
	}
	b, _ := os.ReadFile(files[0])
	if !strings.Contains(string(b), "goroutine ") || !strings.Contains(string(b), "panic: test panic after journal step") {
		t.Errorf("%s: the stack file holds:\n%s", what, b)
	}
	os.Remove(files[0])
}

// TestPanicAtEveryStep: a bug that panics in the middle of an apply, after
// each of its journal steps, and in the middle of a rollback. Each run
// exits 1 with the crash report (not Go's stack dump and exit 2); the
// journal is what a kill -9 there leaves, never damaged: verify says the
// apply was interrupted (exit 3, never "as applied"; after the end entry,
// as applied), and rollback restores the tree byte for byte.
func TestPanicAtEveryStep(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	planPath := writeChangesPlan(t, tamperChanges)
	src := fixture(t, "laptop-2s")
	tmp := t.TempDir()
	env := func(n int) []string { return []string{"TMPDIR=" + tmp, "DBHOST_TEST_PANIC_AT=" + strconv.Itoa(n)} }
	for n := 1; ; n++ {
		root := t.TempDir()
		copyTree(t, src, root)
		state := filepath.Join(root, "var/lib/dbhost")
		before := treeBytes(t, root, state)
		what := "apply, panic after step " + strconv.Itoa(n)
		out, code, _ := dbhost(t, env(n), "apply", "--plan", planPath, "--root", root)
		finished := code == 0
		if finished {
			if n < 8 {
				t.Fatalf("apply ran to its end after %d steps: the hook is not called at every step:\n%s", n, out)
			}
			// A panic in the middle of the rollback (after its second
			// step): its own journal entries let the next rollback finish.
			what = "rollback, panic after step 2"
			out, code, _ = dbhost(t, env(2), "rollback", "--root", root)
		}
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1:\n%s", what, code, out)
		}
		checkCrashReport(t, what, out, tmp, root)
		if !finished {
			// Interrupted, unless the panic came after the end entry.
			ids, _ := ListJournals(state)
			j, err := LoadJournal(state, ids[len(ids)-1])
			if err != nil || j.Damaged() {
				t.Fatalf("%s: the journal: %v %v", what, err, j.Damage)
			}
			out, code, _ = dbhost(t, nil, "verify", "--root", root)
			if j.Ended && code != 0 {
				t.Fatalf("%s: verify of the ended journal exit %d, want 0:\n%s", what, code, out)
			}
			if !j.Ended && (code != 3 || !strings.Contains(out, "was INTERRUPTED")) {
				t.Fatalf("%s: verify exit %d, want 3 saying the apply was interrupted:\n%s", what, code, out)
			}
		}
		out, code, _ = dbhost(t, nil, "rollback", "--root", root)
		if code != 0 || strings.Contains(out, "DAMAGED") {
			t.Fatalf("%s: rollback exit %d:\n%s", what, code, out)
		}
		if d := diffTrees(before, treeBytes(t, root, state)); len(d) > 0 {
			t.Fatalf("%s: after rollback:\n%s\nrollback said:\n%s", what, strings.Join(d, "\n"), out)
		}
		if finished {
			break
		}
	}
}
