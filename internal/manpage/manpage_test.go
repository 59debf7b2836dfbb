package manpage

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

func tree() *cobra.Command {
	root := &cobra.Command{Use: "tool", Short: "A tool", Long: "Tool does things.\n\n  indented -x\n.dot line"}
	sub := &cobra.Command{Use: "run [flags]", Short: "Run it", Example: "  tool run --fast\n  tool run -n 3", Run: func(*cobra.Command, []string) {}}
	sub.Flags().BoolP("fast", "f", false, `go fast (a \ and -- in text)`)
	sub.Flags().Int("n", 1, "how many")
	hidden := &cobra.Command{Use: "secret", Hidden: true, Run: func(*cobra.Command, []string) {}}
	root.AddCommand(sub, hidden)
	return root
}

func TestPage(t *testing.T) {
	root := tree()
	sub, _, _ := root.Find([]string{"run"})
	p := string(Page(sub, Header{Source: "tool v1", Manual: "tool manual", Date: "2026-11-28"}))
	for _, want := range []string{
		`.TH "TOOL\-RUN" 1 "2026\-11\-28" "tool v1" "tool manual"`,
		".SH NAME\ntool\\-run \\- Run it\n",
		".B tool run [flags]\n",
		".TP\n\\fB\\-f\\fR, \\fB\\-\\-fast\\fR\ngo fast (a \\e and \\-\\- in text)\n",
		".TP\n\\fB\\-\\-n\\fR \\fIint\\fR\nhow many (default 1)\n",
		".SH EXAMPLES\n.nf\n.RS 4\ntool run \\-\\-fast\ntool run \\-n 3\n.RE\n.fi\n",
		".SH SEE ALSO\n.BR tool (1)\n",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("page lacks %q:\n%s", want, p)
		}
	}
	rp := string(Page(root, Header{Date: "2026-11-28", RootSections: []Section{{"Exit status", "0 ok"}}}))
	for _, want := range []string{".nf\n  indented \\-x\n\\&.dot line\n.fi\n", ".SH COMMANDS\n.TP\n.BR tool\\-run (1)\nRun it\n", ".SH EXIT STATUS\n0 ok\n"} {
		if !strings.Contains(rp, want) {
			t.Errorf("root page lacks %q:\n%s", want, rp)
		}
	}
	if strings.Contains(rp, "secret") {
		t.Errorf("a hidden command is listed:\n%s", rp)
	}
}

func TestWriteTree(t *testing.T) {
	dir := t.TempDir()
	files, err := WriteTree(tree(), dir, Header{Date: "2026-11-28"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if strings.Join(names, " ") != "tool-run.1 tool.1" {
		t.Errorf("files = %v", names)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("%d files written", len(ents))
	}
}

func TestEscNonASCII(t *testing.T) {
	if got := esc("a → b — 5×"); got != `a \[u2192] b \[u2014] 5\[u00D7]` {
		t.Errorf("esc = %q", got)
	}
}
