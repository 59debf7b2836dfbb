package main

// verify --plan through the real binary, as an operator runs it: plan a
// fixture host, verify the plan before and after apply --plan, then drift,
// a reboot with the boot arguments, and the ways a plan directory can be
// wrong. Only the CLI contract is used (exit codes, --format json, the
// messages' file and line), so the tests hold while apply's internals move.

import (
	"crypto/sha256"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/fixture"
)

// runBin runs the built binary (main_test.go) and returns its exit code,
// stdout and stderr.
func runBin(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	r := dbhostExec(t, nil, args...)
	return r.code, r.stdout, r.stderr
}

// verifyDoc is verify --format json.
type verifyDoc struct {
	Of     string `json:"of"`
	Checks []struct {
		Kind, Setting, Path, Want, Live, Status, Cause, Rule string
	} `json:"checks"`
}

// verifyPlan runs verify --plan --format json and checks that it changed
// nothing in the tree.
func verifyPlan(t *testing.T, root, planDir string) (int, verifyDoc) {
	t.Helper()
	before := treeSums(t, root)
	code, out, stderr := runBin(t, "verify", "--plan", planDir, "--root", root, "--format", "json")
	var d verifyDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("verify --format json (exit %d) is not JSON: %v\n%s%s", code, err, out, stderr)
	}
	if after := treeSums(t, root); !equalSums(before, after) {
		t.Fatalf("verify --plan changed the tree")
	}
	return code, d
}

// treeSums hashes every regular file under root.
func treeSums(t *testing.T, root string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		sums[p] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return sums
}

func equalSums(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestVerifyPlanContract(t *testing.T) {
	root := t.TempDir()
	if err := fixture.Laptop2S().Build().Write(root); err != nil {
		t.Fatal(err)
	}
	planDir := filepath.Join(t.TempDir(), "plan")
	if code, out, stderr := runBin(t, "plan", "--root", root, "--workload", "oltp", "-o", planDir); code != 0 {
		t.Fatalf("plan exit %d:\n%s%s", code, out, stderr)
	}

	// Before apply: the plan is the desired state. Some runtime settings are
	// already in place (ok, live = wanted), the others drift; boot arguments
	// already on the command line are ok, the others pending a reboot.
	code, before := verifyPlan(t, root, planDir)
	if code != 3 || len(before.Checks) == 0 || before.Of != "plan "+planDir {
		t.Fatalf("verify --plan before apply: exit %d, of %q, %d checks; want 3 and the plan's settings", code, before.Of, len(before.Checks))
	}
	pending, todo := map[string]bool{}, 0
	for _, c := range before.Checks {
		switch {
		case c.Kind == "bootarg" && c.Status == "pending-reboot":
			pending[c.Setting] = true
		case c.Kind == "bootarg":
			// ok: on the command line already, or (a removal) absent from it
			if c.Status != "ok" {
				t.Errorf("boot argument %s before apply: %s, want ok or pending-reboot", c.Setting, c.Status)
			}
		case c.Status == "ok" && c.Live != c.Want:
			t.Errorf("%s: ok, but live %q, want %q", c.Setting, c.Live, c.Want)
		case c.Status != "ok":
			if c.Live == c.Want {
				t.Errorf("%s: %s, but live = want = %q", c.Setting, c.Status, c.Live)
			}
			todo++
		}
	}
	if len(pending) == 0 || todo == 0 {
		t.Fatalf("the laptop-2s oltp plan leaves %d runtime setting(s) and %d boot argument(s) to do: the test needs both", todo, len(pending))
	}

	// apply --plan, then verify --plan: every runtime setting as planned, the
	// pending boot arguments still pending (exit 3 until the reboot).
	if code, out, stderr := runBin(t, "apply", "--plan", planDir, "--root", root, "--accept-risk"); code != 0 {
		t.Fatalf("apply --plan exit %d:\n%s%s", code, out, stderr)
	}
	code, after := verifyPlan(t, root, planDir)
	if code != 3 || len(after.Checks) != len(before.Checks) {
		t.Fatalf("verify --plan after apply: exit %d, %d checks (before: %d); want 3 for the pending boot arguments", code, len(after.Checks), len(before.Checks))
	}
	var args []string
	for _, c := range after.Checks {
		want := "ok"
		if pending[c.Setting] {
			want = "pending-reboot"
			if !strings.Contains(c.Cause, "GRUB_CMDLINE_LINUX") {
				t.Errorf("pending boot argument %s does not name the command: %q", c.Setting, c.Cause)
			}
			args = append(args, c.Want)
		}
		if c.Status != want || (c.Kind != "bootarg" && c.Live != c.Want) {
			t.Errorf("after apply: %s live %q want %q: %s, want %s", c.Setting, c.Live, c.Want, c.Status, want)
		}
	}

	// The reboot: the boot arguments are on the command line now.
	cmdline := filepath.Join(root, "proc/cmdline")
	b, err := os.ReadFile(cmdline)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cmdline, []byte(strings.TrimSpace(string(b))+" "+strings.Join(args, " ")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, d := verifyPlan(t, root, filepath.Join(planDir, "plan.json")); code != 0 {
		t.Fatalf("verify --plan plan.json after the reboot: exit %d:\n%+v", code, d.Checks)
	}

	// Drift: a sysctl.d file sets another value, and someone changed a sysfs
	// setting by hand; both are found, with their causes, the rest stays ok.
	var sysctl, sysfs int = -1, -1
	for i, c := range after.Checks {
		if c.Kind == "sysctl" && sysctl < 0 {
			sysctl = i
		}
		if c.Kind == "sysfs" && sysfs < 0 {
			sysfs = i
		}
	}
	if sysctl < 0 || sysfs < 0 {
		t.Fatalf("the plan has no sysctl or no sysfs change: %+v", after.Checks)
	}
	sc, sf := after.Checks[sysctl], after.Checks[sysfs]
	if err := os.WriteFile(filepath.Join(root, sc.Path), []byte("12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "etc/sysctl.d"), 0o755)
	if err := os.WriteFile(filepath.Join(root, "etc/sysctl.d/99-zz.conf"), []byte(sc.Setting+" = 12345\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hand := "drifted-by-hand"
	if err := os.WriteFile(filepath.Join(root, sf.Path), []byte(hand+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, drift := verifyPlan(t, root, planDir)
	if code != 3 {
		t.Fatalf("verify --plan with drift: exit %d, want 3", code)
	}
	for i, c := range drift.Checks {
		switch i {
		case sysctl:
			if c.Status != "drift" || c.Live != "12345" || !strings.Contains(c.Cause, "/etc/sysctl.d/99-zz.conf line 1") {
				t.Errorf("sysctl %s: %s live %q cause %q; want drift, 12345, the sysctl.d file and line", c.Setting, c.Status, c.Live, c.Cause)
			}
		case sysfs:
			if c.Status != "drift" || c.Live != hand || !strings.Contains(c.Cause, "another agent") {
				t.Errorf("sysfs %s: %s live %q cause %q; want drift by another agent", c.Setting, c.Status, c.Live, c.Cause)
			}
		default:
			if c.Status != "ok" {
				t.Errorf("%s: %s, want ok (only two settings drifted)", c.Setting, c.Status)
			}
		}
	}
	// The text form says the same, with the count.
	if code, out, _ := runBin(t, "verify", "--plan", planDir, "--root", root); code != 3 ||
		!strings.Contains(out, sc.Setting+": live 12345") || !strings.Contains(out, " of ") {
		t.Errorf("verify --plan (text) exit %d:\n%s", code, out)
	}
	if code, out, _ := runBin(t, "verify", "--plan", planDir, "--root", root, "--format", "markdown"); code != 3 ||
		!strings.HasPrefix(out, "# verify plan ") || !strings.Contains(out, "x `"+sc.Setting+"`: live 12345") || !strings.Contains(out, " of ") {
		t.Errorf("verify --plan (markdown) exit %d:\n%s", code, out)
	}
}

// TestVerifyPlanBadInput: a plan that is missing or damaged is exit 2, the
// message naming the file (and the line, for a JSON error), and nothing read
// from the host is mistaken for a result.
func TestVerifyPlanBadInput(t *testing.T) {
	root := t.TempDir()
	if err := fixture.Laptop2S().Build().Write(root); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	planDir := filepath.Join(dir, "plan")
	if code, out, stderr := runBin(t, "plan", "--root", root, "--workload", "oltp", "-o", planDir); code != 0 {
		t.Fatalf("plan exit %d:\n%s%s", code, out, stderr)
	}
	good, err := os.ReadFile(filepath.Join(planDir, "plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	write := func(name, body string) string {
		d := filepath.Join(dir, name)
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(filepath.Join(d, "plan.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return d
	}
	empty := filepath.Join(dir, "empty")
	os.MkdirAll(empty, 0o755)
	for _, c := range []struct {
		name, plan string
		want       []string
	}{
		{"no such directory", filepath.Join(dir, "nope"), []string{filepath.Join(dir, "nope"), "no such file"}},
		{"a directory without plan.json", empty, []string{filepath.Join(empty, "plan.json"), "no such file"}},
		{"cut off", write("truncated", strings.Join(lines[:len(lines)/2], "\n")), []string{"truncated/plan.json", "line ", "ends inside"}},
		{"a syntax error", write("syntax", strings.Replace(string(good), `"changes": [`, `"changes": [,`, 1)), []string{"syntax/plan.json", "line 7", "invalid character"}},
		{"a wrong type", write("type", strings.Replace(string(good), `"schema_version": 1`, `"schema_version": "1"`, 1)), []string{"type/plan.json", "line 2", "schema_version"}},
		{"another schema", write("schema", strings.Replace(string(good), `"schema_version": 1`, `"schema_version": 99`, 1)), []string{"schema/plan.json", "schema_version 99"}},
		{"not a plan", write("other", `{"hosts": []}`), []string{"other/plan.json", "schema_version"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runBin(t, "verify", "--plan", c.plan, "--root", root)
			if code != 2 {
				t.Fatalf("exit %d, want 2:\n%s%s", code, out, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("the message does not name %q:\n%s", w, stderr)
				}
			}
			if out != "" {
				t.Errorf("verify printed a result for a bad plan:\n%s", out)
			}
		})
	}
}
