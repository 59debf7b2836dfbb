package main

import (
	"encoding/json"
	"strings"

	"github.com/dbhost/dbhost/internal/report"
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
		Example: `  dbhost rules list
  dbhost rules list --format markdown -o rules.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			all := rules.All()
			switch out.format {
			case "json":
				return writeJSON(c, &out, struct {
					Rules []rules.Rule `json:"rules"`
				}{all})
			case "markdown":
				return out.write(c, report.RulesMarkdown(all))
			}
			return out.write(c, report.RulesText(all))
		},
	}
	out.add(c, "text", "json", "markdown")
	return c
}

func newRulesShowCmd() *cobra.Command {
	var out outputFlags
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show one rule: what it checks, its sources and scope",
		Example: `  dbhost rules show memory.swappiness
  dbhost rules show memory.swappiness --format markdown`,
		Args: cobra.ExactArgs(1),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			var ids []string
			for _, r := range rules.All() {
				ids = append(ids, r.ID)
			}
			return ids, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(c *cobra.Command, args []string) error {
			if err := out.validate(); err != nil {
				return err
			}
			r, ok := rules.Lookup(args[0])
			if !ok {
				return usageErr("no rule %q%s (see 'dbhost rules list')", args[0], suggest(args[0]))
			}
			switch out.format {
			case "json":
				return writeJSON(c, &out, r)
			case "markdown":
				return out.write(c, report.RuleMarkdown(r))
			}
			return out.write(c, report.RuleText(r))
		},
	}
	out.add(c, "text", "json", "markdown")
	return c
}

// writeJSON writes v as indented JSON.
func writeJSON(c *cobra.Command, out *outputFlags, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return out.write(c, append(b, '\n'))
}

// suggest names rules whose id contains the unknown id's words.
func suggest(id string) string {
	hits := rules.Suggest(id)
	if len(hits) == 0 {
		return ""
	}
	return "; did you mean " + strings.Join(hits, ", ") + "?"
}
