package main

import (
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

func newCollectCmd() *cobra.Command {
	var src sourceFlags
	var out outputFlags
	var live liveDBFlags
	var db string
	c := &cobra.Command{
		Use:   "collect",
		Short: "Collect every host fact into a snapshot",
		Long: `Collect reads NUMA topology, memory and hugepages, CPU power states, block devices,
network interfaces and IRQs, cgroups, limits, sysctl files, tuned and database processes.
A fact that cannot be read is listed with the reason ("not present on this host",
"permission denied"), never guessed. --format json writes the versioned Snapshot that
every other command can read back with --snapshot (see docs/snapshot.md); --format
markdown draws the text summary as Markdown (headings, lists, pipe tables).

--pg/--mysql DSN, or --db postgres|mysql as root, also read live database servers'
settings (read-only; no password is stored) into the snapshot's databases section
(docs/livedb.md). --libvirt also reads the KVM guests defined on a hypervisor host into
the snapshot's libvirt section (docs/snapshot.md).`,
		Example: `  dbhost collect
  dbhost collect --format json -o host.json
  dbhost collect --root /path/to/tree --format json
  dbhost collect --sosreport sosreport-db1.tar.xz --format json
  dbhost collect --snapshot host.json
  dbhost collect --snapshot host.json --format markdown -o host.md
  sudo dbhost collect --db postgres --format json -o host.json
  sudo dbhost collect --libvirt --format json -o kvmhost.json   # with the KVM guests' definitions`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			if db != "" && db != "postgres" && db != "mysql" {
				return usageErr("--db %q: collect connects to postgres or mysql servers", db)
			}
			if err := live.check(&src); err != nil {
				return err
			}
			s, err := src.one("collect")
			if err != nil {
				return err
			}
			live.attach(c, s, &src, db)
			bad := libvirtErrors(c, s)
			var b []byte
			switch out.format {
			case "json":
				b, err = snapshot.Marshal(s)
			case "markdown":
				b = report.SummaryMarkdown(s)
			default:
				b = report.Summary(s)
			}
			if err != nil {
				return err
			}
			if err := out.write(c, b); err != nil {
				return err
			}
			if bad > 0 {
				return usageErr("%d libvirt domain definition(s) could not be read (listed above); the snapshot holds the rest", bad)
			}
			return nil
		},
	}
	src.add(c)
	src.addLibvirt(c)
	src.addAIX(c)
	out.add(c, "text", "json", "markdown")
	live.add(c)
	c.Flags().StringVar(&db, "db", "", "postgres|mysql: also read the local servers of that engine (as root: over their unix socket as their OS user)")
	return c
}
