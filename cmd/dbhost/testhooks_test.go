package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/testbin"
)

// hookEnv sets every DBHOST_TEST_* hook at once, each to a value that a
// binary honouring it could not hide: kill at the first step, pause at it,
// play the kernel, panic in the command, confine without openat2.
func hookEnv(pauseFile string) []string {
	return []string{
		"DBHOST_TEST_KILL_AT=1",
		"DBHOST_TEST_PAUSE_AT=1:" + pauseFile,
		"DBHOST_TEST_SIMULATE=1",
		"DBHOST_TEST_PANIC=command",
		"DBHOST_TEST_NO_OPENAT2=1",
	}
}

// TestPlainBinaryIgnoresTestHooks: dbhost as it ships (no -tags testhooks)
// neither reads the DBHOST_TEST_* variables nor contains the kernel
// simulator: a stray DBHOST_TEST_KILL_AT in a production environment cannot
// kill an apply half-way. The testhooks binary, given the same variables,
// does what they say (so the checks below can fail).
func TestPlainBinaryIgnoresTestHooks(t *testing.T) {
	planPath := swappinessPlan(t)
	thpTree := func() string {
		tree := cliTree(t)
		os.MkdirAll(filepath.Join(tree, "sys/kernel/mm/transparent_hugepage"), 0o755)
		os.WriteFile(filepath.Join(tree, "sys/kernel/mm/transparent_hugepage/enabled"), []byte("[always] madvise never\n"), 0o644)
		os.WriteFile(filepath.Join(tree, "proc/sys/vm/min_free_kbytes"), []byte("11111\n"), 0o644)
		return tree
	}
	pause := filepath.Join(t.TempDir(), "release")

	// Every hook at once: the plain binary applies the whole plan, exit 0.
	tree := thpTree()
	r := dbhostExec(t, hookEnv(pause), "apply", "--root", tree, "--plan", planPath, "--state-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("plain apply with DBHOST_TEST_* set: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for p, want := range map[string]string{
		"proc/sys/vm/swappiness":                     "10\n",                     // not killed at step 1
		"sys/kernel/mm/transparent_hugepage/enabled": "always madvise [never]\n", // not killed
		"proc/sys/vm/min_free_kbytes":                "11111\n",                  // no kernel simulated
	} {
		if b, _ := os.ReadFile(filepath.Join(tree, p)); string(b) != want {
			t.Errorf("plain binary: %s = %q, want %q", p, b, want)
		}
	}
	if _, err := os.Stat(pause + ".paused"); err == nil {
		t.Errorf("plain binary paused at DBHOST_TEST_PAUSE_AT")
	}
	// A command and a fact reader run to their end.
	r = dbhostExec(t, []string{"DBHOST_TEST_PANIC=command"}, "collect", "--root", tree)
	if r.code != 0 || strings.Contains(r.stderr, "internal error") {
		t.Errorf("plain collect with DBHOST_TEST_PANIC=command: exit %d\n%s", r.code, r.stderr)
	}
	r = dbhostExec(t, []string{"DBHOST_TEST_PANIC=reader:memory"}, "collect", "--root", tree, "--format", "json")
	if r.code != 0 || strings.Contains(r.stdout, "internal error in the memory reader") {
		t.Errorf("plain collect with DBHOST_TEST_PANIC=reader:memory: exit %d, the memory reader panicked:\n%s", r.code, r.stderr)
	}

	// The control: the testhooks binary honours them.
	tree = thpTree()
	r = hooksExec(t, []string{"DBHOST_TEST_KILL_AT=1"}, "apply", "--root", tree, "--plan", planPath, "--state-dir", t.TempDir())
	if r.code != -1 { // killed by a signal
		t.Errorf("testhooks binary with DBHOST_TEST_KILL_AT=1: exit %d, want killed\n%s%s", r.code, r.stdout, r.stderr)
	}
	tree = thpTree()
	r = hooksExec(t, []string{"DBHOST_TEST_SIMULATE=1"}, "apply", "--root", tree, "--plan", planPath, "--state-dir", t.TempDir())
	if b, _ := os.ReadFile(filepath.Join(tree, "proc/sys/vm/min_free_kbytes")); r.code != 0 || string(b) != "45056\n" {
		t.Errorf("testhooks binary with DBHOST_TEST_SIMULATE=1: exit %d, min_free_kbytes %q, want the simulated 45056\n%s", r.code, b, r.stderr)
	}
}

// TestPlainBuildHasNoTestHooks: the plain binary does not contain the
// hooks' variable names, and a plain build of cmd/dbhost does not import the
// kernel simulator, which the testhooks build does.
func TestPlainBuildHasNoTestHooks(t *testing.T) {
	b, err := os.ReadFile(dbhostBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(b, []byte("DBHOST_TEST_")); i >= 0 {
		end := min(i+40, len(b))
		t.Errorf("the plain binary contains %q", b[i:end])
	}
	h, err := os.ReadFile(hooksBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(h, []byte("DBHOST_TEST_KILL_AT")) {
		t.Errorf("the testhooks binary does not contain DBHOST_TEST_KILL_AT: this test checks nothing")
	}
	deps := func(tags ...string) string {
		args := append(append([]string{"list", "-deps"}, tags...), testbin.Module+"/cmd/dbhost")
		out, err := exec.Command("go", args...).Output()
		if err != nil {
			t.Fatalf("go %v: %v", args, err)
		}
		return string(out)
	}
	sim := testbin.Module + "/internal/kernelsim\n"
	if strings.Contains(deps(), sim) {
		t.Errorf("a plain build of cmd/dbhost imports internal/kernelsim")
	}
	if !strings.Contains(deps("-tags", "testhooks"), sim) {
		t.Errorf("the testhooks build of cmd/dbhost does not import internal/kernelsim: this test checks nothing")
	}
}
