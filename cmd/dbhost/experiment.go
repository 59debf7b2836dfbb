package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/experiment"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/spf13/cobra"
)

func newExperimentCmd() *cobra.Command {
	var h hostFlags
	var pf planFlags
	var benchStr, out, cas, metric string
	var runs int
	var keep, acceptRisk bool
	var minEffect float64
	c := &cobra.Command{
		Use:   "experiment --rule ID [--rule ID...] --bench 'BENCH ARGS' [--runs N]",
		Short: "A/B test rules' changes with a bench: interleaved runs, 95 % CI, verdict, rollback",
		Long: `Experiment proves (or disproves) advice on this host. It computes the changes the given
rules want (as 'dbhost apply --only RULE' would), then runs the bench --runs times on each
side, interleaved A B A B so that drift falls on both: A without the changes, B with them,
applied through apply's crash-safe journal before each B run and rolled back right after.
The effect is the difference of the means with its 95 % confidence interval (Welch's t),
and a verdict: better, worse, no measurable difference (within ±--min-effect %), or
inconclusive when the spread is too large to tell (run more, or on a quieter host).

The changes are rolled back at the end, unless --keep and the verdict is better. Ctrl-C
rolls back before exiting; after a kill -9, 'dbhost bench --cleanup' (or 'dbhost rollback')
restores the values. --root runs the changes against a writable tree (the bench still
measures this host): the way to try the machinery without touching the kernel.

--format text|json|markdown: the changes, every run, the effect and the verdict (json: with
every run's bench result); the bench's own --format and -o are the experiment's.`,
		Example: `  dbhost experiment --rule memory.swappiness --bench 'db --dsn "host=/run/postgresql" --duration 30s' --runs 5
  dbhost experiment --rule network.socket-buffers --bench 'net --delay 10ms --test tcp_stream' --runs 6 --keep
  dbhost experiment --rule memory.swappiness --bench 'mq --duration 5s' --format markdown -o swappiness.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if len(pf.only) == 0 {
				return usageErr("--rule: name at least one rule (dbhost rules list)")
			}
			if benchStr == "" {
				return usageErr("--bench: the bench to run, e.g. 'net --duration 5s'")
			}
			if runs < 2 || runs > 1000 {
				return usageErr("--runs %d: expected 2 to 1000 runs of each side", runs)
			}
			if minEffect < 0 || minEffect > 100 {
				return usageErr("--min-effect %g: expected a percentage", minEffect)
			}
			bargs, err := splitWords(benchStr)
			if err != nil || len(bargs) == 0 {
				return usageErr("--bench %q: %v", crash.Redact(benchStr), err)
			}
			for _, a := range bargs {
				if a == "--format" || a == "-o" || a == "--output" || a == "--state-dir" || strings.HasPrefix(a, "--format=") || strings.HasPrefix(a, "--output=") {
					return usageErr("--bench: %s is set by the experiment", a)
				}
			}
			if m := metric; m != "" {
				if _, ok := bench.MetricByName(m); !ok {
					return usageErr("--metric %q: expected one of throughput_gbps, ops_per_sec, latency_mean_us, ns_per_load, latency_p99_us", m)
				}
			}
			o, err := h.options("experiment")
			if err != nil {
				return err
			}
			o.AcceptRisk = acceptRisk
			h.changing()
			changes, _, err := loadChanges(c, &h, &pf, "", nil)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			regDir := filepath.Join(o.StateDir, "bench")
			created := missing(o.StateDir)
			reg, cleaned, err := bench.OpenRegistry(regDir, redactedCommandLine())
			printCleaned(c, cleaned)
			if err != nil {
				return stateErr(err, o.StateDir)
			}
			sayCreated(c, o.StateDir, created)
			tmp, err := os.MkdirTemp("", bench.ScratchPrefix+"exp-")
			if err != nil {
				return err
			}
			defer os.RemoveAll(tmp)
			eo := experiment.Options{Rules: pf.only, Changes: changes, Apply: o, Bench: crash.Redact(benchStr), Runs: runs, Keep: keep,
				MinEffect: minEffect, Case: cas, Metric: metric, Registry: reg,
				Log: func(f string, a ...any) { fmt.Fprintf(c.ErrOrStderr(), "dbhost experiment: "+f+"\n", a...) },
				RunBench: func(ctx context.Context, side string, n int) (*bench.Result, error) {
					p := filepath.Join(tmp, fmt.Sprintf("%s%d.json", side, n))
					args := append(append([]string{"bench"}, bargs...), "--format", "json", "-o", p, "--state-dir", o.StateDir)
					var errb strings.Builder
					if code := run(args, io.Discard, &errb); code != 0 {
						return nil, fmt.Errorf("dbhost %s: exit %d: %s", strings.Join(crash.RedactArgs(args), " "), code, crash.Redact(strings.TrimSpace(errb.String())))
					}
					return bench.Load(p)
				}}
			res, xerr := experiment.Execute(ctx, eo)
			if cerr := reg.Close(); cerr != nil {
				fmt.Fprintf(c.ErrOrStderr(), "dbhost experiment: cleanup: %v\n", cerr)
				xerr = joinErr(xerr, cerr)
			}
			if res != nil && len(res.Runs) > 0 && (xerr == nil || res.Effect.Verdict != "") {
				if werr := writeResult(c, h.format, out, res, func() []byte { return report.ExperimentText(res) }, func() []byte { return report.ExperimentMarkdown(res) }); werr != nil {
					return werr
				}
			}
			if xerr != nil {
				if ctx.Err() != nil {
					return &exitError{code: exitInternal, err: fmt.Errorf("%v; the changes were rolled back", xerr)}
				}
				return xerr
			}
			return nil
		},
	}
	h.markdown = true
	h.add(c)
	pf.scopeFlags.add(c)
	fl := c.Flags()
	fl.StringSliceVar(&pf.only, "rule", nil, "a rule whose changes to test (rule id or area; repeatable)")
	fl.StringVar(&benchStr, "bench", "", "the bench and its flags, e.g. 'net --duration 5s' or 'db --dsn \"host=/run/postgresql\"'")
	fl.IntVar(&runs, "runs", 5, "runs of each side (A without, B with the changes), interleaved")
	atLeast(c, "runs", 2, "expected 2 to 1000 runs of each side")
	fl.BoolVar(&keep, "keep", false, "keep the changes when they measure better (else they are rolled back)")
	fl.BoolVar(&acceptRisk, "accept-risk", false, "also apply changes the sources warn about")
	fl.Float64Var(&minEffect, "min-effect", 5, "smallest change (% of A) worth calling a difference")
	fl.StringVar(&cas, "case", "", "the bench case to judge (default: its first)")
	fl.StringVar(&metric, "metric", "", "the figure to judge (default: the case's first of throughput_gbps, ops_per_sec, latency_mean_us, ns_per_load)")
	fl.StringVarP(&out, "output", "o", "", "write the result to FILE instead of standard output")
	return c
}

func joinErr(a, b error) error {
	if a == nil {
		return b
	}
	return fmt.Errorf("%v; %v", a, b)
}

// splitWords splits a command line like a shell: words separated by
// blanks, 'single' and "double" quotes, backslash escapes.
func splitWords(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in := false
	var q rune
	esc := false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && q != '\'':
			esc = true
		case q != 0:
			if r == q {
				q = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			q, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if q != 0 || esc {
		return nil, fmt.Errorf("unterminated quote or escape")
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}
