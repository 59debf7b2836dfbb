package hostsrc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/confine"
	"github.com/dbhost/dbhost/internal/facts/aix"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testhooks"
)

// AIXRun says how RunAIX runs the collector's commands on this host: what
// scripts/dbhost-collect-aix.sh does, done by dbhost (docs/aix.md).
type AIXRun struct {
	// Path is the PATH the commands are looked up in (the script's: the
	// user's PATH, then /usr/bin:/usr/sbin:/etc:/sbin:/bin).
	Path string
	// EnvFile is where the system TZ is read (/etc/environment).
	EnvFile string
	// Timeout stops a command running longer (exit 124); 0: no limit.
	Timeout time.Duration
	// Collector is meta's collector: line ("dbhost 0.9").
	Collector string
}

// aixPathDirs are appended to the PATH the commands are looked up in: the
// AIX commands live there, and cron or su strip them (the script's).
const aixPathDirs = "/usr/bin:/usr/sbin:/etc:/sbin:/bin"

// DefaultAIXRun is how dbhost collects on an AIX host with no source flag.
func DefaultAIXRun(version string) AIXRun {
	p := os.Getenv("PATH")
	if p != "" {
		p += ":"
	}
	return AIXRun{Path: p + aixPathDirs, EnvFile: "/etc/environment", Timeout: aix.CommandTimeout, Collector: "dbhost " + version}
}

// aixLive reports whether the live host is an AIX host: dbhost runs on
// AIX (or a -tags testhooks binary is told to play one with stub
// commands, DBHOST_TEST_AIX_LIVE=1).
func aixLive() bool {
	return runtime.GOOS == "aix" || testhooks.Enabled && testhooks.Getenv(testhooks.AIXLive) == "1"
}

// collectLiveAIX is the live AIX host's snapshot: the collector's commands
// run here, read as a bundle.
func collectLiveAIX(version string) (*snapshot.Snapshot, *AIXBundle) {
	b := RunAIX(DefaultAIXRun(version))
	s := aix.Collect(b.Files, aix.Options{Version: version, Unread: b.Unread})
	s.Source.Kind = "live"
	s.Source.User = b.user
	return s, b
}

// RunAIX runs the collector's commands (aix.Steps) in order, as
// scripts/dbhost-collect-aix.sh does, and returns the bundle they make in
// memory: commands/NAME for each output (standard output and error
// together), meta naming the host, the date, who ran it and every command
// that ran, was missing or failed with its exit code. A missing or
// failing command is recorded, never fatal. An output larger than the
// bundle's per-file limit is not kept (Unread, with the reason), nor
// anything past the bundle's total limit; each command runs within
// r.Timeout (stopped, exit 124, TimeoutNote appended to its output).
func RunAIX(r AIXRun) *AIXBundle {
	b := &AIXBundle{Files: map[string][]byte{}, Unread: map[string]string{}}
	var meta bytes.Buffer
	host, _ := os.Hostname()
	b.user = "unknown"
	if u, err := user.Current(); err == nil && u.Username != "" {
		b.user = u.Username
	}
	fmt.Fprintf(&meta, "format: %s\ncollector: %s\nhostname: %s\ndate: %s\nuser: %s\n",
		aix.BundleFormat, r.Collector, host, time.Now().UTC().Format("2006-01-02T15:04:05Z"), b.user)
	if tz, ok := envTZ(r.EnvFile); ok {
		fmt.Fprintf(&meta, "tz: %s\n", tz)
	}
	env := aixEnv(r.Path)
	var total int64
	run := func(command string) {
		file := aix.File(command)
		args := strings.Fields(command)
		bin, ok := lookPathIn(args[0], r.Path)
		if !ok {
			fmt.Fprintf(&meta, "missing: %s (exit 127)\n", command)
			return
		}
		out, rc, over := runOne(bin, args, env, r.Timeout)
		switch {
		case over:
			b.Unread[file] = tooLarge(file)
		case total+int64(len(out)) > aixMaxTotal:
			b.Unread[file] = fmt.Sprintf("refused: the bundle's outputs reached %s, the limit for an AIX bundle (see docs/limits.md)", confine.Bytes(aixMaxTotal))
		default:
			total += int64(len(out))
			b.Files[file] = out
		}
		if rc == 0 {
			fmt.Fprintf(&meta, "ran: %s\n", command)
		} else {
			fmt.Fprintf(&meta, "failed: %s (exit %d)\n", command, rc)
		}
	}
	for _, s := range aix.Steps {
		run(s.Command)
		if e := s.Each; e != nil {
			for _, dev := range aix.Devices(e.Pattern, b.Files[aix.File(s.Command)]) {
				for _, c := range e.Commands {
					run(c + " " + dev)
				}
			}
		}
	}
	b.Files["meta"] = meta.Bytes()
	return b
}

// tooLarge is why an output over the per-file limit is not read.
func tooLarge(name string) string {
	return fmt.Sprintf("refused: %s is larger than the limit of %s", name, confine.Bytes(aixMaxFile))
}

// aixEnv is the commands' environment: this process's, with PATH the
// collector's and the C locale (the labels dbhost reads are the English
// ones).
func aixEnv(path string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "PATH" && k != "LANG" && k != "LC_ALL" {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+path, "LANG=C", "LC_ALL=C")
}

// lookPathIn finds an executable regular file named name in path's
// directories (the shell's command -v). An empty or relative entry (the
// current directory) is never searched: dbhost runs nothing from where it
// happens to be.
func lookPathIn(name, path string) (string, bool) {
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// runOne runs one command: its output (standard output and error as one
// stream, at most aixMaxFile bytes kept; over is set when it printed
// more) and its exit status as the shell reports it (128+N for a signal,
// 124 when stopped at timeout, 126 when it could not be started).
func runOne(bin string, args, env []string, timeout time.Duration) (out []byte, rc int, over bool) {
	ctx := context.Background()
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, bin, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Env = env
	cmd.Dir = "/"
	w := &input.Capped{Max: aixMaxFile}
	cmd.Stdout, cmd.Stderr = w, w
	// Stopped as the script stops it: TERM, then KILL a second later (and
	// the output pipe closed, should a child of it still hold it).
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err != nil && timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded):
		w.WriteString(aix.TimeoutNote(int(timeout/time.Second)) + "\n")
		rc = 124
	case err == nil || errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil:
		rc = cmd.ProcessState.ExitCode()
	case errors.As(err, &ee):
		rc = ee.ExitCode()
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			rc = 128 + int(ws.Signal())
		}
	default:
		w.WriteString(args[0] + ": cannot run " + bin + ": " + err.Error() + "\n")
		rc = 126
	}
	return w.Buf.Bytes(), rc, w.Over()
}

// maxEnvFile bounds the environment file read for TZ.
const maxEnvFile = 1 << 20

// envTZ is the last TZ= line of an /etc/environment file, quotes removed
// (the script's sed | tail | tr); ok false when the file cannot be read.
func envTZ(file string) (tz string, ok bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEnvFile))
	if err != nil {
		return "", false
	}
	for _, l := range strings.Split(string(b), "\n") {
		rest, found := strings.CutPrefix(strings.TrimLeft(l, " \t"), "TZ")
		if !found {
			continue
		}
		if rest, found = strings.CutPrefix(strings.TrimLeft(rest, " \t"), "="); found {
			tz = strings.NewReplacer(`"`, "", `'`, "").Replace(strings.TrimLeft(rest, " \t"))
		}
	}
	return tz, true
}

// LiveAIX reports whether dbhost, given no source flag, reads this host
// as an AIX host (it runs on AIX).
func LiveAIX() bool { return aixLive() }

// CollectLiveAIX runs the collector's commands on this AIX host and
// returns the snapshot and the bundle they made (for --aix-bundle-out).
func CollectLiveAIX(version string) (*snapshot.Snapshot, *AIXBundle, error) {
	if !aixLive() {
		return nil, nil, &InputError{File: "--aix-bundle-out", Msg: "runs the AIX commands of the host dbhost runs on: this host runs " + runtime.GOOS + " (on AIX, run the aix/ppc64 dbhost, or scripts/dbhost-collect-aix.sh)"}
	}
	s, b := collectLiveAIX(version)
	return s, b, nil
}

// CheckAIXBundleOut refuses an output WriteAIXBundle would refuse, before
// any command runs: an empty path, an existing file, a directory that is
// not empty.
func CheckAIXBundleOut(out string) error {
	if strings.TrimSpace(out) == "" {
		return &InputError{File: "--aix-bundle-out", Msg: "empty path; expected a directory, a FILE.tar.gz or a FILE.tar"}
	}
	st, err := os.Lstat(out)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return &InputError{File: out, Msg: "--aix-bundle-out: " + reasonOf(err)}
	case aixOutKind(out) != "dir" || !st.IsDir():
		return &InputError{File: out, Msg: "--aix-bundle-out: exists; dbhost never overwrites a file (remove it or choose another name)"}
	default:
		ents, err := os.ReadDir(out)
		if err != nil {
			return &InputError{File: out, Msg: "--aix-bundle-out: " + reasonOf(err)}
		}
		if len(ents) > 0 {
			return &InputError{File: out, Msg: "--aix-bundle-out: the directory is not empty (dbhost never writes among files it did not write)"}
		}
	}
	if dir := filepath.Dir(out); aixOutKind(out) != "dir" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return &InputError{File: out, Msg: "--aix-bundle-out: no directory " + dir}
		}
	}
	return nil
}

// aixOutKind is what an --aix-bundle-out path names: "tgz", "tar" or "dir"
// (the script's -o).
func aixOutKind(out string) string {
	switch {
	case strings.HasSuffix(out, ".tar.gz"), strings.HasSuffix(out, ".tgz"):
		return "tgz"
	case strings.HasSuffix(out, ".tar"):
		return "tar"
	}
	return "dir"
}

// WriteAIXBundle writes a bundle as the script's -o does: a directory
// (created, or an empty one), or a .tar.gz (.tgz) or .tar whose top
// directory is the file's name without its extension. An existing file is
// never overwritten; files are private to the user (0600, directories
// 0700). Outputs RunAIX did not keep (over a limit) are not written: the
// bundle read back says they are not present.
func WriteAIXBundle(b *AIXBundle, out string) error {
	if err := CheckAIXBundleOut(out); err != nil {
		return err
	}
	names := make([]string, 0, len(b.Files))
	for n := range b.Files {
		if !aixWanted(strings.Split(n, "/")) || strings.Contains(n, "..") {
			return fmt.Errorf("internal error: bundle file name %q", n)
		}
		names = append(names, n)
	}
	sort.Strings(names)
	if aixOutKind(out) == "dir" {
		if err := os.MkdirAll(filepath.Join(out, "commands"), 0o700); err != nil {
			return &InputError{File: out, Msg: "--aix-bundle-out: " + reasonOf(err)}
		}
		for _, n := range names {
			f, err := os.OpenFile(filepath.Join(out, filepath.FromSlash(n)), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err == nil {
				_, err = f.Write(b.Files[n])
				if cerr := f.Close(); err == nil {
					err = cerr
				}
			}
			if err != nil {
				return &InputError{File: out, Msg: "--aix-bundle-out: " + reasonOf(err)}
			}
		}
		return nil
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return &InputError{File: out, Msg: "--aix-bundle-out: " + reasonOf(err)}
	}
	err = writeAIXTar(f, b, names, strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(filepath.Base(out), ".tar.gz"), ".tgz"), ".tar"), aixOutKind(out) == "tgz")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out) // the file this call created, half written
		return &InputError{File: out, Msg: "--aix-bundle-out: cannot write: " + reasonOf(err)}
	}
	return nil
}

func writeAIXTar(w io.Writer, b *AIXBundle, names []string, top string, gz bool) error {
	var zw *gzip.Writer
	if gz {
		zw = gzip.NewWriter(w)
		w = zw
	}
	tw := tar.NewWriter(w)
	now := time.Now()
	for _, d := range []string{top + "/", top + "/commands/"} {
		if err := tw.WriteHeader(&tar.Header{Name: d, Typeflag: tar.TypeDir, Mode: 0o700, ModTime: now}); err != nil {
			return err
		}
	}
	for _, n := range names {
		data := b.Files[n]
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + n, Typeflag: tar.TypeReg, Mode: 0o600, Size: int64(len(data)), ModTime: now}); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if zw != nil {
		return zw.Close()
	}
	return nil
}
