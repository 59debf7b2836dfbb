package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/golden"
)

// benchDir holds real results (bench numa, mq, net, io, db, pool,
// compare, experiment run on the build VM; see its README) and, beside
// each, its text view as the commands print it (NAME.txt, golden).
var benchDir = filepath.Join("testdata", "bench")

// realBenchFiles reads every result of benchDir.
func realBenchFiles(t *testing.T) []BenchFile {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(benchDir, "*.json"))
	if len(paths) < 8 {
		t.Fatalf("%d results in %s, want the 8 or more committed", len(paths), benchDir)
	}
	var out []BenchFile
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseBenchFile(filepath.Base(p), data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// benchViews draws a result as bench, compare and experiment print it:
// text and Markdown.
func benchViews(f BenchFile) (text, md []byte) {
	switch {
	case f.Compare != nil:
		return CompareText(f.Compare), CompareMarkdown(f.Compare)
	case f.Experiment != nil:
		return ExperimentText(f.Experiment), ExperimentMarkdown(f.Experiment)
	}
	return BenchText(f.Result), BenchMarkdown(f.Result)
}

// The text views of every committed result, byte for byte.
func TestBenchTextGolden(t *testing.T) {
	got := map[string][]byte{}
	for _, f := range realBenchFiles(t) {
		got[strings.TrimSuffix(f.Name, ".json")+".txt"], _ = benchViews(f)
	}
	// html_test.go's made-up results: a 2-node NUMA matrix (this VM has one node).
	for _, f := range benchFiles(t) {
		got["made-up-"+strings.TrimSuffix(f.Name, ".json")+".txt"], _ = benchViews(f)
	}
	golden.Check(t, golden.Set{Dir: benchDir, Match: func(rel string) bool { return strings.HasSuffix(rel, ".txt") },
		Hint: "go test ./internal/report -run TestBench -update"}, got)
}

// Every result's Markdown says what its text says (checkSameView), with
// the confidence intervals, verdicts, NUMA matrices and notes as tables
// and paragraphs; NAME.md is its golden.
func TestBenchMarkdown(t *testing.T) {
	got := map[string][]byte{}
	files := append(realBenchFiles(t), benchFiles(t)...)
	for i, f := range files {
		name := strings.TrimSuffix(f.Name, ".json")
		if i >= len(files)-len(benchFiles(t)) {
			name = "made-up-" + name
		}
		text, md := benchViews(f)
		got[name+".md"] = md
		checkSameView(t, name, text, md)
		s := string(md)
		want := []string{"# dbhost "}
		switch {
		case f.Compare != nil:
			want = append(want, "| case | metric | A | B | B / A | difference | 95 % CI | verdict | reason |")
			for _, cc := range f.Compare.Cases {
				for _, e := range cc.Effects {
					want = append(want, "| "+strings.ToUpper(e.Verdict)+" |")
					if e.CIPct != nil {
						want = append(want, fmt.Sprintf("| 95 %% CI %+.1f %% .. %+.1f %% |", e.CIPct[0], e.CIPct[1]))
					}
				}
			}
		case f.Experiment != nil:
			want = append(want, "| run | side |", "| B changes | from | to | rule |", "| 95 % CI |", "\nverdict: "+strings.ToUpper(f.Experiment.Effect.Verdict))
		case f.Result.Bench == "numa":
			cpus, mems, _ := numaGrid(f.Result)
			head := "| cpu\\mem |"
			for _, m := range mems {
				head += fmt.Sprintf(" node%d |", m)
			}
			want = append(want, head+"\n|---|"+strings.Repeat("---:|", len(mems))+"\n")
			for _, c := range cpus {
				want = append(want, fmt.Sprintf("\n| node%d |", c))
			}
			want = append(want, "\nSLIT distance\n", "\nlatency / local latency  (SLIT / 10 in parentheses)\n")
		default:
			want = append(want, "| case | result |")
			for _, row := range f.Result.Results {
				want = append(want, "\n| "+row.Case+" | ")
			}
		}
		if f.Result != nil {
			for _, n := range f.Result.Notes {
				want = append(want, "\nnote: "+n+"\n")
			}
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%s: the Markdown lacks %q:\n%s", name, w, s)
			}
		}
	}
	golden.Check(t, golden.Set{Dir: benchDir, Match: func(rel string) bool { return strings.HasSuffix(rel, ".md") && rel != "README.md" },
		Hint: "go test ./internal/report -run TestBench -update"}, got)
}
