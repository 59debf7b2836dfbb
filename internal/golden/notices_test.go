package golden

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLicenceAndNoticesShipped: the repository carries its licence
// (Apache-2.0, as the Prometheus ecosystem dbhost builds on) and the notices
// of every module linked into the binary on any release platform, current
// with go.mod (scripts/notices --check regenerates and compares).
func TestLicenceAndNoticesShipped(t *testing.T) {
	root := moduleRoot(t)
	lic, err := os.ReadFile(filepath.Join(root, "LICENSE"))
	if err != nil || !bytes.Contains(lic, []byte("Apache License")) || !bytes.Contains(lic, []byte("Version 2.0, January 2004")) {
		t.Fatalf("LICENSE: want the Apache License 2.0 text (%v)", err)
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Fatal("bash is needed to run scripts/notices")
	}
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "notices"), "--check")
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("scripts/notices --check: %v\n%s", err, strings.TrimSpace(out.String()))
	}
}
