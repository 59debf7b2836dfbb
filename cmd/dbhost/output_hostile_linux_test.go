package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/testbin"
)

// TestOutputSpecialFiles: -o to a FIFO nobody reads is refused at once
// (exit 2; the run has a deadline only as a safety net: a hang is seen as
// another exit than 2), a FIFO with a reader gets the output, /dev/null
// and /dev/stdout are written, and any other character device (/dev/zero,
// /dev/full) is refused with exit 2.
func TestOutputSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (int, string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, dbhostBinary(t), args...)
		cmd.Env = testbin.Env(os.Environ())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), out.String(), errb.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, out.String(), errb.String()
	}
	if code, _, stderr := run("rules", "list", "-o", fifo); code != exitUsage || !strings.Contains(stderr, fifo) || !strings.Contains(stderr, "FIFO") {
		t.Errorf("-o a FIFO nobody reads: exit %d, stderr %q; want 2 naming it", code, stderr)
	}
	// With a reader: written.
	got := make(chan []byte, 1)
	go func() {
		f, err := os.Open(fifo) // waits for the writer
		if err != nil {
			got <- nil
			return
		}
		defer f.Close()
		var b bytes.Buffer
		b.ReadFrom(f)
		got <- b.Bytes()
	}()
	code := -1
	for range 200 { // until the reader has the FIFO open (bounded)
		if code, _, _ = run("rules", "list", "-o", fifo); code == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code != 0 {
		t.Errorf("-o a FIFO with a reader: exit %d", code)
	} else if b := <-got; !bytes.Contains(b, []byte("memory.swappiness")) {
		t.Errorf("the FIFO's reader got %q", b)
	}
	if code, _, stderr := run("rules", "list", "-o", os.DevNull); code != 0 {
		t.Errorf("-o /dev/null: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := run("rules", "list", "-o", "/dev/stdout"); code != 0 || !strings.Contains(stdout, "memory.swappiness") {
		t.Errorf("-o /dev/stdout: exit %d, stdout %d bytes: %s", code, len(stdout), stderr)
	}
	for _, dev := range []string{"/dev/zero", "/dev/full"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		if code, _, stderr := run("rules", "list", "-o", dev); code != exitUsage || !strings.Contains(stderr, dev) {
			t.Errorf("-o %s: exit %d, stderr %q; want 2 naming it", dev, code, stderr)
		}
	}
}
