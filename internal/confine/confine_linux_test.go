package confine

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// both runs f with openat2 (when this kernel has it) and with the os.Root
// fallback that older kernels take.
func both(t *testing.T, f func(t *testing.T, kernel bool)) {
	t.Run("openat2", func(t *testing.T) {
		if runtime.GOOS != "linux" || !haveOpenat2() {
			t.Skip("no openat2 on this kernel")
		}
		f(t, true)
	})
	t.Run("os.Root", func(t *testing.T) {
		old := noOpenat2
		noOpenat2 = true
		defer func() { noOpenat2 = old }()
		f(t, false)
	})
}

// tree makes a host tree with links in and out of it, and a file outside.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "tree")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{"etc", "proc/sys/vm", "sys/devices/system/node/node0", "sys/devices/system/cpu/cpu0", outside} {
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, d)
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "etc/hostname"), "treehost\n")
	write(filepath.Join(root, "sys/devices/system/node/node0/cpulist"), "0-3\n")
	write(filepath.Join(outside, "hostname"), "LIVEHOST\n")
	write(filepath.Join(outside, "swappiness"), "60\n")
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	// A sysfs-style relative link that stays inside.
	link("../../node/node0", "sys/devices/system/cpu/cpu0/node0")
	// Links that point out: absolute, relative climbing out, to a directory.
	link(filepath.Join(outside, "swappiness"), "proc/sys/vm/swappiness")
	link("../../../../outside/hostname", "proc/sys/kernel_hostname")
	link(outside, "etc/outdir")
	link("/etc/hostname", "etc/abs_hostname")
	return root, outside
}

// open opens dir as a confinement root, closed when the test ends.
func open(t *testing.T, dir string, mode Mode) *Dir {
	t.Helper()
	d, err := Open(dir, mode)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

func TestInRootReads(t *testing.T) {
	both(t, func(t *testing.T, kernel bool) {
		root, _ := tree(t)
		d := open(t, root, InRoot)
		if d.Kernel() != kernel {
			t.Fatalf("Kernel() = %v", d.Kernel())
		}
		b, err := d.ReadFile("/sys/devices/system/cpu/cpu0/node0/cpulist", 0)
		if err != nil || string(b) != "0-3\n" {
			t.Fatalf("a relative sysfs link inside the tree: %q %v", b, err)
		}
		b, err = d.ReadFile("/etc/hostname", 0)
		if err != nil || string(b) != "treehost\n" {
			t.Fatalf("plain file: %q %v", b, err)
		}
		for _, p := range []string{"/proc/sys/vm/swappiness", "/proc/sys/kernel_hostname", "/etc/outdir/hostname", "/../../outside/hostname", "/etc/../../outside/hostname"} {
			b, err := d.ReadFile(p, 0)
			if err == nil && strings.Contains(string(b), "LIVEHOST") || string(b) == "60\n" {
				t.Errorf("%s read the file outside the tree: %q", p, b)
			}
			if err == nil {
				t.Errorf("%s: read %q, expected an error", p, b)
			}
		}
		// An absolute link means the tree's own root (openat2), or is refused (os.Root).
		b, err = d.ReadFile("/etc/abs_hostname", 0)
		if kernel && (err != nil || string(b) != "treehost\n") {
			t.Errorf("absolute link in the tree: %q %v, expected the tree's /etc/hostname", b, err)
		}
		if !kernel && err == nil {
			t.Errorf("os.Root followed an absolute link: %q", b)
		}
		if _, err := d.Stat("/etc/outdir"); err == nil {
			t.Error("Stat followed a link out of the tree")
		}
		if st, err := d.Lstat("/etc/outdir"); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("Lstat of the link itself: %v %v", st, err)
		}
		if tg, err := d.Readlink("/sys/devices/system/cpu/cpu0/node0"); err != nil || tg != "../../node/node0" {
			t.Errorf("Readlink = %q %v", tg, err)
		}
		if _, err := d.ReadDirNames("/etc/outdir"); err == nil {
			t.Error("ReadDirNames listed a directory outside the tree")
		}
		names, err := d.ReadDirNames("/etc")
		if err != nil || len(names) != 3 {
			t.Errorf("ReadDirNames(/etc) = %v %v", names, err)
		}
	})
}

func TestBeneathRefusesEscapes(t *testing.T) {
	both(t, func(t *testing.T, kernel bool) {
		root, _ := tree(t)
		d := open(t, filepath.Join(root, "proc/sys"), Beneath)
		for _, p := range []string{"vm/swappiness", "kernel_hostname", "../../etc/hostname", "/../etc/hostname"} {
			_, err := d.ReadFile(p, 0)
			if err == nil {
				t.Errorf("%s: read outside /proc/sys", p)
				continue
			}
			if !IsEscape(err) && !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("%s: %v, expected an escape error", p, err)
			}
		}
		if !IsEscape(func() error { _, err := d.ReadFile("../../etc/hostname", 0); return err }()) {
			t.Error("a .. path out of a Beneath directory is not reported as an escape")
		}
	})
}

func TestWritesStayInside(t *testing.T) {
	both(t, func(t *testing.T, kernel bool) {
		root, outside := tree(t)
		d := open(t, root, InRoot)
		if err := d.WriteExisting("/proc/sys/vm/swappiness", []byte("10\n")); err == nil {
			t.Error("WriteExisting through a link out of the tree succeeded")
		}
		if err := d.WriteFileAtomic("/etc/outdir/new.conf", []byte("x"), 0o644); err == nil {
			t.Error("WriteFileAtomic through a directory link out of the tree succeeded")
		}
		if err := d.Mkdir("/etc/outdir/newdir", 0o755); err == nil {
			t.Error("Mkdir through a link out of the tree succeeded")
		}
		if err := d.Remove("/etc/outdir/hostname"); err == nil {
			t.Error("Remove through a link out of the tree succeeded")
		}
		if b, _ := os.ReadFile(filepath.Join(outside, "swappiness")); string(b) != "60\n" {
			t.Errorf("the file outside the tree was changed: %q", b)
		}
		ents, _ := os.ReadDir(outside)
		if len(ents) != 2 {
			t.Errorf("the directory outside the tree holds %d entries, expected 2", len(ents))
		}
		// Inside, writes work: a new file in a new directory, atomically.
		if err := d.WriteFileAtomic("/etc/security/limits.d/90-dbhost.conf", []byte("a b c d\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(filepath.Join(root, "etc/security/limits.d/90-dbhost.conf")); err != nil || string(b) != "a b c d\n" {
			t.Fatalf("written file: %q %v", b, err)
		}
		if err := d.WriteExisting("/etc/hostname", []byte("x\n")); err != nil {
			t.Fatal(err)
		}
		if err := d.RemoveDurably("/etc/security/limits.d/90-dbhost.conf"); err != nil {
			t.Fatal(err)
		}
		if err := d.Mkdir("/sys/g", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := d.Remove("/sys/g"); err != nil {
			t.Fatal(err)
		}
		// Removing a link removes the link, never its target.
		if err := d.Remove("/proc/sys/vm/swappiness"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(outside, "swappiness")); err != nil {
			t.Errorf("removing the link removed its target: %v", err)
		}
	})
}

// A FIFO in a tree is refused at once, never waited on; writes to one too.
func TestFIFONeverBlocks(t *testing.T) {
	both(t, func(t *testing.T, kernel bool) {
		root := t.TempDir()
		if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
		d := open(t, root, InRoot)
		done := make(chan error, 2)
		go func() { _, err := d.ReadFile("/fifo", 0); done <- err }()
		go func() { done <- d.WriteExisting("/fifo", []byte("1")) }()
		for i := 0; i < 2; i++ {
			select {
			case err := <-done:
				if err == nil {
					t.Error("a FIFO was read or written as a file")
				}
			case <-time.After(20 * time.Second):
				t.Fatal("blocked on a FIFO")
			}
		}
	})
}

func TestReadFileLimit(t *testing.T) {
	both(t, func(t *testing.T, kernel bool) {
		root := t.TempDir()
		os.WriteFile(filepath.Join(root, "big"), make([]byte, 5000), 0o644)
		d := open(t, root, InRoot)
		_, err := d.ReadFile("big", 4096)
		var tb *TooBigError
		if !errors.As(err, &tb) || tb.Limit != 4096 || tb.Size != 5000 {
			t.Fatalf("ReadFile over the limit: %v", err)
		}
		if b, err := d.ReadFile("big", 5000); err != nil || len(b) != 5000 {
			t.Fatalf("ReadFile at the limit: %d %v", len(b), err)
		}
	})
}

func TestSubFallsBackOnEscape(t *testing.T) {
	both(t, func(t *testing.T, kernel bool) {
		root, _ := tree(t)
		d := open(t, root, InRoot)
		s, err := d.Sub("/sys/devices/system/cpu/cpu0")
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_, err = s.ReadFile("node0/cpulist", 0)
		if !IsEscape(err) {
			t.Fatalf("a link above the sub directory: %v, expected an escape (the caller resolves it from the top)", err)
		}
	})
}

func TestClosed(t *testing.T) {
	d, err := Open(t.TempDir(), InRoot)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if _, err := d.ReadFile("x", 0); !errors.Is(err, fs.ErrClosed) && !errors.Is(err, os.ErrClosed) {
		t.Fatalf("read after Close: %v", err)
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1 << 30: "1 GiB", 512 << 10: "512 KiB", 300_200_000: "286.3 MiB", 1<<32 - 1: "4.0 GiB", 12: "12 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
