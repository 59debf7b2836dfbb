package crash

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReport: the report names the panic, the file holding the stack (and
// nothing of the stack itself), and every hint; the file holds the command
// line and the stack. Without a writable temporary directory the stack is
// written to the report instead of being lost.
func TestReport(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	Setup("1.2.3", []string{"apply", "--root", "/t"})
	defer SetHints(Hints())
	AddHint("outer hint")
	AddHint("inner hint")
	var b strings.Builder
	Report(&b, "boom", []byte("goroutine 1 [running]:\nmain.f()\n\t/x/y.go:12 +0x1f\n"))
	out := b.String()
	files, _ := filepath.Glob(filepath.Join(tmp, "dbhost-internal-error-*.txt"))
	if len(files) != 1 {
		t.Fatalf("files %v", files)
	}
	for _, want := range []string{"dbhost: internal error: boom\n", files[0], "dbhost 1.2.3", "dbhost: outer hint\ndbhost: inner hint\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "goroutine 1") {
		t.Errorf("the stack is in the report:\n%s", out)
	}
	body, _ := os.ReadFile(files[0])
	for _, want := range []string{"command: dbhost apply --root /t\n", "panic: boom\n", "goroutine 1 [running]:"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("file lacks %q:\n%s", want, body)
		}
	}

	t.Setenv("TMPDIR", filepath.Join(tmp, "missing"))
	b.Reset()
	Report(&b, "boom", []byte("goroutine 1 [running]:\n"))
	if !strings.Contains(b.String(), "could not be saved to a file") || !strings.Contains(b.String(), "goroutine 1 [running]:") {
		t.Errorf("no file: the stack must be in the report:\n%s", b.String())
	}
}

// TestHintsNest: a command run inside another (experiment's benches) adds
// its hints and leaves the outer ones as they were.
func TestHintsNest(t *testing.T) {
	defer SetHints(Hints())
	SetHints(nil)
	AddHint("experiment")
	saved := Hints()
	AddHint("bench")
	if got := strings.Join(Hints(), ","); got != "experiment,bench" {
		t.Fatalf("hints %q", got)
	}
	SetHints(saved)
	if got := strings.Join(Hints(), ","); got != "experiment" {
		t.Fatalf("after the inner command: %q", got)
	}
}
