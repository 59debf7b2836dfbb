package main

import (
	"bufio"
	"fmt"
	buildversion "github.com/dbhost/dbhost/internal/version"
	"io"
	"os"
	"time"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

// auditFlags are the audit command's own flags.
type auditFlags struct {
	scopeFlags
	live    liveDBFlags
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
datasource XML, 'srvctl config service' output, AWR/Statspack reports (their
diagnosis joined with this host's facts; see 'dbhost awr') and libvirt domain XML (a KVM
guest's definition) by content. A malformed artifact is reported with its file and line
and makes the exit code 2, but the audit still runs.

--libvirt, on a KVM hypervisor host, audits every defined guest: virsh dumpxml of each
domain when libvirtd runs, else /etc/libvirt/qemu/*.xml (with --root or --sosreport, the
tree's). The virt.* rules judge each guest's disks (cache, io, bus), NICs (virtio,
vhost), hugepage backing and the host's per-node pools, vCPU and memory pinning and
guest NUMA cells against this host's topology; every finding names its domain.

--pg and --mysql (repeatable) read a live server's settings over a real connection,
read-only, so that hugepages are sized from the server's own figure and the device rules
apply to the devices that hold its data and WAL; as root, --db postgres or --db mysql finds
the local servers from their processes and connects over their unix socket as their OS
user (peer authentication). Passwords are never printed or stored (docs/livedb.md).

Several snapshots (--snapshot 'fleet/*.json') are audited one at a time (memory does not
grow with the fleet): per rule how many hosts fail it and which, the values they have, and
the hosts that differ from the majority; no line wider than the terminal (200 characters
when not a terminal). JSON keeps every host with its file (docs/fleet.md). 'dbhost rules
list' shows the whole catalog.`,
		Example: `  dbhost audit
  dbhost audit --workload oltp --db oracle --artifact alert_ORCL.log --artifact initORCL.ora
  dbhost audit --pg 'postgres://monitor@localhost/postgres' --mysql 'monitor@unix(/run/mysqld/mysqld.sock)/'
  sudo dbhost audit --db postgres      # the local clusters, over their sockets, as their OS user
  dbhost audit --root tree/ --format json
  sudo dbhost audit --libvirt        # every KVM guest defined on this host
  dbhost audit --artifact /etc/libvirt/qemu/db1.xml
  dbhost audit --snapshot 'fleet/*.json'
  dbhost audit --skip cpu.smt-off --skip network   # leave a rule, or an area, out
  dbhost audit --fail-on warning      # exit 3 when a warning or critical finding exists
  dbhost audit --format prometheus -o /var/lib/node_exporter/textfile/dbhost.prom   # textfile collector`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return runAudit(c, &src, &out, &f) },
	}
	src.add(c)
	src.addLibvirt(c)
	src.addAIX(c)
	out.add(c, "text", "json", "markdown", "prometheus")
	f.scopeFlags.add(c)
	f.live.add(c)
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
	if err := f.live.check(src); err != nil {
		return err
	}
	set, artErrs := f.loadArtifacts(c)
	spec := src.spec()
	hosts, err := hostsrc.Count(spec)
	if err != nil {
		return err
	}
	o := report.FindingsOptions{Explain: f.explain, Color: out.format == "text" && colorOK(c, out)}
	failing, guestErrs := 0, 0
	var notRead []string
	audit := func(s *snapshot.Snapshot, file string) rules.Report {
		notRead = append(notRead, f.live.attach(c, s, src, f.db)...)
		guestErrs += libvirtErrors(c, s)
		r := auditOne(s, file, &f.scopeFlags, set)
		if f.failOn != "" {
			failing += r.AtLeast(f.failOn)
		}
		return r
	}
	if hosts > 1 && out.format == "prometheus" {
		return usageErr("--format prometheus describes one host (node_exporter's textfile collector, on each host); --snapshot matched %d", hosts)
	}
	if hosts == 1 {
		var rep rules.Report
		var snap *snapshot.Snapshot
		t0 := time.Now()
		if err := hostsrc.Each(spec, func(s *snapshot.Snapshot, file string) error { rep, snap = audit(s, file), s; return nil }); err != nil {
			return err
		}
		reps := []rules.Report{rep}
		var b []byte
		switch out.format {
		case "json":
			b, err = report.FindingsJSON(reps, o)
		case "markdown":
			b = report.FindingsMarkdown(reps, o)
		case "prometheus":
			b, err = report.FindingsPrometheus(report.Audit{Report: rep, Snap: snap, At: time.Now(), Duration: time.Since(t0), Version: version,
				Revision: buildversion.Get().Revision, GoVersion: buildversion.Get().GoVersion})
		default:
			b = report.FindingsText(reps, o)
		}
		if err == nil {
			err = out.write(c, b)
		}
	} else {
		err = out.stream(c, func(w io.Writer) error {
			return auditFleet(w, spec, out.format, o, termWidth(c, out), audit)
		})
	}
	if err != nil {
		return err
	}
	if len(artErrs) > 0 {
		return usageErr("%d problem(s) with --artifact files (listed above); the audit ran with the rest", len(artErrs))
	}
	if guestErrs > 0 {
		return usageErr("%d libvirt domain definition(s) could not be read (listed above); the audit ran with the rest", guestErrs)
	}
	if err := notReadErr(notRead, "the audit ran with the rest"); err != nil {
		return err
	}
	if failing > 0 {
		return &exitError{code: exitFindings, err: fmt.Errorf("%d finding(s) at or above %s", failing, f.failOn)}
	}
	return nil
}

// auditFleet audits several hosts one snapshot at a time: JSON is written
// host by host; text and Markdown aggregate (report.Fleet) and write the
// per-host sections (Markdown's, text's under --explain) to a spill file
// that follows the fleet summary, so memory does not grow with the fleet.
func auditFleet(w io.Writer, spec hostsrc.Spec, format string, o report.FindingsOptions, width int,
	audit func(*snapshot.Snapshot, string) rules.Report) error {
	if format == "json" {
		j := report.NewFindingsJSONWriter(w, o)
		if err := hostsrc.Each(spec, func(s *snapshot.Snapshot, file string) error { return j.Add(audit(s, file)) }); err != nil {
			return err
		}
		return j.Close()
	}
	fl := report.NewFleet()
	var sp *spill
	if format == "markdown" || o.Explain {
		var err error
		if sp, err = newSpill(); err != nil {
			return err
		}
		defer sp.close()
	}
	err := hostsrc.Each(spec, func(s *snapshot.Snapshot, file string) error {
		r := audit(s, file)
		fl.Add(r, file)
		switch {
		case format == "markdown":
			report.HostMarkdown(sp.w, r, true, o)
		case o.Explain:
			sp.w.WriteString("\n")
			report.HostText(sp.w, r, o)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if format == "markdown" {
		err = fl.Markdown(w)
	} else {
		err = fl.Text(w, report.FleetOptions{Width: width, Color: o.Color})
	}
	if err != nil || sp == nil {
		return err
	}
	rd, err := sp.reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, rd)
	return err
}

// spill is a temporary file holding a fleet's per-host sections while the
// fleet is read, so that memory does not grow with the number of hosts;
// they follow (or sit inside) the fleet's summary, which is known last.
type spill struct {
	f *os.File
	w *bufio.Writer
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "dbhost-fleet-*")
	if err != nil {
		return nil, err
	}
	return &spill{f: f, w: bufio.NewWriter(f)}, nil
}

// reader is what was written, from its start.
func (s *spill) reader() (io.Reader, error) {
	if err := s.w.Flush(); err != nil {
		return nil, err
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return bufio.NewReader(s.f), nil
}

func (s *spill) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// auditOne runs the catalog on one snapshot, resolving --db auto.
func auditOne(s *snapshot.Snapshot, file string, f *scopeFlags, set *artifacts.Set) rules.Report {
	db, src := f.db, "--db "+f.db
	if db == "auto" {
		var ev string
		db, ev = rules.DetectDB(s, set)
		src = "detected: " + ev
	}
	rep := rules.Run(&rules.Input{Snap: s, Workload: f.workload, DB: db, Artifacts: set, Skip: f.skip})
	rep.DBSource = src
	if file != "" {
		rep.File = file
		if !s.CollectedAt.IsZero() {
			rep.CollectedAt = s.CollectedAt.UTC().Format(time.RFC3339)
		}
	}
	return rep
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
