package facts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// procRchar is this process's bytes returned by read(2) so far
// (/proc/self/io), or -1 when the kernel does not say.
func procRchar(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "rchar: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// A 10 GiB sparse file in place of a sysfs attribute in a captured tree is
// refused from its size (fstat) after at most one small read, not read to
// the 64 MiB limit first: its fact is absent with the file's size and the
// limit, and the whole collection reads far less than one such file.
func TestTreeSparseAttributeRefusedBySize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "host")
	if out, err := exec.Command("cp", "-a", filepath.Join("..", "..", "testdata", "hosts", "rhel9"), dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	q := filepath.Join(dir, "sys", "block", "sda", "queue")
	attrs := []string{"scheduler", "rotational", "nr_requests", "read_ahead_kb"}
	for _, a := range attrs {
		p := filepath.Join(q, a)
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(10 << 30); err != nil {
			f.Close()
			t.Skip("no sparse 10 GiB file on this file system:", err)
		}
		f.Close()
	}
	before := procRchar(t)
	s := Collect(Root{Dir: dir}, Options{Version: "test"})
	after := procRchar(t)
	for _, fact := range []string{"storage.devices[sda].scheduler", "storage.devices[sda].rotational", "storage.devices[sda].nr_requests", "storage.devices[sda].read_ahead_kb"} {
		if !hasAbsent(s, fact, "file of 10 GiB is larger than the limit of 64 MiB") {
			t.Errorf("%s: not absent by its size; absences: %v", fact, absentFacts(s))
		}
	}
	// rhel9's tree is 11 MB; the four files would be 256 MiB read.
	if before >= 0 && after >= 0 {
		if read := after - before; read > 32<<20 {
			t.Errorf("the collection read %d bytes: the sparse attributes were read before being refused", read)
		}
	}
}
