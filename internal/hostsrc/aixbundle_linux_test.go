package hostsrc

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// In a directory, a FIFO is refused without waiting for a writer and a
// link out of the bundle is not followed.
func TestAIXBundleDirRefusals(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "commands"), 0o755)
	os.WriteFile(filepath.Join(dir, "meta"), []byte("format: dbhost-aix-bundle 1\nhostname: x\n"), 0o644)
	if err := syscall.Mkfifo(filepath.Join(dir, "commands", "ps_-ef"), 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	secret := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(secret, []byte("Partition Name : stolen\nType : Dedicated\n"), 0o644)
	os.Symlink(secret, filepath.Join(dir, "commands", "lparstat_-i"))
	s, err := collectAIX(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.AIX.LPAR != nil || !hasAbsence(s, "aix.lpar", "refused") || !hasAbsence(s, "aix.processes", "refused: not a regular file") {
		t.Errorf("lpar %+v; %v", s.AIX.LPAR, s.Absent)
	}
	_, err = collectAIX(t, t.TempDir())
	inputErr(t, err, "not an AIX bundle: no meta file and no commands/ directory")
}
