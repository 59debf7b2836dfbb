package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/bench"
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

// benchText is what bench, compare and experiment print as text.
func benchText(f BenchFile) []byte {
	switch {
	case f.Compare != nil:
		return f.Compare.Text()
	case f.Experiment != nil:
		return f.Experiment.Text()
	case f.Result.Bench == "numa":
		return bench.NumaText(f.Result)
	}
	return f.Result.Text()
}

// The text views of every committed result, byte for byte.
func TestBenchTextGolden(t *testing.T) {
	got := map[string][]byte{}
	for _, f := range realBenchFiles(t) {
		got[strings.TrimSuffix(f.Name, ".json")+".txt"] = benchText(f)
	}
	// html_test.go's made-up results: a 2-node NUMA matrix (this VM has one node).
	for _, f := range benchFiles(t) {
		got["made-up-"+strings.TrimSuffix(f.Name, ".json")+".txt"] = benchText(f)
	}
	golden.Check(t, golden.Set{Dir: benchDir, Match: func(rel string) bool { return strings.HasSuffix(rel, ".txt") },
		Hint: "go test ./internal/report -run TestBench -update"}, got)
}
