package confine

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceExisting: a hard-linked file is replaced, its other name
// keeps its bytes; the mode is kept; a last link is followed inside the
// tree (the link stays a link); a missing file is not created; a FIFO is
// refused; no temporary file is left.
func TestReplaceExisting(t *testing.T) {
	defer func(v bool) { noOpenat2 = v }(noOpenat2)
	for _, kernel := range []bool{true, false} {
		noOpenat2 = !kernel
		top := t.TempDir()
		must := func(err error) {
			t.Helper()
			if err != nil {
				t.Fatal(err)
			}
		}
		must(os.MkdirAll(filepath.Join(top, "sys/a"), 0o755))
		f := filepath.Join(top, "sys/a/attr")
		must(os.WriteFile(f, []byte("old\n"), 0o640))
		other := filepath.Join(t.TempDir(), "other")
		must(os.Link(f, other))
		must(os.Symlink("/sys/a/attr", filepath.Join(top, "sys/link")))
		must(syscall.Mkfifo(filepath.Join(top, "sys/fifo"), 0o600))
		d, err := Open(top, InRoot)
		must(err)
		must(d.ReplaceExisting("/sys/a/attr", []byte("new\n")))
		if b, _ := os.ReadFile(other); string(b) != "old\n" {
			t.Errorf("openat2 %v: the hard link's other name holds %q", kernel, b)
		}
		if b, _ := os.ReadFile(f); string(b) != "new\n" {
			t.Errorf("openat2 %v: the file holds %q", kernel, b)
		}
		if st, _ := os.Stat(f); st.Mode().Perm() != 0o640 {
			t.Errorf("openat2 %v: mode %v", kernel, st.Mode())
		}
		must(d.ReplaceExisting("/sys/link", []byte("via link\n")))
		if b, _ := os.ReadFile(f); string(b) != "via link\n" {
			t.Errorf("openat2 %v: through the link: %q", kernel, b)
		}
		if st, _ := os.Lstat(filepath.Join(top, "sys/link")); st.Mode()&os.ModeSymlink == 0 {
			t.Errorf("openat2 %v: the link was replaced by a file", kernel)
		}
		if err := d.ReplaceExisting("/sys/a/missing", []byte("x")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("openat2 %v: missing file: %v", kernel, err)
		}
		if _, err := os.Stat(filepath.Join(top, "sys/a/missing")); err == nil {
			t.Errorf("openat2 %v: a missing file was created", kernel)
		}
		if err := d.ReplaceExisting("/sys/fifo", []byte("x")); !errors.Is(err, ErrNotRegular) {
			t.Errorf("openat2 %v: FIFO: %v", kernel, err)
		}
		names, _ := os.ReadDir(filepath.Join(top, "sys/a"))
		if len(names) != 1 {
			t.Errorf("openat2 %v: left in the directory: %v", kernel, names)
		}
		d.Close()
	}
}
