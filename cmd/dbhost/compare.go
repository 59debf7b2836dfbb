package main

import (
	"errors"
	"os"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/spf13/cobra"
)

func newCompareCmd() *cobra.Command {
	var format, out string
	var minEffect float64
	c := &cobra.Command{
		Use:   "compare A.json B.json",
		Short: "Compare two bench results: B against A, with 95 % confidence intervals and a verdict",
		Long: `Compare reads two results of the same bench ('dbhost bench X --format json') and, for
every case both measured and every figure both carry (throughput, operations per second,
mean and p99 latency, ns per load), gives B against A: the ratio, the difference in % of
A with its 95 % confidence interval (Welch's t over the repeats: run the benches with
--repeat 3 or more), and a verdict: better, worse, no measurable difference (the interval
contains 0 and lies within ±--min-effect %), or inconclusive (the spread is too large to
tell, or a side has a single repeat).

Parameters that differ between the runs and different hosts are warned about. --format
markdown gives the same lines as a table (for a ticket or a wiki), json every figure.`,
		Example: `  dbhost bench net --repeat 5 --format json -o before.json
  ... change something ...
  dbhost bench net --repeat 5 --format json -o after.json
  dbhost compare before.json after.json
  dbhost compare before.json after.json --format markdown -o compare.md`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "markdown" {
				return usageErr("--format %q: expected one of %s", format, resultFormats)
			}
			if minEffect < 0 || minEffect > 100 {
				return usageErr("--min-effect %g: expected a percentage from 0 to 100", minEffect)
			}
			var rs [2]*bench.Result
			for i, p := range args {
				r, err := bench.Load(p)
				if err != nil {
					if errors.Is(err, os.ErrNotExist) {
						return usageErr("%s: no such file", p)
					}
					return usageErr("%v", err)
				}
				rs[i] = r
			}
			cmp, err := bench.CompareResults(args[0], rs[0], args[1], rs[1], minEffect)
			if err != nil {
				return usageErr("%v", err)
			}
			return writeResult(c, format, out, cmp, func() []byte { return report.CompareText(cmp) }, func() []byte { return report.CompareMarkdown(cmp) })
		},
	}
	c.Flags().StringVar(&format, "format", "text", "output format: "+resultFormats)
	c.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of standard output")
	c.Flags().Float64Var(&minEffect, "min-effect", 5, "smallest change (% of A) worth calling a difference")
	return c
}
