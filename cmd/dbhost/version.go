package main

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/jsonfmt"
	buildversion "github.com/dbhost/dbhost/internal/version"
	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "version",
		Short: "Which build of dbhost this is: version, commit, Go toolchain, platform",
		Long: `Version prints the build's version (a release's git describe, stamped at build time; else
the module version 'go install' recorded; else the commit a checkout was built from), the
commit and whether the tree had uncommitted changes, the Go toolchain and the platform.
Every snapshot ("collector"), audit, report and the exporter's dbhost_build_info carry the
same version.`,
		Example: `  dbhost version
  dbhost version --format json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			in := buildversion.Get()
			if out.format == "json" {
				b, err := jsonfmt.Marshal(in)
				if err != nil {
					return err
				}
				return out.write(c, b)
			}
			b := fmt.Appendf(nil, "dbhost %s\n", in.Version)
			if in.Revision != "" {
				state := "clean"
				if in.Dirty {
					state = "with uncommitted changes"
				}
				b = fmt.Appendf(b, "  commit    %s (%s)\n", in.Revision, state)
			}
			if in.Time != "" {
				b = fmt.Appendf(b, "  committed %s\n", in.Time)
			}
			b = fmt.Appendf(b, "  built by  %s for %s\n", in.GoVersion, in.Platform)
			return out.write(c, b)
		},
	}
	out.add(c, "text", "json")
	return c
}
