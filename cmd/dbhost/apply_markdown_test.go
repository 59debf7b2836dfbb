package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apply and rollback --format markdown through the binary, on a copy of a
// fixture host: a saved plan applied to a host with another name (its
// warning on standard error, not in the Markdown), then a rollback that
// cannot restore one value (exit 1, the journal stays open), as in text;
// their reports written with -o, a file dbhost did not write refused
// before the host is touched.
func TestCLIApplyRollbackMarkdown(t *testing.T) {
	plan := filepath.Join(t.TempDir(), "plan")
	host, _ := filepath.Abs("../../testdata/hosts/laptop-2s") // the binary runs in a directory of its own
	if code, _, errOut := runBin(t, "plan", "--root", host, "-o", plan); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, errOut)
	}
	tree := copyFixture(t, "laptop-2s")
	os.WriteFile(filepath.Join(tree, "proc/sys/kernel/hostname"), []byte("other\n"), 0o644)
	code, md, errOut := runBin(t, "apply", "--root", tree, "--plan", plan, "--skip", "network.jumbo-frames", "--dry-run", "--format", "markdown")
	if code != 0 || !strings.HasPrefix(md, "# dbhost apply\n\ndbhost apply --dry-run: nothing is changed\n\n~ `") ||
		!strings.Contains(md, "\n~ `vm.dirty_ratio`: 20 → 40  [memory.dirty-ratios]") {
		t.Fatalf("apply --dry-run --format markdown: exit %d\n%s\n%s", code, md, errOut)
	}
	// -o names a file dbhost did not write: refused before anything is
	// read or changed (no journal, no state directory, the tree as it was).
	dir := t.TempDir()
	notes := filepath.Join(dir, "change.md")
	os.WriteFile(notes, []byte("the DBA's notes\n"), 0o644)
	before := treeSums(t, tree)
	code, out, errOut := runBin(t, "apply", "--root", tree, "--plan", plan, "--skip", "network.jumbo-frames", "--format", "markdown", "-o", notes)
	if code != 2 || out != "" || !strings.Contains(errOut, notes+": exists and was not written by dbhost") {
		t.Fatalf("apply -o over a foreign file: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(notes); string(b) != "the DBA's notes\n" || !equalSums(before, treeSums(t, tree)) {
		t.Fatalf("apply -o over a foreign file wrote: %q, the tree changed: %v", b, !equalSums(before, treeSums(t, tree)))
	}
	report := filepath.Join(dir, "apply.md")
	code, out, errOut = runBin(t, "apply", "--root", tree, "--plan", plan, "--skip", "network.jumbo-frames", "--format", "markdown", "-o", report)
	b, _ := os.ReadFile(report)
	md = string(b)
	if code != 0 || out != "" {
		t.Fatalf("apply --format markdown -o: exit %d\n%s\n%s\n%s", code, out, md, errOut)
	}
	wantContains(t, "apply markdown", md, "# dbhost apply\n", "\n\\+ `vm.dirty_ratio`: 20 → 40  [memory.dirty-ratios]",
		"\n\\+ `/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor (16 CPUs: 0-15)`: powersave → performance",
		"\n= `vm.swappiness`: 10 → 10  [memory.swappiness]", "\n  - already set: nothing written\n",
		"\n\\> `transparent_hugepage`: (absent) → transparent_hugepage=madvise", "  - pending reboot: `edit /etc/default/grub: add transparent_hugepage=madvise to GRUB_CMDLINE_LINUX, then run update-grub`\n",
		"; journal ")
	wantContains(t, "apply stderr", errOut, `dbhost: warning: the plan was made for host "dev-2s", this is "other"`)
	if strings.Contains(md, "warning") {
		t.Errorf("a warning in the Markdown (standard error's):\n%s", md)
	}
	// vm.dirty_ratio can no longer be written: rollback restores the rest.
	p := filepath.Join(tree, "proc/sys/vm/dirty_ratio")
	os.Remove(p)
	os.Mkdir(p, 0o755)
	code, md, errOut = runBin(t, "verify", "--root", tree, "--format", "markdown")
	if code != 3 || !strings.HasPrefix(md, "# verify journal ") || !strings.Contains(md, "\nx `vm.dirty_ratio`: live ") {
		t.Errorf("verify --format markdown: exit %d\n%s\n%s", code, md, errOut)
	}
	rb := filepath.Join(dir, "rollback.md")
	code, out, errOut = runBin(t, "rollback", "--root", tree, "--format", "markdown", "-o", rb)
	b, _ = os.ReadFile(rb)
	md = string(b)
	if code != 1 || out != "" {
		t.Fatalf("rollback --format markdown: exit %d\n%s\n%s", code, md, errOut)
	}
	wantContains(t, "rollback markdown", md, "# dbhost rollback\n", "\nx `vm.dirty_ratio` (`/proc/sys/vm/dirty_ratio`):  → 20\n\n  - cannot read: not a regular file",
		"\n\\+ `net.core.rmem_max` (`/proc/sys/net/core/rmem_max`): 16777216 → 212992\n",
		" value(s) restored, 1 already at their old value, 1 NOT restored (the journal stays open)\n")
	wantContains(t, "rollback stderr", errOut, "1 value(s) could not be restored (listed above); the journal stays open: run rollback again")
	// Again, as text: the same failure, the same exit code.
	code, text, errOut2 := runBin(t, "rollback", "--root", tree)
	if code != 1 || !strings.Contains(text, "x vm.dirty_ratio (/proc/sys/vm/dirty_ratio):  → 20\n    cannot read: not a regular file") || errOut2 != errOut {
		t.Errorf("rollback text: exit %d\n%s\n%s", code, text, errOut2)
	}
	for _, cmd := range []string{"apply", "rollback", "verify"} {
		code, _, errOut := runBin(t, cmd, "--root", tree, "--format", "yaml")
		if code != 2 || !strings.Contains(errOut, `--format "yaml": expected one of [text json markdown]`) {
			t.Errorf("%s --format yaml: exit %d: %s", cmd, code, errOut)
		}
	}
}
