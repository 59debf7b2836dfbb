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
