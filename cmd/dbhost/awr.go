package main

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/spf13/cobra"
)

func newAWRCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "awr FILE...",
		Short: "Read AWR and Statspack reports: load, top events, diagnosis; compare several",
		Long: `awr reads Oracle performance reports — AWR in HTML (what awrrpt.sql writes by default)
or text, single instance, RAC instance or global RAC (awrgrpt.sql), 10g to 23ai, and
Statspack text, 8i to 19c — and prints what each says (host, load profile, top timed
events, wait classes) with the diagnosis dbhost makes of it: each finding is a rule that
cites the source document it comes from ('dbhost rules list' shows them; their ids hold
"awr").

awr never reads the host it runs on: a report mailed to you says nothing about this
machine. Diagnoses that depend on the database host (NUMA balancing, the redo devices,
the hugepage pool, cpusets) say what would decide them; run
'dbhost audit --artifact REPORT' on the database host (or with --root, --sosreport or
--snapshot of it) to get them answered.

Several reports are compared with the first (before and after a change): the load profile
and the top events side by side, with each report's difference from the first.

--format markdown prints the same view as the text, for a ticket or a wiki: a heading per
report and for the comparison, the tables as pipe tables, each finding a list item with
its evidence, fix and sources nested under it.

A file that is no AWR or Statspack report, or a section of one that cannot be read, is
reported with its file and line and makes the exit code 2; the rest is still printed.
Files larger than the artifact limit (see docs/awr.md) are refused.`,
		Example: `  dbhost awr awrrpt_1_1234_1240.html
  dbhost awr --format json awrrpt_1_1234_1240.html | jq '.reports[0].top_events'
  dbhost awr before.html after.html          # side by side, deltas against before.html
  dbhost awr --format markdown -o awr.md before.html after.html   # the same view for a ticket or a wiki
  dbhost audit --artifact awrrpt_1_1234_1240.html   # the diagnosis joined with this host's facts`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return runAWR(c, &out, args) },
	}
	out.add(c, "text", "json", "markdown")
	return c
}

func runAWR(c *cobra.Command, out *outputFlags, files []string) error {
	if err := out.validate(); err != nil {
		return err
	}
	for _, f := range files {
		if strings.TrimSpace(f) == "" {
			return usageErr("an empty file name: expected the path of an AWR or Statspack report")
		}
	}
	reps, errs := artifacts.LoadAWR(files)
	problems := map[string][]string{}
	for _, e := range errs {
		fmt.Fprintln(c.ErrOrStderr(), "dbhost: awr:", e)
		if pe, ok := e.(*artifacts.Error); ok {
			problems[pe.File] = append(problems[pe.File], e.Error())
		}
	}
	if len(reps) == 0 {
		return usageErr("no report could be read (%d file(s) given)", len(files))
	}
	items := make([]report.AWRItem, len(reps))
	for i, r := range reps {
		d := rules.DiagnoseAWR(r, nil)
		items[i] = report.AWRItem{Report: r, Findings: d.Findings, CannotCheck: d.CannotCheck, Problems: problems[r.File], Rules: len(rules.AWRRules())}
	}
	cmp := artifacts.CompareAWR(reps)
	var b []byte
	var err error
	switch out.format {
	case "json":
		if b, err = report.AWRJSON(items, cmp); err != nil {
			return err
		}
	case "markdown":
		b = report.AWRMarkdown(items, cmp)
	default:
		b = report.AWRText(items, cmp, report.FindingsOptions{Color: colorOK(c, out)})
	}
	if err := out.write(c, b); err != nil {
		return err
	}
	if len(errs) > 0 {
		return usageErr("%d problem(s) reading the reports (listed above); the rest was read", len(errs))
	}
	return nil
}
