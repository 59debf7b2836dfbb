package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/spf13/cobra"
)

func newRulesCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "rules",
		Short: "Show the audit's rule catalog, with sources and scope",
		Args:  cobra.NoArgs,
		RunE:  func(c *cobra.Command, _ []string) error { return c.Help() },
	}
	c.AddCommand(newRulesListCmd(), newRulesShowCmd())
	return c
}

func newRulesListCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "list",
		Short: "List every rule: id, severity, title, sources",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			all := rules.All()
			if out.format == "json" {
				b, err := json.MarshalIndent(struct {
					Rules []rules.Rule `json:"rules"`
				}{all}, "", "  ")
				if err != nil {
					return err
				}
				return out.write(c, append(b, '\n'))
			}
			var b bytes.Buffer
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSEVERITY\tAPPLIES TO\tTITLE\tSOURCES")
			for _, r := range all {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Severity, appliesTo(r), r.Title, shortSources(r.Sources))
			}
			tw.Flush()
			fmt.Fprintf(&b, "\n%d rules. 'dbhost rules show ID' prints one with its scope and full citations.\n", len(all))
			return out.write(c, b.Bytes())
		},
	}
	out.add(c, "text", "json")
	return c
}

func newRulesShowCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "show ID",
		Short: "Show one rule: what it checks, its sources and scope",
		Args:  cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var ids []string
			for _, r := range rules.All() {
				ids = append(ids, r.ID)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			r, ok := rules.Lookup(args[0])
			if !ok {
				return usageErr("no rule %q%s (see 'dbhost rules list')", args[0], suggest(args[0]))
			}
			var b bytes.Buffer
			fmt.Fprintf(&b, "%s — %s\n\n", r.ID, r.Title)
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "area\t%s\n", r.Area)
			fmt.Fprintf(tw, "severity\t%s (default; a finding may be raised or lowered by what it found)\n", r.Severity)
			fmt.Fprintf(tw, "applies to\t%s\n", appliesTo(r))
			for i, s := range r.Sources {
				k := ""
				if i == 0 {
					k = "sources"
				}
				fmt.Fprintf(tw, "%s\t%s\n", k, s.Cite())
			}
			for i, th := range r.Thresholds {
				k := ""
				if i == 0 {
					k = "own thresholds"
				}
				fmt.Fprintf(tw, "%s\t%s (dbhost's, no source gives one)\n", k, th)
			}
			for _, kv := range [][2]string{{"kernels", r.Scope.Kernels}, {"distributions", r.Scope.Distros},
				{"db versions", r.Scope.DBVersions}, {"note", r.Scope.Note}} {
				if kv[1] != "" {
					fmt.Fprintf(tw, "%s\t%s\n", kv[0], kv[1])
				}
			}
			tw.Flush()
			if r.Description != "" {
				fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(r.Description))
			}
			_, err := c.OutOrStdout().Write(b.Bytes())
			return err
		},
	}
}

func appliesTo(r rules.Rule) string {
	w, d := "all workloads", "any database"
	if len(r.Workloads) > 0 {
		w = strings.Join(r.Workloads, "|")
	}
	if len(r.DBs) > 0 {
		d = strings.Join(r.DBs, "|")
	}
	return r.Systems() + " hosts, " + w + ", " + d
}

// shortSources names the cited documents once each ("HP 2015, Red Hat
// 2015"); 'rules show' prints them in full with the sections.
func shortSources(ss []rules.Source) string {
	var parts []string
	seen := map[string]bool{}
	for _, s := range ss {
		doc := s.DocShort()
		if !seen[doc] {
			seen[doc] = true
			parts = append(parts, doc)
		}
	}
	return strings.Join(parts, ", ")
}

// suggest names rules whose id contains the unknown id's words.
func suggest(id string) string {
	hits := rules.Suggest(id)
	if len(hits) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(hits, ", ") + "?"
}
