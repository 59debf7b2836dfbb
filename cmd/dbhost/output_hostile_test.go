package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nobodyUID owns the links another user plants (tests run as root).
const nobodyUID = 65534

// stickyDropDir is a world-writable sticky directory (/tmp, a drop
// directory): anyone may create a name in it.
func stickyDropDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: a link owned by another user is made with lchown")
	}
	base := t.TempDir()
	os.Chmod(base, 0o755)
	pub := filepath.Join(base, "pub")
	if err := os.Mkdir(pub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(pub, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	return pub
}

// plant makes link → target owned by uid, as another user would.
func plant(t *testing.T, target, link string, uid int) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, uid, uid); err != nil {
		t.Fatal(err)
	}
}

// fileState is a file's bytes and mode, to tell it was left alone.
func fileState(t *testing.T, p string) string {
	t.Helper()
	st, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	return st.Mode().String() + " " + string(b)
}

// TestOutputRefusesPlantedSymlink: -o NAME in a sticky directory, NAME a
// symlink another user planted there, pointing to a root-owned 0600 file
// dbhost would otherwise replace (an empty one, or dbhost's own earlier
// output): refused, exit 2 naming the link, the file unchanged in bytes and
// mode. A directory output (plan -o, place -o) through such a link is
// refused too. A link of root's own in the same directory is still followed.
func TestOutputRefusesPlantedSymlink(t *testing.T) {
	host, _ := filepath.Abs("../../testdata/hosts/laptop-2s")
	pub := stickyDropDir(t)
	private := t.TempDir()
	// Root's files: an empty 0600 one and an earlier 0600 dbhost output.
	empty := filepath.Join(private, "authorized_keys")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	earlier := filepath.Join(private, "audit.txt")
	if r := dbhostExec(t, nil, "rules", "list", "-o", earlier); r.code != 0 {
		t.Fatalf("rules list -o: exit %d: %s", r.code, r.stderr)
	}
	os.Chmod(earlier, 0o600)
	for _, c := range []struct {
		name, target string
		args         []string
	}{
		{"rules-empty", empty, []string{"rules", "list"}},
		{"audit-empty", empty, []string{"audit", "--root", host}},
		{"rules-own", earlier, []string{"rules", "list"}},
		{"audit-own", earlier, []string{"audit", "--root", host}},
	} {
		link := filepath.Join(pub, c.name+".txt")
		plant(t, c.target, link, nobodyUID)
		before := fileState(t, c.target)
		r := dbhostExec(t, nil, append(c.args, "-o", link)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, link) || !strings.Contains(r.stderr, "symlink") {
			t.Errorf("%s: -o a planted link: exit %d, stderr %q; want 2 naming the link", c.name, r.code, r.stderr)
		}
		if after := fileState(t, c.target); after != before {
			t.Errorf("%s: the file the link names changed: %q → %q", c.name, before[:min(len(before), 40)], after[:min(len(after), 40)])
		}
		if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s: the link was replaced", c.name)
		}
	}

	// A directory output through a planted link: refused, nothing written.
	spec, _ := filepath.Abs("../../examples/place/case4-binding.yaml")
	snap, _ := filepath.Abs(bdtSnap)
	for _, args := range [][]string{
		{"plan", "--root", host},
		{"place", "--spec", spec, "--snapshot", snap},
	} {
		target := filepath.Join(private, args[0]+".d") // root's, empty
		if err := os.Mkdir(target, 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(pub, args[0])
		plant(t, target, link, nobodyUID)
		r := dbhostExec(t, nil, append(args, "-o", link)...)
		if r.code != exitUsage || !strings.Contains(r.stderr, link) || !strings.Contains(r.stderr, "symlink") {
			t.Errorf("%s -o a planted link to a directory: exit %d, stderr %q; want 2 naming it", args[0], r.code, r.stderr)
		}
		if ents, _ := os.ReadDir(target); len(ents) != 0 {
			t.Errorf("%s wrote through the planted link: %v", args[0], ents)
		}
	}

	// apply checks its -o before changing anything: refused, the tree and
	// the state directory untouched.
	tree := copyFixture(t, "laptop-2s")
	state := t.TempDir()
	swappiness := filepath.Join(tree, "proc/sys/vm/swappiness")
	before := fileState(t, swappiness)
	link := filepath.Join(pub, "apply.txt")
	plant(t, empty, link, nobodyUID)
	r := dbhostExec(t, nil, "apply", "--root", tree, "--state-dir", state, "--skip", "network.jumbo-frames", "-o", link)
	if r.code != exitUsage || !strings.Contains(r.stderr, "symlink") {
		t.Errorf("apply -o a planted link: exit %d, stderr %q; want 2", r.code, r.stderr)
	}
	if after := fileState(t, swappiness); after != before {
		t.Errorf("apply changed the tree before refusing its -o: %q → %q", before, after)
	}
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("apply left state before refusing its -o: %v", ents)
	}

	// Root's own link in the same directory is followed: the file it
	// names is written, the link kept, the file's 0600 kept.
	mine := filepath.Join(private, "mine.txt")
	os.WriteFile(mine, nil, 0o600)
	link = filepath.Join(pub, "mine.txt")
	plant(t, mine, link, 0)
	if r := dbhostExec(t, nil, "rules", "list", "-o", link); r.code != 0 {
		t.Fatalf("-o root's own link: exit %d: %s", r.code, r.stderr)
	}
	if st, _ := os.Stat(mine); st.Size() == 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("root's own link's file: size %d, mode %v; want written, 0600", st.Size(), st.Mode())
	}
}

// TestOutputKeepsMode: -o over an existing file (an empty mktemp file, 0600)
// keeps its permissions: dbhost's output never widens what a file allowed;
// a new file is 0644.
func TestOutputKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	os.WriteFile(p, nil, 0o600)
	for i := 0; i < 2; i++ { // the empty file, then dbhost's own output
		if r := dbhostExec(t, nil, "rules", "list", "-o", p); r.code != 0 {
			t.Fatalf("rules list -o: exit %d: %s", r.code, r.stderr)
		}
		if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 || st.Size() == 0 {
			t.Errorf("run %d: mode %v, size %d; want 0600, written", i+1, st.Mode(), st.Size())
		}
	}
	n := filepath.Join(dir, "new.txt")
	if r := dbhostExec(t, nil, "rules", "list", "-o", n); r.code != 0 {
		t.Fatalf("rules list -o new: exit %d: %s", r.code, r.stderr)
	}
	if st, _ := os.Stat(n); st.Mode().Perm() != 0o644 {
		t.Errorf("a new file: mode %v; want 0644", st.Mode())
	}
}
