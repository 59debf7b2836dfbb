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

// TestCLIReportLostAfterApply: -o passes its check before the host is
// touched, then cannot be written (a FIFO nobody reads: its type passes the
// check, which does not open it; the write, opened without waiting, finds no
// reader). The changes are made, so the report goes to standard output, the
// failure is said on standard error, and the run exits 1 (not 2: nothing
// was wrong with the input); verify's drift keeps its exit code 3.
// (/dev/full, which this test wrote to before, is refused by the check now:
// dbhost writes into no device but /dev/null and a terminal.)
func TestCLIReportLostAfterApply(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "report.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	tree := copyFixture(t, "laptop-2s")
	code, out, errOut := runBin(t, "apply", "--root", tree, "--skip", "network.jumbo-frames", "--format", "json", "-o", fifo)
	if code != 1 || !strings.Contains(out, `"journal_id"`) || !strings.Contains(errOut, fifo) || !strings.Contains(errOut, "FIFO nobody reads") ||
		!strings.Contains(errOut, "the report is on standard output instead") || !strings.Contains(errOut, "the report was not written to "+fifo) {
		t.Fatalf("apply -o FIFO without a reader: exit %d\n%s\n%s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(tree, "proc/sys/vm/dirty_ratio"), []byte("20\n"), 0o644)
	code, out, errOut = runBin(t, "verify", "--root", tree, "-o", fifo)
	if code != 3 || !strings.Contains(out, "vm.dirty_ratio: live 20") || !strings.Contains(errOut, "the report is on standard output instead") {
		t.Fatalf("verify -o FIFO without a reader, with a drift: exit %d\n%s\n%s", code, out, errOut)
	}
	// /dev/full is refused before anything is changed: exit 2.
	if _, err := os.Stat("/dev/full"); err == nil {
		tree := copyFixture(t, "laptop-2s")
		code, out, errOut := runBin(t, "apply", "--root", tree, "--skip", "network.jumbo-frames", "--format", "json", "-o", "/dev/full")
		if code != 2 || strings.Contains(out, `"journal_id"`) || !strings.Contains(errOut, "/dev/full") {
			t.Fatalf("apply -o /dev/full: exit %d\n%s\n%s", code, out, errOut)
		}
	}
}
