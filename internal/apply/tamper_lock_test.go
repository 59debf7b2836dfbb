package apply

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/testbin"
)

// dbhostSplit runs the binary and returns stdout and stderr apart.
func dbhostSplit(t *testing.T, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := testbin.Command(dbhostBin, args...)
	cmd.Env = append(append(cmd.Env, "DBHOST_TEST_SIMULATE=1"), env...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return o.String(), e.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), 0
}

var lockLine = regexp.MustCompile(`^dbhost: another dbhost apply/rollback \(pid (\d+)\) holds the lock \S+\n$`)

// TestLockHeldThroughBinary holds an apply inside its run (after its first
// write's begin entry, through the DBHOST_TEST_PAUSE_AT hook) and runs
// every command that takes the lock against it: each loser prints nothing
// on stdout (no diff read from the half-written tree), one line naming the
// holder's pid on stderr, and exits 6; nothing it did is in the journal.
func TestLockHeldThroughBinary(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	planPath := writePlan(t)
	root := fixture(t, "laptop-2s")
	state := filepath.Join(root, "var/lib/dbhost")
	release := filepath.Join(t.TempDir(), "go")
	holder := testbin.Command(dbhostBin, "apply", "--plan", planPath, "--root", root, "--accept-risk")
	holder.Env = append(holder.Env, "DBHOST_TEST_SIMULATE=1", "DBHOST_TEST_PAUSE_AT=2:"+release)
	var hout bytes.Buffer
	holder.Stdout, holder.Stderr = &hout, &hout
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		os.WriteFile(release, nil, 0o600)
		holder.Wait()
	}()
	for i := 0; ; i++ {
		if _, err := os.Stat(release + ".paused"); err == nil {
			break
		}
		if i > 2000 {
			t.Fatalf("the holder never paused:\n%s", hout.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	ids, _ := ListJournals(state)
	if len(ids) != 1 {
		t.Fatalf("journals while held: %v", ids)
	}
	journal := filepath.Join(state, "journal", ids[0]+journalExt)
	held, _ := os.ReadFile(journal)
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: ORCL\n    engine: oracle\n    cpus: 1\n    memory_gb: 1\n    class: guaranteed\n"), 0o644)
	for _, args := range [][]string{
		{"apply", "--plan", planPath, "--root", root, "--accept-risk"},
		{"apply", "--root", root}, // computes its plan from the tree: after the lock
		{"apply", "--dry-run", "--plan", planPath, "--root", root},
		{"rollback", "--root", root},
		{"verify", "--root", root},
		{"place", "--spec", spec, "--apply", "--root", root},
	} {
		stdout, stderr, code := dbhostSplit(t, nil, args...)
		m := lockLine.FindStringSubmatch(stderr)
		if code != 6 || stdout != "" || m == nil || m[1] != fmt.Sprint(holder.Process.Pid) {
			t.Errorf("%v while an apply holds the lock: exit %d, want 6, stdout %q (want none), stderr %q (want the lock line with pid %d)",
				args, code, stdout, stderr, holder.Process.Pid)
		}
	}
	if now, _ := os.ReadFile(journal); !bytes.Equal(now, held) {
		t.Errorf("the losers wrote to the holder's journal")
	}
	os.WriteFile(release, nil, 0o600)
	if err := holder.Wait(); err != nil {
		t.Fatalf("the holder: %v\n%s", err, hout.String())
	}
	if ids, _ := ListJournals(state); len(ids) != 1 {
		t.Fatalf("journals after: %v", ids)
	}
	// A free lock again: rollback runs.
	if out, code, _ := dbhost(t, nil, "rollback", "--root", root); code != 0 {
		t.Fatalf("rollback after the holder finished: exit %d\n%s", code, out)
	}
}

// TestConcurrentApplies starts several applies of one plan on one tree at
// once: each either wins the lock (exit 0, one journal in all, every value
// applied once) or loses it (exit 6, only the lock line); no loser prints a
// diff or "no changes", and exactly one journal exists afterwards.
func TestConcurrentApplies(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	planPath := writePlan(t)
	root := fixture(t, "laptop-2s")
	state := filepath.Join(root, "var/lib/dbhost")
	const n = 6
	type res struct {
		stdout, stderr string
		code           int
	}
	out := make([]res, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			o, e, c := dbhostSplit(t, nil, "apply", "--plan", planPath, "--root", root, "--accept-risk")
			out[i] = res{o, e, c}
		}(i)
	}
	wg.Wait()
	won := 0
	for i, r := range out {
		switch r.code {
		case 0:
			if strings.Contains(r.stdout, "journal ") {
				won++
			} else if !strings.Contains(r.stdout, "nothing written") {
				t.Errorf("apply %d: exit 0 without a journal or \"nothing written\":\n%s", i, r.stdout)
			}
		case 6:
			if r.stdout != "" || !lockLine.MatchString(r.stderr) {
				t.Errorf("apply %d lost the lock but printed stdout %q stderr %q", i, r.stdout, r.stderr)
			}
		default:
			t.Errorf("apply %d: exit %d\n%s%s", i, r.code, r.stdout, r.stderr)
		}
	}
	ids, _ := ListJournals(state)
	if won != 1 || len(ids) != 1 {
		t.Fatalf("%d applies wrote a journal, %d journals: want 1 and 1", won, len(ids))
	}
	j, err := LoadJournal(state, ids[0])
	if err != nil || !j.Ended || j.Damaged() {
		t.Fatalf("the winner's journal: %v ended=%v damage=%v", err, j.Ended, j.Damage)
	}
}

// TestLockedErrorNamesPID: Lock in this process, a second Lock (another
// open file description) is refused with this pid; Unlock frees it.
func TestLockedErrorNamesPID(t *testing.T) {
	dir := t.TempDir()
	l, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second lock: %v", err)
	}
	if _, err := LockShared(dir); !errors.As(err, &le) {
		t.Fatalf("shared lock while held: %v", err)
	}
	l.Unlock()
	// A shared holder (a verify) is waited for, not named by a stale pid.
	s, err := LockShared(dir)
	if err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(50 * time.Millisecond); s.Unlock() }()
	l, err = Lock(dir)
	if err != nil {
		t.Fatalf("exclusive lock after the shared holder left: %v", err)
	}
	l.Unlock()
	if s, err := LockShared(filepath.Join(dir, "none")); s != nil || err != nil {
		t.Fatalf("shared lock without a state directory: %v %v", s, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); !errors.Is(err, syscall.ENOENT) {
		t.Fatalf("a shared lock created the state directory: %v", err)
	}
}
