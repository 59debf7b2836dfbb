package main

// Tamper tests of issue 9 on bounded input (Linux: FIFOs, prlimit).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/testbin"
)

// memoryCap runs dbhost under an address-space limit when prlimit is
// there (a program that tried to hold /dev/zero or a 4 GiB dictionary
// would fail under it); the Go runtime itself reserves about 600 MiB.
func memoryCap() []string {
	if p, err := exec.LookPath("prlimit"); err == nil {
		return []string{p, "--as=" + strconv.Itoa(2<<30), "--"}
	}
	return nil
}

// runBounded runs dbhost under memoryCap and a deadline: an input must
// never make it hang.
func runBounded(t *testing.T, args ...string) execResult {
	t.Helper()
	done := make(chan execResult, 1)
	go func() {
		done <- runCommand(t, append(memoryCap(), dbhostBinary(t)), testbin.Env(os.Environ()), args...)
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(2 * time.Minute):
		t.Fatalf("dbhost %s did not end within 2 minutes", strings.Join(args, " "))
	}
	return execResult{}
}

// rssLimitKiB is the peak resident memory a refused input may cost: the
// runtime and the binary, never the input.
const rssLimitKiB = 150 << 10

// TestTamperBoundedInputs: /dev/zero and a FIFO nobody writes to, given as
// every file input, end at once with exit 2 and the reason; a well-formed
// snapshot over its limit is refused by its size, not read; a gzip bomb
// sosreport (2 GiB of zeros in 2 MiB) is unpacked in bounded memory. Each
// run's peak memory is measured (getrusage) under an address-space cap.
func TestTamperBoundedInputs(t *testing.T) {
	if inFreshProcess(t) {
		return
	}
	tree := cliTree(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{"/dev/zero", fifo} {
		for _, args := range [][]string{
			{"collect", "--snapshot", in},
			{"audit", "--snapshot", in},
			{"collect", "--sosreport", in},
			{"apply", "--root", tree, "--plan", in, "--dry-run"},
			{"verify", "--root", tree, "--plan", in},
			{"place", "--root", tree, "--spec", in},
			{"audit", "--root", tree, "--artifact", in},
		} {
			r := runBounded(t, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, in) {
				t.Errorf("dbhost %s: exit %d, stderr %q; want exit 2 naming the file", strings.Join(args, " "), r.code, r.stderr)
			}
			if r.maxRSSKiB > rssLimitKiB {
				t.Errorf("dbhost %s: peak memory %d MiB", strings.Join(args, " "), r.maxRSSKiB>>10)
			}
		}
	}

	// A well-formed snapshot, padded with whitespace past the limit.
	r := dbhostExec(t, nil, "collect", "--root", tree, "--format", "json")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	big := filepath.Join(dir, "big.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(r.stdout)
	pad := bytes.Repeat([]byte(" "), 1<<20)
	for n := len(r.stdout); n <= 64<<20; n += len(pad) {
		f.Write(pad)
	}
	f.Close()
	r = runBounded(t, "audit", "--snapshot", big)
	if r.code != exitUsage || !strings.Contains(r.stderr, "more than the limit for a snapshot (64 MiB") {
		t.Errorf("snapshot over 64 MiB: exit %d, %q", r.code, r.stderr)
	}
	if r.maxRSSKiB > rssLimitKiB {
		t.Errorf("snapshot over 64 MiB: peak memory %d MiB, though it is refused by its size", r.maxRSSKiB>>10)
	}
	t.Logf("a 64 MiB snapshot refused: peak memory %d MiB", r.maxRSSKiB>>10)

	// A gzip bomb: one member of 2 GiB of zeros, as 2048 gzip members of
	// 1 MiB each (gzip readers read concatenated members as one stream).
	bomb := filepath.Join(dir, "sosreport-bomb.tar.gz")
	t0 := time.Now()
	writeGzipBomb(t, bomb, 2<<30)
	t.Logf("bomb written in %v", time.Since(t0))
	t0 = time.Now()
	r = runBounded(t, "collect", "--sosreport", bomb, "--format", "json", "-o", filepath.Join(dir, "bomb.json"))
	if r.code != 0 && r.code != exitUsage {
		t.Errorf("gzip bomb: exit %d: %s", r.code, r.stderr)
	}
	if r.maxRSSKiB > rssLimitKiB {
		t.Errorf("gzip bomb: peak memory %d MiB", r.maxRSSKiB>>10)
	}
	t.Logf("a 2 GiB gzip bomb: exit %d, peak memory %d MiB, %v", r.code, r.maxRSSKiB>>10, time.Since(t0))
}

// writeGzipBomb writes a .tar.gz sosreport whose one big member (under
// var/log, which dbhost skips) is size bytes of zeros.
func writeGzipBomb(t *testing.T, path string, size int64) {
	t.Helper()
	member := func(b []byte) []byte {
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		w.Write(b)
		w.Close()
		return buf.Bytes()
	}
	var hdrs bytes.Buffer
	tw := tar.NewWriter(&hdrs)
	tw.WriteHeader(&tar.Header{Name: "sosreport-bomb/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "sosreport-bomb/sos_commands/", Typeflag: tar.TypeDir, Mode: 0o755})
	tw.WriteHeader(&tar.Header{Name: "sosreport-bomb/var/log/huge", Typeflag: tar.TypeReg, Mode: 0o644, Size: size})
	tw.Flush() // the header only: the data follows as zeros
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(member(hdrs.Bytes()))
	mib := member(make([]byte, 1<<20))
	for n := int64(0); n < size; n += 1 << 20 {
		f.Write(mib)
	}
	f.Write(member(make([]byte, 1024))) // the end of the archive: two zero blocks
}
