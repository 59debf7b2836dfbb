package main

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

// reportMaxBytes bounds the existing file -o reads to tell whether dbhost
// wrote it: a 240-CPU, 8-node host's report is well under 1 MiB.
const reportMaxBytes = 64 << 20

func newReportCmd() *cobra.Command {
	var src sourceFlags
	var f scopeFlags
	var live liveDBFlags
	var benches []string
	var out string
	var interval time.Duration
	c := &cobra.Command{
		Use:   "report",
		Short: "Write one self-contained HTML report of this host: findings, NUMA picture, benchmarks",
		Long: `Report audits the host (this host, --root, --sosreport or --snapshot; --workload, --db and
--artifact as for audit) and writes one HTML file a DBA reads in a minute and can hand on:
the summary (host, workload, database, findings by severity, the three that matter most),
the findings by area with their evidence, fix commands (with a copy button), risk and
sources, the NUMA picture (nodes with their CPUs, the distance heatmap, per-node memory
and hugepage bars, CPU busy and interrupt share, NICs and disks on their node), the
databases (the servers read with --pg, --mysql or, as root, --db postgres|mysql, as for
audit; each instance's CPUs and memory node by node, where its processes' pages are), and charts of the --bench results given (bench
numa's matrix as a heatmap, compare and experiment results as before/after with their
confidence intervals). Filters by severity and area; prints cleanly. On the live host
CPU busy and interrupt share are sampled over --interval (as dbhost numa does); from a
tree, sosreport or snapshot they are the counters since boot.

--snapshot 'fleet/*.json' matching several snapshots writes the fleet report: per failing
rule how many hosts fail it and which (the first few, then +N more to expand), the values
they have, the fix and sources once; the hosts that differ from the majority; one section
per host. The snapshots are read one at a time (memory does not grow with the fleet).

The file is self-contained (inline CSS, JS and SVG): it loads nothing when opened.
-o replaces only a report dbhost wrote and nobody changed since (its last line carries
its checksum); any other existing file is refused (exit 2). '-o -' writes to standard output.`,
		Example: `  dbhost report -o report.html
  dbhost report --snapshot db1.json --artifact alert_ORCL.log -o db1.html
  dbhost report --db postgres -o db1.html            # as root: the local PostgreSQL clusters too
  dbhost report --snapshot 'fleet/*.json' -o fleet.html
  dbhost report --root tree/ --bench numa.json --bench experiment.json -o tree.html`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := f.validate(); err != nil {
				return err
			}
			if err := checkInterval(interval); err != nil {
				return err
			}
			if err := live.check(&src); err != nil {
				return err
			}
			if out == "" {
				return usageErr("-o FILE is required: the report is one HTML file ('-o -' writes it to standard output)")
			}
			var files []report.BenchFile
			for _, p := range benches {
				data, err := input.ReadFile(p, bench.MaxResultBytes, "a bench result")
				if err != nil {
					if errors.Is(err, os.ErrNotExist) {
						return usageErr("--bench %s: no such file", p)
					}
					return usageErr("--bench %v", err)
				}
				bf, err := report.ParseBenchFile(p, data)
				if err != nil {
					return usageErr("--bench %v", err)
				}
				files = append(files, bf)
			}
			hosts, err := hostsrc.Count(src.spec())
			if err != nil {
				return err
			}
			if hosts > 1 && len(files) > 0 {
				return usageErr("--bench charts one host's results; --snapshot matched %d hosts (report them one at a time to add --bench)", hosts)
			}
			set, artErrs := f.loadArtifacts(c)
			// The page is written as it is made, straight into -o (a
			// temporary file renamed over it when whole) or standard
			// output: a fleet's page is never held in memory.
			var write func(io.Writer) error
			if hosts > 1 {
				var done func()
				write, done, err = fleetReport(src.spec(), &f, set)
				if done != nil {
					defer done()
				}
			} else {
				var b []byte
				b, err = hostReport(c, &src, &f, &live, set, files, interval)
				write = func(w io.Writer) error { _, err := w.Write(b); return err }
			}
			if err != nil {
				return err
			}
			if err := streamOwnOutput(c, out, reportMaxBytes, report.IsOwnHTML, write); err != nil {
				return err
			}
			if len(artErrs) > 0 {
				return usageErr("%d problem(s) with --artifact files (listed above); the report was written with the rest", len(artErrs))
			}
			return nil
		},
	}
	src.add(c)
	src.addAIX(c)
	f.add(c)
	live.add(c)
	fl := c.Flags()
	fl.DurationVar(&interval, "interval", time.Second, "CPU busy and interrupt sample length on the live host (0: since boot)")
	fl.StringArrayVar(&benches, "bench", nil, "a result of dbhost bench, compare or experiment (--format json) to chart (repeatable)")
	fl.StringVarP(&out, "output", "o", "", "the HTML file to write (required; '-' for standard output)")
	return c
}

// hostReport is the report of one host.
func hostReport(c *cobra.Command, src *sourceFlags, f *scopeFlags, live *liveDBFlags, set *artifacts.Set, files []report.BenchFile, interval time.Duration) ([]byte, error) {
	s, err := src.one("report")
	if err != nil {
		return nil, err
	}
	live.attach(c, s, src, f.db)
	rep := auditOne(s, "", f, set)
	nv := report.NUMANodes(s)
	addNUMASample(nv, s, src.live(), interval)
	return report.HTML(report.HTMLInput{Snap: s, Report: rep, Artifacts: f.artifacts, Bench: files,
		NUMA: nv, Version: version, Generated: time.Now()})
}

// fleetReport is the report of several snapshots, read and audited one at
// a time: each host's section goes to a spill file as it is audited; write
// writes the page around them from what report.Fleet kept, streaming the
// spill into it. done removes the spill.
func fleetReport(spec hostsrc.Spec, f *scopeFlags, set *artifacts.Set) (write func(io.Writer) error, done func(), err error) {
	fl := report.NewFleet()
	sp, err := newSpill()
	if err != nil {
		return nil, nil, err
	}
	err = hostsrc.Each(spec, func(s *snapshot.Snapshot, file string) error {
		r := auditOne(s, file, f, set)
		i := fl.Len()
		fl.Add(r, file)
		return report.FleetHostHTML(sp.w, r, i)
	})
	if err != nil {
		return nil, sp.close, err
	}
	rd, err := sp.reader()
	if err != nil {
		return nil, sp.close, err
	}
	meta := report.FleetHTMLMeta{Pattern: spec.Snapshot, Version: version, Generated: time.Now()}
	return func(w io.Writer) error { return fl.HTML(w, rd, meta) }, sp.close, nil
}
