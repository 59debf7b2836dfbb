package hostsrc

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/facts/aix"
	"github.com/dbhost/dbhost/internal/golden"
)

// The collector script's commands are aix.Steps: the committed script's
// generated block is what ScriptCommands writes (-update rewrites it), and
// its default time limit is aix.CommandTimeout.
func TestCollectorScriptCommands(t *testing.T) {
	b, err := os.ReadFile(collectorScript)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i, j := strings.Index(s, aix.ScriptBegin+"\n"), strings.Index(s, aix.ScriptEnd+"\n")
	if i < 0 || j < i {
		t.Fatalf("%s: no block between %q and %q", collectorScript, aix.ScriptBegin, aix.ScriptEnd)
	}
	want := s[:i] + aix.ScriptCommands() + s[j+len(aix.ScriptEnd)+1:]
	golden.File(t, collectorScript, []byte(want), "go test ./internal/hostsrc -run CollectorScriptCommands -update")
	if l := "\nlimit=" + strconv.Itoa(int(aix.CommandTimeout/time.Second)) + "\n"; !strings.Contains(s, l) {
		t.Errorf("the script's default -t is not aix.CommandTimeout: no %q line", strings.TrimSpace(l))
	}
	if l := strings.Replace(aix.TimeoutNote(1), "1", "$limit", 1); !strings.Contains(s, `echo "`+l+`"`) {
		t.Errorf("the script's note for a stopped command is not aix.TimeoutNote: no %q", l)
	}
}

// bundleDir reads a bundle directory's meta and commands/ into a map.
func bundleDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, g := range []string{"meta", "commands/*"} {
		ms, _ := filepath.Glob(filepath.Join(dir, g))
		for _, m := range ms {
			b, err := os.ReadFile(m)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, m)
			out[filepath.ToSlash(rel)] = b
		}
	}
	return out
}

// comparable drops meta's lines that differ between two runs (the date)
// or two collectors (their name).
func comparable(files map[string][]byte) map[string]string {
	out := map[string]string{}
	for k, v := range files {
		s := string(v)
		if k == "meta" {
			var keep []string
			for _, l := range strings.Split(s, "\n") {
				if !strings.HasPrefix(l, "date: ") && !strings.HasPrefix(l, "collector: ") {
					keep = append(keep, l)
				}
			}
			s = strings.Join(keep, "\n")
		}
		out[k] = s
	}
	return out
}

func sameBundle(t *testing.T, script, native map[string][]byte) {
	t.Helper()
	a, b := comparable(script), comparable(native)
	var names []string
	for k := range a {
		names = append(names, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		x, inA := a[k]
		y, inB := b[k]
		switch {
		case !inA:
			t.Errorf("%s: written by dbhost, not by the script", k)
		case !inB:
			t.Errorf("%s: written by the script, not by dbhost", k)
		case x != y:
			t.Errorf("%s differs:\n%s", k, golden.LineDiff(x, y, 10))
		}
	}
}

// stubsWith are the AIX 7.2 bundle's commands as stubs, lsrset missing and
// smtctl replaced by body when given.
func stubsWith(t *testing.T, smtctl string) string {
	stubs := t.TempDir()
	stubCommands(t, aix72, stubs)
	os.Remove(filepath.Join(stubs, "lsrset"))
	if smtctl != "" {
		os.WriteFile(filepath.Join(stubs, "smtctl"), []byte(smtctl), 0o755)
	}
	return stubs
}

// The native collector (dbhost on an AIX host) and the script, run with
// the same stub commands, write the same bundle: the same files, byte for
// byte, and the same meta but for the date and the collector's name.
func TestRunAIXMatchesScript(t *testing.T) {
	stubs := stubsWith(t, "#!/bin/sh\necho 'smtctl: 0000-000 not allowed' >&2\necho 'half an answer'\nexit 3\n")
	env := filepath.Join(t.TempDir(), "environment")
	os.WriteFile(env, []byte("PATH=/usr/bin:/etc\n  TZ = 'Europe/Paris'\nTZ=\"CET-1CEST,M3.5.0,M10.5.0/3\"\nLANG=en_US\n"), 0o644)
	native := RunAIX(AIXRun{Path: stubs + ":/usr/bin:/bin:" + aixPathDirs, EnvFile: env, Timeout: 0, Collector: "dbhost test"})
	if len(native.Unread) != 0 {
		t.Errorf("unread: %v", native.Unread)
	}
	meta := string(native.Files["meta"])
	for _, l := range []string{"collector: dbhost test\n", "tz: CET-1CEST,M3.5.0,M10.5.0/3\n", "missing: lsrset -av (exit 127)\n",
		"failed: smtctl (exit 3)\n", "failed: lsattr -El hdisk11 (exit 255)\n", "ran: lsattr -El hdisk10\n", "ran: fcstat -e fcs0\n", "ran: ps -ef\n"} {
		if !strings.Contains(meta, l) {
			t.Errorf("meta lacks %q:\n%s", l, meta)
		}
	}
	for _, sh := range shells(t) {
		t.Run(filepath.Base(sh), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "bundle")
			if msg, err := runCollector(t, sh, stubs, "-o", dir, "-t", "0", "-e", env); err != nil {
				t.Fatalf("%v: %s", err, msg)
			}
			sameBundle(t, bundleDir(t, dir), native.Files)
		})
	}
}

// A command that hangs is stopped at the time limit (exit 124, the note
// appended to what it printed), the next ones still run; an output larger
// than the per-file limit is not kept, with the reason.
func TestRunAIXTimeoutAndLimit(t *testing.T) {
	stubs := stubsWith(t, "#!/bin/sh\necho partial\nexec sleep 60\n")
	os.WriteFile(filepath.Join(stubs, "prtconf"), []byte("#!/bin/sh\nyes 'System Model: IBM,8286-42A' | head -c 300000\n"), 0o755)
	defer func(v int64) { aixMaxFile = v }(aixMaxFile)
	aixMaxFile = 100000
	// No wall-clock bound (machines here are noisy): a hanging command
	// that was not stopped ends with sleep's exit 0, not 124, below.
	b := RunAIX(AIXRun{Path: stubs + ":/usr/bin:/bin", EnvFile: "/nonexistent", Timeout: time.Second, Collector: "dbhost test"})
	meta := string(b.Files["meta"])
	for _, l := range []string{"failed: smtctl (exit 124)\n", "ran: prtconf\n", "ran: ps -ef\n"} {
		if !strings.Contains(meta, l) {
			t.Errorf("meta lacks %q:\n%s", l, meta)
		}
	}
	if strings.Contains(meta, "tz:") {
		t.Errorf("a tz line without an environment file:\n%s", meta)
	}
	if got, want := string(b.Files["commands/smtctl"]), "partial\n"+aix.TimeoutNote(1)+"\n"; got != want {
		t.Errorf("smtctl's output %q, want %q", got, want)
	}
	if _, ok := b.Files["commands/prtconf"]; ok || !strings.Contains(b.Unread["commands/prtconf"], "larger than the limit") {
		t.Errorf("prtconf: unread %q", b.Unread["commands/prtconf"])
	}
	s := aix.Collect(b.Files, aix.Options{Unread: b.Unread})
	if !hasAbsence(s, "aix.smt", "failed: smtctl exited 124: partial") || !hasAbsence(s, "aix.prtconf", "refused: commands/prtconf is larger than the limit of") {
		t.Errorf("%v", s.Absent)
	}
}

// The live source on an AIX host runs the commands and reads them as a
// bundle: source.kind live, the aix section, the Linux sections absent.
func TestCollectLiveAIX(t *testing.T) {
	stubs := stubsWith(t, "")
	t.Setenv("PATH", stubs+":/usr/bin:/bin")
	s, _ := collectLiveAIX("test")
	if s.Source.Kind != "live" || s.Source.Path != "" || s.AIX == nil || s.AIX.LPAR == nil || s.AIX.Bundle.Collector != "dbhost test" ||
		!hasAbsence(s, "topology", aix.LinuxReason) || !hasAbsence(s, "aix.rsets", "not present on this host: lsrset: command not found (exit 127)") {
		t.Fatalf("%+v\n%v", s.Source, s.Absent)
	}
	want, err := collectAIX(t, aix72)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.AIX.Disks) != len(want.AIX.Disks) || len(s.AIX.FCAdapters) != len(want.AIX.FCAdapters) {
		t.Errorf("disks %d (want %d), fc %d (want %d)", len(s.AIX.Disks), len(want.AIX.Disks), len(s.AIX.FCAdapters), len(want.AIX.FCAdapters))
	}
}

// A PATH's empty or relative entries (the current directory) are never
// searched.
func TestLookPathInSkipsRelative(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "oslevel"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "prtconf"), []byte("not executable"), 0o644)
	t.Chdir(dir)
	if p, ok := lookPathIn("oslevel", ":.:relative"); ok {
		t.Errorf("found %s in the current directory", p)
	}
	if _, ok := lookPathIn("oslevel", "/nonexistent:"+dir); !ok {
		t.Error("not found")
	}
	if _, ok := lookPathIn("prtconf", dir); ok {
		t.Error("a file without an exec bit found")
	}
}
