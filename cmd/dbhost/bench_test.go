package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/bench"
)

// benchResult writes a result with the given per-repeat values of case
// "c" (ops_per_sec) and returns its path.
func benchResult(t *testing.T, name string, vals ...float64) string {
	t.Helper()
	r := bench.NewResult("net", bench.Options{Duration: 1, Repeat: len(vals), Version: "test"})
	r.Results = append(r.Results, bench.Row{Case: "c", OpsPerSec: bench.F(vals[0])})
	for i, v := range vals {
		r.Samples = append(r.Samples, bench.Sample{Case: "c", Repeat: i + 1, OpsPerSec: bench.F(v)})
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCompareCLI(t *testing.T) {
	a := benchResult(t, "a.json", 100, 101, 99, 100)
	b := benchResult(t, "b.json", 120, 121, 119, 120)
	code, out, errs := cliRun(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	wantContains(t, "compare", out, "ops_per_sec", "1.200x", "+20.0 %", "BETTER", "95 % CI")
	code, out, _ = cliRun(t, "compare", a, b, "--format", "json")
	var cmp bench.Comparison
	if code != 0 || json.Unmarshal([]byte(out), &cmp) != nil || cmp.Cases[0].Effects[0].Verdict != bench.VerdictBetter {
		t.Errorf("json compare: exit %d, %s", code, out)
	}
	// Bad input: exit 2, the file named.
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte("{\n\"schema_version\": 1,\n  oops\n}"), 0o644)
	code, _, errs = cliRun(t, "compare", a, bad)
	if code != 2 || !strings.Contains(errs, "bad.json: line 3") {
		t.Errorf("bad JSON: exit %d, %q", code, errs)
	}
	code, _, errs = cliRun(t, "compare", a, filepath.Join(t.TempDir(), "missing.json"))
	if code != 2 || !strings.Contains(errs, "missing.json: no such file") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
	code, _, errs = cliRun(t, "compare", a)
	if code != 2 {
		t.Errorf("one argument: exit %d, %q", code, errs)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	os.WriteFile(other, []byte(`{"schema_version":1,"bench":"io","results":[],"samples":[]}`), 0o644)
	code, _, errs = cliRun(t, "compare", a, other)
	if code != 2 || !strings.Contains(errs, "only results of the same bench compare") {
		t.Errorf("net vs io: exit %d, %q", code, errs)
	}
}

func TestBenchUsage(t *testing.T) {
	code, _, errs := cliRun(t, "bench")
	if code != 2 || !strings.Contains(errs, "name a bench") {
		t.Errorf("bench alone: exit %d, %q", code, errs)
	}
	st := t.TempDir()
	for _, args := range [][]string{
		{"bench", "mq", "--duration", "0s"},
		{"bench", "mq", "--repeat", "0"},
		{"bench", "mq", "--format", "xml"},
		{"bench", "numa", "--cpu-node", "x"},
		{"bench", "mq", "--cpus", "a-b"},
	} {
		code, _, errs := cliRun(t, append(args, "--state-dir", st)...)
		if code != 2 {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	// Binding to a node or CPU this host does not have: refused before
	// anything runs, with what the host has.
	for _, args := range [][]string{
		{"bench", "net", "--cpu-node", "4095"},
		{"bench", "net", "--serve", "--mem-node", "4095"},
		{"bench", "io", "--mem-node", "4095"},
		{"bench", "io", "--cpus", "0,4095"},
		{"bench", "db", "--dsn", "host=/nonexistent", "--cpu-node", "4095"},
		{"bench", "mq", "--cpu-node", "4095"},
		{"bench", "net", "--cpu-node", "0", "--cpus", "0"},
		{"bench", "net", "--cpu-node", "-2"},
	} {
		code, _, errs := cliRun(t, append(args, "--state-dir", st)...)
		if code != 2 || !strings.Contains(errs, "not an online") && !strings.Contains(errs, "not online") && !strings.Contains(errs, "give one") && !strings.Contains(errs, "a node number") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
	code, out, errs := cliRun(t, "bench", "--cleanup", "--state-dir", st)
	if code != 0 || !strings.Contains(out, "no leftovers") && !strings.Contains(out, "nothing recorded") {
		t.Errorf("cleanup of an empty state dir: exit %d, %q %q", code, out, errs)
	}
}
