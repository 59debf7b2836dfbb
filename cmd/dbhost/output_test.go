package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/fixture"
)

// copyFixture copies a committed fixture host tree for a test that writes.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	if err := fixture.CopyTree(filepath.Join("..", "..", "testdata", "hosts", name), dst, nil); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCLISkip: --skip leaves a rule or an area out of audit, plan and
// apply; a name that matches no rule is exit 2 with a suggestion; apply's
// refusal of risky changes names the --skip flags that leave them out.
func TestCLISkip(t *testing.T) {
	host := "../../testdata/hosts/laptop-2s"
	code, out, errs := cliRun(t, "audit", "--root", host, "--skip", "cpu", "--skip", "memory.thp-enabled", "--format", "json", "--explain")
	if code != 0 {
		t.Fatalf("audit --skip: exit %d: %s", code, errs)
	}
	if strings.Contains(out, `"id": "cpu.`) && !strings.Contains(out, `"skipped"`) {
		t.Fatalf("cpu rules not left out:\n%s", out)
	}
	wantContains(t, "audit --skip JSON", out, `"skipped": [`, `"id": "memory.thp-enabled"`, "left out with --skip")
	code, out, _ = cliRun(t, "audit", "--root", host, "--skip", "cpu")
	wantContains(t, "audit --skip text", out, "left out (--skip: cpu.")
	_ = code

	code, _, errs = cliRun(t, "apply", "--dry-run", "--root", host, "--skip", "memory.swapiness")
	if code != exitUsage {
		t.Errorf("--skip typo: exit %d", code)
	}
	wantContains(t, "stderr", errs, `--skip "memory.swapiness": no rule or area of that name`, "did you mean memory.swappiness?")
	code, _, errs = cliRun(t, "plan", "--root", host, "--only", "bogus", "-o", filepath.Join(t.TempDir(), "p"))
	if code != exitUsage || !strings.Contains(errs, `--only "bogus"`) {
		t.Errorf("--only bogus: exit %d: %s", code, errs)
	}

	tree := copyFixture(t, "laptop-2s")
	code, out, errs = cliRun(t, "apply", "--root", tree)
	if code != exitRefused {
		t.Fatalf("apply with a risky change: exit %d\n%s\n%s", code, out, errs)
	}
	wantContains(t, "refusal", errs, "--accept-risk", "--skip network.jumbo-frames")
	if strings.Contains(errs, "--only") {
		t.Errorf("refusal points to --only: %s", errs)
	}
	code, out, errs = cliRun(t, "rollback", "--root", tree)
	if code != 0 {
		t.Fatalf("rollback: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = cliRun(t, "apply", "--root", tree, "--skip", "network.jumbo-frames", "--dry-run")
	if code != 0 || strings.Contains(out, "refused") || strings.Contains(out, "jumbo") {
		t.Fatalf("apply --skip network.jumbo-frames: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestCLIPlaceNUMAHidden: on a numa=off host place says the sockets are
// hidden and counts "1 node" in the singular; an infeasible placement lists
// one reason per line on standard error.
func TestCLIPlaceNUMAHidden(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "one.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: a\n    engine: oracle\n    class: guaranteed\n    cpus: 4\n"), 0o644)
	code, out, errs := cliRun(t, "place", "--spec", spec, "--root", "../../testdata/hosts/numa-off")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "place on numa=off", out, "feasible on 8 threads, 1 node (NUMA hidden: 2 sockets", "NUMA is hidden on this host (kernel command line has numa=off")
	if strings.Contains(out, "1 nodes") {
		t.Errorf("\"1 nodes\":\n%s", out)
	}
	code, _, errs = cliRun(t, "place", "--spec", "../../examples/place/case2-binding.yaml", "--root", "../../testdata/hosts/numa-off")
	if code != exitInfeasible {
		t.Fatalf("infeasible: exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(errs), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "dbhost: placement infeasible (3 reason(s)):") || !strings.HasPrefix(lines[2], "  pay1: ") {
		t.Fatalf("stderr, one reason per line expected:\n%s", errs)
	}
}

// TestCLICollectCounts: the counts of collect's text match what it lists,
// or say what is not listed.
func TestCLICollectCounts(t *testing.T) {
	code, out, errs := cliRun(t, "collect", "--root", "../../testdata/hosts/laptop-2s")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "collect", out, "Block devices: 2\n", "Network interfaces: 2 (and 1 loopback interface, not listed)\n")
	sec := out[strings.Index(out, "Network interfaces:"):]
	sec = sec[:strings.Index(sec, "  irqbalance")]
	if n := strings.Count(sec, "\n  "); n != 2 {
		t.Errorf("2 interfaces announced, %d listed:\n%s", n, sec)
	}
}

// TestCLINumaOutput: numa writes -o FILE like the other commands.
func TestCLINumaOutput(t *testing.T) {
	f := filepath.Join(t.TempDir(), "numa.json")
	code, out, errs := cliRun(t, "numa", "--root", "../../testdata/hosts/laptop-2s", "--format", "json", "-o", f)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q: %s", code, out, errs)
	}
	b, err := os.ReadFile(f)
	if err != nil || !strings.Contains(string(b), `"nodes": [`) {
		t.Fatalf("%v: %s", err, b)
	}
}
