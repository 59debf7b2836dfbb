package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	if p := os.Getenv(envPlainBin); p != "" {
		return p // a fresh test process (inFreshProcess) uses its parent's build
	}
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

// envFresh and envPlainBin tell a test process started by inFreshProcess
// which test it runs and where its parent built the binary.
const (
	envFresh    = "DBHOST_TEST_FRESH_PROCESS"
	envPlainBin = "DBHOST_TEST_PLAIN_BIN"
)

// inFreshProcess runs the calling test again in a new test process and
// reports true in the caller, which then returns; in that process it
// reports false and the test runs. For measurements of the binary's peak
// memory: a child's ru_maxrss starts at its parent's resident high-water
// mark (the kernel records the old mm's at exec), and this package's other
// tests grow the test process far beyond what a refused input may cost.
func inFreshProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envFresh) == t.Name() {
		return false
	}
	bin := dbhostBinary(t)
	args := []string{"-test.run=^" + t.Name() + "$", "-test.v"}
	for _, a := range os.Args[1:] {
		for _, keep := range []string{"-test.gocoverdir=", "-test.timeout=", "-test.short"} {
			if strings.HasPrefix(a, keep) {
				args = append(args, a)
			}
		}
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), envFresh+"="+t.Name(), envPlainBin+"="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("%s in a fresh test process: %v\n%s", t.Name(), err, out)
	}
	return true
}
