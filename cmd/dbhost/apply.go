package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/outdir"
	"github.com/dbhost/dbhost/internal/plan"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/spf13/cobra"
)

// hostFlags choose the host apply, verify and rollback act on.
type hostFlags struct {
	root, stateDir, format string
	markdown               bool   // --format markdown is offered (apply, verify, rollback)
	out                    string // -o FILE (apply, verify, rollback: addOutput)
	lost                   error  // -o FILE could not be written after the host was touched (write)
}

// addOutput adds -o FILE (apply, verify, rollback; experiment has its own).
// A report that could not be written to FILE (write) does not hide the
// command's own outcome: failed changes, refusals and drift keep their exit
// codes; a run that would otherwise succeed exits 1.
func (h *hostFlags) addOutput(c *cobra.Command) {
	c.Flags().StringVarP(&h.out, "output", "o", "", "write the report to FILE instead of standard output (checked before anything is read or changed: a file dbhost did not write is refused)")
	run := c.RunE
	c.RunE = func(c *cobra.Command, args []string) error {
		err := run(c, args)
		if err == nil && h.lost != nil {
			return &exitError{code: exitInternal, err: fmt.Errorf("the report was not written to %s (above); it is on standard output", h.out)}
		}
		return err
	}
}

// write prints the command's report (v as JSON, or its text or Markdown
// view) to -o FILE or standard output. options checked FILE before the
// host was touched; should it fail now all the same (a full disk), the
// report goes to standard output rather than being lost, the failure is
// said on standard error at once, and the command goes on to its own end
// (warnings, its exit code: addOutput).
func (h *hostFlags) write(c *cobra.Command, v any, text, md func() []byte) error {
	err := writeResult(c, h.format, h.out, v, text, md)
	if err == nil || h.out == "" || h.out == "-" {
		return err
	}
	if werr := writeResult(c, h.format, "", v, text, md); werr != nil {
		return err
	}
	fmt.Fprintf(c.ErrOrStderr(), "dbhost: %v; the report is on standard output instead\n", err)
	h.lost = err
	return nil
}

func (h *hostFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&h.root, "root", "", "act on a writable tree (DIR/proc, DIR/sys, DIR/etc) instead of this host")
	fl.StringVar(&h.stateDir, "state-dir", "", "journal directory (default /var/lib/dbhost; with --root, ROOT/var/lib/dbhost)")
	formats := "[text json]"
	if h.markdown {
		formats = "[text json markdown]"
	}
	fl.StringVar(&h.format, "format", "text", "output format: "+formats)
	_ = c.MarkFlagDirname("root")
	_ = c.MarkFlagDirname("state-dir")
}

func (h *hostFlags) options(cmd string) (apply.Options, error) {
	if h.format != "text" && h.format != "json" && (h.format != "markdown" || !h.markdown) {
		formats := "[text json]"
		if h.markdown {
			formats = "[text json markdown]"
		}
		return apply.Options{}, usageErr("--format %q: expected one of %s", h.format, formats)
	}
	if h.out != "" && h.out != "-" {
		// Before anything is read or changed: a refused -o never comes
		// after the host was changed.
		var re *outdir.RefusedError
		if err := outdir.CheckOwnFile(h.out, 0, nil); errors.As(err, &re) {
			return apply.Options{}, usageErr("-o %v", err)
		} else if err != nil {
			return apply.Options{}, usageErr("-o %s: cannot write there: %v", h.out, err)
		}
	}
	o := apply.Options{Version: version}
	// --root / (or a path to it) is refused by OpenTree: this host is
	// worked on without --root, never as a tree.
	if h.root == "" {
		if err := refuseLiveAIX(cmd); err != nil {
			return o, err
		}
		o.Root = facts.Root{Dir: "/", Live: true}
	} else {
		root, err := hostsrc.OpenTree(h.root)
		if err != nil {
			return o, err
		}
		o.Root = root
		o.Sys = apply.TreeSys{Root: o.Root}
	}
	o.StateDir = h.stateDir
	if err := apply.CheckStateDir(o.StateDir); o.StateDir != "" && err != nil {
		return o, usageErr("--state-dir %v", err)
	}
	if o.StateDir == "" {
		d, err := apply.DefaultStateDir(o.Root)
		if err != nil {
			return o, usageErr("--root %s: %v", h.root, err)
		}
		o.StateDir = d
	}
	// DBHOST_TEST_* (a -tags testhooks build only; a no-op otherwise).
	if err := testHooks(&o); err != nil {
		return o, err
	}
	return o, nil
}

// changing records, for the report of a crash (crash.AddHint), that the
// command changes the host from now on, and how the operator verifies and
// rolls back what it did, with the same --root and --state-dir.
func (h *hostFlags) changing() {
	flags := ""
	if h.root != "" {
		flags += " --root " + change.Quote(h.root)
	}
	if h.stateDir != "" {
		flags += " --state-dir " + change.Quote(h.stateDir)
	}
	crash.AddHint(fmt.Sprintf("it was changing the host: every write was journaled before it was made (as after a kill -9 there); 'dbhost verify%s' shows what is in place, 'dbhost rollback%s' restores the old values", flags, flags))
}

// lockState takes the state directory's lock before anything is read:
// shared for a dry run or verify (they only read what an apply writes),
// exclusive otherwise. A held lock is exit 6 with the holder's pid.
func lockState(c *cobra.Command, o *apply.Options, shared bool) (*apply.StateLock, error) {
	var l *apply.StateLock
	var err error
	if shared {
		l, err = apply.LockShared(o.StateDir)
	} else {
		l, err = apply.Lock(o.StateDir)
	}
	if err != nil {
		return nil, stateErr(err, o.StateDir)
	}
	sayCreated(c, o.StateDir, l != nil && l.Created)
	o.Locked = true
	return l, nil
}

// missing reports whether dir does not exist yet (sayCreated's argument,
// taken before the command makes it).
func missing(dir string) bool {
	_, err := os.Lstat(dir)
	return errors.Is(err, os.ErrNotExist)
}

// sayCreated tells the operator that the command made dbhost's state
// directory: dbhost never creates one unannounced.
func sayCreated(c *cobra.Command, dir string, created bool) {
	if created {
		fmt.Fprintf(c.ErrOrStderr(), "dbhost: created the state directory %s (the lock, the journals rollback restores from, the record of what benches create)\n", dir)
	}
}

// stateErr maps the state directory's errors to exit codes: a held lock 6,
// no permission 2 (run as root), else 1.
func stateErr(err error, stateDir string) error {
	var le *apply.LockedError
	var se *apply.StateError
	switch {
	case errors.As(err, &le):
		return &exitError{code: exitLocked, err: err}
	case errors.As(err, &se):
		// An entry of the state directory that is not dbhost's own (a
		// link out of it, a FIFO, a hard link), or a --state-dir that is
		// not a directory: bad input, refused before anything was written.
		return usageErr("%v", se)
	case errors.Is(err, os.ErrPermission):
		return usageErr("%v: dbhost keeps its lock and journal in --state-dir %s and writes the host's settings: run it as root", err, stateDir)
	}
	return err
}

func newApplyCmd() *cobra.Command {
	var h hostFlags
	var pf planFlags
	var planPath string
	var dryRun, acceptRisk bool
	c := &cobra.Command{
		Use:   "apply",
		Short: "Apply a plan's runtime changes, journaled (see verify, rollback)",
		Long: `Apply brings the host to a plan's values: the plan 'dbhost plan' would compute with the
same --workload, --db, --artifact and --only, or a saved one (--plan plan/plan.json). A saved
plan is taken only if every change in it is one the named rules of this catalog make (their
settings and value forms), each with the catalog's risk, never the file's: otherwise nothing is
applied and every refused change is named with its line (exit 2).

Each write is journaled in --state-dir before it is made (old and new value, fsync'ed),
read back after it (a value the kernel accepted but did not keep is FAILED, with both
values), and the values the kernel changes on its own (a block queue's nr_requests after
a scheduler change, vm.min_free_kbytes after a THP change, the other hugepage pools) are
journaled too. 'dbhost rollback' restores every touched value, after a failure, a kill -9
or a power loss at any point. A setting already at its value is not written: apply twice
is a no-op the second time.

Risky changes (the source warns they can lose data or cost much) are refused unless
--accept-risk; the warning is quoted. Boot arguments are never written: apply prints the
grubby command and marks them pending reboot. Limits go to /etc/security/limits.d/90-dbhost.conf.

--dry-run prints the diff (setting: current → new, rule, why) and changes nothing.
--format markdown prints the same view as the text (for a change ticket); warnings go to
standard error in every format. -o FILE writes the report to FILE, checked before anything
is changed (a file dbhost did not write is refused).

Exit codes: 0 done (or nothing to do), 1 a change failed (rollback restores), 2 bad input,
5 risky changes refused without --accept-risk (the others were applied), 6 another dbhost
apply/rollback holds the lock (nothing was read or changed).`,
		Example: `  dbhost apply --dry-run --workload oltp --db oracle
  dbhost apply --plan plan/plan.json
  dbhost apply --only memory.swappiness --only io
  dbhost apply --root tree/ --format json
  dbhost apply --plan plan/plan.json --format markdown -o change.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := h.options("apply")
			if err != nil {
				return err
			}
			o.DryRun, o.AcceptRisk = dryRun, acceptRisk
			// A saved plan is read and checked against the catalog
			// before anything else: a refused plan (exit 2) leaves the
			// host as it was, no state directory made, no lock taken.
			var saved *plan.Plan
			if planPath != "" {
				if saved, err = readPlan(&pf, planPath); err != nil {
					return err
				}
			}
			if !dryRun {
				h.changing()
			}
			// The lock first: the plan is computed from the host's
			// current values, which another apply may be writing.
			l, err := lockState(c, &o, dryRun)
			if err != nil {
				return err
			}
			defer l.Unlock()
			changes, planName, err := loadChanges(c, &h, &pf, planPath, saved)
			if err != nil {
				return err
			}
			o.Plan = planName
			res, err := apply.Apply(changes, o)
			if res != nil {
				if werr := h.write(c, res, func() []byte { return report.ApplyText(res) }, func() []byte { return report.ApplyMarkdown(res) }); werr != nil {
					return werr
				}
				warnAll(c, res.Warnings)
			}
			if err != nil {
				return stateErr(err, o.StateDir)
			}
			if n := res.Count(apply.StatusFailed); n > 0 {
				hint := ""
				if res.JournalID != "" {
					hint = "; 'dbhost rollback' restores every value this run touched"
				}
				return &exitError{code: exitInternal, err: fmt.Errorf("%d change(s) failed (listed above)%s", n, hint)}
			}
			if n := res.Count(apply.StatusRefused); n > 0 && !dryRun {
				return &exitError{code: exitRefused, err: fmt.Errorf("%d risky change(s) refused (warnings above); pass --accept-risk to apply them, or leave their rules out with %s", n, skipHint(res))}
			}
			return nil
		},
	}
	h.markdown = true
	h.add(c)
	h.addOutput(c)
	pf.scopeFlags.add(c)
	fl := c.Flags()
	fl.BoolVar(&dryRun, "dry-run", false, "print the diff (setting, current → new, rule, why); change nothing")
	fl.BoolVar(&acceptRisk, "accept-risk", false, "also apply changes the sources warn about (the warning is quoted)")
	fl.StringVar(&planPath, "plan", "", "apply a saved plan (plan.json or its directory) instead of computing one")
	fl.StringSliceVar(&pf.only, "only", nil, "apply only the changes of these rules (rule id or area, e.g. io; repeatable)")
	_ = c.RegisterFlagCompletionFunc("only", completeRules)
	return c
}

// readPlan reads a saved plan (--plan) as apply takes it: its selectors
// checked, the file within its limit, every change one the catalog's
// rules make, with the catalog's risk (plan.Load); any refusal is exit 2.
func readPlan(pf *planFlags, planPath string) (*plan.Plan, error) {
	if err := rules.CheckSelectors("--only", pf.only); err != nil {
		return nil, usageErr("%v", err)
	}
	if err := rules.CheckSelectors("--skip", pf.skip); err != nil {
		return nil, usageErr("%v", err)
	}
	p, err := plan.Load(planPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, usageErr("--plan %s: no such file", planPath)
		}
		return nil, usageErr("--plan: %v", err)
	}
	return p, nil
}

// loadChanges returns the plan's changes: a saved plan (read by readPlan,
// filtered by --only) or one computed from the host.
func loadChanges(c *cobra.Command, h *hostFlags, pf *planFlags, planPath string, saved *plan.Plan) ([]change.Change, string, error) {
	p := saved
	name := planPath
	if planPath != "" {
		root := facts.Root{Dir: h.root}
		if h.root == "" {
			root.Dir = "/"
		}
		host, herr := root.ReadString("/proc/sys/kernel/hostname")
		if herr != nil {
			host, herr = root.ReadString("/etc/hostname")
		}
		if herr == nil && p.Host != "" && host != "" && host != p.Host {
			fmt.Fprintf(c.ErrOrStderr(), "dbhost: warning: the plan was made for host %q, this is %q\n", p.Host, host)
		}
	} else {
		if err := pf.validate(); err != nil {
			return nil, "", err
		}
		set, errs := pf.loadArtifacts(c)
		if len(errs) > 0 {
			return nil, "", usageErr("%d problem(s) with --artifact files (listed above): nothing applied", len(errs))
		}
		s, err := hostsrc.One(hostsrc.Spec{Root: h.root, Version: version}, "apply")
		if err != nil {
			return nil, "", err
		}
		if err := linuxOnly("apply", s); err != nil {
			return nil, "", err
		}
		p, err = plan.Build(s, plan.Options{Workload: pf.workload, DB: pf.db, Artifacts: set, Only: pf.only, Skip: pf.skip})
		if err != nil {
			return nil, "", usageErr("%v", err)
		}
		name = "(computed: --workload " + p.Workload + " --db " + p.DB + ")"
	}
	var out []change.Change
	for _, ch := range append(append([]change.Change{}, p.Changes...), p.PendingReboot...) {
		if onlyRule(ch.Rule, pf.only, pf.skip) {
			out = append(out, ch)
		}
	}
	if p.TunedProfile != "" && len(pf.only) == 0 && !rules.Matches("cpu.tuned-profile", pf.skip) {
		out = append(out, change.Change{Kind: change.TunedProfile, Key: "profile", Value: p.TunedProfile, Rule: "plan", Why: p.TunedWhy})
	}
	return out, name, nil
}

// onlyRule: a change's rule (or one of its comma-separated rules, when
// several rules want the same setting) is selected by --only and not left
// out by --skip. A change two rules want stays while one of them is kept.
func onlyRule(rule string, only, skip []string) bool {
	for _, r := range strings.Split(rule, ",") {
		r = strings.TrimSpace(r)
		if plan.Selected(r, only) && !rules.Matches(r, skip) {
			return true
		}
	}
	return false
}

// skipHint names the --skip flags that leave the refused changes out.
func skipHint(r *apply.Result) string {
	var ids []string
	seen := map[string]bool{}
	for _, it := range r.Items {
		if it.Status != apply.StatusRefused {
			continue
		}
		for _, id := range strings.Split(it.Rule, ",") {
			id = strings.TrimSpace(id)
			if id != "" && !seen[id] {
				seen[id] = true
				ids = append(ids, "--skip "+id)
			}
		}
	}
	if len(ids) == 0 {
		return "--skip RULE"
	}
	return strings.Join(ids, " ")
}

func newRollbackCmd() *cobra.Command {
	var h hostFlags
	var to string
	c := &cobra.Command{
		Use:   "rollback",
		Short: "Restore the values an apply changed (the last one, or every one back to --to)",
		Long: `Rollback restores every value the newest apply touched, in reverse order, including the
values the kernel changed on its own and writes an interrupted apply had only announced.
--to ID undoes every apply from the newest back to journal ID. A value already at its old
value is not written: rollback twice is a no-op. Works after a kill -9 or power loss.
--format markdown prints the same view as the text; warnings go to standard error.

Exit codes: 0 restored (or nothing to do), 1 a value could not be restored (listed; run
rollback again once fixed), 2 bad input or no journal, 6 another dbhost apply/rollback
holds the lock (nothing was read or changed).`,
		Example: `  dbhost rollback
  dbhost rollback --to 20261122T064512.123456789Z
  dbhost rollback --root tree/
  dbhost rollback --format markdown -o rollback.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := h.options("rollback")
			if err != nil {
				return err
			}
			h.changing()
			res, err := apply.Rollback(to, o)
			text := func() []byte { return report.RollbackText(res) }
			md := func() []byte { return report.RollbackMarkdown(res) }
			if err != nil && res != nil && len(res.Journals) > 0 {
				// Stopped half-way (its journal could not be written):
				// what was restored and what was not comes first.
				if werr := h.write(c, res, text, md); werr != nil {
					return werr
				}
			}
			if errors.Is(err, apply.ErrNoJournal) {
				return usageErr("%v in %s", err, o.StateDir)
			}
			var le *apply.LockedError
			var se *apply.StateError
			if errors.As(err, &le) || errors.As(err, &se) || errors.Is(err, os.ErrPermission) {
				return stateErr(err, o.StateDir)
			}
			if err != nil {
				if res == nil {
					return usageErr("%v", err)
				}
				return err
			}
			if werr := h.write(c, res, text, md); werr != nil {
				return werr
			}
			warnAll(c, report.RollbackWarnings(res))
			if res.Stopped() {
				return &exitError{code: exitInternal, err: errors.New("rollback stopped at a damaged journal (listed above): the values it did not restore are listed with their recorded old values; the journal stays open")}
			}
			if n := res.Failed(); n > 0 {
				return &exitError{code: exitInternal, err: fmt.Errorf("%d value(s) could not be restored (listed above); the journal stays open: run rollback again", n)}
			}
			return nil
		},
	}
	h.markdown = true
	h.add(c)
	h.addOutput(c)
	c.Flags().StringVar(&to, "to", "", "undo every apply from the newest back to this journal id")
	return c
}

func newVerifyCmd() *cobra.Command {
	var h hostFlags
	var planPath, id string
	c := &cobra.Command{
		Use:   "verify",
		Short: "Compare live values with the last apply (or a plan), with the likely cause of each drift",
		Long: `Verify reads each setting the newest apply (or --journal ID) wrote, or that a plan
(--plan) wants, and compares the live value. A drifted setting names its likely cause: a
sysctl.d/sysctl.conf entry that wins for the key, tuned's active profile (or one it
includes) setting it, a udev rule assigning the attribute, a reboot after the apply (boot
time from /proc/stat), else another agent.

Exit codes: 0 every setting as applied, 3 drift found (or a damaged journal, or an apply
that was interrupted before its end), 2 bad input or nothing to verify, 6 an apply or
rollback is running (it holds the lock).`,
		Example: `  dbhost verify
  dbhost verify --plan plan/plan.json --format json
  dbhost verify --format markdown > verify.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			o, err := h.options("verify")
			if err != nil {
				return err
			}
			l, err := lockState(c, &o, true)
			if err != nil {
				return err
			}
			defer l.Unlock()
			vo := apply.VerifyOptions{Root: o.Root, Sys: o.Sys}
			if s, err := hostsrc.One(hostsrc.Spec{Root: h.root, Version: version}, "verify"); err == nil {
				vo.Snap = s
			}
			var checks []apply.Check
			var damage []apply.Damage
			what, legacy, interrupted := "", false, false
			if planPath != "" {
				p, err := plan.Load(planPath)
				if err != nil {
					return usageErr("--plan: %v", err)
				}
				checks = apply.VerifyChanges(append(append([]change.Change{}, p.Changes...), p.PendingReboot...), vo)
				what = "plan " + planPath
			} else {
				if id == "" {
					ids, err := apply.ListJournals(o.StateDir)
					if err != nil {
						return stateErr(err, o.StateDir)
					}
					if len(ids) == 0 {
						return usageErr("no apply journal in %s: nothing to verify (use --plan)", o.StateDir)
					}
					id = ids[len(ids)-1]
				}
				j, err := apply.LoadJournal(o.StateDir, id)
				if err != nil {
					return usageErr("journal %s: %v", id, err)
				}
				if j.RolledBack && !j.Damaged() {
					return usageErr("the apply %s was rolled back: nothing to verify (use --plan, or --journal an older id)", j.ID)
				}
				checks = apply.VerifyJournal(j, vo)
				what = "journal " + j.ID
				damage, legacy = j.Damage, j.Format == apply.FormatLegacy
				// No end entry: a crash, a kill or an internal error
				// stopped the apply; the changes after its last write were
				// never made, whatever the ones before show.
				interrupted = !j.Ended && !j.RolledBack && !j.Damaged()
			}
			if checks == nil {
				checks = []apply.Check{}
			}
			out := struct {
				Of     string         `json:"of"`
				Checks []apply.Check  `json:"checks"`
				Damage []apply.Damage `json:"damage,omitempty"`
				Legacy bool           `json:"legacy,omitempty"`
				// Interrupted: the apply never reached its end.
				Interrupted bool `json:"interrupted,omitempty"`
			}{what, checks, damage, legacy, interrupted}
			if err := h.write(c, out, func() []byte {
				return report.VerifyJournalText(what, checks, damage, interrupted)
			}, func() []byte {
				return report.VerifyMarkdown(what, checks, damage, interrupted)
			}); err != nil {
				return err
			}
			if legacy {
				warnAll(c, []string{"the journal is in the legacy format (written before checksums): its integrity is not verified"})
			}
			if len(damage) > 0 {
				return &exitError{code: exitFindings, err: fmt.Errorf("%s is damaged: it cannot be verified as applied", what)}
			}
			if interrupted {
				return &exitError{code: exitFindings, err: fmt.Errorf("%s was interrupted before its end: not as applied", what)}
			}
			n := 0
			for _, ch := range checks {
				if ch.Status != "ok" && ch.Status != apply.StatusManual {
					n++
				}
			}
			if n > 0 {
				return &exitError{code: exitFindings, err: fmt.Errorf("%d setting(s) not as applied (listed above)", n)}
			}
			return nil
		},
	}
	h.markdown = true
	h.add(c)
	h.addOutput(c)
	c.Flags().StringVar(&planPath, "plan", "", "verify against a plan (plan.json or its directory) instead of the last apply")
	c.Flags().StringVar(&id, "journal", "", "verify this apply's journal id (default: the newest)")
	return c
}

// warnAll prints warnings on standard error, one per line: standard output
// keeps the report (text or JSON) alone.
func warnAll(c *cobra.Command, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(c.ErrOrStderr(), "dbhost: warning: %s\n", w)
	}
}
