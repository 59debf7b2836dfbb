package main

// Issue 24, item 1: the entries of the state directory of a hostile tree
// (--root T: T/var/lib/dbhost) never lead out of it.

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// dirState maps every entry under dir (symlinks not followed) to its
// content: a file's bytes, a link's target, "(dir)"; skip is left out.
func dirState(t *testing.T, dir, skip string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if skip != "" && p == skip {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			m[rel] = "-> " + l
		case fi.IsDir():
			m[rel] = "(dir)"
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			m[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// diffState lists the entries that differ between two dirStates.
func diffState(a, b map[string]string) []string {
	var d []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			d = append(d, "removed "+k)
		} else if w != v {
			d = append(d, "changed "+k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			d = append(d, "added "+k)
		}
	}
	sort.Strings(d)
	return d
}

// TestHostileStateEntries: in a copied fixture tree, an entry of the state
// directory T/var/lib/dbhost is replaced by a link out of it (the lock to
// a canary file, journal/ to a directory outside, a journal or its head
// file to a file outside) or by a hard link to the canary; apply,
// rollback and place --apply each refuse it with exit 2 naming the entry,
// and the canary, the directory outside and the tree keep every byte.
func TestHostileStateEntries(t *testing.T) {
	spec := filepath.Join(t.TempDir(), "pg.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: pg\n    engine: postgres\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n"), 0o644)
	commands := []struct {
		name, host string
		args       func(root string) []string
	}{
		{"apply", "laptop-2s", func(root string) []string {
			return []string{"apply", "--root", root, "--workload", "oltp", "--db", "oracle", "--accept-risk"}
		}},
		{"rollback", "laptop-2s", func(root string) []string { return []string{"rollback", "--root", root} }},
		{"place-apply", "cgroup-v2", func(root string) []string {
			return []string{"place", "--spec", spec, "--root", root, "--apply"}
		}},
	}
	// plant replaces an entry of the state directory; it returns the entry.
	plants := []struct {
		name  string
		plant func(t *testing.T, state, canary, outside string) string
	}{
		{"lock-symlink", func(t *testing.T, state, canary, outside string) string {
			p := filepath.Join(state, "lock")
			os.Remove(p)
			must(t, os.Symlink(canary, p))
			return p
		}},
		{"lock-hardlink", func(t *testing.T, state, canary, outside string) string {
			p := filepath.Join(state, "lock")
			os.Remove(p)
			must(t, os.Link(canary, p))
			return p
		}},
		{"journal-dir-symlink", func(t *testing.T, state, canary, outside string) string {
			p := filepath.Join(state, "journal")
			moved := filepath.Join(outside, "journal")
			must(t, os.Rename(p, moved))
			must(t, os.Symlink(moved, p))
			return p
		}},
		{"journal-file-symlink", func(t *testing.T, state, canary, outside string) string {
			p := onlyJournal(t, state, ".jsonl")
			moved := filepath.Join(outside, filepath.Base(p))
			must(t, os.Rename(p, moved))
			must(t, os.Symlink(moved, p))
			return p
		}},
		{"head-file-symlink", func(t *testing.T, state, canary, outside string) string {
			p := onlyJournal(t, state, ".head")
			os.Remove(p)
			must(t, os.Symlink(canary, p))
			return p
		}},
	}
	for _, c := range commands {
		for _, pl := range plants {
			t.Run(c.name+"/"+pl.name, func(t *testing.T) {
				root := copyFixture(t, c.host)
				state := filepath.Join(root, "var/lib/dbhost")
				outside := t.TempDir()
				canary := filepath.Join(outside, "passwd")
				must(t, os.WriteFile(canary, []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644))
				// A real run first, so that the state directory holds a
				// lock, journal/ and a journal with its head; apply and
				// place --apply then have something to do again.
				args := c.args(root)
				if c.name == "rollback" {
					args = commands[0].args(root)
				}
				if r := dbhostExec(t, nil, args...); r.code != 0 {
					t.Fatalf("first %v: exit %d\n%s%s", args, r.code, r.stdout, r.stderr)
				}
				if c.name != "rollback" {
					if r := dbhostExec(t, nil, "rollback", "--root", root); r.code != 0 {
						t.Fatalf("rollback: exit %d\n%s%s", r.code, r.stdout, r.stderr)
					}
				}
				entry := pl.plant(t, state, canary, outside)
				tree, out := dirState(t, root, state), dirState(t, outside, "")
				r := dbhostExec(t, nil, c.args(root)...)
				if r.code != exitUsage || !strings.Contains(r.stderr, entry) {
					t.Errorf("exit %d, want 2 naming %s:\n%s%s", r.code, entry, r.stdout, r.stderr)
				}
				if d := diffState(out, dirState(t, outside, "")); len(d) > 0 {
					t.Errorf("written outside the tree: %v", d)
				}
				if d := diffState(tree, dirState(t, root, state)); len(d) > 0 {
					t.Errorf("the tree changed (a half-applied run): %v", d)
				}
			})
		}
	}
}

// onlyJournal is the path of the one journal file with ext in state.
func onlyJournal(t *testing.T, state, ext string) string {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(state, "journal", "*"+ext))
	if len(m) != 1 {
		t.Fatalf("journals %s: %v", ext, m)
	}
	return m[0]
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
