package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/bench"
)

// TestBenchChild is not a test: the kill tests run dbhost through it in a
// child process (DBHOST_BENCH_CHILD holds the arguments, one per line).
func TestBenchChild(t *testing.T) {
	args := os.Getenv("DBHOST_BENCH_CHILD")
	if args == "" {
		t.Skip("helper for the kill tests")
	}
	os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
}

// startChild runs dbhost args in a child process.
func startChild(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBenchChild$")
	cmd.Env = append(os.Environ(), "DBHOST_BENCH_CHILD="+strings.Join(args, "\n"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd
}

// dbhostQueues counts SysV message queues with dbhost's key prefix that
// process pid sent to or received from (other runs share the machine).
func dbhostQueues(t *testing.T, pid int) int {
	b, err := os.ReadFile("/proc/sysvipc/msg")
	if err != nil {
		t.Skip("no /proc/sysvipc/msg")
	}
	qs, err := bench.ParseSysVMsg(string(b))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range qs {
		if uint32(q.Key)>>24 == 0xdb && (q.LSPID == pid || q.LRPID == pid) {
			n++
		}
	}
	return n
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for i := 0; i < 300; i++ {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s", what)
}

// A bench killed by SIGINT or SIGTERM removes what it created itself; one
// killed by SIGKILL leaves a record, and `dbhost bench --cleanup` (or the
// next run) removes what it recorded.
func TestBenchKilledLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		t.Run(sig.String(), func(t *testing.T) {
			st := t.TempDir()
			cmd := startChild(t, "bench", "mq", "--senders", "2", "--duration", "60s", "--state-dir", st)
			pid := cmd.Process.Pid
			waitFor(t, "the bench's message queues", func() bool { return dbhostQueues(t, pid) >= 3 })
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			if sig == syscall.SIGKILL {
				if dbhostQueues(t, pid) < 3 {
					t.Fatalf("queues vanished without cleanup after SIGKILL?")
				}
				recs, _ := filepath.Glob(filepath.Join(st, "bench", "run-*.json"))
				if len(recs) != 1 {
					t.Fatalf("records after SIGKILL: %v", recs)
				}
				code, _, errs := cliRun(t, "bench", "--cleanup", "--state-dir", st)
				if code != 0 || !strings.Contains(errs, "removed a leftover") {
					t.Errorf("cleanup: exit %d, %q", code, errs)
				}
			} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
				t.Errorf("after %v: %v, want exit 1 (interrupted)", sig, err)
			}
			if n := dbhostQueues(t, pid); n != 0 {
				t.Errorf("after %v: %d of the bench's message queues left", sig, n)
			}
			if recs, _ := filepath.Glob(filepath.Join(st, "bench", "run-*.json")); len(recs) != 0 {
				t.Errorf("after %v: records left: %v", sig, recs)
			}
		})
	}
}
