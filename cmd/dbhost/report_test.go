package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCLIReport(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "hosts", "interleaved-4n")
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	code, stdout, stderr := cliRun(t, "report", "--root", root, "--workload", "oltp", "-o", out)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	wantContains(t, "report", string(b), "<h1>dbhost report: orcl-db4</h1>", `id="numa"`, "<!-- dbhost report sha256:")
	// Its own report is replaced; '-o -' writes to standard output.
	if code, _, stderr := cliRun(t, "report", "--root", root, "-o", out); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	if code, stdout, _ := cliRun(t, "report", "--root", root, "-o", "-"); code != 0 || !strings.HasPrefix(stdout, "<!DOCTYPE html>") {
		t.Fatalf("-o -: exit %d", code)
	}
	// A file dbhost did not write, or its report edited since: refused, exit 2, untouched.
	mine := filepath.Join(dir, "mine.html")
	if err := os.WriteFile(mine, []byte("<p>my notes</p>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := append([]byte(nil), b...)
	edited[100] ^= 1
	if err := os.WriteFile(out, edited, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{mine, out} {
		before, _ := os.ReadFile(p)
		code, _, stderr := cliRun(t, "report", "--root", root, "-o", p)
		after, _ := os.ReadFile(p)
		if code != 2 || !strings.Contains(stderr, "was not written by dbhost") || string(before) != string(after) {
			t.Errorf("-o %s: exit %d, %q; the file must stay as it was", p, code, stderr)
		}
	}
}

func TestCLIReportUsage(t *testing.T) {
	root := filepath.Join("..", "..", "testdata", "hosts", "numa-off")
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n\"x\": ]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	snap := filepath.Join(dir, "s.json")
	if code, _, stderr := cliRun(t, "collect", "--root", root, "--format", "json", "-o", snap); code != 0 {
		t.Fatal(stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, "t.json"), mustRead(t, snap), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.html")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--root", root}, "-o FILE is required"},
		{[]string{"report", "--root", root, "-o", out, "--bench", bad}, "bad.json: line 2"},
		{[]string{"report", "--root", root, "-o", out, "--bench", filepath.Join(dir, "none.json")}, "no such file"},
		{[]string{"report", "--root", root, "-o", out, "--bench", dir}, "is a directory"},
		{[]string{"report", "--snapshot", filepath.Join(dir, "[st].json"), "--bench", bad, "-o", out}, "bad.json: line 2"},
		{[]string{"report", "--snapshot", filepath.Join(dir, "[st].json"), "--bench", snap, "-o", out}, "neither a bench result"},
		{[]string{"report", "--snapshot", filepath.Join(dir, "[st].json"), "--pg", "host=/tmp", "-o", out}, "cannot be joined"},
		{[]string{"report", "--root", root, "-o", dir}, "is a directory"},
		{[]string{"report", "--root", root, "--workload", "web", "-o", out}, "--workload"},
	} {
		code, _, stderr := cliRun(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused report was written")
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// On the live host the per-node CPU busy and interrupt share are a sample
// of --interval (numa's), not the counters since boot.
func TestCLIReportLiveSample(t *testing.T) {
	if testing.Short() {
		t.Skip("collects this host; skipped with -short")
	}
	if _, err := os.Stat("/sys/devices/system/node/node0"); err != nil {
		t.Skip("no NUMA node information on this machine")
	}
	out := filepath.Join(t.TempDir(), "live.html")
	if code, _, stderr := cliRun(t, "report", "--interval", "200ms", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	wantContains(t, "live report", string(mustRead(t, out)), "(200ms sample)", "Facts from</dt><dd>live")
	for _, bad := range []string{"-1s", "2h"} {
		if code, _, stderr := cliRun(t, "report", "--interval", bad, "-o", out); code != 2 || !strings.Contains(stderr, "--interval") {
			t.Errorf("--interval %s: exit %d %q", bad, code, stderr)
		}
	}
}

// Several snapshots make the fleet report: per failing rule its hosts,
// one section per host, replaced as its own on a second run; --bench
// (one host's results) is refused.
func TestCLIReportFleet(t *testing.T) {
	dir := t.TempDir()
	for _, h := range []string{"rhel9", "numa-off", "odd-8n"} {
		root := filepath.Join("..", "..", "testdata", "hosts", h)
		if code, _, stderr := cliRun(t, "collect", "--root", root, "--format", "json", "-o", filepath.Join(dir, h+".json")); code != 0 {
			t.Fatal(stderr)
		}
	}
	out := filepath.Join(dir, "fleet.html")
	glob := filepath.Join(dir, "*.json")
	for run := 0; run < 2; run++ {
		if code, stdout, stderr := cliRun(t, "report", "--snapshot", glob, "-o", out); code != 0 || stdout != "" {
			t.Fatalf("run %d: exit %d: %s%s", run, code, stdout, stderr)
		}
	}
	page := string(mustRead(t, out))
	wantContains(t, "fleet report", page, "<h1>dbhost fleet report: 3 hosts</h1>", `id="rules"`, `id="differ"`,
		`<article class="host sev-`, "numa.disabled-at-boot", "<!-- dbhost report sha256:")
	for _, h := range []string{"rhel9.json", "numa-off.json", "odd-8n.json"} {
		wantContains(t, "fleet report", page, filepath.Join(dir, h))
	}
	bench := filepath.Join(dir, "bench.json")
	if err := os.WriteFile(bench, []byte(`{"schema_version": 1, "bench": "mq", "results": []}`), 0o644); err != nil {
		t.Fatal(err)
	}
	before := mustRead(t, out)
	if code, _, stderr := cliRun(t, "report", "--snapshot", glob, "--bench", bench, "-o", out); code != 2 || !strings.Contains(stderr, "--bench charts one host") {
		t.Errorf("--bench with a fleet: exit %d %q", code, stderr)
	}
	if string(mustRead(t, out)) != string(before) {
		t.Error("a refused fleet report changed the file")
	}
}
