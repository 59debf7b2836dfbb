package hostsrc

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// manyEntriesGz is a .tar.gz of ents followed by n copies of one empty
// member named name: built from one compressed block of 1,000 headers
// repeated (gzip members may be concatenated), so that half a million
// entries cost milliseconds to make and 256 MiB only to the reader.
func manyEntriesGz(t testing.TB, ents []entry, name string, typ byte, n int) []byte {
	t.Helper()
	gz := func(b []byte) []byte {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(b)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	head := tarBytes(t, ents)
	head = head[:len(head)-1024] // without the end-of-archive blocks
	var hb bytes.Buffer
	tw := tar.NewWriter(&hb)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: typ, Mode: 0o755}); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	const block = 1000
	chunk := gz(bytes.Repeat(hb.Bytes(), block))
	out := gz(head)
	for i := 0; i < n/block; i++ {
		out = append(out, chunk...)
	}
	out = append(out, gz(append(bytes.Repeat(hb.Bytes(), n%block), make([]byte, 1024)...))...)
	return out
}

// Every entry of an archive counts toward the entry bound, the parts dbhost
// skips too: a sosreport of half a million empty members under var/ is
// refused when the bound is passed, not listed to its end.
func TestOpenSosreportEntryBoundCountsSkipped(t *testing.T) {
	tmp := isolateTemp(t)
	n := sosMaxEntries + 1 - len(sosEntries())
	p := writeArchive(t, "sos.tar.gz", manyEntriesGz(t, sosEntries(), top+"var/log/empty", tar.TypeReg, n))
	_, cleanup, err := OpenSosreport(p)
	cleanup()
	inputError(t, err, p, "more than 500,000 entries")
	assertEmptyDir(t, tmp)

}

// Directories count toward the disk bound, sosDirBytes each: an archive of
// empty directories is refused when they would pass it, before they are
// made, and what was made is removed.
func TestOpenSosreportDirectoriesCounted(t *testing.T) {
	old := sosMaxTotal
	t.Cleanup(func() { sosMaxTotal = old })
	sosMaxTotal = 256 * 4096
	tmp := isolateTemp(t)
	ents := sosEntries()
	for i := range 300 {
		ents = append(ents, entry{name: fmt.Sprintf("%ssys/empty/%d", top, i), dir: true})
	}
	p := writeArchive(t, "sos.tar.gz", compress(t, "gz", tarBytes(t, ents)))
	_, cleanup, err := OpenSosreport(p)
	cleanup()
	inputError(t, err, p, "refusing to unpack", "4096 bytes per directory")
	assertEmptyDir(t, tmp)

	// A deep path is as many directories.
	sosMaxTotal = 64 * 4096
	deep := top + "sys/d"
	for range 100 {
		deep += "/a"
	}
	p = writeArchive(t, "sos.tar.gz", compress(t, "gz", tarBytes(t, append(sosEntries(), entry{name: deep + "/f", body: "x"}))))
	_, cleanup, err = OpenSosreport(p)
	cleanup()
	inputError(t, err, p, "refusing to unpack", "4096 bytes per directory")
	assertEmptyDir(t, tmp)

	// Under the bound: accepted, with the directories made.
	sosMaxTotal = old
	ents = sosEntries()
	for i := range 300 {
		ents = append(ents, entry{name: fmt.Sprintf("%ssys/empty/%d", top, i), dir: true})
	}
	p = writeArchive(t, "sos.tar.gz", compress(t, "gz", tarBytes(t, ents)))
	dir, cleanup, err := OpenSosreport(p)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "sys/empty/299")); err != nil || !st.IsDir() {
		t.Errorf("sys/empty/299 not made: %v", err)
	}
	checkTree(t, dir)
	cleanup()
	assertEmptyDir(t, tmp)
}
