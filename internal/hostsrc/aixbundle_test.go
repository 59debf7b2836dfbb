package hostsrc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

var aix72 = filepath.Join("..", "facts", "aix", "testdata", "bundles", "aix72")

// tarEntry is one entry of a test archive.
type tarEntry struct {
	name, body, link string
	typ              byte
}

func writeTarGz(t *testing.T, path string, entries []tarEntry, compress bool) {
	t.Helper()
	var buf bytes.Buffer
	var w = &buf
	var gz *gzip.Writer
	tw := (*tar.Writer)(nil)
	if compress {
		gz = gzip.NewWriter(w)
		tw = tar.NewWriter(gz)
	} else {
		tw = tar.NewWriter(w)
	}
	for _, e := range entries {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Size: int64(len(e.body)), Linkname: e.link}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	if gz != nil {
		gz.Close()
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// dirEntries turns a bundle directory into archive entries under top/.
func dirEntries(t *testing.T, dir, top string) []tarEntry {
	var out []tarEntry
	if top != "" {
		out = append(out, tarEntry{name: top + "/", typ: tar.TypeDir})
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out = append(out, tarEntry{name: filepath.ToSlash(filepath.Join(top, rel)), body: string(b)})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func collectAIX(t *testing.T, p string) (*snapshot.Snapshot, error) {
	t.Helper()
	return One(Spec{AIXBundle: p, Version: "test"}, "collect")
}

func marshalNoPath(t *testing.T, s *snapshot.Snapshot) string {
	t.Helper()
	s.Source.Path = ""
	b, err := snapshot.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A directory, a .tar.gz with the bundle's directory at its top, a .tar
// without one, and a directory holding the unpacked bundle's directory
// give the same snapshot.
func TestAIXBundleForms(t *testing.T) {
	want, err := collectAIX(t, aix72)
	if err != nil {
		t.Fatal(err)
	}
	if want.AIX == nil || want.AIX.LPAR == nil || want.Source.Kind != "aix-bundle" {
		t.Fatalf("%+v", want.AIX)
	}
	w := marshalNoPath(t, want)
	tmp := t.TempDir()
	writeTarGz(t, filepath.Join(tmp, "db1.tar.gz"), dirEntries(t, aix72, "db1.aixbundle"), true)
	writeTarGz(t, filepath.Join(tmp, "db1.tar"), dirEntries(t, aix72, ""), false)
	up := filepath.Join(tmp, "unpacked")
	os.MkdirAll(up, 0o755)
	if err := os.Symlink(mustAbs(t, aix72), filepath.Join(up, "db1.aixbundle")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(tmp, "db1.tar.gz"), filepath.Join(tmp, "db1.tar")} {
		s, err := collectAIX(t, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if got := marshalNoPath(t, s); got != w {
			t.Errorf("%s differs from the directory's snapshot", p)
		}
	}
	// A link to a directory is not the bundle's directory (links are not followed out of the tree).
	if _, err := collectAIX(t, up); err == nil || !strings.Contains(err.Error(), "not an AIX bundle") {
		t.Errorf("a link to a bundle followed: %v", err)
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func inputErr(t *testing.T, err error, want string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v; want an InputError with %q", err, want)
	}
}

// Entries that leave the bundle are refused; links and devices are not read.
func TestAIXBundleArchiveRefusals(t *testing.T) {
	tmp := t.TempDir()
	esc := filepath.Join(tmp, "esc.tar.gz")
	writeTarGz(t, esc, []tarEntry{{name: "meta", body: "format: dbhost-aix-bundle 1\n"}, {name: "commands/../../etc/passwd", body: "x"}}, true)
	_, err := collectAIX(t, esc)
	inputErr(t, err, `".." in name`)
	abs := filepath.Join(tmp, "abs.tar.gz")
	writeTarGz(t, abs, []tarEntry{{name: "/commands/ps_-ef", body: "x"}}, true)
	_, err = collectAIX(t, abs)
	inputErr(t, err, "absolute name")
	link := filepath.Join(tmp, "link.tar.gz")
	writeTarGz(t, link, []tarEntry{{name: "meta", body: "format: dbhost-aix-bundle 1\n"}, {name: "commands/lparstat_-i", typ: tar.TypeSymlink, link: "/etc/shadow"},
		{name: "commands/oslevel_-s", body: "7100-05-06-2015\n"}}, true)
	s, err := collectAIX(t, link)
	if err != nil {
		t.Fatal(err)
	}
	if s.AIX.LPAR != nil || !hasAbsence(s, "aix.lpar", "refused: not a regular file") || s.AIX.OSLevel == nil {
		t.Errorf("lpar %+v, absent %v", s.AIX.LPAR, s.Absent)
	}
	notBundle := filepath.Join(tmp, "other.tar.gz")
	writeTarGz(t, notBundle, []tarEntry{{name: "etc/hosts", body: "127.0.0.1 localhost\n"}}, true)
	_, err = collectAIX(t, notBundle)
	inputErr(t, err, "archive holds no AIX bundle")
	junk := filepath.Join(tmp, "junk.bin")
	os.WriteFile(junk, []byte("just some text, not an archive\n"), 0o644)
	_, err = collectAIX(t, junk)
	inputErr(t, err, "not a readable archive")
	trunc := filepath.Join(tmp, "trunc.tar.gz")
	writeTarGz(t, trunc, dirEntries(t, aix72, ""), true)
	b, _ := os.ReadFile(trunc)
	os.WriteFile(trunc, b[:len(b)/2], 0o644)
	_, err = collectAIX(t, trunc)
	inputErr(t, err, "corrupt or truncated gzip archive")
	_, err = collectAIX(t, " ")
	inputErr(t, err, "empty path")
	_, err = collectAIX(t, filepath.Join(tmp, "nonexistent"))
	inputErr(t, err, "cannot open --aix-bundle")
	_, err = One(Spec{AIXBundle: aix72, Root: tmp}, "collect")
	inputErr(t, err, "use only one of")
}

func hasAbsence(s *snapshot.Snapshot, fact, reason string) bool {
	for _, a := range s.Absent {
		if a.Fact == fact && strings.Contains(a.Reason, reason) {
			return true
		}
	}
	return false
}

// The limits: an oversized output is not read (its fact absent with the
// limit), a bundle over the total or a decompression bomb is exit 2.
func TestAIXBundleLimits(t *testing.T) {
	tmp := t.TempDir()
	arch := filepath.Join(tmp, "b.tar.gz")
	big := strings.Repeat("        16777216 memory pages\n", 4000)
	writeTarGz(t, arch, []tarEntry{{name: "meta", body: "format: dbhost-aix-bundle 1\n"}, {name: "commands/vmstat_-v", body: big},
		{name: "commands/oslevel_-s", body: "7300-01-01-2246\n"}}, true)
	defer func(f, tot, unp int64) { aixMaxFile, aixMaxTotal, aixMaxUnpacked = f, tot, unp }(aixMaxFile, aixMaxTotal, aixMaxUnpacked)
	aixMaxFile = 64 << 10
	s, err := collectAIX(t, arch)
	if err != nil || s.AIX.VmstatV != nil || !hasAbsence(s, "aix.vmstat_v", "refused: commands/vmstat_-v is larger than the limit of 64 KiB") {
		t.Errorf("%v %v", err, s.Absent)
	}
	aixMaxFile, aixMaxTotal = 64<<20, 64<<10
	_, err = collectAIX(t, arch)
	inputErr(t, err, "more than 64 KiB of command output")
	aixMaxTotal, aixMaxUnpacked = 256<<20, 32<<10
	_, err = collectAIX(t, arch)
	inputErr(t, err, "a decompression bomb")
	// The same limits for a directory.
	aixMaxUnpacked = 1 << 30
	dir := filepath.Join(tmp, "dir")
	os.MkdirAll(filepath.Join(dir, "commands"), 0o755)
	os.WriteFile(filepath.Join(dir, "meta"), []byte("format: dbhost-aix-bundle 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "commands", "vmstat_-v"), []byte(big), 0o644)
	aixMaxFile = 64 << 10
	s, err = collectAIX(t, dir)
	if err != nil || !hasAbsence(s, "aix.vmstat_v", "larger than the limit") {
		t.Errorf("%v %v", err, s.Absent)
	}
}
