package main

import (
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

func newCollectCmd() *cobra.Command {
	var src sourceFlags
	var out outputFlags
	c := &cobra.Command{
		Use:   "collect",
		Short: "Collect every host fact into a snapshot",
		Long: `Collect reads NUMA topology, memory and hugepages, CPU power states, block devices,
network interfaces and IRQs, cgroups, limits, sysctl files, tuned and database processes.
A fact that cannot be read is listed with the reason ("not present on this host",
"permission denied"), never guessed. --format json writes the versioned Snapshot that
every other command can read back with --snapshot (see docs/snapshot.md).`,
		Example: `  dbhost collect
  dbhost collect --format json -o host.json
  dbhost collect --root /path/to/tree --format json
  dbhost collect --sosreport sosreport-db1.tar.xz --format json
  dbhost collect --snapshot host.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			s, err := src.one("collect")
			if err != nil {
				return err
			}
			var b []byte
			switch out.format {
			case "json":
				b, err = snapshot.Marshal(s)
			default:
				b = report.Summary(s)
			}
			if err != nil {
				return err
			}
			return out.write(c, b)
		},
	}
	src.add(c)
	out.add(c, "text", "json")
	return c
}
