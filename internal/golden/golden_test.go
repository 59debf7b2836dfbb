package golden

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const importPath = "github.com/dbhost/dbhost/internal/golden"

// TestEveryTestPackageImportsGolden: `go test ./... -update` passes -update to
// every test binary; one that does not import this package fails with "flag
// provided but not defined: -update". Every directory with test files must
// import it in one of them (a file of its own with a blank import will do).
func TestEveryTestPackageImportsGolden(t *testing.T) {
	root := moduleRoot(t)
	self, _ := filepath.Abs(".")
	tests := map[string]bool{}  // directory → imports golden
	pkgs := map[string]string{} // directory → its package name
	fset := token.NewFileSet()
	err := walkGoFiles(root, func(p string) error {
		if !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		dir := filepath.Dir(p)
		if dir == self {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		tests[dir] = tests[dir] || false
		pkgs[dir] = strings.TrimSuffix(f.Name.Name, "_test")
		for _, im := range f.Imports {
			if v, _ := strconv.Unquote(im.Path.Value); v == importPath {
				tests[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tests) < 10 {
		t.Fatalf("found only %d test directories under %s: the walk is wrong", len(tests), root)
	}
	var missing []string
	for dir, ok := range tests {
		if !ok {
			rel, _ := filepath.Rel(root, dir)
			missing = append(missing, rel+"\x00"+pkgs[dir])
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		rel, pkg, _ := strings.Cut(m, "\x00")
		t.Errorf("%s: no test file imports %s, so `go test ./... -update` fails there; add %s/golden_flag_test.go:\n\n"+
			"package %s\n\n// -update for `go test ./... -update` (internal/golden).\nimport _ %q\n",
			rel, importPath, rel, pkg, importPath)
	}
}

// moduleRoot is the module's top directory (two up from here).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from %s: %v", root, err)
	}
	return root
}

// walkGoFiles calls fn with the path of every .go file of the module the go
// tool sees: testdata and directories or files starting with . or _ are
// left out, as the go tool ignores them.
func walkGoFiles(root string, fn func(p string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return nil
		}
		return fn(p)
	})
}

// recorder keeps the errors Check reports instead of failing the test.
type recorder struct {
	*testing.T
	errs []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Helper() {}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func listing(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p != dir {
			rel, _ := filepath.Rel(dir, p)
			if d.IsDir() {
				rel += "/"
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func bytesMap(m map[string]string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range m {
		out[k] = []byte(v)
	}
	return out
}

func TestCheckBothWays(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"a.conf":        "same\n",
		"b.conf":        "old\nline\n",
		"stale.conf":    "nobody writes me\n",
		"gone/old.conf": "a whole case nobody writes\n",
		"input.yaml":    "not a golden file\n",
	})
	s := Set{Dir: dir, Match: func(rel string) bool { return !strings.HasSuffix(rel, ".yaml") }}
	got := bytesMap(map[string]string{"a.conf": "same\n", "b.conf": "new\nline\n", "new/c.conf": "c\n"})

	r := &recorder{T: t}
	Check(r, s, got)
	want := []string{"stale.conf: stale", "gone/old.conf: stale", "b.conf differs", "line 1:\n  - old\n  + new", "new/c.conf: no golden file"}
	all := strings.Join(r.errs, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("Check did not report %q; it said:\n%s", w, all)
		}
	}
	if len(r.errs) != 4 {
		t.Errorf("%d errors, want 4 (2 stale, 1 differs, 1 missing):\n%s", len(r.errs), all)
	}

	// -update writes what the code writes, removes the stale files and the
	// directories they leave empty, and leaves the inputs alone.
	*update = true
	defer func() { *update = false }()
	Check(t, s, got)
	*update = false
	if l, w := listing(t, dir), []string{"a.conf", "b.conf", "input.yaml", "new/", "new/c.conf"}; strings.Join(l, " ") != strings.Join(w, " ") {
		t.Errorf("after -update: %v, want %v", l, w)
	}
	r = &recorder{T: t}
	Check(r, s, got)
	if len(r.errs) > 0 {
		t.Errorf("after -update Check still fails: %v", r.errs)
	}
}

func TestCheckEqualAndFile(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"x.json": "{\"a\": 1}\n", "other": "left alone\n"})
	// A custom Equal (e.g. compare as parsed documents, not bytes).
	s := Set{Dir: dir, Match: func(rel string) bool { return rel == "x.json" }, Equal: func(_ string, a, b []byte) bool {
		return strings.Join(strings.Fields(string(a)), "") == strings.Join(strings.Fields(string(b)), "")
	}}
	r := &recorder{T: t}
	Check(r, s, bytesMap(map[string]string{"x.json": "{\"a\":1}"}))
	if len(r.errs) > 0 {
		t.Errorf("Equal ignored: %v", r.errs)
	}
	r = &recorder{T: t}
	File(r, filepath.Join(dir, "x.json"), []byte("{\"a\": 2}\n"), "go test -run X -update")
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "go test -run X -update") {
		t.Errorf("File: %v", r.errs)
	}
	r = &recorder{T: t}
	File(r, filepath.Join(dir, "missing.json"), []byte("{}"), "")
	if len(r.errs) != 1 || !strings.Contains(r.errs[0], "no golden file") {
		t.Errorf("File of a missing golden: %v", r.errs)
	}
}
