package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/testbin"
)

// TestPlaceHostileSpecs runs the real binary on the hostile specs of issue
// 24 on a fixture tree: a 1 KB alias bomb (before: 37 s, 3.85 GB), 200 KB
// of nested brackets (over 90 s and 3 GB), 100,000 instances (8.7 MB, 2.5
// GB before "at most 4096") and 8 million comment lines (over 100 s, 3 GB).
// Each is exit 2 naming its file, line and bound. Under prlimit the binary
// has 1 GiB of address space: a regression runs out of memory (a Go fatal
// error, not the bound's message) instead of taking the machine's.
func TestPlaceHostileSpecs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var bomb strings.Builder
	bomb.WriteString("strategy: binding\ninstances:\n  - name: &a0 [x, x, x, x, x, x, x, x, x, x]\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&bomb, "  - name: &a%d [%s]\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	var many strings.Builder
	many.WriteString("strategy: binding\ninstances:\n")
	for i := 0; i < 100_000; i++ {
		fmt.Fprintf(&many, "  - name: db%d\n    engine: oracle\n    cpus: 2\n    memory_gb: 1\n    class: guaranteed\n", i)
	}
	ok := "strategy: binding\ninstances:\n  - name: erp\n    engine: oracle\n    cpus: 2\n    class: guaranteed\n"
	var prefix []string
	if p, err := exec.LookPath("prlimit"); err == nil {
		prefix = []string{p, "--as=1073741824"}
	} else {
		t.Log("prlimit not found: the hostile specs run without a 1 GiB address-space cap")
	}
	root := fixtureRoot("rhel9")
	for _, c := range []struct {
		name, file, spec string
		want             string
	}{
		{"alias bomb", "bomb.yaml", bomb.String(), ":19: more than 100000 YAML nodes"},
		{"200 KB of [", "deep.yaml", "strategy: binding\ninstances: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n", ":2: nested more than 64 levels deep"},
		{"100,000 instances", "many.yaml", many.String(), fmt.Sprintf(":%d: instances: more than 4096 listed", 3+5*4096)},
		{"8 million comment lines", "comments.yaml", ok + strings.Repeat("#\n", 8<<20-64) + "    colour: red\n", fmt.Sprintf(":%d: unknown field \"colour\"", 7+8<<20-64)},
	} {
		p := write(c.file, c.spec)
		r := runCommand(t, append(append([]string{}, prefix...), dbhostBinary(t)), testbin.Env(os.Environ()), "place", "--spec", p, "--root", root)
		if r.code != exitUsage || !strings.Contains(r.stderr, p+c.want) {
			t.Errorf("%s: exit %d, stderr %.600s\nwant exit 2 and %q", c.name, r.code, r.stderr, p+c.want)
		}
		t.Logf("%s (%d bytes): exit %d, %d MiB resident", c.name, len(c.spec), r.code, r.maxRSSKiB>>10)
	}
	// The same binary under the same cap still places a valid spec.
	r := runCommand(t, append(append([]string{}, prefix...), dbhostBinary(t)), testbin.Env(os.Environ()), "place", "--spec", write("ok.yaml", ok), "--root", root)
	if r.code != 0 {
		t.Errorf("valid spec: exit %d, %s", r.code, r.stderr)
	}
}
