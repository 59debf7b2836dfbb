package main

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/dbhost/dbhost/internal/outdir"
	"github.com/dbhost/dbhost/internal/plan"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/spf13/cobra"
)

type planFlags struct {
	auditFlags
	only            []string
	tunedBootloader bool
}

// validate checks the audit's flags and the --only selectors.
func (f *planFlags) validate() error {
	if err := f.auditFlags.validate(); err != nil {
		return err
	}
	if err := rules.CheckSelectors("--only", f.only); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

func newPlanCmd() *cobra.Command {
	var src sourceFlags
	var out outputFlags
	var f planFlags
	c := &cobra.Command{
		Use:   "plan",
		Short: "Compute the desired state and write it as artifacts; nothing is changed",
		Long: `Plan audits the host (this host, --root, --sosreport or a single --snapshot) and turns the
findings into a desired state: sysctls, sysfs values (block queues per device class, THP,
governor, hugepages per node), limits, boot arguments to add or remove, and the tuned base
profile for the workload (oltp and latency: latency-performance, mixed and dss:
throughput-performance, a virtual guest: virtual-guest, a KVM host: virtual-host). Two rules asking for one setting at
different values are resolved (the more severe finding, then the stricter value) and the
plan says so.

-o DIR (default plan) receives only dbhost's files, listed with their checksums in
DIR/.dbhost-manifest. A new directory, or a previous plan (unchanged since dbhost wrote
it), is replaced atomically; a directory holding any other file (or a plan file edited
since) is refused, naming the file, with exit 2: nothing there is overwritten or removed.
  plan.json                    the plan 'dbhost apply --plan' reads
  tuned.conf                   a tuned 2.20 profile including the base profile (none for RHEL 6's tuned 0.2)
  sysctl.d/90-dbhost.conf      for /etc/sysctl.d
  udev/60-dbhost-block.rules   block queue settings per device class, for /etc/udev/rules.d
  limits.d/90-dbhost.conf      for /etc/security/limits.d
  boot-args.txt                each boot argument with its grubby command and reason
Every line names the rule that wants it. Nothing on the host is changed. The printed summary
is text (default), the plan as JSON (--format json) or the summary as Markdown (--format markdown).`,
		Example: `  dbhost plan --workload oltp --db oracle -o plan/
  dbhost plan --workload dss --artifact initORCL.ora --artifact alert_ORCL.log -o plan/
  dbhost plan --root tree/ --only io --format json -o /tmp/plan
  dbhost plan --snapshot host.json --format markdown -o plan/ > plan.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runPlan(c, &src, &out, &f) },
	}
	src.add(c)
	out.add(c, "text", "json", "markdown")
	c.Flags().Lookup("output").Usage = "plan directory: new, empty, or a previous plan (replaced atomically); any other file there is refused"
	c.Flags().Lookup("output").DefValue = "plan"
	f.scopeFlags.add(c)
	f.live.add(c)
	fl := c.Flags()
	fl.StringSliceVar(&f.only, "only", nil, "keep only the changes of these rules (rule id or area, e.g. io or memory.swappiness; repeatable)")
	_ = c.RegisterFlagCompletionFunc("only", completeRules)
	fl.BoolVar(&f.tunedBootloader, "tuned-bootloader", false, "write boot arguments into tuned.conf's [bootloader] cmdline (default: a comment; use boot-args.txt)")
	_ = c.MarkFlagDirname("output")
	return c
}

// outDirErr: a directory output refused because it holds files dbhost
// did not write is bad input (exit 2), and so is a place the operator may
// not or cannot write (no permission, a read-only file system, a file in
// the way), as for single-file outputs; a failure while writing (a full
// disk) is exit 1.
func outDirErr(dir string, err error) error {
	var re *outdir.RefusedError
	if errors.As(err, &re) {
		return usageErr("-o %v", err)
	}
	for _, e := range []error{fs.ErrPermission, fs.ErrNotExist, syscall.ENOTDIR, syscall.EROFS} {
		if errors.Is(err, e) {
			return usageErr("-o %s: cannot write there: %v", dir, err)
		}
	}
	return fmt.Errorf("-o %s: %w", dir, err)
}

func runPlan(c *cobra.Command, src *sourceFlags, out *outputFlags, f *planFlags) error {
	if err := out.validate(); err != nil {
		return err
	}
	if err := f.validate(); err != nil {
		return err
	}
	dir := out.out
	if dir == "" {
		dir = "plan"
	}
	if dir == "-" {
		return usageErr("-o -: plan writes a directory; give its name")
	}
	set, artErrs := f.loadArtifacts(c)
	if err := f.live.check(src); err != nil {
		return err
	}
	s, err := src.one("plan")
	if err != nil {
		return err
	}
	if err := linuxOnly("plan", s); err != nil {
		return err
	}
	notRead := f.live.attach(c, s, src, f.db)
	db := f.db
	if db == "auto" {
		db, _ = rules.DetectDB(s, set)
	}
	p, err := plan.Build(s, plan.Options{Workload: f.workload, DB: db, Artifacts: set, Only: f.only, Skip: f.skip, TunedBootloader: f.tunedBootloader})
	if err != nil {
		return err
	}
	if err := p.Write(dir); err != nil {
		return outDirErr(dir, err)
	}
	var b []byte
	switch out.format {
	case "json":
		if b, err = p.JSON(); err != nil {
			return err
		}
	case "markdown":
		b = report.PlanMarkdown(p, dir)
	default:
		b = report.PlanSummary(p, dir)
	}
	if _, err := c.OutOrStdout().Write(b); err != nil {
		return err
	}
	if len(artErrs) > 0 {
		return usageErr("%d problem(s) with --artifact files (listed above); the plan was made with the rest", len(artErrs))
	}
	return notReadErr(notRead, "the plan was made without them")
}
