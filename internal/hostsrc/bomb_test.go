package hostsrc

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// A decompression bomb (a small archive unpacking to more than the limit,
// here a member dbhost would skip anyway) is refused, in every format, and
// leaves nothing behind; under the limit the same archive is read.
func TestOpenSosreportUnpackLimit(t *testing.T) {
	old := sosMaxUnpacked
	t.Cleanup(func() { sosMaxUnpacked = old })
	ents := append(sosEntries(), entry{name: top + "var/log/huge", body: strings.Repeat("\x00", 1<<20)})
	for _, kind := range []string{"gz", "xz", "tar"} {
		tmp := isolateTemp(t)
		p := writeArchive(t, "sos.tar."+kind, compress(t, kind, tarBytes(t, ents)))
		sosMaxUnpacked = 512 << 10
		_, cleanup, err := OpenSosreport(p)
		cleanup()
		inputError(t, err, p, "unpacks to more than 512 KiB", "docs/limits.md")
		assertEmptyDir(t, tmp)
		sosMaxUnpacked = 4 << 20
		dir, cleanup, err := OpenSosreport(p)
		if err != nil {
			t.Fatalf("%s under the limit: %v", kind, err)
		}
		checkTree(t, dir)
		cleanup()
	}
}

// An .xz archive asking for a 4 GiB dictionary is refused before the
// decoder allocates it; one asking for 1 MiB is read.
func TestOpenSosreportXZDictionary(t *testing.T) {
	tarball := tarBytes(t, sosEntries())
	for code, ok := range map[byte]bool{40: false, 16: true} {
		tmp := isolateTemp(t)
		p := writeArchive(t, "sos.tar.xz", buildXZ(code, tarball))
		dir, cleanup, err := OpenSosreport(p)
		if ok {
			if err != nil {
				t.Fatalf("dictionary code %d: %v", code, err)
			}
			checkTree(t, dir)
		} else {
			inputError(t, err, p, "4.0 GiB dictionary", "limit of 256 MiB")
		}
		cleanup()
		assertEmptyDir(t, tmp)
	}
}

// The files one --snapshot glob names are bounded in number; each is read
// one at a time, and one over its own size limit is refused before it is read.
func TestSnapshotGlobLimit(t *testing.T) {
	dir := t.TempDir()
	one := &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion, Sysctl: map[string]string{}, Absent: []snapshot.Absence{}, Processes: []snapshot.Process{}}
	b, err := snapshot.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"c", "a", "b"} {
		os.WriteFile(filepath.Join(dir, n+".json"), b, 0o644)
	}
	old := snapshotFiles
	t.Cleanup(func() { snapshotFiles = old })
	snapshotFiles = 3
	var read []string
	err = Each(Spec{Snapshot: filepath.Join(dir, "*.json")}, func(_ *snapshot.Snapshot, f string) error {
		read = append(read, filepath.Base(f))
		return nil
	})
	if err != nil || strings.Join(read, " ") != "a.json b.json c.json" {
		t.Fatalf("at the limit: read %v, %v", read, err)
	}
	snapshotFiles = 2
	_, err = Count(Spec{Snapshot: filepath.Join(dir, "*.json")})
	inputError(t, err, "3 files match, more than 2", "the limit for one --snapshot glob")
	// One reads one host only, and says so before reading any.
	snapshotFiles = old
	_, err = One(Spec{Snapshot: filepath.Join(dir, "*.json")}, "collect")
	inputError(t, err, "collect reads one host; 3 snapshots matched")
	if s, err := One(Spec{Snapshot: filepath.Join(dir, "a.json")}, "collect"); err != nil || s == nil {
		t.Fatalf("one file: %v", err)
	}
	// An error of fn stops the walk.
	n := 0
	stop := errors.New("stop")
	if err := Each(Spec{Snapshot: filepath.Join(dir, "*.json")}, func(*snapshot.Snapshot, string) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("fn's error: %v after %d", err, n)
	}
	// One snapshot over its own limit is refused by its size, before it is read.
	big := filepath.Join(t.TempDir(), "big.json")
	os.WriteFile(big, append(b, bytes.Repeat([]byte(" "), 65<<20)...), 0o644)
	_, err = One(Spec{Snapshot: big}, "audit")
	inputError(t, err, big, "65.0 MiB", "the limit for a snapshot (64 MiB")
}
