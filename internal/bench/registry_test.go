package bench

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// deadPID is the pid of a process that has exited (and been reaped).
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

func TestRegistryRemovesWhatARunCreated(t *testing.T) {
	dir := t.TempDir()
	scratch := t.TempDir()
	reg, _, err := OpenRegistry(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := reg.ScratchDir(scratch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "data"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := reg.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d); !os.IsNotExist(err) {
		t.Errorf("scratch dir %s survives Close: %v", d, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("registry files left: %v", left)
	}
}

func TestRegistryCleansLeftoversOfDeadRunsOnly(t *testing.T) {
	dir := t.TempDir()
	scratch := t.TempDir()
	mk := func(name string) string {
		p := filepath.Join(scratch, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		return p
	}
	deadDir, liveDir, foreign := mk(ScratchPrefix+"dead"), mk(ScratchPrefix+"live"), mk("not-ours")
	write := func(name string, rec record) {
		b, _ := json.Marshal(rec)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	now := time.Now()
	write("run-1-dead.json", record{PID: deadPID(t), Start: "1", Resources: []Resource{
		{ID: 1, Kind: KindDir, Name: deadDir, Added: now},
		{ID: 2, Kind: KindDir, Name: foreign, Added: now}, // edited record: refused
	}})
	write("run-2-live.json", record{PID: os.Getpid(), Start: procStart(os.Getpid()), Resources: []Resource{{ID: 1, Kind: KindDir, Name: liveDir, Added: now}}})
	write("run-3-junk.json", record{}) // pid 0: dead, nothing recorded
	cleaned, err := CleanupLeftovers(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deadDir); !os.IsNotExist(err) {
		t.Errorf("dead run's scratch dir survives: %v", err)
	}
	if _, err := os.Stat(liveDir); err != nil {
		t.Errorf("a live run's scratch dir was removed: %v", err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("a path without dbhost's prefix was removed: %v", err)
	}
	var refused, removed int
	for _, c := range cleaned {
		if c.Error != "" {
			refused++
		} else {
			removed++
		}
	}
	if refused != 1 || removed != 1 {
		t.Errorf("cleaned %+v: want 1 removed, 1 refused", cleaned)
	}
	// The refused resource stays recorded; the live run's record is untouched.
	if _, err := os.Stat(filepath.Join(dir, "run-1-dead.json")); err != nil {
		t.Errorf("record with a refused leftover was dropped: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run-2-live.json")); err != nil {
		t.Errorf("live record removed: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run-3-junk.json")); !os.IsNotExist(err) {
		t.Errorf("empty dead record kept: %v", err)
	}
}

func TestKilledChildProcessIsKilled(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	start := procStart(pid)
	if start == "" {
		_ = cmd.Process.Kill()
		t.Skip("no /proc start time")
	}
	if err := killRecordedProcess(Resource{Kind: KindProcess, Name: itoa(pid), Detail: start}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("child still running")
	}
	// A pid whose start time differs (reused) is left alone.
	if err := killRecordedProcess(Resource{Kind: KindProcess, Name: itoa(os.Getpid()), Detail: "1"}); err != nil {
		t.Fatal(err)
	}
}

func TestParseStatStart(t *testing.T) {
	line := "1234 (a) b) c) S 1 1234 1234 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615"
	if got := parseStatStart(line); got != "987654" {
		t.Errorf("start %q, want 987654", got)
	}
	for _, bad := range []string{"", "1234 (x", "1 (x) S 1 2"} {
		if got := parseStatStart(bad); got != "" {
			t.Errorf("parseStatStart(%q) = %q", bad, got)
		}
	}
}
