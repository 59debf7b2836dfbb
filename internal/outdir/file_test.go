package outdir

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteOwnFile(t *testing.T) {
	own := func(b []byte) bool { return bytes.HasPrefix(b, []byte("OWN ")) }
	dir := t.TempDir()
	p := filepath.Join(dir, "report.html")
	write := func(path, data string) error { return WriteOwnFile(path, []byte(data), 1<<10, own) }
	refused := func(err error) bool {
		var re *RefusedError
		return errors.As(err, &re)
	}
	read := func(path string) string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// New, then replaced (its own, unchanged).
	if err := write(p, "OWN 1"); err != nil || read(p) != "OWN 1" {
		t.Fatalf("new file: %v", err)
	}
	if err := write(p, "OWN 2"); err != nil || read(p) != "OWN 2" {
		t.Fatalf("own file: %v", err)
	}
	// Someone else's (or edited) file: refused, untouched.
	if err := os.WriteFile(p, []byte("my notes"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(p, "OWN 3"); !refused(err) || read(p) != "my notes" {
		t.Fatalf("foreign file: %v, now %q", err, read(p))
	}
	// Larger than the limit: not dbhost's.
	big := "OWN " + string(bytes.Repeat([]byte("x"), 2<<10))
	if err := os.WriteFile(p, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := write(p, "OWN 4"); !refused(err) || read(p) != big {
		t.Fatalf("larger than the limit: %v", err)
	}
	// An empty file (mktemp) holds nothing to lose.
	empty := filepath.Join(dir, "empty.html")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := write(empty, "OWN 5"); err != nil || read(empty) != "OWN 5" {
		t.Fatalf("empty file: %v", err)
	}
	// A directory is refused; a symlink's target is replaced, the link kept.
	if err := write(dir, "OWN"); !refused(err) {
		t.Fatalf("directory: %v", err)
	}
	link := filepath.Join(dir, "link.html")
	if err := os.Symlink("empty.html", link); err != nil {
		t.Fatal(err)
	}
	if err := write(link, "OWN 6"); err != nil || read(empty) != "OWN 6" {
		t.Fatalf("symlink: %v", err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatal("the symlink was replaced")
	}
	// A device is written into (/dev/null).
	if err := write(os.DevNull, "OWN"); err != nil {
		t.Fatalf("/dev/null: %v", err)
	}
	// No temporary file is left behind.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if isTemp(e.Name()) || filepath.Ext(e.Name()) == tempSuffix {
			t.Errorf("left %s", e.Name())
		}
	}
	if len(ents) != 3 {
		t.Errorf("%d entries in the directory, want 3", len(ents))
	}
}

// TestCreateOwnFileByAttribute: an output without a format of its own to
// recognise (JSON, text: own is nil) is recognised by the checksum kept in
// its OwnAttr attribute: replaced while unchanged, refused once edited in
// place or replaced by another file, or when it never had one; the content
// is exactly what fn wrote (nothing appended to mark it).
func TestCreateOwnFileByAttribute(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "snap.json")
	write := func(data string) error {
		return CreateOwnFile(p, 0, nil, func(w io.Writer) error { _, err := io.WriteString(w, data); return err })
	}
	if err := write("{\"a\": 1}\n"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "{\"a\": 1}\n" {
		t.Fatalf("content %q", b)
	}
	if err := write("{\"a\": 2}\n"); err != nil {
		t.Skipf("this file system keeps no user attributes (%v)", err)
	}
	// Edited in place (same inode, the attribute stays): refused.
	if err := os.WriteFile(p, []byte("{\"a\": 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var re *RefusedError
	if err := write("{\"a\": 4}\n"); !errors.As(err, &re) {
		t.Fatalf("edited: %v", err)
	}
	// Replaced by another file (no attribute): refused.
	os.Remove(p)
	os.WriteFile(p, []byte("notes\n"), 0o644)
	if err := write("x"); !errors.As(err, &re) {
		t.Fatalf("foreign: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "notes\n" {
		t.Fatalf("foreign file changed: %q", b)
	}
	// fn's error leaves the old file and no temporary file.
	os.Remove(p)
	if err := write("old"); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := CreateOwnFile(p, 0, nil, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); err != boom {
		t.Fatalf("fn's error: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Fatalf("after fn's error: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

// TestCheckOwnFile: CheckOwnFile answers what CreateOwnFile would do,
// writing nothing: a new name, dbhost's own output, an empty file and a
// device pass; a foreign file, a directory and a name in a directory that
// does not exist are refused.
func TestCheckOwnFile(t *testing.T) {
	dir := t.TempDir()
	own := func(b []byte) bool { return bytes.HasPrefix(b, []byte("OWN ")) }
	mine, foreign, empty := filepath.Join(dir, "mine"), filepath.Join(dir, "notes"), filepath.Join(dir, "empty")
	if err := WriteOwnFile(mine, []byte("OWN 1"), 1<<10, own); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(foreign, []byte("the DBA's notes\n"), 0o644)
	os.WriteFile(empty, nil, 0o600)
	for _, p := range []string{filepath.Join(dir, "new"), mine, empty, os.DevNull} {
		if err := CheckOwnFile(p, 1<<10, own); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, p := range []string{foreign, dir, filepath.Join(dir, "no-such-dir", "out.md")} {
		var re *RefusedError
		if err := CheckOwnFile(p, 1<<10, own); !errors.As(err, &re) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want refused naming it", p, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Errorf("CheckOwnFile wrote: %d entries", len(ents))
	}
	if b, _ := os.ReadFile(foreign); string(b) != "the DBA's notes\n" {
		t.Errorf("foreign file: %q", b)
	}
}

// TestResolveStickyLinks: resolve follows symlinks as the kernel would,
// except one in a sticky directory that belongs neither to the user
// running dbhost nor to the directory's owner (fs.protected_symlinks):
// refused wherever it is on the path, the last component or a directory.
func TestResolveStickyLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: links owned by another user are made with lchown")
	}
	base := t.TempDir()
	sticky, plain, priv := filepath.Join(base, "sticky"), filepath.Join(base, "plain"), filepath.Join(base, "priv")
	for _, d := range []string{sticky, plain, priv} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(sticky, 0o777|os.ModeSticky)
	os.Chmod(plain, 0o777)
	secret := filepath.Join(priv, "secret")
	os.WriteFile(secret, nil, 0o600)
	link := func(dir, name, target string, uid int) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(p, uid, uid); err != nil {
			t.Fatal(err)
		}
		return p
	}
	planted := link(sticky, "planted", secret, 65534)
	plantedDir := link(sticky, "planted-dir", priv, 65534)
	rootsOwn := link(sticky, "roots", secret, 0)
	nonSticky := link(plain, "other", secret, 65534)
	rel := link(sticky, "rel", "../priv/secret", 0)
	loop := link(plain, "loop", "loop", 0)
	for _, c := range []struct {
		path, want string // want "": refused
	}{
		{planted, ""},
		{filepath.Join(plantedDir, "secret"), ""},
		{filepath.Join(plantedDir, "new.txt"), ""},
		{rootsOwn, secret},
		{nonSticky, secret},
		{rel, secret},
		{filepath.Join(sticky, "new.txt"), filepath.Join(sticky, "new.txt")},
		{filepath.Join(sticky, "..", "priv", "secret"), secret},
		{filepath.Join(sticky, "none", "x"), filepath.Join(sticky, "none", "x")},
	} {
		r, err := resolve(c.path)
		var re *RefusedError
		switch {
		case c.want == "" && !errors.As(err, &re):
			t.Errorf("%s: %+v, %v; want refused", c.path, r, err)
		case c.want == "":
			if !strings.Contains(err.Error(), "symlink owned by uid 65534") {
				t.Errorf("%s: %v", c.path, err)
			}
		case err != nil || r.real != c.want:
			t.Errorf("%s: %q, %v; want %q", c.path, r.real, err, c.want)
		}
	}
	if _, err := resolve(loop); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("a symlink loop: %v", err)
	}
	// Through CreateOwnFile and CheckOwnFile: refused, the secret as it was.
	var re *RefusedError
	for _, p := range []string{planted, filepath.Join(plantedDir, "secret")} {
		if err := WriteOwnFile(p, []byte("x"), 0, nil); !errors.As(err, &re) {
			t.Errorf("WriteOwnFile %s: %v", p, err)
		}
		if err := CheckOwnFile(p, 0, nil); !errors.As(err, &re) {
			t.Errorf("CheckOwnFile %s: %v", p, err)
		}
	}
	if st, _ := os.Stat(secret); st.Size() != 0 || st.Mode().Perm() != 0o600 {
		t.Errorf("the secret changed: %v", st)
	}
	// An (empty) file another user put in the sticky directory is not
	// replaced (fs.protected_regular); root's own empty file there is.
	theirs, ours := filepath.Join(sticky, "theirs.txt"), filepath.Join(sticky, "ours.txt")
	os.WriteFile(theirs, nil, 0o666)
	os.Chown(theirs, 65534, 65534)
	os.WriteFile(ours, nil, 0o600)
	if err := WriteOwnFile(theirs, []byte("x"), 0, nil); !errors.As(err, &re) || !strings.Contains(err.Error(), "protected_regular") {
		t.Errorf("another user's file in a sticky directory: %v", err)
	}
	if st, _ := os.Stat(theirs); st.Size() != 0 {
		t.Errorf("another user's file was replaced")
	}
	if err := WriteOwnFile(ours, []byte("x"), 0, nil); err != nil {
		t.Errorf("root's own file in a sticky directory: %v", err)
	}
	// A directory output through the planted link: refused.
	if _, err := Write(plantedDir, Spec{Command: "dbhost plan", Files: map[string]File{"a": {Data: []byte("a")}}}); !errors.As(err, &re) {
		t.Errorf("Write through a planted link: %v", err)
	}
	if _, err := os.Stat(filepath.Join(priv, "a")); err == nil {
		t.Error("Write wrote through the planted link")
	}
}
