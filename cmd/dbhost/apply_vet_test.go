package main

// apply --plan takes from a plan file only what the catalog's rules make
// (issue 24, item 2), through the real binary on copied fixture trees.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyHostFixture copies testdata/hosts/NAME and returns the copy's host tree
// (a sosreport's directory for sosreport-db1) and the flag plan reads it by.
func copyHostFixture(t *testing.T, name string) (tree, flag string) {
	t.Helper()
	dst := filepath.Join(t.TempDir(), name)
	copyDirForTest(t, filepath.Join("..", "..", "testdata", "hosts", name), dst)
	if ents, err := os.ReadDir(dst); err == nil && len(ents) == 1 && strings.HasPrefix(ents[0].Name(), "sosreport-") {
		return filepath.Join(dst, ents[0].Name()), "--sosreport"
	}
	return dst, "--root"
}

const evilPlanJSON = `{
  "schema_version": 1,
  "host": "db1",
  "changes": [
    {"kind": "sysctl", "key": "kernel.core_pattern", "value": "|/tmp/evil %p", "rule": "memory.swappiness"},
    {"kind": "sysfs", "key": "/sys/power/state", "value": "mem", "rule": "memory.swappiness"},
    {"kind": "sysfs", "key": "/sys/bus/pci/devices/0000:00:1f.2/remove", "value": "1", "rule": "memory.swappiness"}
  ],
  "pending_reboot": []
}
`

// TestApplyTamperedPlanRefused: the plan — core_pattern piped to a
// program, the machine suspended, a PCI device removed, all labelled
// memory.swappiness, no risk — is refused whole, every change named with
// its line, exit 2, the tree unchanged (no state directory either), by
// apply with and without --accept-risk, --dry-run and verify --plan.
func TestApplyTamperedPlanRefused(t *testing.T) {
	tree, _ := copyHostFixture(t, "laptop-2s")
	for p, body := range map[string]string{
		"proc/sys/kernel/core_pattern":            "core\n",
		"sys/power/state":                         "freeze mem disk\n",
		"sys/bus/pci/devices/0000:00:1f.2/remove": "0\n",
	} {
		os.MkdirAll(filepath.Join(tree, filepath.Dir(p)), 0o755)
		if err := os.WriteFile(filepath.Join(tree, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	evil := filepath.Join(t.TempDir(), "evil.json")
	if err := os.WriteFile(evil, []byte(evilPlanJSON), 0o644); err != nil {
		t.Fatal(err)
	}
	before := treeSums(t, tree)
	for _, args := range [][]string{
		{"apply", "--root", tree, "--plan", evil},
		{"apply", "--root", tree, "--plan", evil, "--accept-risk"},
		{"apply", "--root", tree, "--plan", evil, "--dry-run"},
		{"verify", "--root", tree, "--plan", evil},
	} {
		code, out, stderr := runBin(t, args...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2:\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
		wantContains(t, strings.Join(args, " "), stderr, evil+": 3 change(s) refused", "nothing was applied",
			`changes[0] (line 5): sysctl kernel.core_pattern: rule memory.swappiness does not set sysctl "kernel.core_pattern"`,
			`changes[1] (line 6): sysfs /sys/power/state: rule memory.swappiness does not set sysfs "/sys/power/state"`,
			`changes[2] (line 7): sysfs /sys/bus/pci/devices/0000:00:1f.2/remove: rule memory.swappiness does not set`)
		if strings.Contains(out, "applied") {
			t.Errorf("%s: %s", strings.Join(args, " "), out)
		}
		if !equalSums(before, treeSums(t, tree)) {
			t.Fatalf("%s changed the tree", strings.Join(args, " "))
		}
		if _, err := os.Stat(filepath.Join(tree, "var", "lib", "dbhost")); err == nil {
			t.Fatalf("%s made a state directory for a refused plan", strings.Join(args, " "))
		}
	}
}

// TestApplyPlanRiskIsTheCatalogs: a plan's risky change (laptop-2s's
// jumbo frames) whose risk was edited to "low", or emptied, still needs
// --accept-risk, and apply quotes the catalog's warning, not the file's; a
// second "risk" key (encoding/json keeps the last) is refused with its line.
func TestApplyPlanRiskIsTheCatalogs(t *testing.T) {
	tree, _ := copyHostFixture(t, "laptop-2s")
	planDir := filepath.Join(t.TempDir(), "plan")
	if code, out, stderr := runBin(t, "plan", "--root", tree, "--workload", "oltp", "-o", planDir); code != 0 {
		t.Fatalf("plan exit %d:\n%s%s", code, out, stderr)
	}
	good, err := os.ReadFile(filepath.Join(planDir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	const riskLine = `      "risk": "A switch port or peer left at 1500`
	i := strings.Index(string(good), riskLine)
	if i < 0 || !strings.Contains(string(good), `"key": "/sys/class/net/eno1/mtu"`) {
		t.Fatalf("the laptop-2s oltp plan has no jumbo-frames risk:\n%s", good)
	}
	end := i + strings.IndexByte(string(good[i:]), '\n')
	line := 1 + strings.Count(string(good[:i]), "\n")
	edit := func(name, risk string) string {
		p := filepath.Join(t.TempDir(), name+".json")
		if err := os.WriteFile(p, []byte(string(good[:i])+risk+string(good[end:])), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	before := treeSums(t, tree)
	for _, c := range []struct{ name, risk string }{
		{"low", `      "risk": "low"`},
		{"empty", `      "risk": ""`},
		{"absent", `      "in_place": false`},
	} {
		p := edit(c.name, c.risk)
		code, out, stderr := runBin(t, "apply", "--root", tree, "--plan", p, "--dry-run")
		if code != 0 || !strings.Contains(out, "risky, refused without --accept-risk: A switch port or peer left at 1500") || strings.Contains(out, "accept-risk: low") {
			t.Errorf("%s: apply --dry-run exit %d:\n%s%s", c.name, code, out, stderr)
		}
		if !equalSums(before, treeSums(t, tree)) {
			t.Fatalf("%s: a dry run changed the tree", c.name)
		}
	}
	// Applied for real without --accept-risk: exit 5, the MTU untouched.
	mtu := filepath.Join(tree, "sys/class/net/eno1/mtu")
	old, _ := os.ReadFile(mtu)
	code, out, stderr := runBin(t, "apply", "--root", tree, "--plan", edit("applied", `      "risk": ""`))
	if code != exitRefused || !strings.Contains(out, "A switch port or peer left at 1500") {
		t.Errorf("apply of an emptied risk: exit %d, want 5:\n%s%s", code, out, stderr)
	}
	if now, _ := os.ReadFile(mtu); string(now) != string(old) {
		t.Errorf("the MTU was written without --accept-risk: %q → %q", old, now)
	}
	for _, c := range []struct{ name, risk, want string }{
		{"twice", `      "risk": "x",` + "\n" + `      "risk": ""`, `duplicate key "risk" in changes[`},
		{"case", `      "risk": "x",` + "\n" + `      "RISK": ""`, `duplicate key "RISK" in changes[`},
	} {
		p := edit(c.name, c.risk)
		code, out, stderr := runBin(t, "apply", "--root", tree, "--plan", p, "--dry-run")
		wantLine := "line " + itoa(line+1) + ": "
		if code != exitUsage || !strings.Contains(stderr, p) || !strings.Contains(stderr, wantLine) || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 naming %s, %q and %q:\n%s%s", c.name, code, p, wantLine, c.want, out, stderr)
		}
	}
}

func itoa(n int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}

// TestApplyEveryFixturePlan: the plan dbhost writes for every fixture host
// is taken unchanged by apply --plan --dry-run: the catalog's declarations
// refuse nothing dbhost's own rules make.
func TestApplyEveryFixturePlan(t *testing.T) {
	ents, err := os.ReadDir(filepath.Join("..", "..", "testdata", "hosts"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		n++
		tree, flag := copyHostFixture(t, e.Name())
		planDir := filepath.Join(t.TempDir(), "plan")
		if code, out, stderr := runBin(t, "plan", flag, tree, "-o", planDir); code != 0 {
			t.Errorf("%s: plan exit %d:\n%s%s", e.Name(), code, out, stderr)
			continue
		}
		code, out, stderr := runBin(t, "apply", "--root", tree, "--plan", planDir, "--dry-run")
		if code != 0 || strings.Contains(stderr, "refused") {
			t.Errorf("%s: apply --plan --dry-run exit %d:\n%s%s", e.Name(), code, out, stderr)
		}
	}
	if n < 10 {
		t.Fatalf("%d fixture hosts", n)
	}
}
