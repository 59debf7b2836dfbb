// Package golden is the one -update convention of dbhost's tests.
//
// Importing it registers the -update flag. Every test package imports it
// (blank, in a file of its own, when it has no golden files), so that
//
//	go test ./... -update
//
// works from the top of the repository: a flag defined in only some test
// binaries would make the others fail with "flag provided but not defined".
// TestEveryTestPackageImportsGolden enforces it. Its tests also hold the
// other repository-wide check of the layout: TestDevelopersPackageMap keeps
// DEVELOPERS.md's package table (every package, its job, what it may
// import) in step with the tree.
//
// Check compares a directory of golden files with what the code produces now,
// both ways: a file the code writes that has no golden file, a golden file
// that differs, and a golden file the code no longer writes (stale) all fail.
// With -update it writes every produced file and removes the stale ones.
//
// Only tests import this package.
package golden

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (and remove stale ones) instead of comparing with them")

// Update reports whether the test run was given -update.
func Update() bool { return *update }

// Set describes one directory of golden files.
type Set struct {
	// Dir holds the golden files (relative to the test's package directory).
	Dir string
	// Match selects the golden files of this set among Dir's files, by
	// slash-separated path relative to Dir (nil: every file). Files it does
	// not select (inputs kept beside the goldens) are never compared, written
	// or removed.
	Match func(rel string) bool
	// Equal compares a golden file with the produced bytes (nil: byte for
	// byte). A difference is shown as the first differing lines.
	Equal func(rel string, golden, got []byte) bool
	// Hint is the command that rewrites this set, named in failures
	// (default "go test -update" in the package's directory).
	Hint string
}

// Check compares the golden files of s with got (slash-separated path
// relative to s.Dir → content), which must be everything the code produces
// for this set: a name missing from got is a stale golden file. With -update
// the files of got are written and the stale ones removed (with any directory
// left empty).
func Check(t testing.TB, s Set, got map[string][]byte) {
	t.Helper()
	hint := s.Hint
	if hint == "" {
		hint = "go test -update"
	}
	have, err := s.list()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("golden files in %s: %v", s.Dir, err)
	}
	if *update {
		n, removed := 0, 0
		for rel, b := range got {
			p := filepath.Join(s.Dir, filepath.FromSlash(rel))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
				continue
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			n++
		}
		for _, rel := range have {
			if _, ok := got[rel]; ok {
				continue
			}
			if err := os.Remove(filepath.Join(s.Dir, filepath.FromSlash(rel))); err != nil {
				t.Fatal(err)
			}
			removed++
			removeEmptyParents(s.Dir, filepath.Dir(filepath.Join(s.Dir, filepath.FromSlash(rel))))
		}
		if n > 0 || removed > 0 {
			t.Logf("-update: %s: %d file(s) written, %d stale file(s) removed", s.Dir, n, removed)
		}
		return
	}
	for _, rel := range have {
		if _, ok := got[rel]; !ok {
			t.Errorf("%s: stale golden file: the code no longer writes it (%s removes it)", filepath.Join(s.Dir, rel), hint)
		}
	}
	names := make([]string, 0, len(got))
	for rel := range got {
		names = append(names, rel)
	}
	sort.Strings(names)
	for _, rel := range names {
		p := filepath.Join(s.Dir, filepath.FromSlash(rel))
		want, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: no golden file for what the code writes (%s writes it): %v", p, hint, err)
			continue
		}
		equal := bytes.Equal(want, got[rel])
		if s.Equal != nil {
			equal = s.Equal(rel, want, got[rel])
		}
		if !equal {
			t.Errorf("%s differs from what the code writes (review, then %s):\n%s", p, hint, LineDiff(string(want), string(got[rel]), 15))
		}
	}
}

// File is Check for one golden file: path holds what got should be.
func File(t testing.TB, path string, got []byte, hint string) {
	t.Helper()
	base := filepath.Base(path)
	Check(t, Set{Dir: filepath.Dir(path), Match: func(rel string) bool { return rel == base }, Hint: hint}, map[string][]byte{base: got})
}

// list returns the set's files under Dir, slash-separated, sorted.
func (s Set) list() ([]string, error) {
	var out []string
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(s.Dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if s.Match == nil || s.Match(rel) {
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// removeEmptyParents removes dir and its parents up to (not including) top
// while they are empty.
func removeEmptyParents(top, dir string) {
	top = filepath.Clean(top)
	for dir = filepath.Clean(dir); dir != top && strings.HasPrefix(dir, top+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if os.Remove(dir) != nil { // not empty (or gone): stop
			return
		}
	}
}

// LineDiff shows the first differing lines of two texts, at most max of them.
func LineDiff(want, got string, max int) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			out = append(out, fmt.Sprintf("line %d:\n  - %s\n  + %s", i+1, a, b))
			if len(out) >= max {
				out = append(out, "...")
				break
			}
		}
	}
	return strings.Join(out, "\n")
}
