// Package manpage writes a cobra command tree as man pages (roff, section
// 1): one page per command, named as man(1) expects for subcommands
// (dbhost-audit.1), from the same text `dbhost help` prints, so the pages
// cannot drift from the binary. No dependency beyond cobra: the pages use
// the man(7) macros every man implementation reads.
package manpage

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Header is what every page's .TH line carries.
type Header struct {
	Source string // "dbhost v1.2.0"
	Manual string // "dbhost manual"
	Date   string // "2026-11-28": given, for reproducible builds (SOURCE_DATE_EPOCH)
	// Extra sections of the root page, in order (e.g. "EXIT STATUS").
	RootSections []Section
}

// Section is a titled block of plain text.
type Section struct{ Title, Text string }

// Name is a command's page name: its path with dashes ("dbhost-rules-show").
func Name(c *cobra.Command) string { return strings.ReplaceAll(c.CommandPath(), " ", "-") }

// WriteTree writes the page of c and of every command below it (hidden and
// help commands excepted) into dir, and returns the files written, sorted.
func WriteTree(c *cobra.Command, dir string, h Header) ([]string, error) {
	var files []string
	var walk func(*cobra.Command) error
	walk = func(c *cobra.Command) error {
		if !shown(c) {
			return nil
		}
		p := filepath.Join(dir, Name(c)+".1")
		if err := os.WriteFile(p, Page(c, h), 0o644); err != nil {
			return err
		}
		files = append(files, p)
		for _, sub := range c.Commands() {
			if err := walk(sub); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(c); err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

func shown(c *cobra.Command) bool {
	return !c.Hidden && c.Name() != "help"
}

// Page is one command's man page.
func Page(c *cobra.Command, h Header) []byte {
	var b bytes.Buffer
	name := Name(c)
	fmt.Fprintf(&b, ".TH %s 1 %s %s %s\n", quote(strings.ToUpper(name)), quote(h.Date), quote(h.Source), quote(h.Manual))
	b.WriteString(".SH NAME\n")
	fmt.Fprintf(&b, "%s \\- %s\n", esc(name), esc(c.Short))
	b.WriteString(".SH SYNOPSIS\n")
	if c.Runnable() {
		fmt.Fprintf(&b, ".B %s\n", esc(c.UseLine()))
	}
	if c.HasAvailableSubCommands() {
		if c.Runnable() {
			b.WriteString(".br\n")
		}
		fmt.Fprintf(&b, ".B %s\n.I command\n.RI [ flags ]\n", esc(c.CommandPath()))
	}
	b.WriteString(".SH DESCRIPTION\n")
	desc := c.Long
	if desc == "" {
		desc = c.Short
	}
	text(&b, desc)
	if subs := visible(c.Commands()); len(subs) > 0 {
		b.WriteString(".SH COMMANDS\n")
		for _, s := range subs {
			fmt.Fprintf(&b, ".TP\n.BR %s (1)\n%s\n", esc(Name(s)), esc(s.Short))
		}
	}
	flags(&b, "OPTIONS", c.NonInheritedFlags())
	flags(&b, "OPTIONS INHERITED FROM PARENT COMMANDS", c.InheritedFlags())
	if !c.HasParent() {
		for _, s := range h.RootSections {
			fmt.Fprintf(&b, ".SH %s\n", esc(strings.ToUpper(s.Title)))
			text(&b, s.Text)
		}
	}
	if c.Example != "" {
		b.WriteString(".SH EXAMPLES\n.nf\n.RS 4\n")
		for _, l := range strings.Split(strings.TrimRight(c.Example, "\n"), "\n") {
			b.WriteString(line(strings.TrimPrefix(l, "  ")) + "\n")
		}
		b.WriteString(".RE\n.fi\n")
	}
	var see []string
	if c.HasParent() {
		see = append(see, fmt.Sprintf(".BR %s (1)", esc(Name(c.Parent()))))
	}
	for _, s := range visible(c.Commands()) {
		see = append(see, fmt.Sprintf(".BR %s (1)", esc(Name(s))))
	}
	if len(see) > 0 {
		b.WriteString(".SH SEE ALSO\n")
		for i, s := range see {
			if i < len(see)-1 {
				s += " ,"
			}
			b.WriteString(s + "\n")
		}
	}
	return b.Bytes()
}

func visible(cs []*cobra.Command) []*cobra.Command {
	var out []*cobra.Command
	for _, c := range cs {
		if c.IsAvailableCommand() && c.Name() != "help" {
			out = append(out, c)
		}
	}
	return out
}

func flags(b *bytes.Buffer, title string, fs *pflag.FlagSet) {
	var rows []*pflag.Flag
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			rows = append(rows, f)
		}
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(b, ".SH %s\n", title)
	for _, f := range rows {
		b.WriteString(".TP\n")
		head := "\\fB\\-\\-" + esc(f.Name) + "\\fR"
		if f.Shorthand != "" {
			head = "\\fB\\-" + esc(f.Shorthand) + "\\fR, " + head
		}
		if t := f.Value.Type(); t != "bool" {
			head += " \\fI" + esc(t) + "\\fR"
		}
		b.WriteString(head + "\n")
		u := f.Usage
		if d := f.DefValue; d != "" && d != "false" && d != "[]" && d != "0" {
			u += " (default " + d + ")"
		}
		b.WriteString(line(u) + "\n")
	}
}

// text writes paragraphs: a blank line starts a new one, an indented line
// is kept as it is (tables, examples), other lines fill.
func text(b *bytes.Buffer, s string) {
	paras := strings.Split(strings.TrimSpace(s), "\n\n")
	for i, p := range paras {
		if i > 0 {
			b.WriteString(".PP\n")
		}
		lines := strings.Split(p, "\n")
		pre := false
		for _, l := range lines {
			if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				pre = true
			}
		}
		if pre {
			b.WriteString(".nf\n")
		}
		for _, l := range lines {
			b.WriteString(line(l) + "\n")
		}
		if pre {
			b.WriteString(".fi\n")
		}
	}
}

// line is one line of text escaped for roff: backslashes, dashes, and a
// leading dot or quote (which would be read as a request).
func line(s string) string {
	s = esc(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = "\\&" + s
	}
	return s
}

// esc escapes backslashes and dashes, and writes every non-ASCII character
// as its \[uXXXX] name (groff and mandoc read it without preconv).
func esc(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\[u%04X]`, r)
		}
	}
	return b.String()
}

func quote(s string) string { return `"` + strings.ReplaceAll(esc(s), `"`, `\(dq`) + `"` }
