package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/experiment"
)

func TestSplitWords(t *testing.T) {
	got, err := splitWords(`pool --dsn "host=/tmp dbname=x" --x 'a b' c\ d`)
	want := []string{"pool", "--dsn", "host=/tmp dbname=x", "--x", "a b", "c d"}
	if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := splitWords(`a "b`); err == nil {
		t.Errorf("unterminated quote: no error")
	}
}

// An experiment against a fixture tree: the rule's change is applied to the
// tree before every B run and rolled back after it (A B A B), the bench
// (a short mq) really runs, and at the end the tree holds its old value and
// no journal is left un-rolled-back.
func TestExperimentOnTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the bench needs Linux")
	}
	tree := cliTree(t)
	state := t.TempDir()
	code, out, errs := cliRun(t, "experiment", "--root", tree, "--state-dir", state, "--rule", "memory.swappiness",
		"--bench", "mq --duration 150ms --senders 2", "--runs", "2", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	var r experiment.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var seq []string
	for _, run := range r.Runs {
		seq = append(seq, run.Side)
	}
	if strings.Join(seq, "") != "ABAB" {
		t.Errorf("runs %v, want A B A B", seq)
	}
	if len(r.Changes) != 1 || r.Changes[0].Setting != "vm.swappiness" || r.Changes[0].Old != "60" {
		t.Errorf("changes %+v", r.Changes)
	}
	if r.Case != "unbound" || r.Metric != "ops_per_sec" || r.Effect.NA != 2 || r.Effect.NB != 2 || r.Effect.Verdict == "" {
		t.Errorf("case %s metric %s effect %+v", r.Case, r.Metric, r.Effect)
	}
	if !r.RolledBack || r.Kept {
		t.Errorf("rolled back %v kept %v", r.RolledBack, r.Kept)
	}
	if b, _ := os.ReadFile(filepath.Join(tree, "proc/sys/vm/swappiness")); strings.TrimSpace(string(b)) != "60" {
		t.Errorf("tree swappiness %q after the experiment, want 60", b)
	}
	if !strings.Contains(errs, "rolled back") {
		t.Errorf("stderr: %s", errs)
	}
	// The registry holds nothing.
	if left, _ := filepath.Glob(filepath.Join(state, "bench", "run-*")); len(left) != 0 {
		t.Errorf("records left: %v", left)
	}
	// A rule with nothing to change: exit 2 would hide it; the message says so.
	code, _, errs = cliRun(t, "experiment", "--root", tree, "--state-dir", state, "--rule", "memory.swappiness", "--bench", "mq", "--runs", "1")
	if code != 2 || !strings.Contains(errs, "--runs 1") {
		t.Errorf("--runs 1: exit %d %s", code, errs)
	}
	code, _, errs = cliRun(t, "experiment", "--root", tree, "--state-dir", state, "--bench", "mq")
	if code != 2 || !strings.Contains(errs, "--rule") {
		t.Errorf("no --rule: exit %d %s", code, errs)
	}
	code, _, errs = cliRun(t, "experiment", "--root", tree, "--state-dir", state, "--rule", "memory.swappiness", "--bench", "mq --format text")
	if code != 2 || !strings.Contains(errs, "set by the experiment") {
		t.Errorf("--format in --bench: exit %d %s", code, errs)
	}
}

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		keep    bool
		verdict string
		want    bool
	}{{false, "better", false}, {true, "better", true}, {true, "worse", false}, {true, "inconclusive", false}, {true, "no measurable difference", false}} {
		if got, why := experiment.Decide(c.keep, c.verdict); got != c.want || why == "" {
			t.Errorf("Decide(%v, %q) = %v %q", c.keep, c.verdict, got, why)
		}
	}
}
