package facts

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadFileSeqFile: a many-record /proc file read whole matches os.ReadFile
// (line count and keys; values move between the reads).
func TestReadFileSeqFile(t *testing.T) {
	want, err := os.ReadFile("/proc/vmstat")
	if err != nil {
		t.Skip("no /proc/vmstat here")
	}
	got, err := (Root{Dir: "/"}).ReadFile("/proc/vmstat")
	if err != nil {
		t.Fatal(err)
	}
	keys := func(b []byte) string {
		var k []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k = append(k, strings.Fields(l)[0])
		}
		return strings.Join(k, ",")
	}
	if keys(got) != keys(want) {
		t.Errorf("ReadFile(/proc/vmstat) has other lines than os.ReadFile:\n%s\n%s", keys(got), keys(want))
	}
}

func TestReadRawLimitsAndErrors(t *testing.T) {
	big := strings.Repeat("x", 10000)
	root := Root{Dir: topoTree(t, map[string]string{"/big": big, "/small": " 7 \n"})}
	b, err := root.readRaw("/big", nil, true, 4096)
	if err != nil || len(b) != 4096 {
		t.Errorf("limit 4096: %d bytes, %v", len(b), err)
	}
	if b, err := root.ReadFile("/big"); err != nil || !bytes.Equal(b, []byte(big)) {
		t.Errorf("ReadFile /big: %d bytes, %v", len(b), err)
	}
	if s, err := root.ReadAttr("/small"); err != nil || s != "7" {
		t.Errorf("ReadAttr /small = %q, %v", s, err)
	}
	if s, err := root.ReadAttr("/big"); err != nil || s != big {
		t.Errorf("ReadAttr of a file larger than its stack buffer: %d bytes, %v", len(s), err)
	}
	_, err = root.ReadFile("/missing")
	if Reason(err) != "not present on this host" || !strings.Contains(err.Error(), "/missing") {
		t.Errorf("missing file: %v (%s)", err, Reason(err))
	}
	if _, err := root.ReadFile("/"); err == nil || Reason(err) == "not present on this host" {
		t.Errorf("reading a directory: %v", err)
	}
}

// A sysReader that entered a directory reads files under it relative to it,
// others by full path, and errors keep the full host path.
func TestSysReaderEnter(t *testing.T) {
	root := Root{Dir: topoTree(t, map[string]string{"/sys/a/x": "1\n", "/sys/ab/y": "2\n", "/sys/b": "3\n"})}
	r := newSysReader(root)
	r.enter("/sys/a")
	if _, ok := r.relative("/sys/ab/y"); ok {
		t.Error("/sys/ab/y taken as under /sys/a")
	}
	for p, want := range map[string]string{"/sys/a/x": "1", "/sys/ab/y": "2", "/sys/b": "3"} {
		if got, err := r.read(p); err != nil || got != want {
			t.Errorf("read(%s) = %q, %v", p, got, err)
		}
	}
	if _, err := r.read("/sys/a/missing"); err == nil || !strings.Contains(err.Error(), "/sys/a/missing") || Reason(err) != "not present on this host" {
		t.Errorf("missing under the entered dir: %v", err)
	}
	r.enter("/sys/nonexistent") // cannot be opened: reads fall back to full paths
	if got, err := r.read("/sys/b"); err != nil || got != "3" {
		t.Errorf("after a failed enter: %q, %v", got, err)
	}
	r.leave()
	r.leave() // idempotent
}
