package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/facts/aix"
)

// aixStubs writes one stub per AIX program of the collector: each prints
// the AIX 7.2 test bundle's output for its arguments, or AIX's "device not
// found" (exit 255) when the bundle has none. The directory goes first on
// PATH.
func aixStubs(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bundle, _ := filepath.Abs(aixBundle)
	body := "#!/bin/sh\nf=\"" + bundle + "/commands/$(basename \"$0\")\"\n" +
		"for a in \"$@\"; do f=\"${f}_$(printf '%s' \"$a\" | tr '/' '.')\"; done\n" +
		"[ -f \"$f\" ] && exec cat \"$f\"\necho \"$(basename \"$0\"): 0514-519 The following device was not found: $*\" >&2\nexit 255\n"
	for _, c := range append(aix.Commands, "lsattr", "fcstat") {
		prog, _, _ := strings.Cut(c, " ")
		if err := os.WriteFile(filepath.Join(dir, prog), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// dbhost on an AIX host (played by the testhooks binary with stub
// commands) runs the collector's commands itself: collect, audit with no
// source flag read the AIX host; --aix-bundle-out writes the bundle, which
// reads back as the same host.
func TestCLILiveAIX(t *testing.T) {
	env := []string{"DBHOST_TEST_AIX_LIVE=1", "PATH=" + aixStubs(t) + ":/usr/bin:/bin"}
	r := hooksExec(t, env, "collect", "--format", "json")
	if r.code != 0 {
		t.Fatalf("collect: exit %d: %s", r.code, r.stderr)
	}
	var live struct {
		Source struct{ Kind, Path string }
		AIX    json.RawMessage `json:"aix"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &live); err != nil {
		t.Fatal(err)
	}
	if live.Source.Kind != "live" || !strings.Contains(string(live.AIX), `"oslevel": "7200-05-03-2148"`) {
		t.Fatalf("source %+v, aix %.300s", live.Source, live.AIX)
	}
	r = hooksExec(t, env, "audit", "--format", "json")
	if r.code != 0 && r.code != 3 || !strings.Contains(r.stdout, "io.aix-fc-num-cmd-elems") {
		t.Fatalf("audit: exit %d: %s %.400s", r.code, r.stderr, r.stdout)
	}
	for _, out := range []string{filepath.Join(t.TempDir(), "db1.aixbundle.tar.gz"), filepath.Join(t.TempDir(), "bundle")} {
		r = hooksExec(t, env, "collect", "--aix-bundle-out", out, "--format", "json", "-o", filepath.Join(t.TempDir(), "s.json"))
		if r.code != 0 || !strings.Contains(r.stderr, "wrote "+out+" (0 command(s) missing, 1 failed: see meta)") {
			t.Fatalf("--aix-bundle-out %s: exit %d: %s", out, r.code, r.stderr)
		}
		back := hooksExec(t, nil, "collect", "--aix-bundle", out, "--format", "json")
		if back.code != 0 || !strings.Contains(back.stdout, `"collector": "dbhost `) || !strings.Contains(back.stdout, `"kind": "aix-bundle"`) ||
			!strings.Contains(back.stdout, `"lsattr -El hdisk10"`) {
			t.Errorf("%s read back: exit %d: %s %.300s", out, back.code, back.stderr, back.stdout)
		}
		// An existing output is refused before any command runs.
		r = hooksExec(t, env, "collect", "--aix-bundle-out", out)
		if r.code != 2 || !strings.Contains(r.stderr, out) {
			t.Errorf("existing %s: exit %d: %s", out, r.code, r.stderr)
		}
	}
	// --aix-bundle-out with a source flag, or where dbhost does not run on AIX: exit 2.
	r = hooksExec(t, env, "collect", "--aix-bundle-out", filepath.Join(t.TempDir(), "x"), "--aix-bundle", aixBundle)
	if r.code != 2 || !strings.Contains(r.stderr, "takes no --root") {
		t.Errorf("with --aix-bundle: exit %d: %s", r.code, r.stderr)
	}
	code, _, errs := cliRun(t, "collect", "--aix-bundle-out", filepath.Join(t.TempDir(), "x"))
	if code != 2 || !strings.Contains(errs, "this host runs linux") {
		t.Errorf("on linux: exit %d: %s", code, errs)
	}
}

// The Linux-only commands (plan, numa, place, apply, verify, rollback,
// experiment) refuse an AIX host, exit 2, with what to use instead: a
// snapshot of one, or dbhost running on one (refused before anything is
// read, locked or created: the state directory is not made). Nothing here
// may touch this machine: apply and place --apply are dry runs, rollback
// and verify have an empty state directory.
func TestCLILinuxOnlyRefuseAIX(t *testing.T) {
	snap := filepath.Join(t.TempDir(), "aix72.json")
	if code, _, errs := cliRun(t, "collect", "--aix-bundle", aixBundle, "--format", "json", "-o", snap); code != 0 {
		t.Fatalf("collect: exit %d: %s", code, errs)
	}
	planDir := filepath.Join(t.TempDir(), "plan")
	spec, _ := filepath.Abs("../../examples/place/case1-caging.yaml")
	for _, args := range [][]string{
		{"plan", "--snapshot", snap, "-o", planDir},
		{"numa", "--snapshot", snap},
		{"place", "--spec", spec, "--snapshot", snap},
	} {
		code, out, errs := cliRun(t, args...)
		if code != 2 || out != "" || !strings.Contains(errs, "is an AIX host: dbhost "+args[0]+" works on Linux hosts") || !strings.Contains(errs, "dbhost audit") {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
	if _, err := os.Stat(planDir); !os.IsNotExist(err) {
		t.Errorf("plan of an AIX snapshot made %s: %v", planDir, err)
	}
	env := []string{"DBHOST_TEST_AIX_LIVE=1", "PATH=" + aixStubs(t) + ":/usr/bin:/bin"}
	state := filepath.Join(t.TempDir(), "state")
	for _, args := range [][]string{
		{"apply", "--dry-run", "--state-dir", state},
		{"verify", "--state-dir", state},
		{"rollback", "--state-dir", state},
		{"place", "--spec", spec, "--apply", "--dry-run", "--state-dir", state},
		{"plan", "-o", planDir},
		{"numa"},
	} {
		r := hooksExec(t, env, args...)
		if r.code != 2 || !strings.Contains(r.stderr, "AIX host: dbhost ") || !strings.Contains(r.stderr, "works on Linux hosts") {
			t.Errorf("live AIX %v: exit %d\n%s\n%s", args, r.code, r.stdout, r.stderr)
		}
	}
	for _, p := range []string{state, planDir} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a refused command made %s: %v", p, err)
		}
	}
}
