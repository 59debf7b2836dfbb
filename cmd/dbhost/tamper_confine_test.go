package main

// Tamper tests of issue 9 (confinement, the host we act on, bounded input,
// internal errors): each runs the real dbhost binary (dbhostBinary), as an
// operator's shell would, and checks the exit code, the message and that
// nothing outside the given tree was read or written.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/plan"
	"github.com/dbhost/dbhost/internal/testbin"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// execResult is one finished dbhost process.
type execResult struct {
	code           int
	stdout, stderr string
	maxRSSKiB      int64 // peak resident memory (getrusage ru_maxrss)
}

// dbhostExec runs dbhost args with extra environment.
func dbhostExec(t *testing.T, env []string, args ...string) execResult {
	t.Helper()
	return runCommand(t, []string{dbhostBinary(t)}, testbin.Env(append(os.Environ(), env...)), args...)
}

// hooksExec runs the -tags testhooks binary: env may hold DBHOST_TEST_*.
func hooksExec(t *testing.T, env []string, args ...string) execResult {
	t.Helper()
	return runCommand(t, []string{hooksBinary(t)}, testbin.Env(append(os.Environ(), env...)), args...)
}

// runCommand runs prefix (the binary, or a wrapper such as setpriv and the
// binary) with args and the environment env.
func runCommand(t *testing.T, prefix []string, env []string, args ...string) execResult {
	t.Helper()
	argv := append(append([]string{}, prefix...), args...)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	// A regression (an empty -o taken as a name) must not write into the
	// source tree: run in a directory of the test's own.
	cmd.Dir = t.TempDir()
	os.Chmod(cmd.Dir, 0o755)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := execResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", argv, err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKiB = int64(ru.Maxrss)
	}
	return r
}

// pathFlags lists every string-valued flag of every dbhost command, with
// the command's path: all of them refuse an empty value.
func pathFlags() [][2]string {
	var out [][2]string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Runnable() && c.Name() != "help" && c.Name() != "completion" {
			c.Flags().VisitAll(func(f *pflag.Flag) {
				switch f.Value.Type() {
				case "string", "stringArray", "stringSlice":
					out = append(out, [2]string{strings.TrimPrefix(c.CommandPath(), "dbhost "), f.Name})
				}
			})
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRootCmd(nil, nil))
	return out
}

// TestTamperEmptyValues: `--root "$TREE"` with TREE unset (and every other
// flag given an empty or blank value) is exit 2 naming the flag, never the
// live host or a default.
func TestTamperEmptyValues(t *testing.T) {
	flags := pathFlags()
	seen := map[string]bool{}
	for _, cf := range flags {
		seen[cf[1]] = true
	}
	for _, must := range []string{"root", "snapshot", "sosreport", "state-dir", "plan", "artifact", "spec", "output", "only", "fail-on", "journal", "to"} {
		if !seen[must] {
			t.Errorf("no command has --%s: the list of flags is wrong", must)
		}
	}
	for _, cf := range flags {
		for _, v := range []string{"", "  \t"} {
			args := append(strings.Fields(cf[0]), "--"+cf[1], v)
			r := dbhostExec(t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "--"+cf[1]) || !strings.Contains(r.stderr, "empty value") {
				t.Errorf("dbhost %s --%s %q: exit %d, stderr %q; want exit 2 naming the flag", cf[0], cf[1], v, r.code, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("dbhost %s --%s %q printed %q", cf[0], cf[1], v, r.stdout)
			}
		}
	}
}

// placeSpec is a minimal placement spec for the tree of cliTree.
const placeSpec = "strategy: binding\ninstances:\n  - name: A\n    engine: postgres\n    cpus: 1\n    memory_gb: 0\n    class: guaranteed\n"

// TestTamperNotAHostTree: an empty directory, one with unrelated content,
// and one whose proc/ sys/ etc/ are links to the live host's are not host
// trees: every command that takes --root exits 2 and leaves them as they
// were (no journal directory created in them). An empty directory is never
// audited as a healthy host, with --fail-on too.
func TestTamperNotAHostTree(t *testing.T) {
	base := t.TempDir()
	spec := filepath.Join(base, "spec.yaml")
	os.WriteFile(spec, []byte(placeSpec), 0o644)
	empty := filepath.Join(base, "empty")
	other := filepath.Join(base, "other")
	links := filepath.Join(base, "links")
	for _, d := range []string{empty, filepath.Join(other, "home"), links} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("x\n"), 0o644)
	for _, d := range []string{"proc", "sys", "etc"} {
		os.Symlink("/"+d, filepath.Join(links, d))
	}
	// The shapes of a mistyped or half-copied capture: only an empty
	// proc/; proc/ sys/ etc/ all empty; the host's files there but empty
	// (a copy that failed), beside unrelated ones.
	emptyProc := filepath.Join(base, "empty-proc")
	emptyDirs := filepath.Join(base, "empty-dirs")
	emptyFiles := filepath.Join(base, "empty-files")
	os.MkdirAll(filepath.Join(emptyProc, "proc"), 0o755)
	for _, d := range []string{"proc", "sys/devices/system/cpu", "etc"} {
		os.MkdirAll(filepath.Join(emptyDirs, d), 0o755)
		os.MkdirAll(filepath.Join(emptyFiles, d), 0o755)
	}
	for _, f := range []string{"proc/meminfo", "proc/cpuinfo", "proc/version", "sys/devices/system/cpu/online"} {
		os.WriteFile(filepath.Join(emptyFiles, f), []byte("\n"), 0o644)
	}
	os.WriteFile(filepath.Join(emptyFiles, "etc/hostname"), []byte("db1\n"), 0o644)
	for _, dir := range []string{empty, other, links, emptyProc, emptyDirs, emptyFiles} {
		before := listTree(t, dir)
		for _, args := range [][]string{
			{"collect", "--root", dir},
			{"audit", "--root", dir, "--fail-on", "warning"},
			{"audit", "--root", dir},
			{"numa", "--root", dir},
			{"plan", "--root", dir, "-o", filepath.Join(base, "plan-out")},
			{"place", "--root", dir, "--spec", spec},
			{"place", "--root", dir, "--spec", spec, "--apply", "--dry-run"},
			{"apply", "--root", dir, "--dry-run"},
			{"apply", "--root", dir},
			{"verify", "--root", dir},
			{"rollback", "--root", dir},
		} {
			r := dbhostExec(t, nil, args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, "not a host tree") {
				t.Errorf("dbhost %s: exit %d, stderr %q; want exit 2, \"not a host tree\"", strings.Join(args, " "), r.code, r.stderr)
			}
		}
		if after := listTree(t, dir); after != before {
			t.Errorf("%s changed:\nbefore %s\nafter  %s", dir, before, after)
		}
	}
	if _, err := os.Stat(filepath.Join(base, "plan-out")); err == nil {
		t.Error("plan wrote its directory for a directory that is not a host tree")
	}
	// A sosreport with its directories but none of a host's files.
	sos := filepath.Join(base, "sosreport-empty-2026")
	for _, d := range []string{"sos_commands/kernel", "proc", "sys"} {
		os.MkdirAll(filepath.Join(sos, d), 0o755)
	}
	r := dbhostExec(t, nil, "audit", "--sosreport", sos, "--fail-on", "warning")
	if r.code != exitUsage || !strings.Contains(r.stderr, "none of the files a host has") {
		t.Errorf("audit of an empty sosreport: exit %d, stderr %q; want exit 2", r.code, r.stderr)
	}
}

// TestRealTreesAreHostTrees: the check above refuses no real capture: every
// fixture tree (each era, each layout) and the sosreport are read.
func TestRealTreesAreHostTrees(t *testing.T) {
	trees, _ := filepath.Glob("../../testdata/hosts/*")
	n := 0
	for _, tree := range trees {
		if st, err := os.Stat(tree); err != nil || !st.IsDir() {
			continue
		}
		tree, _ = filepath.Abs(tree)
		args := []string{"collect", "--root", tree}
		if strings.Contains(filepath.Base(tree), "sosreport") {
			args = []string{"collect", "--sosreport", tree}
		}
		r := dbhostExec(t, nil, args...)
		if r.code != 0 {
			t.Errorf("dbhost %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d fixture trees found", n)
	}
}

// listTree returns every path under dir with its mode and size.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		b.WriteString(strings.TrimPrefix(p, dir) + " " + fi.Mode().String() + " " + string(rune('0'+fi.Size()%10)) + "\n")
		return nil
	})
	return b.String()
}

// escapeTree returns cliTree's tree where host files are links out of it:
// absolute links to an outside directory and to the live host's own
// files, a relative link climbing out, and a directory link out.
func escapeTree(t *testing.T) (tree, outside string) {
	t.Helper()
	tree = cliTree(t)
	outside = t.TempDir()
	os.WriteFile(filepath.Join(outside, "hostname"), []byte("OUTSIDE-HOST\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "os-release"), []byte("PRETTY_NAME=\"OUTSIDE-OS\"\nID=outside\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "meminfo"), []byte("MemTotal: 99999999 kB\n"), 0o644)
	replace := func(name, target string) {
		p := filepath.Join(tree, name)
		os.RemoveAll(p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	replace("proc/sys/kernel/hostname", "/proc/sys/kernel/hostname")               // the live host's
	replace("etc/hostname", filepath.Join(outside, "hostname"))                    // absolute, outside
	replace("etc/os-release", strings.Repeat("../", 12)+outside[1:]+"/os-release") // relative, climbing out
	replace("proc/meminfo", filepath.Join(outside, "meminfo"))
	replace("sys/devices/system/node/node0", "/sys/devices/system/node/node0") // a directory of the live host
	return tree, outside
}

// TestTamperSymlinksOutOfTreeAreNotRead: collect of a tree (and of an
// unpacked sosreport) whose files link out of it shows neither the outside
// files nor the live host's, with openat2 and with the os.Root fallback
// older kernels use.
func TestTamperSymlinksOutOfTreeAreNotRead(t *testing.T) {
	liveHost, _ := os.ReadFile("/proc/sys/kernel/hostname")
	for _, env := range [][]string{nil, {"DBHOST_TEST_NO_OPENAT2=1"}} {
		tree, _ := escapeTree(t)
		sos := t.TempDir()
		os.Symlink(tree, filepath.Join(sos, "sosreport-x")) // the report's top directory
		os.MkdirAll(filepath.Join(tree, "sos_commands"), 0o755)
		for _, args := range [][]string{{"collect", "--root", tree, "--format", "json"}, {"collect", "--sosreport", filepath.Join(sos, "sosreport-x"), "--format", "json"}} {
			r := hooksExec(t, env, args...)
			if r.code != 0 {
				t.Fatalf("%v %v: exit %d: %s", env, args, r.code, r.stderr)
			}
			for _, bad := range []string{"OUTSIDE-HOST", "OUTSIDE-OS", "99999999"} {
				if strings.Contains(r.stdout, bad) {
					t.Errorf("%v %v read a file outside the tree: %q in the snapshot", env, args, bad)
				}
			}
			var s struct {
				Host     struct{ Hostname string }
				Topology struct {
					Nodes []struct {
						ID   int   `json:"id"`
						CPUs []int `json:"cpus"`
					} `json:"nodes"`
				}
				Absent []struct{ Fact, Path, Reason string }
			}
			if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
				t.Fatal(err)
			}
			if live := strings.TrimSpace(string(liveHost)); live != "" && s.Host.Hostname == live {
				t.Errorf("%v %v: the snapshot shows the live host's hostname %q", env, args, live)
			}
			// The tree's only node0 is the link to the live host's.
			for _, n := range s.Topology.Nodes {
				if n.ID == 0 && len(n.CPUs) > 0 {
					t.Errorf("%v %v: node0's CPUs %v came from the live host", env, args, n.CPUs)
				}
			}
		}
	}
}

// swappinessPlan writes a plan that sets vm.swappiness, THP and a limit.
func swappinessPlan(t *testing.T) string {
	t.Helper()
	p := &plan.Plan{SchemaVersion: plan.SchemaVersion, Host: "clihost", Workload: "oltp", DB: "postgres",
		Changes: []change.Change{
			{Kind: change.Sysctl, Key: "vm.swappiness", Value: "10", Rule: "memory.swappiness"},
			{Kind: change.Sysfs, Key: "/sys/kernel/mm/transparent_hugepage/enabled", Value: "never", Rule: "memory.thp-enabled"},
			{Kind: change.Limit, Key: "postgres soft memlock", Value: "65536", Rule: "memory.memlock-below-sga"},
		},
		PendingReboot: []change.Change{}, FindingsWithoutChanges: []plan.Advice{}}
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	os.WriteFile(path, b, 0o644)
	return path
}

// TestTamperSymlinksOutOfTreeAreNotWritten: apply on a tree whose settings
// and limits.d directory link out of it writes nothing outside (the
// settings are "not present on this host", the limits file fails), with
// openat2 and with the os.Root fallback; a link that stays inside the tree
// keeps working.
func TestTamperSymlinksOutOfTreeAreNotWritten(t *testing.T) {
	planPath := swappinessPlan(t)
	for _, env := range [][]string{nil, {"DBHOST_TEST_NO_OPENAT2=1"}} {
		tree := cliTree(t)
		outside := t.TempDir()
		os.WriteFile(filepath.Join(outside, "swappiness"), []byte("60\n"), 0o644)
		os.WriteFile(filepath.Join(outside, "enabled"), []byte("[always] madvise never\n"), 0o644)
		os.Remove(filepath.Join(tree, "proc/sys/vm/swappiness"))
		os.Symlink(filepath.Join(outside, "swappiness"), filepath.Join(tree, "proc/sys/vm/swappiness"))
		os.MkdirAll(filepath.Join(tree, "sys/kernel/mm/transparent_hugepage"), 0o755)
		os.Symlink(strings.Repeat("../", 10)+filepath.Join(outside, "enabled")[1:], filepath.Join(tree, "sys/kernel/mm/transparent_hugepage/enabled"))
		os.MkdirAll(filepath.Join(tree, "etc/security"), 0o755)
		os.Symlink(outside, filepath.Join(tree, "etc/security/limits.d"))
		before := listTree(t, outside)

		r := hooksExec(t, env, "apply", "--root", tree, "--plan", planPath, "--state-dir", t.TempDir())
		if r.code == 0 {
			t.Errorf("%v: apply exit 0 although the limits file could not be written:\n%s", env, r.stdout)
		}
		if after := listTree(t, outside); after != before {
			t.Errorf("%v: apply wrote outside the tree:\nbefore %s\nafter  %s", env, before, after)
		}
		for f, want := range map[string]string{"swappiness": "60\n", "enabled": "[always] madvise never\n"} {
			if b, _ := os.ReadFile(filepath.Join(outside, f)); string(b) != want {
				t.Errorf("%v: %s outside the tree is now %q", env, f, b)
			}
		}
		wantContains(t, "apply output", r.stdout, "vm.swappiness", "transparent_hugepage/enabled", "postgres soft memlock", "90-dbhost.conf")

		// A link that stays inside the tree is followed for writes.
		os.Remove(filepath.Join(tree, "etc/security/limits.d"))
		os.MkdirAll(filepath.Join(tree, "etc/limits-real"), 0o755)
		os.Symlink("../limits-real", filepath.Join(tree, "etc/security/limits.d"))
		r = hooksExec(t, env, "apply", "--root", tree, "--plan", planPath, "--state-dir", t.TempDir())
		if b, err := os.ReadFile(filepath.Join(tree, "etc/limits-real/90-dbhost.conf")); err != nil || !strings.Contains(string(b), "postgres soft memlock 65536") {
			t.Errorf("%v: limits through a link inside the tree: %q %v\n%s%s", env, b, err, r.stdout, r.stderr)
		}
	}
}

// writeJournal writes a journal (current format) into stateDir.
func writeJournal(t *testing.T, stateDir string, entries ...map[string]any) {
	t.Helper()
	dir := filepath.Join(stateDir, "journal")
	os.MkdirAll(dir, 0o700)
	var b bytes.Buffer
	for _, e := range entries {
		line, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(filepath.Join(dir, "20260101T000000.000000000Z.jsonl"), b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestTamperJournalPaths: a journal naming paths dbhost never writes
// (/proc/sys/../../../x, /etc/passwd as the limits file, /etc/shadow as a
// sysfs setting, a side effect on /etc/hostname) is refused entry by entry:
// rollback writes none of them, names each key it did not restore and
// fails; verify reads none of them.
func TestTamperJournalPaths(t *testing.T) {
	tree := cliTree(t)
	state := t.TempDir()
	files := map[string]string{"x": "keep-x\n", "etc/passwd": "root:x:0:0::/root:/bin/sh\n", "etc/shadow": "SHADOW-SECRET\n", "etc/hostname": "clihost\n"}
	for f, body := range files {
		os.WriteFile(filepath.Join(tree, f), []byte(body), 0o644)
	}
	writeJournal(t, state,
		map[string]any{"seq": 0, "state": "start", "id": "20260101T000000.000000000Z", "root": tree, "time": "2026-01-01T00:00:00Z"},
		map[string]any{"seq": 1, "state": "begin", "kind": "sysctl", "key": "kernel.evil", "path": "/proc/sys/../../../x", "old": "1\n", "new": "2"},
		map[string]any{"seq": 1, "state": "done"},
		map[string]any{"seq": 2, "state": "begin", "kind": "file", "key": "limits", "path": "/etc/passwd", "old": "hacked::0:0\n", "new": "x"},
		map[string]any{"seq": 2, "state": "done"},
		map[string]any{"seq": 3, "state": "begin", "kind": "sysfs", "key": "/etc/shadow", "path": "/etc/shadow", "old": "0\n", "new": "1"},
		map[string]any{"seq": 3, "state": "done"},
		map[string]any{"seq": 4, "state": "begin", "kind": "sysctl", "key": "vm.swappiness", "path": "/proc/sys/vm/swappiness", "old": "1\n", "new": "60",
			"watch": []map[string]string{{"path": "/etc/hostname", "old": "evil\n"}}},
		map[string]any{"seq": 4, "state": "done"},
		map[string]any{"seq": 0, "state": "end"},
	)
	r := dbhostExec(t, nil, "verify", "--root", tree, "--state-dir", state)
	if r.code == 0 || strings.Contains(r.stdout+r.stderr, "SHADOW-SECRET") {
		t.Errorf("verify: exit %d; a refused entry must fail it and never be read:\n%s%s", r.code, r.stdout, r.stderr)
	}
	wantContains(t, "verify", r.stdout, "refused")
	for i := 0; i < 2; i++ { // the journal stays open: a second rollback refuses again
		r = dbhostExec(t, nil, "rollback", "--root", tree, "--state-dir", state)
		if r.code == 0 {
			t.Errorf("rollback %d: exit 0 with refused entries:\n%s", i+1, r.stdout)
		}
		wantContains(t, "rollback", r.stdout+r.stderr, "kernel.evil", "/etc/passwd", "/etc/shadow", "vm.swappiness", "not restored")
		for f, body := range files {
			if b, _ := os.ReadFile(filepath.Join(tree, f)); string(b) != body {
				t.Errorf("rollback %d wrote %s: %q", i+1, f, b)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(tree, "proc/sys/vm/swappiness")); string(b) != "60\n" {
			t.Errorf("rollback %d restored an entry whose side effect was refused: swappiness %q", i+1, b)
		}
	}
}

// stackDump matches a Go stack trace: "goroutine 1 [running]:", a source
// line "\t/path/x.go:12 +0x1f".
var stackDump = regexp.MustCompile(`goroutine \d+ \[|\.go:\d+`)

// TestTamperInternalError: a panic, in the command or in a goroutine it
// started (a bench's), is "internal error", a request to report it with the
// file its stack was saved to, exit 1 (not 2: the input was fine), and no
// Go stack dump on the terminal; a panic in a fact reader does not end the
// process: that reader's facts are absent with the reason and the others
// are collected. (A panic in the middle of an apply or a rollback:
// internal/apply's TestPanicAtEveryStep.)
func TestTamperInternalError(t *testing.T) {
	tree := cliTree(t)
	tmp := t.TempDir()
	for _, c := range []struct {
		where string
		args  []string
		hint  string
	}{
		{"command", []string{"collect", "--root", tree}, ""},
		{"goroutine", []string{"bench", "mq", "--duration", "100ms", "--state-dir", filepath.Join(tmp, "st")},
			"what the bench had created is recorded: 'dbhost bench --cleanup --state-dir " + filepath.Join(tmp, "st") + "' removes it"},
	} {
		r := hooksExec(t, []string{"DBHOST_TEST_PANIC=" + c.where, "TMPDIR=" + tmp}, c.args...)
		if r.code != exitInternal {
			t.Errorf("panic in a %s: exit %d, want 1:\n%s", c.where, r.code, r.stderr)
		}
		wantContains(t, "stderr", r.stderr, "dbhost: internal error: test panic", "please report it at https://", c.hint)
		if stackDump.MatchString(r.stderr) {
			t.Errorf("panic in a %s: a Go stack dump on the terminal:\n%s", c.where, r.stderr)
		}
		files, _ := filepath.Glob(filepath.Join(tmp, "dbhost-internal-error-*.txt"))
		if len(files) != 1 || !strings.Contains(r.stderr, files[0]) {
			t.Fatalf("panic in a %s: stack files %v, not named in:\n%s", c.where, files, r.stderr)
		}
		b, _ := os.ReadFile(files[0])
		wantContains(t, "the stack file", string(b), "goroutine ", "command: dbhost "+strings.Join(c.args, " "))
		os.Remove(files[0])
	}
	r := hooksExec(t, []string{"DBHOST_TEST_PANIC=reader:memory"}, "collect", "--root", tree, "--format", "json")
	if r.code != 0 {
		t.Fatalf("panic in a reader: exit %d: %s", r.code, r.stderr)
	}
	var s struct {
		Host   struct{ Hostname string }
		Absent []struct{ Fact, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &s); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, a := range s.Absent {
		if a.Fact == "memory" && strings.Contains(a.Reason, "internal error") {
			found = true
		}
	}
	if !found || s.Host.Hostname != "clihost" {
		t.Errorf("panic in the memory reader: hostname %q, absent %+v", s.Host.Hostname, s.Absent)
	}
}

// TestTamperReadOnlyAsNonRoot: dbhost run as an unprivileged user (nobody,
// through setpriv) on a tree it may read but not write: apply's writes fail
// with "permission denied" and exit 1, the tree is unchanged, rollback has
// nothing to undo; collect records a file it may not read as absent,
// "permission denied", and still exits 0.
func TestTamperReadOnlyAsNonRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("running a child as nobody needs root (setpriv --reuid)")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is not installed")
	}
	const nobody = 65534
	// t.TempDir is private to root: nobody needs a directory it can enter.
	base, err := os.MkdirTemp("", "dbhost-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	bin := dbhostBinary(t) // in a directory every user may read
	tree := filepath.Join(base, "tree")
	src := cliTree(t)
	filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(tree, strings.TrimPrefix(p, src))
		if fi.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		body, _ := os.ReadFile(p)
		return os.WriteFile(dst, body, 0o644)
	})
	os.Chmod(filepath.Join(tree, "proc/sys/vm/swappiness"), 0o444)
	os.Chmod(filepath.Join(tree, "proc/meminfo"), 0o600)
	state := filepath.Join(base, "state")
	os.Mkdir(state, 0o700)
	os.Chown(state, nobody, nobody)
	planPath := filepath.Join(base, "plan.json")
	pb, _ := os.ReadFile(swappinessPlan(t))
	os.WriteFile(planPath, pb, 0o644)
	before := listTree(t, tree)

	nobodyPrefix := []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin}
	// No GOCOVERDIR: nobody may not write the test's coverage directory.
	run := func(args ...string) execResult { return runCommand(t, nobodyPrefix, os.Environ(), args...) }
	r := run("apply", "--root", tree, "--plan", planPath, "--state-dir", state)
	if r.code != exitInternal {
		t.Errorf("apply as nobody: exit %d, want 1 (changes failed):\n%s%s", r.code, r.stdout, r.stderr)
	}
	wantContains(t, "apply as nobody", r.stdout, "vm.swappiness", "permission denied")
	if after := listTree(t, tree); after != before {
		t.Errorf("apply as nobody changed the tree:\nbefore %s\nafter  %s", before, after)
	}
	r = run("rollback", "--root", tree, "--state-dir", state)
	if r.code != 0 {
		t.Errorf("rollback as nobody: exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
	if after := listTree(t, tree); after != before {
		t.Errorf("rollback as nobody changed the tree:\nbefore %s\nafter  %s", before, after)
	}
	r = run("collect", "--root", tree, "--format", "json")
	if r.code != 0 {
		t.Fatalf("collect as nobody: exit %d: %s", r.code, r.stderr)
	}
	var s struct {
		Absent []struct{ Fact, Path, Reason string }
	}
	json.Unmarshal([]byte(r.stdout), &s)
	found := false
	for _, a := range s.Absent {
		if a.Path == "/proc/meminfo" && strings.Contains(a.Reason, "permission denied") {
			found = true
		}
	}
	if !found {
		t.Errorf("collect as nobody: /proc/meminfo (mode 0600) not absent with \"permission denied\": %+v", s.Absent)
	}
}
