package main

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/spf13/cobra"
)

func newCollectCmd() *cobra.Command {
	var src sourceFlags
	var out outputFlags
	var live liveDBFlags
	var db, bundleOut string
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
the snapshot's libvirt section (docs/snapshot.md).

On an AIX host (the aix/ppc64 binary, no source flag) collect runs the same read-only
commands as scripts/dbhost-collect-aix.sh; --aix-bundle-out DIR|FILE.tar.gz|FILE.tar
also writes them as a bundle, which dbhost reads anywhere with --aix-bundle (docs/aix.md).`,
		Example: `  dbhost collect
  dbhost collect --format json -o host.json
  dbhost collect --root /path/to/tree --format json
  dbhost collect --sosreport sosreport-db1.tar.xz --format json
  dbhost collect --snapshot host.json
  dbhost collect --snapshot host.json --format markdown -o host.md
  sudo dbhost collect --db postgres --format json -o host.json
  sudo dbhost collect --libvirt --format json -o kvmhost.json   # with the KVM guests' definitions
  dbhost collect --aix-bundle-out db1.aixbundle.tar.gz          # on an AIX host: its bundle too`,
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
			var s *snapshot.Snapshot
			var err error
			if bundleOut != "" {
				s, err = collectAIXBundleOut(c, &src, bundleOut)
			} else {
				s, err = src.one("collect")
			}
			if err != nil {
				return err
			}
			notRead := live.attach(c, s, &src, db)
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
			return notReadErr(notRead, "the snapshot holds the rest, each with its reason")
		},
	}
	src.add(c)
	src.addLibvirt(c)
	src.addAIX(c)
	out.add(c, "text", "json", "markdown")
	live.add(c)
	c.Flags().StringVar(&bundleOut, "aix-bundle-out", "", "on an AIX host: also write the commands' outputs as a bundle (a new directory, FILE.tar.gz or FILE.tar; docs/aix.md)")
	c.Flags().StringVar(&db, "db", "", "postgres|mysql: also read the local servers of that engine (as root: over their unix socket as their OS user)")
	return c
}

// collectAIXBundleOut is collect --aix-bundle-out: this AIX host's
// commands run once, their outputs written as a bundle and read into the
// snapshot. The output is checked before any command runs.
func collectAIXBundleOut(c *cobra.Command, src *sourceFlags, out string) (*snapshot.Snapshot, error) {
	if !src.live() {
		return nil, usageErr("--aix-bundle-out writes the bundle of the AIX host dbhost runs on: it takes no --root, --sosreport, --snapshot or --aix-bundle")
	}
	if src.libvirt {
		return nil, usageErr("--libvirt reads the KVM guests of a Linux host; --aix-bundle-out collects an AIX host")
	}
	if err := hostsrc.CheckAIXBundleOut(out); err != nil {
		return nil, err
	}
	s, b, err := hostsrc.CollectLiveAIX(version)
	if err != nil {
		return nil, err
	}
	if err := hostsrc.WriteAIXBundle(b, out); err != nil {
		return nil, err
	}
	n := map[string]int{}
	for _, cmd := range s.AIX.Bundle.Commands {
		n[cmd.Status]++
	}
	fmt.Fprintf(c.ErrOrStderr(), "dbhost: wrote %s (%d command(s) missing, %d failed: see meta)\n", out, n["missing"], n["failed"])
	return s, nil
}
