package main

import (
	"os"
	"sync"
	"testing"

	"github.com/dbhost/dbhost/internal/testbin"
)

// The real dbhost binary, built once (internal/testbin: instrumented when
// the tests measure coverage) for the tests that run it as an operator's
// shell would; removed when the tests end.
var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// dbhostBinary returns the path of the built binary.
func dbhostBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		if binDir, binErr = os.MkdirTemp("", "dbhost-cli-bin-"); binErr != nil {
			return
		}
		// Readable by every user: a test runs it as nobody.
		os.Chmod(binDir, 0o755)
		binPath, binErr = testbin.Build(binDir, testbin.Module+"/cmd/dbhost")
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}
