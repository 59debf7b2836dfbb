package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func wantError(t *testing.T, err error, wants ...string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("%v (%T) is not an *input.Error (exit 2)", err, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q does not say %q", err, w)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.json")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	if b, err := ReadFile(p, 10, "a snapshot"); err != nil || string(b) != "0123456789" {
		t.Fatalf("at the limit: %q %v", b, err)
	}
	_, err := ReadFile(p, 9, "a snapshot")
	wantError(t, err, p, "10 bytes, more than the limit for a snapshot (9 bytes, see docs/limits.md)")
	_, err = ReadFile(dir, 9, "a plan")
	wantError(t, err, "is a directory; expected a plan file")
	_, err = ReadFile("/dev/zero", 1<<20, "a snapshot")
	wantError(t, err, "/dev/zero", "not a regular file (a character device)")
	if _, err := ReadFile(filepath.Join(dir, "missing"), 9, "a plan"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A FIFO nobody writes to is not waited for; one that is written forever
// is cut at the limit; one written and closed is read.
func TestReadFileFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "f")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadFile(fifo, 1<<20, "a snapshot"); done <- err }()
	select {
	case err := <-done:
		wantError(t, err, "the pipe gave no data")
	case <-time.After(20 * time.Second):
		t.Fatal("ReadFile waited for a writer")
	}

	stop := make(chan struct{})
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer w.Close()
		buf := make([]byte, 1<<16)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := w.Write(buf); err != nil {
				return
			}
		}
	}()
	defer close(stop)
	// Open only returns once the writer is there (or reads nothing): retry
	// until the writer's data arrives.
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, err := ReadFile(fifo, 1<<20, "a snapshot")
		var e *Error
		if errors.As(err, &e) && strings.Contains(e.Msg, "more than the limit") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("an endless writer: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestReadAll(t *testing.T) {
	if b, err := ReadAll(strings.NewReader("abc"), "standard input", 3, "a placement spec"); err != nil || string(b) != "abc" {
		t.Fatalf("%q %v", b, err)
	}
	_, err := ReadAll(strings.NewReader("abcd"), "standard input", 3, "a placement spec")
	wantError(t, err, "standard input: more than the limit for a placement spec (3 bytes")
}
