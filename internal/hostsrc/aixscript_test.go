package hostsrc

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/facts/aix"
	"github.com/dbhost/dbhost/internal/snapshot"
)

var collectorScript = filepath.Join("..", "..", "scripts", "dbhost-collect-aix.sh")

var exitSuffix = regexp.MustCompile(`^(.*) \(exit ([0-9]+)\)$`)

// stubCommands writes, for every command a bundle's meta lists as run or
// failed, a stub program that prints the bundle's output for those
// arguments and exits with the recorded status (unknown arguments: AIX's
// "device not found", exit 255). Commands the meta lists as missing get no
// stub.
func stubCommands(t *testing.T, bundle, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(bundle, "meta"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cases := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ": ")
		if k != "ran" && k != "failed" {
			continue
		}
		code := "0"
		if m := exitSuffix.FindStringSubmatch(v); m != nil {
			v, code = m[1], m[2]
		}
		prog, args, _ := strings.Cut(v, " ")
		out, _ := filepath.Abs(filepath.Join(bundle, aix.File(v)))
		cases[prog] = append(cases[prog], fmt.Sprintf("%q) cat %q; exit %s ;;", args, out, code))
	}
	for prog, cs := range cases {
		body := "#!/bin/sh\ncase \"$*\" in\n" + strings.Join(cs, "\n") + "\n*) echo \"" + prog + ": 0514-519 The following device was not found: $*\" >&2; exit 255 ;;\nesac\n"
		if err := os.WriteFile(filepath.Join(dir, prog), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// shells are the /bin/sh's the collector must run under: AIX's ksh, and
// the POSIX shells of Linux.
func shells(t *testing.T) []string {
	var out []string
	for _, sh := range []string{"dash", "bash", "ksh"} {
		if p, err := exec.LookPath(sh); err == nil {
			out = append(out, p)
		} else {
			t.Logf("%s not installed: the collector is not tested under it (scripts/packages.txt lists ksh)", sh)
		}
	}
	if len(out) == 0 {
		t.Skip("no POSIX shell")
	}
	return out
}

func runCollector(t *testing.T, sh, stubs string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(sh, append([]string{collectorScript}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+stubs+":/usr/bin:/bin", "TMPDIR="+t.TempDir())
	b, err := cmd.CombinedOutput()
	return string(b), err
}

// aixJSON is a snapshot's aix section without the bundle's description
// (host name, date and user of the run differ).
func aixJSON(t *testing.T, s *snapshot.Snapshot) string {
	t.Helper()
	a := *s.AIX
	a.Bundle = snapshot.AIXBundle{}
	b, err := json.MarshalIndent(a, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The collector, run under each shell with the AIX 7.2 bundle's commands
// as stubs, writes a bundle dbhost reads as the same host.
func TestCollectorScriptWithStubs(t *testing.T) {
	stubs := t.TempDir()
	stubCommands(t, aix72, stubs)
	env := filepath.Join(t.TempDir(), "environment")
	os.WriteFile(env, []byte("PATH=/usr/bin:/etc\nTZ=\"CET-1CEST,M3.5.0,M10.5.0/3\"\nLANG=en_US\n"), 0o644)
	want, err := collectAIX(t, aix72)
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shells(t) {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "db1.aixbundle.tar.gz")
			msg, err := runCollector(t, sh, stubs, "-o", out, "-t", "0", "-e", env)
			if err != nil {
				t.Fatalf("%v: %s", err, msg)
			}
			if !strings.Contains(msg, "wrote "+out+" (0 command(s) missing, 4 failed") {
				t.Errorf("message %q", msg)
			}
			got, err := collectAIX(t, out)
			if err != nil {
				t.Fatal(err)
			}
			// hdisk11 is Defined: the collector asks for its attributes, the stub says it is not found.
			if !hasAbsence(got, "aix.disks.attributes", "failed: lsattr -El hdisk11 exited 255: lsattr: 0514-519") {
				t.Errorf("hdisk11: %v", got.Absent)
			}
			if g, w := aixJSON(t, got), aixJSON(t, want); g != w {
				t.Errorf("the collected bundle reads differently from the bundle it was stubbed from:\n%s", lineDiff(w, g))
			}
			var cmds []string
			for _, c := range got.AIX.Bundle.Commands {
				cmds = append(cmds, c.Status+" "+c.Command)
			}
			sort.Strings(cmds)
			if len(cmds) != 36 || got.AIX.Bundle.Collector != "dbhost-collect-aix.sh 2" {
				t.Errorf("%d commands %v, collector %q", len(cmds), cmds, got.AIX.Bundle.Collector)
			}
		})
	}
}

func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d: want %q, got %q", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(bl), len(al))
}

// A command the host lacks is recorded missing, one that hangs is stopped
// (-t) and recorded failed, and the collection goes on; -o DIR writes the
// directory; an existing output is never overwritten; bad usage is exit 2.
func TestCollectorScriptMissingAndHanging(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the -t watchdog polls each command once a second (about 35 s)")
	}
	stubs := t.TempDir()
	stubCommands(t, aix72, stubs)
	os.Remove(filepath.Join(stubs, "lsrset"))
	os.WriteFile(filepath.Join(stubs, "smtctl"), []byte("#!/bin/sh\necho partial\nexec sleep 60\n"), 0o755)
	sh := shells(t)[0]
	dir := filepath.Join(t.TempDir(), "bundle")
	msg, err := runCollector(t, sh, stubs, "-o", dir, "-t", "1", "-e", "/nonexistent")
	if err != nil {
		t.Fatalf("%v: %s", err, msg)
	}
	meta, _ := os.ReadFile(filepath.Join(dir, "meta"))
	for _, l := range []string{"missing: lsrset -av (exit 127)", "failed: smtctl (exit 124)", "ran: ps -ef"} {
		if !strings.Contains(string(meta), l+"\n") {
			t.Errorf("meta lacks %q:\n%s", l, meta)
		}
	}
	if strings.Contains(string(meta), "tz:") {
		t.Errorf("a tz line without an environment file:\n%s", meta)
	}
	s, err := collectAIX(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.AIX.Rsets != nil || !hasAbsence(s, "aix.rsets", "not present on this host: lsrset: command not found (exit 127)") ||
		!hasAbsence(s, "aix.smt", "failed: smtctl exited 124: partial") || !hasAbsence(s, "aix.tz", "meta has no tz: line") || s.AIX.LPAR == nil {
		t.Errorf("%v", s.Absent)
	}
	// An existing output, an empty -o, a bad -t: exit 2, nothing written.
	if msg, err := runCollector(t, sh, stubs, "-o", dir); exitCode(err) != 2 || !strings.Contains(msg, "not empty") {
		t.Errorf("existing directory: %v %s", err, msg)
	}
	f := filepath.Join(t.TempDir(), "x.tar.gz")
	os.WriteFile(f, []byte("keep"), 0o644)
	if msg, err := runCollector(t, sh, stubs, "-o", f); exitCode(err) != 2 || !strings.Contains(msg, "exists") {
		t.Errorf("existing file: %v %s", err, msg)
	}
	if b, _ := os.ReadFile(f); string(b) != "keep" {
		t.Error("an existing file was overwritten")
	}
	for _, args := range [][]string{{}, {"-o", ""}, {"-o", "x", "-t", "soon"}, {"-o", "x", "extra"}} {
		if msg, err := runCollector(t, sh, stubs, args...); exitCode(err) != 2 {
			t.Errorf("%q: %v %s", args, err, msg)
		}
	}
}

func exitCode(err error) int {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// The collector is POSIX sh as shellcheck reads it.
func TestCollectorScriptShellcheck(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("shellcheck not installed (scripts/packages.txt lists it)")
		}
		t.Skip("shellcheck not installed (scripts/packages.txt lists it)")
	}
	if out, err := exec.Command(sc, "-s", "sh", collectorScript).CombinedOutput(); err != nil {
		t.Errorf("shellcheck -s sh: %v\n%s", err, out)
	}
}
