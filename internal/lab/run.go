package lab

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Section is one block of guest output from the results channel.
type Section struct {
	Name string
	RC   int // exit status of the guest command
	Data []byte
}

// Channel is the parsed results channel (ttyS1).
type Channel struct {
	Sections map[string]Section
	Done     bool // the guest's /init reached its end
}

// maxSection bounds one decompressed section (a snapshot is well below).
const maxSection = 64 << 20

// parseChannel reads the guest's results channel: sections of gzip+base64
// text between BEGIN and END lines, then a DONE line. CRs, blank lines and
// anything outside sections are ignored; a section without its END line, with
// bad base64/gzip or repeated is an error (the data is never half-read).
func parseChannel(b []byte) (*Channel, error) {
	ch := &Channel{Sections: map[string]Section{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var cur string
	var enc strings.Builder
	in := false
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimRight(sc.Text(), "\r")
		switch {
		case strings.HasPrefix(l, markBegin):
			if in {
				return nil, fmt.Errorf("line %d: section %q begins inside %q", line, strings.TrimPrefix(l, markBegin), cur)
			}
			cur = strings.TrimSpace(strings.TrimPrefix(l, markBegin))
			if cur == "" {
				return nil, fmt.Errorf("line %d: section without a name", line)
			}
			if _, dup := ch.Sections[cur]; dup {
				return nil, fmt.Errorf("line %d: section %q repeated", line, cur)
			}
			in = true
			enc.Reset()
		case strings.HasPrefix(l, markEnd):
			rest := strings.TrimPrefix(l, markEnd)
			name, rcs, ok := strings.Cut(rest, " rc=")
			if !in || !ok || name != cur {
				return nil, fmt.Errorf("line %d: unexpected %q", line, trunc(l, 60))
			}
			rc, err := strconv.Atoi(strings.TrimSpace(rcs))
			if err != nil || rc < 0 || rc > 255 {
				return nil, fmt.Errorf("line %d: bad exit status %q", line, trunc(rcs, 20))
			}
			data, err := decodeSection(enc.String())
			if err != nil {
				return nil, fmt.Errorf("section %q: %v", cur, err)
			}
			ch.Sections[cur] = Section{Name: cur, RC: rc, Data: data}
			in = false
		case l == markDone:
			if in {
				return nil, fmt.Errorf("line %d: DONE inside section %q", line, cur)
			}
			ch.Done = true
		case in:
			enc.WriteString(strings.TrimSpace(l))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if in {
		return nil, fmt.Errorf("section %q has no END (output cut off)", cur)
	}
	return ch, nil
}

func decodeSection(s string) ([]byte, error) {
	z, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("bad base64: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("bad gzip: %v", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxSection+1))
	if err != nil {
		return nil, fmt.Errorf("bad gzip: %v", err)
	}
	if len(out) > maxSection {
		return nil, fmt.Errorf("more than %d bytes", maxSection)
	}
	return out, nil
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// Result is what one VM produced.
type Result struct {
	Scenario *Scenario
	Wall     time.Duration // QEMU start → exit
	Snapshot *snapshot.Snapshot
	Guest    string // output of Scenario.Guest
	GuestRC  int
	// Files are the files the guest snippet left in $LAB_OUT, by base name
	// (e.g. snapshots a later suite takes before and after apply).
	Files      map[string][]byte
	Mismatches []string // topology differences, "expected … got …"
	Err        error    // anything else that went wrong (boot, timeout, channel)
	Dir        string   // run directory (console.log, data.log, qemu.log); kept on failure
	// KernelPackage is the older kernel the scenario booted (Scenario.Kernel);
	// "" for the machine's Debian kernel (Assets.KernelPackage).
	KernelPackage string
	// BootRetries says why each earlier boot of this run was abandoned (the
	// kernel did not reach /init within BootTimeout; its last console
	// lines): a retried boot is reported, never hidden.
	BootRetries []string
}

// BootTimeout bounds a boot up to the guest's /init (its INIT line on the
// results channel): a boot stuck in the kernel is abandoned and retried
// once, instead of spending the scenario's whole timeout. Boots take 3–8 s
// under TCG on idle cores and up to about a minute at load 40.
var BootTimeout = 150 * time.Second

// bootAttempts is how many boots a run tries before it fails.
const bootAttempts = 2

// errNoUserspace: the kernel did not reach /init within BootTimeout.
var errNoUserspace = errors.New("the kernel did not reach userspace")

// OK is true when the scenario passed.
func (r *Result) OK() bool { return r.Err == nil && len(r.Mismatches) == 0 }

// RunOptions tune one VM run.
type RunOptions struct {
	Keep bool // keep the run directory even when the scenario passes
	// CoverDir receives the coverage files the guest's dbhost runs left
	// (a dbhost built with PrepareOptions.CoverMode), for go tool covdata.
	CoverDir string
}

// Run boots one scenario, collects, checks and always reaps QEMU (its whole
// process group is killed on timeout or when ctx is cancelled).
func Run(ctx context.Context, a *Assets, s *Scenario, o RunOptions) *Result {
	r := &Result{Scenario: s, Dir: filepath.Join(a.CacheDir, "runs", s.Name)}
	r.Err = run1(ctx, a, s, r, o)
	if r.Err != nil && r.Wall > 0 {
		// The kernel's last words usually say why (panic, no init, OOM).
		if tail := strings.TrimSpace(lastLines(readSmall(filepath.Join(r.Dir, "console.log")), 6)); tail != "" {
			r.Err = fmt.Errorf("%w\nlast console lines:\n%s", r.Err, tail)
		}
	}
	if r.Err == nil && len(r.Mismatches) == 0 && !o.Keep {
		os.RemoveAll(r.Dir)
	}
	return r
}

func run1(ctx context.Context, a *Assets, s *Scenario, r *Result, o RunOptions) error {
	if err := s.Validate(); err != nil {
		return err
	}
	if err := os.RemoveAll(r.Dir); err != nil {
		return err
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return err
	}
	kernel := a.Kernel
	if s.Kernel != "" {
		var err error
		if kernel, r.KernelPackage, err = a.olderKernel(ctx, s.Kernel); err != nil {
			return err
		}
	}
	f := VMFiles{
		Kernel:  kernel,
		Initrd:  filepath.Join(r.Dir, "initrd.cpio.gz"),
		Console: filepath.Join(r.Dir, "console.log"),
		Data:    filepath.Join(r.Dir, "data.log"),
	}
	if err := writeInitrd(a.Initramfs, f.Initrd, scenarioInitramfs(s)); err != nil {
		return err
	}
	if s.OwnACPI {
		f.SRAT, f.SLIT = filepath.Join(r.Dir, "srat.bin"), filepath.Join(r.Dir, "slit.bin")
		srat, err := SRAT(s)
		if err != nil {
			return err
		}
		slit, err := SLIT(s)
		if err != nil {
			return err
		}
		if err := os.WriteFile(f.SRAT, srat, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(f.SLIT, slit, 0o644); err != nil {
			return err
		}
	}
	args, err := QEMUArgs(s, f)
	if err != nil {
		return err
	}
	os.WriteFile(filepath.Join(r.Dir, "qemu.cmd"), []byte(change.QuoteAll(append([]string{a.QEMU}, args...))+"\n"), 0o644)
	timeout := time.Duration(s.TimeoutSec) * time.Second
	if timeout <= 0 {
		timeout = 180 * time.Second
	}
	for attempt := 1; ; attempt++ {
		os.Remove(f.Console)
		os.Remove(f.Data)
		start := time.Now()
		err = runQEMU(ctx, a.QEMU, args, filepath.Join(r.Dir, "qemu.log"), timeout, func() bool { return booted(f.Data) })
		r.Wall = time.Since(start)
		if !errors.Is(err, errNoUserspace) {
			break
		}
		why := fmt.Sprintf("boot %d: no /init after %s", attempt, BootTimeout)
		if tail := strings.TrimSpace(lastLines(readSmall(f.Console), 3)); tail != "" {
			why += "; console: " + strings.ReplaceAll(tail, "\n", " | ")
		}
		r.BootRetries = append(r.BootRetries, why)
		if attempt == bootAttempts {
			return fmt.Errorf("%w in %d boots: %s", errNoUserspace, attempt, strings.Join(r.BootRetries, "; "))
		}
	}
	if err != nil {
		return err
	}
	data, err := os.ReadFile(f.Data)
	if err != nil {
		return fmt.Errorf("no results channel: %v", err)
	}
	ch, err := parseChannel(data)
	if err != nil {
		return fmt.Errorf("results channel %s: %v", f.Data, err)
	}
	col, ok := ch.Sections["collect"]
	if !ok {
		return fmt.Errorf("the guest sent no snapshot (did /init run? see %s)", f.Console)
	}
	if col.RC != 0 {
		stderr := ch.Sections["collect-stderr"].Data
		return fmt.Errorf("dbhost collect exited %d in the guest: %s", col.RC, strings.TrimSpace(string(stderr)))
	}
	if err := copyCoverage(ch, o.CoverDir); err != nil {
		return err
	}
	os.WriteFile(filepath.Join(r.Dir, "snapshot.json"), col.Data, 0o644)
	snap, err := snapshot.Parse("guest snapshot", col.Data)
	if err != nil {
		return err
	}
	r.Snapshot = snap
	if s.Guest != "" {
		g, ok := ch.Sections["guest"]
		if !ok {
			return errors.New("the guest snippet's output is missing")
		}
		r.Guest, r.GuestRC = string(g.Data), g.RC
		os.WriteFile(filepath.Join(r.Dir, "guest.out"), g.Data, 0o644)
		r.Files = map[string][]byte{}
		for name, sec := range ch.Sections {
			if base, ok := strings.CutPrefix(name, "out/"); ok && base != "" && !strings.ContainsAny(base, "/\x00") && base != "." && base != ".." {
				r.Files[base] = sec.Data
				os.WriteFile(filepath.Join(r.Dir, "out-"+base), sec.Data, 0o644)
			}
		}
	}
	if !ch.Done {
		return errors.New("the guest's /init did not finish (no DONE line)")
	}
	r.Mismatches = Compare(s, snap)
	if s.WantMismatch != "" {
		found := false
		for _, m := range r.Mismatches {
			found = found || strings.Contains(m, s.WantMismatch)
		}
		if !found {
			return fmt.Errorf("negative control: expected a difference containing %q, got %d: %s",
				s.WantMismatch, len(r.Mismatches), strings.Join(r.Mismatches, "; "))
		}
		r.Mismatches = nil // the expected difference: a pass
	}
	if s.Check != nil {
		if err := s.Check(r); err != nil {
			return fmt.Errorf("guest check: %v", err)
		}
	}
	return nil
}

// writeInitrd concatenates the cached base image and the scenario's archive.
func writeInitrd(base, dst string, extra []cpioFile) error {
	b, err := os.ReadFile(base)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	buf.Write(b)
	if len(extra) > 0 {
		if err := writeCpioGz(&buf, extra); err != nil {
			return err
		}
	}
	return os.WriteFile(dst, buf.Bytes(), 0o644)
}

// booted reports whether the results channel holds /init's INIT line.
func booted(data string) bool {
	f, err := os.Open(data)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 4096)
	n, _ := io.ReadFull(f, b)
	return bytes.Contains(b[:n], []byte(markInit))
}

// runQEMU runs QEMU in its own process group and kills the whole group on
// timeout or cancellation; it returns only once QEMU has been reaped. When
// booted does not turn true within BootTimeout, QEMU is killed and the
// error is errNoUserspace.
func runQEMU(ctx context.Context, qemu string, args []string, logPath string, timeout time.Duration, booted func() bool) error {
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command(qemu, args...)
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = qemuProcAttr()
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	crash.Go(func() { done <- cmd.Wait() })
	poll := time.NewTicker(time.Second)
	defer poll.Stop()
	bootBy := time.Now().Add(BootTimeout)
	up := booted == nil
	for !up {
		select {
		case err := <-done:
			return qemuExit(err, logPath)
		case <-ctx.Done():
			return killQEMU(ctx, cmd, done, timeout)
		case <-poll.C:
			up = booted()
			if !up && time.Now().After(bootBy) {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
				return errNoUserspace
			}
		}
	}
	select {
	case err := <-done:
		return qemuExit(err, logPath)
	case <-ctx.Done():
		return killQEMU(ctx, cmd, done, timeout)
	}
}

func qemuExit(err error, logPath string) error {
	if err != nil {
		return fmt.Errorf("qemu: %v: %s", err, strings.TrimSpace(lastLines(readSmall(logPath), 3)))
	}
	return nil
}

// killQEMU kills QEMU's process group once ctx ended and waits for it.
func killQEMU(ctx context.Context, cmd *exec.Cmd, done <-chan error, timeout time.Duration) error {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("timed out after %s (QEMU killed)", timeout)
	}
	return fmt.Errorf("interrupted (QEMU killed): %v", ctx.Err())
}

func readSmall(p string) string {
	b, _ := os.ReadFile(p)
	if len(b) > 4096 {
		b = b[len(b)-4096:]
	}
	return string(b)
}

// copyCoverage writes the channel's "cov/<name>" sections (Go coverage meta
// and counter files) into dir; nothing when dir is "".
func copyCoverage(ch *Channel, dir string) error {
	if dir == "" {
		return nil
	}
	for name, sec := range ch.Sections {
		base, ok := strings.CutPrefix(name, "cov/")
		if !ok {
			continue
		}
		if !(strings.HasPrefix(base, "covmeta.") || strings.HasPrefix(base, "covcounters.")) || strings.ContainsAny(base, "/\x00") {
			return fmt.Errorf("results channel: %q is not a coverage file", name)
		}
		if err := os.WriteFile(filepath.Join(dir, base), sec.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
