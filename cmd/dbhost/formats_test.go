package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/rules"
)

// Every command that prints a table takes --format markdown (issue 13):
// bench (numa's matrix, mq's cases), compare, experiment, rules list and
// show, through the binary; an unknown format is exit 2 naming the three.
func TestMarkdownFormatsCLI(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the benches need Linux")
	}
	dir := t.TempDir()
	state := filepath.Join(dir, "state")
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// Two real results of bench mq, compared in Markdown into a file.
	for _, side := range []string{"a", "b"} {
		if code, out, errs := runBin(t, "bench", "mq", "--duration", "100ms", "--repeat", "3", "--senders", "2",
			"--state-dir", state, "--format", "json", "-o", filepath.Join(dir, side+".json")); code != 0 || out != "" {
			t.Fatalf("bench mq --format json -o: exit %d\n%s\n%s", code, out, errs)
		}
	}
	md := filepath.Join(dir, "compare.md")
	for range 2 { // the second replaces dbhost's own file
		if code, out, errs := runBin(t, "compare", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), "--format", "markdown", "-o", md); code != 0 || out != "" {
			t.Fatalf("compare --format markdown -o: exit %d\n%s\n%s", code, out, errs)
		}
	}
	a, err := bench.Load(filepath.Join(dir, "a.json"))
	if err != nil {
		t.Fatal(err)
	}
	cmpMD := read(md)
	wantContains(t, "compare markdown", cmpMD, "# dbhost compare (mq): A = ", "95 % confidence intervals (Welch)",
		"\n| case | metric | A | B | B / A | difference | 95 % CI | verdict | reason |\n|---|", "| unbound | ops_per_sec | ", "| unbound | latency_mean_us | ")
	for _, cas := range a.Cases() {
		if !strings.Contains(cmpMD, "\n| "+cas+" | ") {
			t.Errorf("compare markdown lacks case %s:\n%s", cas, cmpMD)
		}
	}
	code, text, _ := runBin(t, "compare", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"))
	if code != 0 || strings.Count(cmpMD, "\n| ") != strings.Count(text, " → B ")+1 {
		t.Errorf("compare: %d effects in the text, Markdown rows:\n%s\ntext:\n%s", strings.Count(text, " → B "), cmpMD, text)
	}
	for _, v := range []string{bench.VerdictBetter, bench.VerdictWorse, bench.VerdictInconclusive, bench.VerdictNoDifference} {
		v = strings.ToUpper(v)
		if strings.Count(text, ": "+v+" (") != strings.Count(cmpMD, "| "+v+" |") {
			t.Errorf("compare: verdict %s %d times in the text, %d in the Markdown", v, strings.Count(text, ": "+v+" ("), strings.Count(cmpMD, "| "+v+" |"))
		}
	}

	// A bench in Markdown on standard output: mq's cases, numa's matrix.
	code, out, errs := runBin(t, "bench", "mq", "--duration", "100ms", "--senders", "2", "--state-dir", state, "--format", "markdown")
	if code != 0 {
		t.Fatalf("bench mq --format markdown: exit %d\n%s", code, errs)
	}
	wantContains(t, "bench mq markdown", out, "# dbhost bench mq on ", "\n| case | result | latency µs |\n|---|---|---|\n| unbound | ", " msgs/s ", " samples) |", "\nnote: ")
	code, out, errs = runBin(t, "bench", "numa", "--duration", "100ms", "--size-mb", "8", "--state-dir", state, "--format", "markdown")
	if code != 0 {
		t.Fatalf("bench numa --format markdown: exit %d\n%s", code, errs)
	}
	wantContains(t, "bench numa markdown", out, "# dbhost bench numa on ", "\ndependent-load latency (ns/load)\n\n| cpu\\mem | node", "\nSLIT distance\n", "\n| node0 | ", "\nnote: ")

	// rules list and show.
	code, out, errs = runBin(t, "rules", "list", "--format", "markdown", "-o", filepath.Join(dir, "rules.md"))
	if code != 0 || out != "" {
		t.Fatalf("rules list --format markdown -o: exit %d\n%s", code, errs)
	}
	list := read(filepath.Join(dir, "rules.md"))
	wantContains(t, "rules list markdown", list, "# dbhost rules\n\n| ID | SEVERITY | APPLIES TO | TITLE | SOURCES |\n|---|",
		"| `memory.swappiness` | warning | Linux hosts, all workloads, any database | ", fmt.Sprintf("\n%d rules. ", len(rules.All())))
	if n := strings.Count(list, "\n| `"); n != len(rules.All()) {
		t.Errorf("rules list markdown: %d rule rows, want %d", n, len(rules.All()))
	}
	code, out, errs = runBin(t, "rules", "show", "memory.swappiness", "--format", "markdown")
	if code != 0 {
		t.Fatalf("rules show --format markdown: exit %d\n%s", code, errs)
	}
	r, _ := rules.Lookup("memory.swappiness")
	wantContains(t, "rules show markdown", out, "# `memory.swappiness` — "+r.Title+"\n", "\n| area | memory |\n",
		"\n| sources | "+r.Sources[0].Cite()+" |\n", "\n| own thresholds | "+r.Thresholds[0]+" (dbhost's, no source gives one) |\n")
	code, out, _ = runBin(t, "rules", "show", "memory.swappiness", "--format", "json")
	var rj rules.Rule
	if code != 0 || json.Unmarshal([]byte(out), &rj) != nil || rj.ID != "memory.swappiness" || len(rj.Sources) != len(r.Sources) {
		t.Errorf("rules show --format json: exit %d\n%s", code, out)
	}

	// An unknown format: exit 2, the accepted ones listed, nothing run.
	for _, args := range [][]string{
		{"bench", "mq", "--state-dir", state},
		{"compare", filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")},
		{"experiment", "--root", cliTree(t), "--state-dir", state, "--rule", "memory.swappiness", "--bench", "mq"},
		{"rules", "list"},
		{"rules", "show", "memory.swappiness"},
	} {
		code, out, errs := runBin(t, append(args, "--format", "html")...)
		if code != 2 || out != "" || !strings.Contains(errs, `--format "html": expected one of [text json markdown]`) {
			t.Errorf("%s --format html: exit %d, stdout %q, stderr %q", args[0], code, out, errs)
		}
	}
}

// experiment --format markdown: the changes, every run, the effect with
// its CI and the verdict; the bench's own --format stays the experiment's.
func TestExperimentMarkdown(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the bench needs Linux")
	}
	tree, state := cliTree(t), t.TempDir()
	for _, b := range []string{"mq --format markdown", "mq --format=markdown"} {
		code, _, errs := runBin(t, "experiment", "--root", tree, "--state-dir", state, "--rule", "memory.swappiness", "--bench", b, "--format", "markdown")
		if code != 2 || !strings.Contains(errs, "is set by the experiment") {
			t.Errorf("--bench %q: exit %d, %s", b, code, errs)
		}
	}
	code, out, errs := runBin(t, "experiment", "--root", tree, "--state-dir", state, "--rule", "memory.swappiness",
		"--bench", "mq --duration 100ms --senders 2", "--runs", "2", "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	wantContains(t, "experiment markdown", out, "# dbhost experiment: rules memory.swappiness, bench 'mq --duration 100ms --senders 2', unbound ops_per_sec\n",
		"\n| B changes | from | to | rule |\n|---|---|---|---|\n| vm.swappiness | 60 | 10 | memory.swappiness |\n",
		"\n| run | side | unbound ops_per_sec |\n", "\n| 1 | A | ", "\n| 1 | B | ", "\n| 2 | A | ", "\n| 2 | B | ",
		"| case | metric | A | B | B / A | difference | 95 % CI | verdict | reason |", "| unbound | ops_per_sec | ", " (n=2, sd ", "\nverdict: ")
	if b, _ := os.ReadFile(filepath.Join(tree, "proc/sys/vm/swappiness")); strings.TrimSpace(string(b)) != "60" {
		t.Errorf("tree swappiness %q after the experiment, want 60", b)
	}
}
