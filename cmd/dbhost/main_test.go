package main

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dbhost/dbhost/internal/testbin"
)

// The real dbhost binaries, each built once (internal/testbin: instrumented
// when the tests measure coverage) for the tests that run it as an
// operator's shell would; removed when the tests end. The plain one is what
// ships; the testhooks one (-tags testhooks) also honours DBHOST_TEST_*.
var (
	binOnce, hooksOnce sync.Once
	binDir             string
	binDirErr          error
	binDirOnce         sync.Once
	binPath, hooksPath string
	binErr, hooksErr   error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildInto builds dbhost (with flags) into its own directory under binDir.
func buildInto(name string, flags ...string) (string, error) {
	binDirOnce.Do(func() {
		if binDir, binDirErr = os.MkdirTemp("", "dbhost-cli-bin-"); binDirErr == nil {
			// Readable by every user: a test runs it as nobody.
			binDirErr = os.Chmod(binDir, 0o755)
		}
	})
	if binDirErr != nil {
		return "", binDirErr
	}
	dir := filepath.Join(binDir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	return testbin.Build(dir, testbin.Module+"/cmd/dbhost", flags...)
}

// dbhostBinary returns the path of the plain binary, built as it ships.
func dbhostBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() { binPath, binErr = buildInto("plain") })
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// hooksBinary returns the path of the binary built with -tags testhooks.
func hooksBinary(t *testing.T) string {
	t.Helper()
	hooksOnce.Do(func() { hooksPath, hooksErr = buildInto("testhooks", "-tags", "testhooks") })
	if hooksErr != nil {
		t.Fatal(hooksErr)
	}
	return hooksPath
}
