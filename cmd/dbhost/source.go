package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/outdir"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

// sourceFlags are the input flags every command shares.
type sourceFlags struct {
	root, sosreport, snapshot, aixBundle string
	libvirt                              bool // --libvirt (audit, collect: addLibvirt)
}

func (f *sourceFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.root, "root", "", "read a captured tree (DIR/proc, DIR/sys, DIR/etc) instead of this host")
	c.Flags().StringVar(&f.sosreport, "sosreport", "", "read a sosreport archive (.tar.xz, .tar.gz/.tgz, .tar.bz2, .tar) or its unpacked directory")
	c.Flags().StringVar(&f.snapshot, "snapshot", "", "read saved snapshot file(s); a glob such as 'fleet/*.json' reads several hosts")
	_ = c.MarkFlagDirname("root")
}

// addLibvirt adds --libvirt (the KVM guests defined on the host) to a
// command that reads a host.
func (f *sourceFlags) addLibvirt(c *cobra.Command) {
	c.Flags().BoolVar(&f.libvirt, "libvirt", false, "also read the KVM guests defined on this hypervisor host: virsh dumpxml of every domain when libvirtd runs, else /etc/libvirt/qemu/*.xml (with --root or --sosreport: the tree's)")
}

// libvirtErrors prints the guest definitions that could not be read
// (file and line) and returns how many there were.
func libvirtErrors(c *cobra.Command, s *snapshot.Snapshot) int {
	if s.Libvirt == nil {
		return 0
	}
	for _, e := range s.Libvirt.Errors {
		fmt.Fprintln(c.ErrOrStderr(), "dbhost: libvirt:", e)
	}
	return len(s.Libvirt.Errors)
}

// addAIX adds --aix-bundle (collect, audit, report, exporter: the commands
// that read an AIX host's facts).
func (f *sourceFlags) addAIX(c *cobra.Command) {
	c.Flags().StringVar(&f.aixBundle, "aix-bundle", "", "read an AIX bundle (a directory or .tar.gz made by scripts/dbhost-collect-aix.sh; docs/aix.md)")
}

func (f *sourceFlags) spec() hostsrc.Spec {
	return hostsrc.Spec{Root: f.root, Sosreport: f.sosreport, Snapshot: f.snapshot, AIXBundle: f.aixBundle, Version: version, Libvirt: f.libvirt}
}

// one reads the one host a command works on (cmd names it in the error
// when a --snapshot glob matches several).
func (f *sourceFlags) one(cmd string) (*snapshot.Snapshot, error) {
	return hostsrc.One(f.spec(), cmd)
}

// linuxOnly refuses an AIX host's snapshot for a command that reads or
// changes what only Linux has (/proc/sys, /sys NUMA nodes, cgroups, tuned):
// never a Linux plan, placement or NUMA view made up from an AIX host.
func linuxOnly(cmd string, s *snapshot.Snapshot) error {
	if s == nil || s.AIX == nil {
		return nil
	}
	host := s.Host.Hostname
	if host == "" {
		host = "the host"
	}
	return usageErr("%s is an AIX host: dbhost %s works on Linux hosts (/proc, /sys, cgroups, tuned); %s", host, cmd, aixHint)
}

// refuseLiveAIX refuses a Linux-only command on a live AIX host before it
// reads, locks or creates anything (dbhost running on AIX).
func refuseLiveAIX(cmd string) error {
	if !hostsrc.LiveAIX() {
		return nil
	}
	return usageErr("this is an AIX host: dbhost %s works on Linux hosts (/proc, /sys, cgroups, tuned); %s", cmd, aixHint)
}

// aixHint is what an AIX host gets instead.
const aixHint = "on AIX, 'dbhost audit' gives the findings with their AIX fix commands (chdev, vmo, ioo, no, smtctl), 'dbhost collect' and 'dbhost report' the host's picture (docs/aix.md)"

// live: no source flag, this host.
func (f *sourceFlags) live() bool {
	return f.root == "" && f.sosreport == "" && f.snapshot == "" && f.aixBundle == ""
}

// outputFlags choose the format and destination.
type outputFlags struct {
	format  string
	out     string
	formats []string
}

func (o *outputFlags) add(c *cobra.Command, formats ...string) {
	o.formats = formats
	c.Flags().StringVar(&o.format, "format", formats[0], fmt.Sprintf("output format: %v", formats))
	c.Flags().StringVarP(&o.out, "output", "o", "", "write to this file instead of standard output")
	_ = c.RegisterFlagCompletionFunc("format", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return formats, cobra.ShellCompDirectiveNoFileComp
	})
}

func (o *outputFlags) validate() error {
	for _, f := range o.formats {
		if f == o.format {
			return nil
		}
	}
	return usageErr("--format %q: expected one of %v", o.format, o.formats)
}

// write sends b to the chosen file or stdout (writeOutput).
func (o *outputFlags) write(c *cobra.Command, b []byte) error { return writeOutput(c, o.out, b) }

// stream is write for output made piece by piece (streamOutput).
func (o *outputFlags) stream(c *cobra.Command, fn func(io.Writer) error) error {
	return streamOutput(c, o.out, fn)
}

// writeOutput is what -o FILE means for every single-file output: "" or
// "-" is standard output; otherwise outdir.CreateOwnFile: a new file, or
// dbhost's own unchanged output, is replaced atomically (temp file +
// rename: a reader never sees half of it); a file dbhost did not write, or
// changed since, and a directory are refused (exit 2, named), as are a
// symlink another user planted in a sticky directory and every device but
// /dev/null and a terminal; /dev/stdout is standard output, and a FIFO with
// a reader is written into (one nobody reads is refused at once).
func writeOutput(c *cobra.Command, out string, b []byte) error {
	return streamOutput(c, out, func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// streamOutput is writeOutput for output fn writes piece by piece: into a
// file it goes to a temp file renamed over it only when fn succeeds (an
// error leaves the old file as it was); standard output gets it as it comes.
func streamOutput(c *cobra.Command, out string, fn func(io.Writer) error) error {
	// No format check (own nil, no limit): these outputs are recognised by
	// the checksum CreateOwnFile keeps in their attribute.
	return streamOwnOutput(c, out, 0, nil, fn)
}

// streamOwnOutput is streamOutput for a format that also carries its own
// checksum (the HTML report's trailer): own says so of an existing file's
// first limit bytes (outdir.CreateOwnFile).
func streamOwnOutput(c *cobra.Command, out string, limit int64, own func([]byte) bool, fn func(io.Writer) error) error {
	if out == "" || out == "-" || out == outdir.Stdout {
		w := bufio.NewWriterSize(c.OutOrStdout(), 64<<10)
		if err := fn(w); err != nil {
			w.Flush()
			return err
		}
		return w.Flush()
	}
	werr := error(nil) // fn's own error, returned as it is
	err := outdir.CreateOwnFile(out, limit, own, func(w io.Writer) error {
		werr = fn(w)
		return werr
	})
	var re *outdir.RefusedError
	switch {
	case err == nil, werr != nil:
		return err
	case errors.As(err, &re):
		return usageErr("-o %v", err)
	default:
		return usageErr("-o %s: cannot write there: %v", out, err)
	}
}

// termWidth is how wide a line of text output may be: the terminal's width
// when writing to one, else 200 (a file, a pipe, a CI log).
func termWidth(c *cobra.Command, out *outputFlags) int {
	if out.out != "" && out.out != "-" {
		return 200
	}
	if fh, ok := c.OutOrStdout().(*os.File); ok {
		if w := ttyWidth(fh); w > 0 {
			return w
		}
	}
	return 200
}

// scopeFlags say what the host runs: the workload, the database and its
// artifacts. audit, plan and apply share them.
type scopeFlags struct {
	workload  string
	db        string
	artifacts []string
	skip      []string
}

func (f *scopeFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&f.workload, "workload", rules.WorkloadMixed, "workload: "+strings.Join(rules.Workloads, "|"))
	fl.StringVar(&f.db, "db", "auto", "database: auto|"+strings.Join(rules.DBs, "|"))
	fl.StringArrayVar(&f.artifacts, "artifact", nil, "database artifact file (repeatable): alert log, init.ora, listener.ora, ...")
	fl.StringSliceVar(&f.skip, "skip", nil, "leave these rules out (rule id or area, e.g. cpu.smt-off or io; repeatable)")
	_ = c.RegisterFlagCompletionFunc("skip", completeRules)
	_ = c.RegisterFlagCompletionFunc("workload", completeWords(rules.Workloads...))
	_ = c.RegisterFlagCompletionFunc("db", completeWords(append([]string{"auto"}, rules.DBs...)...))
}

func (f *scopeFlags) validate() error {
	if !oneOf(f.workload, rules.Workloads) {
		return usageErr("--workload %q: expected one of %s", f.workload, strings.Join(rules.Workloads, ", "))
	}
	if f.db != "auto" && !oneOf(f.db, rules.DBs) {
		return usageErr("--db %q: expected auto or one of %s", f.db, strings.Join(rules.DBs, ", "))
	}
	if err := rules.CheckSelectors("--skip", f.skip); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// completeRules completes --only and --skip with rule ids and areas.
func completeRules(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	var out []string
	seen := map[string]bool{}
	for _, r := range rules.All() {
		if !seen[r.Area] {
			seen[r.Area] = true
			out = append(out, r.Area)
		}
		out = append(out, r.ID)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// loadArtifacts parses the --artifact files. Each malformed one is printed
// (file:line) and returned, so that the command can exit 2 at the end while
// still doing its work with what was parsed.
func (f *scopeFlags) loadArtifacts(c *cobra.Command) (*artifacts.Set, []error) {
	if len(f.artifacts) == 0 {
		return nil, nil
	}
	set, errs := artifacts.Load(f.artifacts)
	for _, e := range errs {
		fmt.Fprintln(c.ErrOrStderr(), "dbhost: artifact:", e)
	}
	return set, errs
}

// completeWords completes a flag with fixed words.
func completeWords(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return vals, cobra.ShellCompDirectiveNoFileComp
	}
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
