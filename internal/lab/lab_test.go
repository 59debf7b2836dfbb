//go:build lab

package lab

// The QEMU scenarios as Go tests, for `go test -tags lab ./internal/lab/`
// (scripts/lab runs the same scenarios through cmd/lab with a summary).
// Prerequisites missing → the test is skipped with the reason.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLabScenarios(t *testing.T) {
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	unlock, err := Lock(ctx, filepath.Join(repo, ".cache", "lab"), os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	a, err := Prepare(ctx, PrepareOptions{CacheDir: filepath.Join(repo, ".cache", "lab"), RepoDir: repo, Log: os.Stderr})
	var un *Unavailable
	if errors.As(err, &un) {
		t.Skip("NUMA lab unavailable: " + un.Reason)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range Scenarios() {
		t.Run(s.Name, func(t *testing.T) {
			r := Run(ctx, a, s, RunOptions{})
			t.Logf("%s: %.1fs", s.Name, r.Wall.Seconds())
			for _, why := range r.BootRetries {
				t.Logf("%s retried its boot: %s", s.Name, why)
			}
			if r.Err != nil {
				t.Errorf("%v", r.Err)
			}
			if len(r.Mismatches) > 0 {
				t.Errorf("topology differs:\n%s", strings.Join(r.Mismatches, "\n"))
			}
			if !r.OK() {
				t.Logf("console log kept: %s", filepath.Join(r.Dir, "console.log"))
			}
		})
	}
}
