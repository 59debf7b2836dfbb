package experiment

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
)

// treeOptions: a tree with vm.swappiness 60, the change to 10, and a fake
// bench whose figure depends on the tree's value (so B really differs).
func treeOptions(t *testing.T) (Options, string) {
	t.Helper()
	tree := t.TempDir()
	p := filepath.Join(tree, "proc/sys/vm/swappiness")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("60\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	reg, _, err := bench.OpenRegistry(filepath.Join(state, "bench"), t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = reg.Close() })
	root := facts.Root{Dir: tree}
	o := Options{
		Rules:   []string{"memory.swappiness"},
		Changes: []change.Change{{Kind: change.Sysctl, Key: "vm.swappiness", Value: "10", Rule: "memory.swappiness"}},
		Apply:   apply.Options{Root: root, StateDir: state, Sys: apply.TreeSys{Root: root}},
		Bench:   "fake", Runs: 3, MinEffect: 5, Registry: reg,
	}
	n := 0
	o.RunBench = func(ctx context.Context, side string, run int) (*bench.Result, error) {
		b, _ := os.ReadFile(p)
		v := 100.0
		if strings.TrimSpace(string(b)) == "10" {
			v = 150 // the change helps
		}
		if (side == "B") != (v == 150) {
			t.Errorf("run %d %s with swappiness %q", run, side, b)
		}
		n++
		v += float64(n % 2) // some spread
		r := bench.NewResult("fake", bench.Options{Repeat: 1})
		r.Results = []bench.Row{{Case: "c", OpsPerSec: bench.F(v)}}
		r.Samples = []bench.Sample{{Case: "c", Repeat: 1, OpsPerSec: bench.F(v)}}
		return r, nil
	}
	return o, p
}

func value(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestExecuteRollsBackByDefault(t *testing.T) {
	o, p := treeOptions(t)
	r, err := Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Effect.Verdict != bench.VerdictBetter || r.Kept || !r.RolledBack || value(t, p) != "60" {
		t.Errorf("verdict %s kept %v rolled back %v value %s", r.Effect.Verdict, r.Kept, r.RolledBack, value(t, p))
	}
	if len(r.Runs) != 6 {
		t.Errorf("%d runs", len(r.Runs))
	}
}

func TestExecuteKeepsWhenBetter(t *testing.T) {
	o, p := treeOptions(t)
	o.Keep = true
	r, err := Execute(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Kept || r.KeptJourn == "" || value(t, p) != "10" {
		t.Errorf("kept %v journal %q value %s", r.Kept, r.KeptJourn, value(t, p))
	}
	if _, err := apply.Rollback(r.KeptJourn, o.Apply); err != nil || value(t, p) != "60" {
		t.Errorf("rollback of the kept journal: %v, value %s", err, value(t, p))
	}
}

// Interrupted during a B run (Ctrl-C): the change is rolled back before
// Execute returns.
func TestExecuteInterruptedRollsBack(t *testing.T) {
	o, p := treeOptions(t)
	ctx, cancel := context.WithCancel(context.Background())
	inner := o.RunBench
	o.RunBench = func(c context.Context, side string, run int) (*bench.Result, error) {
		if side == "B" && run == 2 {
			cancel()
			return nil, errors.New("interrupted")
		}
		return inner(c, side, run)
	}
	_, err := Execute(ctx, o)
	if err == nil {
		t.Fatal("no error")
	}
	if value(t, p) != "60" {
		t.Errorf("value %s after an interrupted B run, want 60", value(t, p))
	}
}

// A killed experiment leaves its journal recorded: the registry's cleanup
// (dbhost bench --cleanup) rolls it back.
func TestLeftoverJournalIsRolledBack(t *testing.T) {
	o, p := treeOptions(t)
	res, err := apply.Apply(o.Changes, o.Apply)
	if err != nil || value(t, p) != "10" {
		t.Fatal(err)
	}
	detail := `{"root":"` + o.Apply.Root.Dir + `","state_dir":"` + o.Apply.StateDir + `"}`
	if err := bench.RunCleaner(bench.Resource{Kind: KindJournal, Name: res.JournalID, Detail: detail}); err != nil {
		t.Fatal(err)
	}
	if value(t, p) != "60" {
		t.Errorf("value %s after the cleaner, want 60", value(t, p))
	}
}
