package main

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/report"
	"github.com/spf13/cobra"
)

// newAuditCmd is the audit entry point. Until the rule catalog lands it prints
// the collect summary and says so.
func newAuditCmd() *cobra.Command {
	var src sourceFlags
	c := &cobra.Command{
		Use:   "audit",
		Short: "Audit this host against the cited sources",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			snaps, err := src.load()
			if err != nil {
				return err
			}
			for _, s := range snaps {
				c.OutOrStdout().Write(report.Summary(s))
			}
			fmt.Fprintln(c.OutOrStdout(), "\nNote: the rule catalog is not in this build yet; this is the collect summary.")
			return nil
		},
	}
	src.add(c)
	return c
}
