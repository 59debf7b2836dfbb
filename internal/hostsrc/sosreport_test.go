package hostsrc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/ulikunitz/xz"
)

// entry is one archive member: a file (body), directory (dir), symlink
// (link) or hard link (hard).
type entry struct {
	name string
	body string
	dir  bool
	link string
	hard string
	mode int64
}

func tarBytes(t testing.TB, ents []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range ents {
		h := &tar.Header{Name: e.name, Mode: 0o644}
		if e.mode != 0 {
			h.Mode = e.mode
		}
		switch {
		case e.dir:
			h.Typeflag, h.Mode = tar.TypeDir, 0o755
		case e.link != "":
			h.Typeflag, h.Linkname = tar.TypeSymlink, e.link
		case e.hard != "":
			h.Typeflag, h.Linkname = tar.TypeLink, e.hard
		default:
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.WriteString(tw, e.body); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func compress(t *testing.T, kind string, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch kind {
	case "tar":
		return b
	case "gz":
		w := gzip.NewWriter(&buf)
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "xz":
		w, err := xz.NewWriter(&buf)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	case "bz2":
		bz, err := exec.LookPath("bzip2")
		if err != nil {
			t.Skip("bzip2 not installed (the Go standard library only decompresses bzip2)")
		}
		cmd := exec.Command(bz, "-c")
		cmd.Stdin = bytes.NewReader(b)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return out
	default:
		t.Fatalf("unknown kind %q", kind)
	}
	return buf.Bytes()
}

// isolateTemp points os.TempDir at a fresh directory and returns it, so that a
// test can check that extraction left nothing behind.
func isolateTemp(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	t.Setenv("TMPDIR", d)
	return d
}

func assertEmptyDir(t *testing.T, d string) {
	t.Helper()
	ents, err := os.ReadDir(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("temporary files left behind in %s: %v", d, names)
	}
}

const top = "sosreport-db1-2026-11-22-abcdef/"

func sosEntries() []entry {
	return []entry{
		{name: top, dir: true},
		{name: top + "proc/meminfo", body: "MemTotal: 1024 kB\n"},
		{name: top + "proc/sys/kernel/hostname", body: "db1\n"},
		{name: top + "sys/devices/system/node/node0/cpulist", body: "0-3\n"},
		{name: top + "sys/devices/pci0000:00/0000:00:1f.2/block/sda/queue/scheduler", body: "[mq-deadline] none\n", mode: 0o200},
		{name: top + "sys/block/sda", link: "../devices/pci0000:00/0000:00:1f.2/block/sda"},
		{name: top + "sys/class/net/eth0/device/driver", link: "../../../../bus/pci/drivers/e1000"},
		{name: top + "sos_commands/kernel/sysctl_-a", body: "vm.swappiness = 10\n"},
		{name: top + "sos_commands/host/hostname", body: "db1.example.com\n"},
		{name: top + "hostname", link: "sos_commands/host/hostname"},
		{name: top + "uname", body: "Linux db1 5.14.0-362.el9.x86_64 #1 SMP x86_64 GNU/Linux\n"},
		{name: top + "etc/localtime", link: "/usr/share/zoneinfo/UTC"},
		{name: top + "etc/os-release-hard", hard: top + "uname"},
		{name: top + "usr/lib/sysctl.d/50-default.conf", body: "kernel.sysrq = 16\n"},
		{name: top + "usr/lib/os-release", body: "ID=rhel\n"},
		{name: top + "lib", link: "usr/lib"},
		{name: top + "usr/share/doc/big.txt", body: "doc\n"},
		{name: top + "var/log/messages", body: strings.Repeat("log line\n", 1000)},
		{name: top + "sos_logs/sos.log", body: "x"},
		// Links that would leave the tree: dropped, the rest of the archive kept.
		{name: top + "sys/evil", link: "../../../../etc/passwd"},
		{name: top + "sys/a/b/y", link: "../.."},
		{name: top + "sys/a/b/x", link: "y/../../../etc/passwd"},
		{name: top + "sys/d", link: "../etc"},
		{name: top + "sys/d/x/e", link: "../../../proc"}, // lexically inside; really outside (sys/d is a link)
	}
}

func TestOpenSosreportArchives(t *testing.T) {
	raw := tarBytes(t, sosEntries())
	for _, kind := range []string{"xz", "gz", "tgz", "bz2", "tar"} {
		t.Run(kind, func(t *testing.T) {
			tmp := isolateTemp(t)
			c := kind
			if c == "tgz" {
				c = "gz"
			}
			arch := filepath.Join(t.TempDir(), "sosreport-db1."+kind)
			if err := os.WriteFile(arch, compress(t, c, raw), 0o644); err != nil {
				t.Fatal(err)
			}
			dir, cleanup, err := OpenSosreport(arch)
			if err != nil {
				t.Fatalf("OpenSosreport: %v", err)
			}
			checkTree(t, dir)
			cleanup()
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("cleanup left %s (stat: %v)", dir, err)
			}
			assertEmptyDir(t, tmp)
		})
	}
}

func checkTree(t *testing.T, dir string) {
	t.Helper()
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		return string(b)
	}
	if got := read("proc/meminfo"); got != "MemTotal: 1024 kB\n" {
		t.Errorf("proc/meminfo = %q", got)
	}
	if got := read("sos_commands/kernel/sysctl_-a"); got != "vm.swappiness = 10\n" {
		t.Errorf("sysctl_-a = %q", got)
	}
	// Top-level symlink into sos_commands is kept and followed.
	if got := read("hostname"); got != "db1.example.com\n" {
		t.Errorf("hostname = %q", got)
	}
	if got := read("uname"); !strings.HasPrefix(got, "Linux db1 5.14") {
		t.Errorf("uname = %q", got)
	}
	// sysfs symlink inside the tree; a write-only mode in the archive is not kept.
	if got := read("sys/block/sda/queue/scheduler"); got != "[mq-deadline] none\n" {
		t.Errorf("scheduler through sys/block/sda = %q", got)
	}
	// A dangling link inside the tree is kept (readers take its base name).
	if l, err := os.Readlink(filepath.Join(dir, "sys/class/net/eth0/device/driver")); err != nil || filepath.Base(l) != "e1000" {
		t.Errorf("driver link = %q, %v", l, err)
	}
	// Absolute targets are re-rooted in the tree.
	if l, err := os.Readlink(filepath.Join(dir, "etc/localtime")); err != nil || l != "../usr/share/zoneinfo/UTC" {
		t.Errorf("etc/localtime -> %q, %v; want ../usr/share/zoneinfo/UTC", l, err)
	}
	if got := read("etc/os-release-hard"); !strings.HasPrefix(got, "Linux db1") {
		t.Errorf("hard link = %q", got)
	}
	// Other parts the readers use, also through the merged-/usr lib link.
	if got := read("lib/sysctl.d/50-default.conf"); got != "kernel.sysrq = 16\n" {
		t.Errorf("lib/sysctl.d/50-default.conf = %q", got)
	}
	if got := read("usr/lib/os-release"); got != "ID=rhel\n" {
		t.Errorf("usr/lib/os-release = %q", got)
	}
	for _, p := range []string{"var", "usr/share", "sos_logs", "sys/evil", "sys/a/b/x", "sys/d/x/e", "etc/x/e"} {
		if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was extracted; it should have been skipped", p)
		}
	}
	// Every symlink left resolves inside the tree (or nowhere).
	realDir, _ := filepath.EvalSymlinks(dir)
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if r, err := filepath.EvalSymlinks(p); err == nil && !strings.HasPrefix(r, realDir+string(filepath.Separator)) && r != realDir {
				t.Errorf("symlink %s resolves outside the tree: %s", p, r)
			}
		}
		return nil
	})
}

func inputError(t *testing.T, err error, wants ...string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T) is not an *InputError (exit 2)", err, err)
	}
	for _, w := range wants {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

func writeArchive(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOpenSosreportRefusesTraversal(t *testing.T) {
	for _, name := range []string{top + "../../evil", "/etc/passwd", top + "proc/../../x"} {
		t.Run(name, func(t *testing.T) {
			tmp := isolateTemp(t)
			ents := append(sosEntries()[:3], entry{name: name, body: "pwned"})
			p := writeArchive(t, "sos.tar.xz", compress(t, "xz", tarBytes(t, ents)))
			_, cleanup, err := OpenSosreport(p)
			cleanup()
			inputError(t, err, p, "refusing archive entry")
			assertEmptyDir(t, tmp)
		})
	}
}

func TestOpenSosreportBadInput(t *testing.T) {
	good := compress(t, "xz", tarBytes(t, sosEntries()))
	notSos := tarBytes(t, []entry{{name: "photos/cat.jpg", body: "meow"}, {name: "README", body: "hi"}})
	cases := []struct {
		name  string
		data  []byte
		wants []string
	}{
		{"garbage.tar.xz", []byte("this is not an archive at all, just text\n"), []string{"not a readable archive", "expected a sosreport archive"}},
		{"empty.tar.gz", nil, []string{"not a readable archive"}},
		{"truncated.tar.xz", good[:len(good)/2], []string{"corrupt or truncated xz archive"}},
		{"truncated.tar", tarBytes(t, sosEntries())[:5000+100], []string{"corrupt or truncated tar archive: unexpected EOF"}}, // mid-header
		{"truncated2.tar", tarBytes(t, sosEntries())[:1024+6], []string{"corrupt or truncated tar archive: unexpected EOF"}},  // mid-file
		{"badgz.tgz", append([]byte{0x1f, 0x8b}, bytes.Repeat([]byte{7}, 100)...), []string{"expected a sosreport archive"}},
		{"zstd.tar.zst", append([]byte{0x28, 0xb5, 0x2f, 0xfd}, bytes.Repeat([]byte{0}, 600)...), []string{"zstd"}},
		{"sos.tar.xz.gpg", append([]byte{0x8c, 0x0d, 0x04, 0x09, 0x03, 0x08}, bytes.Repeat([]byte{1}, 300)...), []string{"GPG-encrypted", "gpg -d"}},
		{"photos.tar.gz", compress(t, "gz", notSos), []string{"holds no sosreport"}},
		{"emptytar.tar", tarBytes(t, nil), []string{"not a readable archive"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tmp := isolateTemp(t)
			p := writeArchive(t, tc.name, tc.data)
			dir, cleanup, err := OpenSosreport(p)
			if err == nil {
				cleanup()
				t.Fatalf("OpenSosreport(%s) = %s, want an error", tc.name, dir)
			}
			cleanup()
			inputError(t, err, append([]string{p}, tc.wants...)...)
			assertEmptyDir(t, tmp)
		})
	}
	t.Run("missing", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "nope.tar.xz")
		_, cleanup, err := OpenSosreport(p)
		cleanup()
		inputError(t, err, p, "no such file", "expected a sosreport archive")
	})
}

func TestOpenSosreportSizeCaps(t *testing.T) {
	oldTotal, oldFile := sosMaxTotal, sosMaxFile
	t.Cleanup(func() { sosMaxTotal, sosMaxFile = oldTotal, oldFile })

	big := strings.Repeat("x", 4096)
	ents := append(sosEntries(), entry{name: top + "sos_commands/logs/journalctl_--no-pager", body: big})

	// A file over the per-file cap is skipped, the rest extracted.
	sosMaxFile = 1024
	tmp := isolateTemp(t)
	p := writeArchive(t, "sos.tar.gz", compress(t, "gz", tarBytes(t, ents)))
	dir, cleanup, err := OpenSosreport(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sos_commands/logs/journalctl_--no-pager")); err == nil {
		t.Error("file over sosMaxFile was extracted")
	}
	checkTree(t, dir)
	cleanup()
	assertEmptyDir(t, tmp)

	// Over the entry cap: refused.
	oldEntries := sosMaxEntries
	t.Cleanup(func() { sosMaxEntries = oldEntries })
	sosMaxEntries = 5
	_, cleanup, err = OpenSosreport(p)
	cleanup()
	inputError(t, err, p, "more than 5 entries")
	assertEmptyDir(t, tmp)
	sosMaxEntries = oldEntries

	// Over the total cap: refused, nothing left behind.
	sosMaxFile, sosMaxTotal = 1<<20, 2048
	_, cleanup, err = OpenSosreport(p)
	cleanup()
	inputError(t, err, p, "refusing to unpack")
	assertEmptyDir(t, tmp)
}

func mkTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenSosreportDirectory(t *testing.T) {
	parent := t.TempDir()
	rep := filepath.Join(parent, "sosreport-db1-2026")
	mkTree(t, rep, map[string]string{"sos_commands/kernel/sysctl_-a": "vm.swappiness = 10\n", "proc/meminfo": "MemTotal: 1 kB\n"})
	mkTree(t, parent, map[string]string{"notes.txt": "x", "other/file": "y"})

	for _, p := range []string{rep, parent} {
		dir, cleanup, err := OpenSosreport(p)
		if err != nil {
			t.Fatalf("OpenSosreport(%s): %v", p, err)
		}
		if dir != rep {
			t.Errorf("OpenSosreport(%s) = %s, want %s", p, dir, rep)
		}
		cleanup()
		if _, err := os.Stat(filepath.Join(rep, "proc/meminfo")); err != nil {
			t.Errorf("cleanup of a directory input removed the user's files: %v", err)
		}
	}

	// Two reports in the parent: ambiguous.
	mkTree(t, filepath.Join(parent, "sosreport-db2-2026"), map[string]string{"sos_commands/x": "1"})
	_, _, err := OpenSosreport(parent)
	inputError(t, err, parent, "2 sosreport directories", "sosreport-db1-2026", "sosreport-db2-2026")

	// A directory that is not a report at all.
	plain := t.TempDir()
	mkTree(t, plain, map[string]string{"etc/hostname": "x"})
	_, _, err = OpenSosreport(plain)
	inputError(t, err, plain, "not an unpacked sosreport", "--root")

	// A sosreport-* directory with nothing of a report inside.
	hollowParent := t.TempDir()
	mkTree(t, filepath.Join(hollowParent, "sosreport-x"), map[string]string{"README": "x"})
	_, _, err = OpenSosreport(hollowParent)
	inputError(t, err, "sosreport-x", "not an unpacked sosreport")
}

// An archive without the sosreport-*/ top directory (tar -C report .) works too.
func TestOpenSosreportNoTopDir(t *testing.T) {
	isolateTemp(t)
	var ents []entry
	for _, e := range sosEntries() {
		if e.name == top {
			continue
		}
		e.name = "./" + strings.TrimPrefix(e.name, top)
		if e.hard != "" {
			e.hard = "./" + strings.TrimPrefix(e.hard, top)
		}
		ents = append(ents, e)
	}
	p := writeArchive(t, "flat.tar", tarBytes(t, ents))
	dir, cleanup, err := OpenSosreport(p)
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	checkTree(t, dir)
}

func TestSymlinkTarget(t *testing.T) {
	cases := []struct {
		link, target, want string
		ok                 bool
	}{
		{"sys/block/sda", "../devices/pci/sda", "../devices/pci/sda", true},
		{"hostname", "sos_commands/host/hostname", "sos_commands/host/hostname", true},
		{"sys/block/sda", "/sys/devices/pci/sda", "../../sys/devices/pci/sda", true},
		{"sys/block/sda", "../../../etc/passwd", "", false},
		{"sys/block/sda", "../..", "", false}, // the tree root itself
		{"sys/a/x", "y/../../etc", "", false},
		{"sys/a/x", "/../../etc", "", false},
		{"sys/a/x", "", "", false},
		{"sys/a/x", "./b/./c/", "b/c", true},
	}
	for _, tc := range cases {
		got, ok := symlinkTarget(strings.Split(tc.link, "/"), tc.target)
		if got != tc.want || ok != tc.ok {
			t.Errorf("symlinkTarget(%q, %q) = %q, %v; want %q, %v", tc.link, tc.target, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLoadSosreport(t *testing.T) {
	tmp := isolateTemp(t)
	p := writeArchive(t, "sosreport-db1.tar.xz", compress(t, "xz", tarBytes(t, sosEntries())))
	s, err := One(Spec{Sosreport: p, Version: "test"}, "collect")
	if err != nil {
		t.Fatal(err)
	}
	if s.Source.Kind != "sosreport" || s.Source.Path != p {
		t.Errorf("source = %+v", s.Source)
	}
	if s.Host.Hostname != "db1" {
		t.Errorf("hostname = %q, want db1 (from proc/sys/kernel/hostname)", s.Host.Hostname)
	}
	assertEmptyDir(t, tmp)
}

func FuzzEntryParts(f *testing.F) {
	for _, s := range []string{top + "proc/meminfo", "./sys/block/sda", "/etc/passwd", "a/../../b", "a//b/./c/", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		parts, err := entryParts(name)
		if err != nil {
			return
		}
		for _, p := range parts {
			if p == "" || p == "." || p == ".." || strings.Contains(p, "/") {
				t.Fatalf("entryParts(%q) = %q", name, parts)
			}
		}
	})
}

// FuzzSymlinkTarget: an accepted target, resolved lexically from the link's
// directory, never leaves the tree and never is the tree itself.
func FuzzSymlinkTarget(f *testing.F) {
	for _, c := range [][2]string{
		{"sys/block/sda", "../devices/pci/sda"}, {"hostname", "sos_commands/host/hostname"},
		{"sys/block/sda", "/sys/devices/x"}, {"sys/a/x", "y/../../etc"}, {"a", "../../.."},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, link, target string) {
		parts, err := entryParts(link)
		if err != nil || len(parts) == 0 {
			return
		}
		rel, ok := symlinkTarget(parts, target)
		if !ok {
			return
		}
		if strings.HasPrefix(rel, "/") {
			t.Fatalf("absolute result %q", rel)
		}
		full := path.Join(append([]string{"/tree"}, parts[:len(parts)-1]...)...)
		res := path.Join(full, rel)
		if !strings.HasPrefix(res, "/tree/") {
			t.Fatalf("symlinkTarget(%q, %q) = %q resolves to %q, outside /tree", link, target, rel, res)
		}
	})
}

// FuzzOpenSosreport feeds arbitrary archive bytes (seeded with real small
// archives): no panic, an InputError or a tree whose symlinks stay inside,
// and nothing left in the temporary directory either way.
func FuzzOpenSosreport(f *testing.F) {
	raw := tarBytes(f, sosEntries()[:12])
	f.Add(raw)
	f.Add(tarBytes(f, []entry{{name: top + "sys/x", link: "../../.."}, {name: top + "sys/y", body: "1"}}))
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(raw)
	w.Close()
	f.Add(gz.Bytes())
	tmp := f.TempDir()
	// Small caps keep each run fast (a few mutated header bytes can ask for
	// the full caps of zeros); the cap logic is the same.
	oldTotal, oldFile := sosMaxTotal, sosMaxFile
	sosMaxTotal, sosMaxFile = 4<<20, 1<<20
	f.Cleanup(func() { sosMaxTotal, sosMaxFile = oldTotal, oldFile })
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := os.MkdirTemp(tmp, "case")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(d)
		p := filepath.Join(d, "in.tar")
		os.WriteFile(p, data, 0o644)
		t.Setenv("TMPDIR", d)
		dir, cleanup, err := OpenSosreport(p)
		if err != nil {
			cleanup()
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an InputError", err, err)
			}
		} else {
			realDir, _ := filepath.EvalSymlinks(dir)
			filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err == nil && fi.Mode()&os.ModeSymlink != 0 {
					if r, err := filepath.EvalSymlinks(p); err == nil && r != realDir && !strings.HasPrefix(r, realDir+"/") {
						t.Fatalf("symlink %s resolves outside the tree: %s", p, r)
					}
				}
				return nil
			})
			cleanup()
		}
		ents, _ := os.ReadDir(d)
		if len(ents) != 1 { // only in.tar
			t.Fatalf("left behind: %v", ents)
		}
	})
}

// The same report read as an archive and as its unpacked directory gives the
// same snapshot (apart from the source path).
func TestSosreportArchiveEqualsDirectory(t *testing.T) {
	isolateTemp(t)
	ents := sosEntries()
	p := writeArchive(t, "sosreport-db1.tar.xz", compress(t, "xz", tarBytes(t, ents)))

	// Unpack it "by hand" (as tar would, keeping only the safe entries).
	parent := t.TempDir()
	for _, e := range ents {
		full := filepath.Join(parent, e.name)
		switch {
		case e.dir:
			os.MkdirAll(full, 0o755)
		case e.link != "" || e.hard != "":
			// links are recreated below from the archive's own extraction
		default:
			os.MkdirAll(filepath.Dir(full), 0o755)
			os.WriteFile(full, []byte(e.body), 0o644)
		}
	}
	safe := map[string]bool{"hostname": true, "sys/block/sda": true, "sys/class/net/eth0/device/driver": true, "lib": true}
	for _, e := range ents {
		if name := strings.TrimPrefix(e.name, top); e.link != "" && safe[name] {
			full := filepath.Join(parent, e.name)
			os.MkdirAll(filepath.Dir(full), 0o755)
			if err := os.Symlink(e.link, full); err != nil {
				t.Fatal(err)
			}
		}
	}

	a, err := One(Spec{Sosreport: p, Version: "test"}, "collect")
	if err != nil {
		t.Fatal(err)
	}
	b, err := One(Spec{Sosreport: parent, Version: "test"}, "collect")
	if err != nil {
		t.Fatal(err)
	}
	a.Source.Path, b.Source.Path = "", ""
	b.CollectedAt = a.CollectedAt
	ja, _ := snapshot.Marshal(a)
	jb, _ := snapshot.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("archive and directory snapshots differ:\n%s\n---\n%s", ja, jb)
	}
}

func TestParseDateUTC(t *testing.T) {
	want := time.Date(2026, 11, 22, 6, 13, 59, 0, time.UTC)
	for in, ok := range map[string]bool{
		"Sun Nov 22 06:13:59 UTC 2026\n":        true,
		"Sun Nov 22 06:13:59 UTC 2026":          true,
		"Sun Nov 22 01:13:59 EST 2026\n":        false, // ambiguous zone names are refused
		"Sun Nov 22 06:13:59 2026\n":            false,
		"":                                      false,
		"date: invalid option -- 'x'\n":         false,
		"Sun Nov 22 06:13:59 UTC 2026\nextra\n": true,
	} {
		got, gotOK := parseDateUTC(in)
		if gotOK != ok || (ok && !got.Equal(want)) {
			t.Errorf("parseDateUTC(%q) = %v, %v; want ok=%v", in, got, gotOK, ok)
		}
	}
	if got, ok := parseDateUTC("Sun Nov  2 06:13:59 UTC 2026"); !ok || got.Day() != 2 {
		t.Errorf("space-padded day: %v %v", got, ok)
	}
}

// A snapshot of a sosreport is dated by the report's `date --utc`, not by
// when dbhost read it.
func TestLoadSosreportCollectedAt(t *testing.T) {
	isolateTemp(t)
	ents := append(sosEntries(), entry{name: top + "sos_commands/date/date_--utc", body: "Sun Nov 22 06:13:59 UTC 2026\n"})
	p := writeArchive(t, "sos.tar.gz", compress(t, "gz", tarBytes(t, ents)))
	s, err := One(Spec{Sosreport: p}, "collect")
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2026, 11, 22, 6, 13, 59, 0, time.UTC); !s.CollectedAt.Equal(want) {
		t.Errorf("collected_at = %v, want %v", s.CollectedAt, want)
	}
	// Without it, collected_at is the time of reading (not asserted: only that it is set).
	p = writeArchive(t, "sos2.tar.gz", compress(t, "gz", tarBytes(t, sosEntries())))
	if s, err = One(Spec{Sosreport: p}, "collect"); err != nil || s.CollectedAt.IsZero() {
		t.Errorf("collected_at = %v, %v", s.CollectedAt, err)
	}
}

// FuzzParseDateUTC: date(1)'s output in the C locale and UTC ("%a %b %e
// %H:%M:%S %Z %Y") for the second the fuzzer chose (years 1970-9999) parses
// back to that second; the same clock time in another zone is refused (its
// abbreviation is ambiguous).
func FuzzParseDateUTC(f *testing.F) {
	f.Add("Sun Nov 22 06:13:59 UTC 2026\n", int64(1795328039))
	f.Add("Sun Nov  2 06:13:59 EST 2026", int64(0))
	f.Fuzz(func(t *testing.T, s string, sec int64) {
		if got, ok := parseDateUTC(s); ok && got.Location() != time.UTC {
			t.Fatalf("parseDateUTC(%q) = %v not in UTC", s, got)
		}
		const max = 253402300799 // 9999-12-31 23:59:59
		if sec < 0 {
			sec = -(sec + 1)
		}
		want := time.Unix(sec%(max+1), 0).UTC()
		out := want.Format("Mon Jan _2 15:04:05 UTC 2006")
		for _, text := range []string{out + "\n", out, "  " + out + "\r\n"} {
			if got, ok := parseDateUTC(text); !ok || !got.Equal(want) || got.Location() != time.UTC {
				t.Fatalf("parseDateUTC(%q) = %v %v, want %v", text, got, ok, want)
			}
		}
		for _, zone := range []string{"EST", "CET", "IST"} {
			if got, ok := parseDateUTC(strings.Replace(out, "UTC", zone, 1)); ok {
				t.Fatalf("zone %s accepted: %v", zone, got)
			}
		}
	})
}
