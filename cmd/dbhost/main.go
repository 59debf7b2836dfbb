// Command dbhost makes database hosts fast and proves it: it collects a host's
// facts, audits them against cited sources, plans and applies changes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/testhooks"
	buildversion "github.com/dbhost/dbhost/internal/version"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// version names this build (internal/version: stamped by a release build,
// else what the Go toolchain recorded); `dbhost version` prints the rest.
var version = buildversion.String()

// Exit codes: exitCodes is the one table, printed by `dbhost --help` and
// copied in README (TestExitCodeTableInREADME keeps them equal).
const (
	exitOK         = 0
	exitInternal   = 1 // internal failure; a change or a restore failed
	exitUsage      = 2 // bad input or usage
	exitFindings   = 3 // audit --fail-on threshold reached; verify: not as applied; diff: drift
	exitInfeasible = 4 // place: spec cannot be satisfied
	exitRefused    = 5 // apply: risky changes refused without --accept-risk
	exitLocked     = 6 // another dbhost apply/rollback holds the state lock
)

// exitCodes is the exit code table: code, meaning, commands.
var exitCodes = [][3]string{
	{"0", "all", "success, or nothing to do; verify: every setting as applied"},
	{"1", "all", "internal failure; apply, place --apply: a change failed (rollback restores the run); rollback: a value it could not restore, or a damaged journal it stopped at (listed with the recorded old values; the journal stays open)"},
	{"2", "all", "bad input or usage (the message names the file or flag and what was expected); rollback, verify: no journal; plan, place: -o names a directory holding files dbhost did not write (named); every other command: -o FILE names a file dbhost did not write, or edited since (named, left as it was; apply and rollback check it before changing anything); audit, collect, plan: a database server (--pg, --mysql, --db) that could not be read, after the whole output (its rules could not check)"},
	{"3", "audit, verify, diff", "audit: findings at or above --fail-on; verify: a setting not as applied (drift, failed or interrupted write, boot argument pending reboot), a damaged journal or an apply interrupted before its end; diff: the two snapshots differ (drift)"},
	{"4", "place", "placement infeasible (every reason is listed)"},
	{"5", "apply", "risky changes refused without --accept-risk (warnings quoted); the other changes were applied"},
	{"6", "apply, rollback, place --apply, verify", "another dbhost apply/rollback holds the state directory's lock (its pid named); nothing was read or changed"},
}

// exitCodeText is the table as `dbhost --help` prints it.
func exitCodeText() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, r := range exitCodes {
		line := "  " + r[0] + "  [" + r[1] + "]"
		for _, w := range strings.Fields(r[2]) {
			if len(line)+1+len(w) > 92 {
				b.WriteString(line + "\n")
				line = "    "
			}
			line += " " + w
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// exitError carries an exit code with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, a...)}
}

func main() {
	// dbhost runs for milliseconds and allocates a few MB (a 240-CPU snapshot
	// is ~1 MB of JSON): garbage collection at the default 100 % took ~15 %
	// of such a collect. Collect less often unless the user chose GOGC.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	crash.Setup(version, os.Args[1:])
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line and returns the exit code. A panic in the
// command (a bug) is caught here, after the command's deferred functions
// (its lock, its journal) have run: "internal error", a request to report
// it with the file its stack was saved to, the command's hint (how to
// verify and roll back a change it was making), exit 1, never 2 (which
// says the input was bad). Goroutines other than fact readers start with
// crash.Go, which reports theirs the same way.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer crash.SetHints(crash.Hints()) // experiment runs its benches with run
	defer func() {
		if p := recover(); p != nil {
			crash.Report(stderr, p, debug.Stack())
			code = crash.ExitCode
		}
	}()
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	code = exitInternal
	var ee *exitError
	var ie *snapshot.InputError
	switch {
	case errors.As(err, &ee):
		code = ee.code
	case errors.As(err, &ie):
		code = exitUsage
	case strings.HasPrefix(err.Error(), "unknown command "):
		// "dbhost bogus": cobra's subcommand lookup, before any Args check.
		code = exitUsage
	}
	if code != exitFindings && code != exitInfeasible || err.Error() != "" {
		fmt.Fprintln(stderr, "dbhost:", report.CleanText(err.Error())) // a file's name or line may hold ESC
	}
	return code
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "dbhost",
		Short: "Make database hosts fast, and prove it",
		Long: `dbhost knows a database host (NUMA, memory, hugepages, CPU power, storage, network,
cgroups, limits, database processes), audits it against the vendor documents it cites,
and plans, applies, verifies and rolls back tuning.

Every command reads one of: this host (default), --root DIR (a captured tree with
DIR/proc, DIR/sys, DIR/etc; nothing is read from the live host), --sosreport FILE|DIR,
or --snapshot FILE (a saved snapshot).

` + exitCodeText(),
		Version:       version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see 'dbhost help %s')", err, c.Name())
	})
	root.AddCommand(newCollectCmd(), newAuditCmd(), newAWRCmd(), newRulesCmd(), newPlaceCmd(), newNumaCmd(), newPlanCmd(), newApplyCmd(), newVerifyCmd(), newRollbackCmd(), newBenchCmd(), newCompareCmd(), newExperimentCmd(), newReportCmd(), newExporterCmd(), newDiffCmd(), newVersionCmd(), newReleaseFilesCmd())
	usageArgs(root)
	checkValues(root)
	return root
}

// checkValues makes every command refuse an empty flag value before it
// runs (checkEmptyFlags), and lets the tests of internal errors panic there
// (DBHOST_TEST_PANIC=command, in a -tags testhooks build).
func checkValues(root *cobra.Command) {
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		if testhooks.Enabled && testhooks.Getenv(testhooks.Panic) == "command" {
			panic("test panic in the command (DBHOST_TEST_PANIC=command)")
		}
		if err := checkEmptyFlags(c); err != nil {
			return err
		}
		return checkMinFlags(c)
	}
}

// usageArgs makes cobra's positional-argument errors ("unknown command
// \"x\" for \"dbhost collect\"", "accepts 1 arg(s)") usage errors: exit 2.
func usageArgs(c *cobra.Command) {
	if v := c.Args; v != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			// Cobra checks arguments before the pre-run hook: an empty
			// flag value is the first thing to say.
			if err := checkEmptyFlags(cmd); err != nil {
				return err
			}
			if err := checkMinFlags(cmd); err != nil {
				return err
			}
			if err := v(cmd, args); err != nil {
				return usageErr("%v (see 'dbhost help %s')", err, strings.TrimPrefix(cmd.CommandPath(), "dbhost "))
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// checkEmptyFlags refuses a flag given an empty or whitespace-only value:
// "--root \"$TREE\"" with TREE unset must never mean "this host", nor
// "--only \"$RULES\"" every rule, nor "--fail-on \"$LEVEL\"" no gate. Left
// out, a flag keeps its default; given, it needs a value.
func checkEmptyFlags(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		var vals []string
		switch v := f.Value.(type) {
		case pflag.SliceValue:
			vals = v.GetSlice()
			if len(vals) == 0 {
				vals = []string{""} // "--only ''" parses to no element at all
			}
		default:
			if f.Value.Type() != "string" {
				return
			}
			vals = []string{f.Value.String()}
		}
		for _, v := range vals {
			if strings.TrimSpace(v) == "" {
				err = usageErr("--%s %q: empty value; give one, or leave the flag out (an empty path never means this host or a default)", f.Name, v)
				return
			}
		}
	})
	return err
}

// minAnnotation holds a numeric flag's smallest value and what it is
// (atLeast).
const minAnnotation = "dbhost-min"

// atLeast declares the smallest value flag name takes when it is given.
// Its default may be a value no one types (0: automatic, -1: not bound),
// so "--pid 0" or "--threads 0" from an unset "$PID" must not quietly mean
// "leave it out": given, a flag is checked (checkMinFlags); left out, it
// keeps its default. what says what the flag expects, for the error.
func atLeast(c *cobra.Command, name string, min int, what string) {
	if err := c.Flags().SetAnnotation(name, minAnnotation, []string{strconv.Itoa(min), what}); err != nil {
		panic(err) // a flag name that does not exist: a bug
	}
}

// checkMinFlags refuses a flag given a value below its atLeast (exit 2).
func checkMinFlags(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		a, ok := f.Annotations[minAnnotation]
		if err != nil || !ok || len(a) != 2 {
			return
		}
		min, _ := strconv.Atoi(a[0])
		v, perr := strconv.ParseInt(f.Value.String(), 10, 64)
		if perr != nil || v < int64(min) {
			err = usageErr("--%s %s: %s (leave the flag out for its default)", f.Name, f.Value.String(), a[1])
		}
	})
	return err
}
