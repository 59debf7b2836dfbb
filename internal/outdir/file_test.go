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
