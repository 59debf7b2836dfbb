package main

import (
	"fmt"
	"os"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

// auditFlags are the audit command's own flags.
type auditFlags struct {
	scopeFlags
	failOn  string
	explain bool
}

func newAuditCmd() *cobra.Command {
	var src sourceFlags
	var out outputFlags
	var f auditFlags
	c := &cobra.Command{
		Use:   "audit",
		Short: "Audit this host against the cited sources",
		Long: `Audit reads the host's facts (this host, --root, --sosreport or --snapshot) and any
database artifacts, and reports what is wrong, why, what to do and who says so. Every
finding names the setting, its current and recommended value, the evidence read, the
measured effect in the source, the fix (now and persistent), and its sources and scope.

Rules are scoped to a workload (--workload) and a database (--db auto detects it from the
database processes, then from the artifacts). A rule whose facts are absent says so under
--explain ("could not check: ...") and never reports a finding from a guess.

--artifact is repeatable; dbhost recognises Oracle alert logs, init.ora/pfile/spfile
strings, listener.ora, tnsnames.ora, cgconfig.conf, postgresql.conf, JBoss/WildFly
datasource XML, 'srvctl config service' output and AWR/Statspack reports (their
diagnosis joined with this host's facts; see 'dbhost awr') by content. A malformed
artifact is reported with its file and line and makes the exit code 2, but the audit
still runs.

Several snapshots (--snapshot 'fleet/*.json') give one table of which rule fails on which
host. 'dbhost rules list' shows the whole catalog.`,
		Example: `  dbhost audit
  dbhost audit --workload oltp --db oracle --artifact alert_ORCL.log --artifact initORCL.ora
  dbhost audit --root tree/ --format json
  dbhost audit --snapshot 'fleet/*.json'
  dbhost audit --skip cpu.smt-off --skip network   # leave a rule, or an area, out
  dbhost audit --fail-on warning      # exit 3 when a warning or critical finding exists`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runAudit(c, &src, &out, &f) },
	}
	src.add(c)
	out.add(c, "text", "json", "markdown")
	f.scopeFlags.add(c)
	fl := c.Flags()
	fl.StringVar(&f.failOn, "fail-on", "", "exit 3 when a finding at or above this severity exists: info|warning|critical")
	fl.BoolVar(&f.explain, "explain", false, "also list passed rules, rules that could not check (and why) and rules that do not apply")
	_ = c.RegisterFlagCompletionFunc("fail-on", completeWords(rules.SevInfo, rules.SevWarning, rules.SevCritical))
	return c
}

func (f *auditFlags) validate() error {
	if err := f.scopeFlags.validate(); err != nil {
		return err
	}
	if f.failOn != "" && rules.SeverityRank(f.failOn) == 0 {
		return usageErr("--fail-on %q: expected info, warning or critical", f.failOn)
	}
	return nil
}

func runAudit(c *cobra.Command, src *sourceFlags, out *outputFlags, f *auditFlags) error {
	if err := out.validate(); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	// Artifacts first: a malformed one is reported (file:line) and makes the
	// exit code 2 at the end, but the audit still runs with what was parsed.
	set, artErrs := f.loadArtifacts(c)
	snaps, err := src.load()
	if err != nil {
		return err
	}
	reps := auditSnapshots(snaps, f, set)
	o := report.FindingsOptions{Explain: f.explain, Color: out.format == "text" && colorOK(c, out)}
	var b []byte
	switch out.format {
	case "json":
		b, err = report.FindingsJSON(reps, o)
		if err != nil {
			return err
		}
	case "markdown":
		b = report.FindingsMarkdown(reps, o)
	default:
		b = report.FindingsText(reps, o)
	}
	if err := out.write(c, b); err != nil {
		return err
	}
	if len(artErrs) > 0 {
		return usageErr("%d problem(s) with --artifact files (listed above); the audit ran with the rest", len(artErrs))
	}
	if f.failOn != "" {
		n := 0
		for i := range reps {
			n += reps[i].AtLeast(f.failOn)
		}
		if n > 0 {
			return &exitError{code: exitFindings, err: fmt.Errorf("%d finding(s) at or above %s", n, f.failOn)}
		}
	}
	return nil
}

// auditSnapshots runs the catalog on each snapshot, resolving --db auto per host.
func auditSnapshots(snaps []*snapshot.Snapshot, f *auditFlags, set *artifacts.Set) []rules.Report {
	reps := make([]rules.Report, 0, len(snaps))
	for _, s := range snaps {
		db, src := f.db, "--db "+f.db
		if db == "auto" {
			var ev string
			db, ev = rules.DetectDB(s, set)
			src = "detected: " + ev
		}
		rep := rules.Run(&rules.Input{Snap: s, Workload: f.workload, DB: db, Artifacts: set, Skip: f.skip})
		rep.DBSource = src
		reps = append(reps, rep)
	}
	return reps
}

// colorOK: colour only when writing to a terminal, and never with NO_COLOR or TERM=dumb.
func colorOK(c *cobra.Command, out *outputFlags) bool {
	if out.out != "" && out.out != "-" {
		return false
	}
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	fh, ok := c.OutOrStdout().(*os.File)
	if !ok {
		return false
	}
	st, err := fh.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
