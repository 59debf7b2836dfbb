package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/dbhost/dbhost/internal/testbin"
)

// writeFleet writes n snapshots into a new directory, made of the committed
// golden snapshots as bench/fleet.sh makes its fleets: four hosts in five are
// the rhel9 database host, the fifth cycles through every kind; each file
// has its own host name.
func writeFleet(t *testing.T, n int) string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("golden snapshots: %v (%d found)", err, len(paths))
	}
	sort.Strings(paths)
	kinds := make([]map[string]any, len(paths))
	major := -1
	for i, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &kinds[i]); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if filepath.Base(p) == "rhel9.json" {
			major = i
		}
	}
	if major < 0 {
		t.Fatal("testdata/golden/rhel9.json is missing")
	}
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		k := kinds[major]
		if i%5 == 0 {
			k = kinds[(i/5)%len(kinds)]
		}
		host := map[string]any{}
		for key, v := range k["host"].(map[string]any) {
			host[key] = v
		}
		name := fmt.Sprintf("db%05d", i)
		host["hostname"] = name
		k["host"] = host
		b, err := json.Marshal(k)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The fleet commands (audit in every format, report's HTML) read one
// snapshot at a time: their peak memory does
// not grow with the number of hosts (issue 13: 2,000 hosts within 2x of
// 200). Here 10x the hosts must stay within 2x the peak resident memory,
// for every format; holding the fleet's snapshots or reports at once (about
// 0.2 MB per host) would put 500 hosts at several times 50's. Only ratios
// of one run against another are asserted, never a time or an absolute size.
func TestFleetPeakMemoryFlat(t *testing.T) {
	const small, large = 50, 500
	bin := dbhostBinary(t)
	dirs := map[int]string{small: writeFleet(t, small), large: writeFleet(t, large)}
	for _, format := range []string{"text", "json", "markdown", "html"} {
		t.Run(format, func(t *testing.T) {
			peak := map[int]int64{}
			for _, n := range []int{small, large} {
				args := []string{"audit", "--snapshot", filepath.Join(dirs[n], "*.json"), "--format", format, "-o", os.DevNull}
				if format == "html" {
					args = []string{"report", "--snapshot", filepath.Join(dirs[n], "*.json"), "-o", os.DevNull}
				}
				r := runCommand(t, []string{bin}, testbin.Env(os.Environ()), args...)
				if r.code != 0 && r.code != exitFindings {
					t.Fatalf("%d hosts: exit %d: %s", n, r.code, r.stderr)
				}
				if r.maxRSSKiB <= 0 {
					t.Skip("the kernel reported no peak resident size (ru_maxrss)")
				}
				peak[n] = r.maxRSSKiB
			}
			ratio := float64(peak[large]) / float64(peak[small])
			t.Logf("%s: %d hosts peak %d KiB, %d hosts peak %d KiB: %.2fx", format, small, peak[small], large, peak[large], ratio)
			if ratio > 2 {
				t.Errorf("audit --format %s: peak memory of %d hosts is %.2fx that of %d (%d vs %d KiB): the fleet is held in memory, not streamed",
					format, large, ratio, small, peak[large], peak[small])
			}
		})
	}
}
