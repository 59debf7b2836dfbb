// Package testbin builds the real dbhost binary for tests that run it as a
// subprocess (kill -9 at every journal step, the CLI contract of verify), and
// makes those runs count in coverage.
//
// When the test binary measures coverage (go test -cover, as ./scripts/test
// runs it), the dbhost binary is built with -cover over the whole module and
// every Command gets GOCOVERDIR set to the test's coverage directory
// (-test.gocoverdir): `go test -cover` then reports, and `go tool covdata`
// merges, what the subprocesses ran together with the unit tests. Without
// -cover it is a plain static build.
//
// Only tests import this package.
package testbin

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Module is the module path: its packages are what a -cover build measures.
const Module = "github.com/dbhost/dbhost"

// Build compiles the package (an import path, e.g. Module+"/cmd/dbhost")
// into dir and returns the binary's path. flags are extra go build flags
// (-tags ...). The build is static (CGO_ENABLED=0) and, when the calling test
// binary measures coverage, instrumented (see the package comment).
func Build(dir, pkg string, flags ...string) (string, error) {
	bin := filepath.Join(dir, filepath.Base(pkg))
	args := []string{"build", "-o", bin}
	if mode := testing.CoverMode(); mode != "" {
		args = append(args, "-cover", "-covermode="+mode, "-coverpkg="+Module+"/...")
	}
	args = append(append(args, flags...), pkg)
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go %v: %v\n%s", args, err, out)
	}
	return bin, nil
}

// CoverDir is the directory the test binary writes its coverage counters to
// (-test.gocoverdir), or "" when it does not measure coverage.
func CoverDir() string {
	if testing.CoverMode() == "" {
		return ""
	}
	if f := flag.Lookup("test.gocoverdir"); f != nil {
		return f.Value.String()
	}
	return ""
}

// Env returns environ with GOCOVERDIR set for a binary Build made, when the
// test measures coverage; otherwise environ unchanged.
func Env(environ []string) []string {
	if d := CoverDir(); d != "" {
		return append(environ, "GOCOVERDIR="+d)
	}
	return environ
}

// Command is exec.Command(bin, args...) with the environment of Env: the
// current one, plus GOCOVERDIR under coverage.
func Command(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = Env(os.Environ())
	return cmd
}
