package main

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/drift"
	"github.com/dbhost/dbhost/internal/jsonfmt"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

func newDiffCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "diff A.json B.json",
		Short: "Drift between two snapshots of one host: settings, topology, database processes",
		Long: `Diff compares two snapshots ('dbhost collect --format json') of the same host, A the
earlier: every setting that changed (sysctls, boot arguments, THP, hugepages, CPU governors and
idle states, block queues, NIC settings, IRQ affinity, cgroups, limits, tuned), the topology
(nodes, CPUs online, memory, disks, NICs, kernel) and the database instances (started,
stopped, restarted, their CPUs, memory nodes and cgroup). What moves by itself (free memory,
CPU time, interrupt counts, vmstat) is not drift. The same change on many CPUs is one line
with the CPUs as a list.

Two different hosts are compared too, with a note. Exit codes: 0 no drift, 3 drift found,
2 bad input.`,
		Example: `  dbhost collect --format json -o before.json
  ... a change, a reboot, a month ...
  dbhost collect --format json -o after.json
  dbhost diff before.json after.json
  dbhost diff before.json after.json --format json`,
		Args: cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			var snaps [2]*snapshot.Snapshot
			for i, p := range args {
				s, err := snapshot.Load(p)
				if err != nil {
					return err
				}
				snaps[i] = s
			}
			d, err := drift.Compare(snaps[0], args[0], snaps[1], args[1])
			if err != nil {
				return err
			}
			var b []byte
			switch out.format {
			case "json":
				if b, err = jsonfmt.Marshal(d); err != nil {
					return err
				}
			case "markdown":
				b = report.DriftMarkdown(d)
			default:
				b = report.DriftText(d, termWidth(c, &out))
			}
			if err := out.write(c, b); err != nil {
				return err
			}
			if n := d.Count(""); n > 0 {
				return &exitError{code: exitFindings, err: fmt.Errorf("")}
			}
			return nil
		},
	}
	out.add(c, "text", "json", "markdown")
	return c
}
