package outdir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzResolve: where no directory is sticky, resolve is the kernel's walk
// (filepath.EvalSymlinks, which follows links and ".." the same way): for
// every path over a small tree of links (relative, absolute, to a parent,
// chained, dangling, looping) that EvalSymlinks resolves, resolve finds the
// same file, and it never panics.
func FuzzResolve(f *testing.F) {
	base, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	os.Chmod(base, 0o755)
	must := func(err error) {
		if err != nil {
			f.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(base, "a", "b"), 0o755))
	must(os.WriteFile(filepath.Join(base, "a", "f"), nil, 0o644))
	for link, target := range map[string]string{
		"l1":       "a",
		"a/up":     "..",
		"rel":      "a/f",
		"abs":      filepath.Join(base, "a"),
		"chain":    "l1/b/../up/rel",
		"dangling": "nope/x",
		"loop":     "loop",
		"a/b/ret":  "../../l1",
	} {
		must(os.Symlink(target, filepath.Join(base, link)))
	}
	for _, s := range []string{"a/f", "l1/f", "a/up/rel", "chain", "abs/b/ret/f", "l1/../rel", "a/b/../../l1/up/a", "dangling", "loop/x", "abs/new.txt", "./a//f/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 200 || strings.ContainsRune(s, 0) {
			return
		}
		p := filepath.Join(base, s)
		if strings.HasSuffix(s, "/..") || strings.Contains(s, "/../") || strings.HasPrefix(s, "..") {
			p = base + "/" + s // not Clean: ".." after a link is the kernel's
		}
		if !strings.HasPrefix(filepath.Clean(p), base) {
			return
		}
		r, err := resolve(p)
		want, werr := filepath.EvalSymlinks(p)
		if werr != nil {
			return // a name that does not exist (yet), a loop: resolve may say either
		}
		if err != nil {
			t.Fatalf("%q: resolve: %v; EvalSymlinks: %q", s, err, want)
		}
		if r.magic || r.real != want {
			t.Fatalf("%q: resolve %q (magic %v); EvalSymlinks %q", s, r.real, r.magic, want)
		}
	})
}
