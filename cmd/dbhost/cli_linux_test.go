package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// -o onto something that is not a regular file (here a FIFO; /dev/null in
// bench/collect.sh) writes into it and leaves it in place: a temp file renamed
// over /dev/null would replace the device node when run as root.
func TestCLIOutputToFIFO(t *testing.T) {
	tree := cliTree(t)
	fifo := filepath.Join(t.TempDir(), "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opened read-write, the FIFO never blocks an open and never reports EOF;
	// a sentinel line written after dbhost is done marks the end.
	f, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const sentinel = "--END-OF-TEST--"
	got := make(chan string, 1)
	go func() {
		var b strings.Builder
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
		for sc.Scan() {
			if sc.Text() == sentinel {
				break
			}
			b.WriteString(sc.Text() + "\n")
		}
		got <- b.String()
	}()
	code, _, errs := cliRun(t, "collect", "--root", tree, "--format", "json", "-o", fifo)
	st, lerr := os.Lstat(fifo)
	if lerr != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("%s is no longer a FIFO: %v %v", fifo, st.Mode(), lerr)
	}
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := f.WriteString("\n" + sentinel + "\n"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; !strings.Contains(s, `"hostname": "clihost"`) {
		t.Errorf("FIFO reader got %q", s)
	}
}
