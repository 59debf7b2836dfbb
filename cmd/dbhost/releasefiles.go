package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/dbhost/dbhost/internal/manpage"
	"github.com/spf13/cobra"
)

// newReleaseFilesCmd is the hidden command scripts/release runs on the
// binary it built: the man pages and shell completions come from the
// command tree itself, so they cannot drift from the binary they ship with.
func newReleaseFilesCmd() *cobra.Command {
	var manDir, complDir, date string
	c := &cobra.Command{
		Use:    "release-files",
		Short:  "Write the man pages and shell completions (used by scripts/release)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if manDir == "" && complDir == "" {
				return usageErr("release-files: give --man DIR and/or --completions DIR")
			}
			d, err := time.Parse(time.DateOnly, date)
			if err != nil {
				return usageErr("--date %q: expected YYYY-MM-DD (a release's SOURCE_DATE_EPOCH)", date)
			}
			// Only into a new or empty directory: the pages and completions
			// would replace files of the same names, and dbhost never
			// overwrites a file it did not write.
			for _, d := range []string{manDir, complDir} {
				if d == "" {
					continue
				}
				if ents, err := os.ReadDir(d); err == nil && len(ents) > 0 {
					return usageErr("release-files: %s is not empty: give a new or empty directory", d)
				} else if err != nil && !os.IsNotExist(err) {
					return usageErr("release-files: %v", err)
				}
			}
			root := c.Root()
			if manDir != "" {
				if err := os.MkdirAll(manDir, 0o755); err != nil {
					return err
				}
				h := manpage.Header{Source: "dbhost " + version, Manual: "dbhost manual", Date: d.Format(time.DateOnly),
					RootSections: []manpage.Section{{Title: "EXIT STATUS", Text: exitCodeText()}}}
				files, err := manpage.WriteTree(root, manDir, h)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.OutOrStdout(), "%d man pages in %s\n", len(files), manDir)
			}
			if complDir != "" {
				if err := os.MkdirAll(complDir, 0o755); err != nil {
					return err
				}
				for name, gen := range map[string]func(string) error{
					"dbhost.bash": func(p string) error { return root.GenBashCompletionFileV2(p, true) },
					"_dbhost":     root.GenZshCompletionFile,
					"dbhost.fish": func(p string) error { return root.GenFishCompletionFile(p, true) },
				} {
					if err := gen(filepath.Join(complDir, name)); err != nil {
						return err
					}
				}
				fmt.Fprintf(c.OutOrStdout(), "bash, zsh and fish completions in %s\n", complDir)
			}
			return nil
		},
	}
	c.Flags().StringVar(&manDir, "man", "", "directory for the man pages (section 1)")
	c.Flags().StringVar(&complDir, "completions", "", "directory for the bash, zsh and fish completions")
	c.Flags().StringVar(&date, "date", "", "the pages' date, YYYY-MM-DD")
	return c
}
