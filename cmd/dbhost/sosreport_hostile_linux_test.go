package main

// Hostile sosreports through the real binary: a TMPDIR that fills up or is
// read-only while the archive is unpacked, and SIGTERM/SIGINT in the middle
// of unpacking (docs/limits.md).

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/testbin"
)

const hostileTop = "sosreport-db9-2026-11-22-xyz/"

// hostileSos writes a .tar.gz sosreport: a small host, then extra (the
// tar stream of more members, without the end-of-archive blocks), and
// returns its path.
func hostileSos(t *testing.T, extra []byte) string {
	t.Helper()
	var tb bytes.Buffer
	tw := tar.NewWriter(&tb)
	for _, e := range [][2]string{
		{"sos_commands/kernel/sysctl_-a", "vm.swappiness = 1\n"},
		{"sos_commands/numa/numactl_--hardware", "available: 1 nodes (0)\nnode 0 cpus: 0 1\nnode 0 size: 100 MB\nnode 0 free: 50 MB\nnode distances:\nnode 0\n0: 10\n"},
		{"uname", "Linux db9 5.14.0-1.el9.x86_64 #1 SMP x86_64 x86_64 x86_64 GNU/Linux\n"},
		{"hostname", "db9\n"},
	} {
		if err := tw.WriteHeader(&tar.Header{Name: hostileTop + e[0], Mode: 0o644, Size: int64(len(e[1])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(e[1]))
	}
	tw.Flush()
	tb.Write(extra)
	tb.Write(make([]byte, 1024))
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	zw.Write(tb.Bytes())
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "sosreport-db9.tar.gz")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// tarMembers is the tar stream of n copies of one member (no end blocks).
func tarMembers(t *testing.T, h *tar.Header, body []byte, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(h); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	tw.Flush()
	return bytes.Repeat(b.Bytes(), n)
}

// A TMPDIR that fills up (a 256 KiB tmpfs) or is read-only while the
// sosreport is unpacked: exit 2 naming TMPDIR and the reason, nothing left
// behind, never a later error about a file of the copy. The tmpfs is
// mounted in a user and mount namespace of its own (unshare -rm): the
// machine's mounts are not touched.
func TestCLISosreportTmpdirFull(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	if out, err := exec.Command("unshare", "-rm", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -rm: %v %s", err, out)
	}
	bin := dbhostBinary(t)
	body := bytes.Repeat([]byte("x\n"), 32<<10)
	// 20 files of 64 KiB in proc/, sys/: 1.25 MiB into 256 KiB.
	var extra []byte
	for _, d := range []string{"proc/480563/", "proc/2/", "sys/a/", "sys/b/"} {
		for _, f := range []string{"f1", "f2", "f3", "f4", "f5"} {
			extra = append(extra, tarMembers(t, &tar.Header{Name: hostileTop + d + f, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}, body, 1)...)
		}
	}
	p := hostileSos(t, extra)
	for _, c := range []struct{ name, opts, reason string }{
		{"full", "size=256k", "no space left on device"},
		{"read-only", "ro,size=256k", "read-only file system"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mnt := t.TempDir()
			os.Chmod(mnt, 0o755)
			script := `mount -t tmpfs -o "$OPTS" tmpfs "$MNT" || exit 99; TMPDIR="$MNT" "$BIN" collect --sosreport "$ARCH" --format json; code=$?; ls -A "$MNT"; exit $code`
			cmd := exec.Command("unshare", "-rm", "sh", "-c", script)
			cmd.Env = testbin.Env(append(os.Environ(), "OPTS="+c.opts, "MNT="+mnt, "BIN="+bin, "ARCH="+p))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			cmd.Run()
			code := cmd.ProcessState.ExitCode()
			if code == 99 {
				t.Skipf("cannot mount a tmpfs in a user namespace: %s", errb.String())
			}
			want := "cannot unpack the sosreport into TMPDIR (" + mnt + "): " + c.reason
			if code != 2 || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), p) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errb.String(), want)
			}
			if strings.Contains(errb.String(), "openat") || strings.Contains(errb.String(), "480563") {
				t.Errorf("stderr names a file of the copy: %q", errb.String())
			}
			if left := strings.TrimSpace(out.String()); left != "" {
				t.Errorf("left in TMPDIR: %q", left)
			}
		})
	}
}

// SIGTERM (or SIGINT) while a large but legal sosreport is unpacked: the
// unpacking stops, the temporary directory is removed, exit 143 (130).
func TestCLISosreportSignalWhileUnpacking(t *testing.T) {
	bin := dbhostBinary(t)
	// 400,000 members rewriting one empty file of sys/: seconds of work
	// (open, truncate, close each), under every bound.
	p := hostileSos(t, tarMembers(t, &tar.Header{Name: hostileTop + "sys/zz/empty", Mode: 0o644, Typeflag: tar.TypeReg}, nil, 400000))
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			tmp := t.TempDir()
			cmd := testbin.Command(bin, "collect", "--sosreport", p, "--format", "json")
			cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
			var errb bytes.Buffer
			cmd.Stderr = &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until the unpacking has reached sys/zz/: the copy is there.
			deadline := time.Now().Add(2 * time.Minute)
			for {
				m, _ := filepath.Glob(filepath.Join(tmp, "dbhost-sosreport-*", "sys", "zz", "empty"))
				if len(m) > 0 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the unpacking never reached sys/zz/: %s", errb.String())
				}
				time.Sleep(5 * time.Millisecond)
			}
			cmd.Process.Signal(c.sig)
			cmd.Wait()
			if code := cmd.ProcessState.ExitCode(); code != c.code {
				t.Errorf("exit %d (%v) on %v, want %d; stderr: %s", code, cmd.ProcessState, c.sig, c.code, errb.String())
			}
			if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
				t.Errorf("left in TMPDIR after %v: %v", c.sig, ents)
			}
		})
	}
}

// A second signal while the first one's cleanup runs exits at once (143),
// saying what may be left: the testhooks binary pauses before removing the
// copy, the second SIGTERM is sent there.
func TestCLISosreportSecondSignalExitsAtOnce(t *testing.T) {
	bin := hooksBinary(t)
	p := hostileSos(t, tarMembers(t, &tar.Header{Name: hostileTop + "sys/zz/empty", Mode: 0o644, Typeflag: tar.TypeReg}, nil, 400000))
	tmp := t.TempDir()
	pause := filepath.Join(t.TempDir(), "go")
	cmd := testbin.Command(bin, "collect", "--sosreport", p, "--format", "json")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp, "DBHOST_TEST_SOS_CLEANUP_PAUSE="+pause)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what, glob string) {
		deadline := time.Now().Add(2 * time.Minute)
		for {
			if m, _ := filepath.Glob(glob); len(m) > 0 {
				return
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("%s never happened: %s", what, errb.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	waitFor("the unpacking", filepath.Join(tmp, "dbhost-sosreport-*", "sys", "zz", "empty"))
	cmd.Process.Signal(syscall.SIGTERM)
	waitFor("the pause before the cleanup", pause+".paused")
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d after a second SIGTERM, want 143; stderr: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "SIGTERM again: exiting now; remove "+tmp) {
		t.Errorf("stderr does not say the second signal and what is left: %s", errb.String())
	}
}
