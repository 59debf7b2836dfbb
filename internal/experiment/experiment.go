// Package experiment runs `dbhost experiment`: a bench with and without a
// set of rules' changes, interleaved A B A B so that drift falls on both
// sides, the changes applied and rolled back through internal/apply's
// journal each time, and a verdict with a 95 % confidence interval. The
// changes are rolled back at the end unless the caller asked to keep them
// and they made things better.
package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/change"
)

// KindJournal is a registry resource: an apply journal an experiment has
// not rolled back yet (Name = journal id, Detail = JSON of root and state
// dir). A later `dbhost bench --cleanup` rolls it back.
const KindJournal = "apply-journal"

type journalDetail struct {
	Root     string `json:"root"`
	Live     bool   `json:"live"`
	StateDir string `json:"state_dir"`
}

func init() {
	bench.RegisterCleaner(KindJournal, func(x bench.Resource) error {
		var d journalDetail
		if err := json.Unmarshal([]byte(x.Detail), &d); err != nil || d.StateDir == "" {
			return fmt.Errorf("bad record: %v", err)
		}
		o := apply.Options{StateDir: d.StateDir}
		o.Root.Dir, o.Root.Live = d.Root, d.Live
		res, err := apply.Rollback(x.Name, o)
		if err != nil {
			return err
		}
		if n := res.Failed(); n > 0 {
			return fmt.Errorf("%d value(s) could not be restored: run 'dbhost rollback --state-dir %s'", n, d.StateDir)
		}
		return nil
	})
}

// Options of an experiment.
type Options struct {
	Rules     []string
	Changes   []change.Change
	Apply     apply.Options // root, state dir, accept-risk
	Bench     string        // the bench command line, for the record
	Runs      int           // runs of each side
	Keep      bool          // keep the changes if the verdict is better
	MinEffect float64       // % (see bench.Compare)
	Case      string        // the bench case judged; "": the first
	Metric    string        // the metric judged; "": the case's primary
	Registry  *bench.Registry
	// RunBench runs the bench once and returns its result.
	RunBench func(ctx context.Context, side string, run int) (*bench.Result, error)
	// Log, when set, is told what happens (a line each).
	Log func(format string, a ...any)
}

// Run is one bench run of one side.
type Run struct {
	Side    string    `json:"side"` // A (without the changes) or B (with them)
	N       int       `json:"n"`
	Value   float64   `json:"value"`
	Journal string    `json:"journal,omitempty"` // B: the apply journal of this run
	Started time.Time `json:"started"`
}

// Result of an experiment.
type Result struct {
	Rules      []string        `json:"rules"`
	Changes    []Setting       `json:"changes"`
	Bench      string          `json:"bench"`
	Case       string          `json:"case"`
	Metric     string          `json:"metric"`
	Runs       []Run           `json:"runs"`
	Effect     bench.Effect    `json:"effect"`
	Kept       bool            `json:"kept"`
	KeptJourn  string          `json:"kept_journal,omitempty"`
	RolledBack bool            `json:"rolled_back"`
	Why        string          `json:"why"`
	Results    []*bench.Result `json:"bench_results"`
}

// Setting is one change the experiment made on the B side.
type Setting struct {
	Setting string `json:"setting"`
	Old     string `json:"old"`
	New     string `json:"new"`
	Rule    string `json:"rule"`
}

// Decide: keep the changes only when asked and the verdict is better.
func Decide(keep bool, verdict string) (bool, string) {
	switch {
	case !keep:
		return false, "rolled back (the default; --keep keeps changes that measure better)"
	case verdict == bench.VerdictBetter:
		return true, "kept: --keep and the changes measured better"
	default:
		return false, fmt.Sprintf("rolled back: --keep keeps only changes that measure better, the verdict is %q", verdict)
	}
}

// Execute runs A B A B ... (Runs of each), then decides. On any error, and
// when ctx ends (Ctrl-C), the changes are rolled back before it returns.
func Execute(ctx context.Context, o Options) (*Result, error) {
	if o.Runs < 2 {
		return nil, fmt.Errorf("--runs %d: at least 2 of each side are needed for a confidence interval", o.Runs)
	}
	if len(o.Changes) == 0 {
		return nil, fmt.Errorf("the rule(s) %s have no change to make on this host: nothing to experiment with", strings.Join(o.Rules, ", "))
	}
	log := o.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	r := &Result{Rules: o.Rules, Bench: o.Bench, Case: o.Case, Metric: o.Metric}
	var a, b []float64
	applied := "" // journal id while the changes are in place
	regID := 0
	rollback := func() error {
		if applied == "" {
			return nil
		}
		ro := o.Apply
		ro.DryRun = false
		res, err := apply.Rollback(applied, ro)
		if err != nil {
			return fmt.Errorf("rollback of %s: %w ('dbhost rollback --state-dir %s' retries)", applied, err, o.Apply.StateDir)
		}
		if n := res.Failed(); n > 0 {
			return fmt.Errorf("rollback of %s: %d value(s) could not be restored ('dbhost rollback --state-dir %s' retries)", applied, n, o.Apply.StateDir)
		}
		log("rolled back %s", applied)
		applied = ""
		_ = o.Registry.Done(regID)
		return nil
	}
	fail := func(err error) (*Result, error) {
		if rerr := rollback(); rerr != nil {
			return r, errors.Join(err, rerr)
		}
		r.RolledBack = true
		return r, err
	}
	detail, _ := json.Marshal(journalDetail{Root: o.Apply.Root.Dir, Live: o.Apply.Root.Live, StateDir: o.Apply.StateDir})
	for n := 1; n <= o.Runs; n++ {
		for _, side := range []string{"A", "B"} {
			if err := ctx.Err(); err != nil {
				return fail(fmt.Errorf("interrupted: %w", err))
			}
			if side == "B" {
				var err error
				regID, err = o.Registry.Add(KindJournal, "", string(detail))
				if err != nil {
					return fail(err)
				}
				ao := o.Apply
				ao.DryRun = false
				res, err := apply.Apply(o.Changes, ao)
				if res != nil && res.JournalID != "" {
					applied = res.JournalID
					_ = o.Registry.Update(regID, applied, string(detail))
				} else {
					_ = o.Registry.Done(regID)
				}
				if err != nil {
					return fail(fmt.Errorf("apply: %w", err))
				}
				if k := res.Count(apply.StatusFailed); k > 0 {
					return fail(fmt.Errorf("apply: %d change(s) failed", k))
				}
				if k := res.Count(apply.StatusRefused); k > 0 {
					return fail(fmt.Errorf("apply: %d risky change(s) refused: pass --accept-risk, or leave their rules out", k))
				}
				if n == 1 {
					for _, it := range res.Items {
						if it.Status == apply.StatusApplied {
							r.Changes = append(r.Changes, Setting{Setting: it.Setting, Old: it.Current, New: it.New, Rule: it.Rule})
						}
					}
					if len(r.Changes) == 0 {
						return fail(fmt.Errorf("the rule(s) %s changed nothing at runtime here (already set, pending reboot or manual): nothing to experiment with", strings.Join(o.Rules, ", ")))
					}
				}
				log("run %d B: applied %d change(s) (journal %s)", n, len(r.Changes), applied)
			}
			started := time.Now().UTC()
			res, err := o.RunBench(ctx, side, n)
			if err != nil {
				return fail(fmt.Errorf("bench run %d %s: %w", n, side, err))
			}
			v, err := pick(res, r)
			if err != nil {
				return fail(err)
			}
			r.Results = append(r.Results, res)
			run := Run{Side: side, N: n, Value: v, Started: started}
			if side == "A" {
				a = append(a, v)
			} else {
				run.Journal = applied
				b = append(b, v)
				if err := rollback(); err != nil {
					r.Runs = append(r.Runs, run)
					return r, err // do not go on with values that could not be restored
				}
			}
			r.Runs = append(r.Runs, run)
			log("run %d %s: %s %s = %g", n, side, r.Case, r.Metric, v)
		}
	}
	m, _ := bench.MetricByName(r.Metric)
	r.Effect = bench.Compare(r.Metric, m.HigherBetter, a, b, o.MinEffect)
	keep, why := Decide(o.Keep, r.Effect.Verdict)
	r.Why = why
	if keep {
		ao := o.Apply
		ao.DryRun = false
		res, err := apply.Apply(o.Changes, ao)
		if err != nil || res.Count(apply.StatusFailed) > 0 {
			if res != nil {
				applied = res.JournalID
			}
			return fail(fmt.Errorf("applying the changes to keep them failed: %v", err))
		}
		r.Kept, r.KeptJourn = true, res.JournalID
		log("kept: journal %s ('dbhost rollback' undoes it)", res.JournalID)
	} else {
		r.RolledBack = true
	}
	return r, nil
}

// pick is the run's figure: the mean over the result's samples of the
// judged case and metric (chosen from the first result when not given).
func pick(res *bench.Result, r *Result) (float64, error) {
	if r.Case == "" {
		cs := res.Cases()
		if len(cs) == 0 {
			return 0, fmt.Errorf("the bench result has no case")
		}
		r.Case = cs[0]
	}
	if res.Row(r.Case) == nil {
		return 0, fmt.Errorf("--case %q: the bench measured %s", r.Case, strings.Join(res.Cases(), ", "))
	}
	if r.Metric == "" {
		m, ok := res.Primary(r.Case)
		if !ok {
			return 0, fmt.Errorf("case %s carries no metric", r.Case)
		}
		r.Metric = m.Name
	}
	vals := res.Values(r.Case, r.Metric)
	if len(vals) == 0 {
		return 0, fmt.Errorf("--metric %q: case %s does not carry it", r.Metric, r.Case)
	}
	mean, _ := bench.MeanSD(vals)
	if math.IsNaN(mean) || math.IsInf(mean, 0) {
		return 0, fmt.Errorf("case %s %s: not a number", r.Case, r.Metric)
	}
	return mean, nil
}
