package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dbhost/dbhost/internal/place"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/spf13/cobra"
)

func newPlaceCmd() *cobra.Command {
	var src sourceFlags
	var specPath, format, outDir string
	var apply bool
	c := &cobra.Command{
		Use:   "place",
		Short: "Plan where database instances run on the NUMA nodes (binding, caging or mix)",
		Long: `Place reads a spec of database instances and plans their CPUs, memory nodes and
hugepages on this host (or --root, --snapshot, --sosreport), following seed 001's three
approaches: binding (one cpuset per guaranteed instance, whole cores, packed into as few
and as near nodes as possible, mems = the nodes of its CPUs), caging (cpu_count limits,
SGA interleaved over all nodes) and mix (one cpuset for the guaranteed instances, each
caged inside; best-effort ones in a disjoint cpuset). See docs/place.md for the spec.

-o DIR writes the artifacts: cgconfig.conf (cgroup v1), systemd slices and drop-ins
(cgroup v2), Oracle parameters, numactl lines, per-node hugepage pools and, on a
multi-node Oracle host, one listener per node on that node's NIC.

Exit codes: 0 feasible, 4 infeasible (every reason is listed), 2 bad spec (file:line).`,
		Example: `  dbhost place --spec instances.yaml
  dbhost place --spec instances.yaml --snapshot host.json --format json
  dbhost place --spec instances.yaml -o plan/`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if apply {
				return usageErr("place --apply is not available until the apply journal lands; use -o DIR and apply the artifacts by hand")
			}
			if format != "text" && format != "json" {
				return usageErr("--format %q: expected one of [text json]", format)
			}
			if specPath == "" {
				return usageErr("--spec FILE is required (see docs/place.md)")
			}
			var data []byte
			var err error
			if specPath == "-" {
				data, err = io.ReadAll(io.LimitReader(c.InOrStdin(), 16<<20))
			} else {
				data, err = os.ReadFile(specPath)
			}
			if err != nil {
				return usageErr("--spec: %v", err)
			}
			spec, err := place.ParseSpec(specPath, data)
			if err != nil {
				return usageErr("bad spec: %v", err)
			}
			snaps, err := src.load()
			if err != nil {
				return err
			}
			if len(snaps) != 1 {
				return usageErr("place plans one host; %d snapshots matched", len(snaps))
			}
			r := place.Plan(snaps[0], spec)
			var b []byte
			if format == "json" {
				b, err = report.JSON(r)
				if err != nil {
					return err
				}
			} else {
				b = r.Text()
			}
			if _, err := c.OutOrStdout().Write(b); err != nil {
				return err
			}
			if !r.Feasible {
				var msgs []string
				for _, e := range r.Errors {
					if e.Instance != "" {
						msgs = append(msgs, e.Instance+": "+e.Message)
					} else {
						msgs = append(msgs, e.Message)
					}
				}
				return &exitError{code: exitInfeasible, err: errors.New("placement infeasible: " + strings.Join(msgs, "; "))}
			}
			if outDir != "" {
				names, err := r.WriteArtifacts(outDir, snaps[0].Cgroups.Version)
				if err != nil {
					return fmt.Errorf("-o %s: %w", outDir, err)
				}
				fmt.Fprintf(c.ErrOrStderr(), "wrote %d files to %s: %s\n", len(names), outDir, strings.Join(names, " "))
			}
			return nil
		},
	}
	src.add(c)
	fl := c.Flags()
	fl.StringVar(&specPath, "spec", "", "placement spec (YAML; '-' reads standard input)")
	fl.StringVar(&format, "format", "text", "output format: [text json]")
	fl.StringVarP(&outDir, "output", "o", "", "write the artifacts into this directory")
	fl.BoolVar(&apply, "apply", false, "create the cgroups and move the processes (not available yet)")
	_ = c.MarkFlagDirname("output")
	return c
}
