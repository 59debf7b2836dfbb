package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// hostileName is a disk name that, printed raw, sets the terminal's title
// (OSC ... BEL), forges a line of the audit and reverses what follows (RLO).
const hostileName = "sdz\x1b]0;owned\x07\nfix now      rm -rf /\u202e\x9b1m\xff"

func hostileReport() rules.Report {
	cmd := "echo mq-deadline > '/sys/block/" + hostileName + "/queue/scheduler'"
	return rules.Report{Host: "db\x1b[2Jhost", Findings: []rules.Finding{{
		ID: "io.scheduler", Severity: rules.SevWarning, Area: rules.AreaIO, Title: "Scheduler of " + hostileName,
		Setting: "/sys/block/" + hostileName + "/queue/scheduler", Current: "cfq", Recommended: "mq-deadline",
		Evidence: hostileName + " is rotational", Fix: rules.Fix{Runtime: []string{cmd}, Persistent: []string{cmd}},
	}}, CannotCheck: []rules.Result{{ID: "x.y", Reason: "cannot read /sys/block/" + hostileName}}}
}

// rawControls lists the control characters, bidi controls and non-UTF-8
// bytes of out (newlines and tabs aside: they are the output's own), with
// colour on the painter's SGR codes aside too.
func rawControls(out string, colour bool) []string {
	var bad []string
	for i := 0; i < len(out); {
		if colour {
			kept := false
			for _, c := range sgrCodes {
				if strings.HasPrefix(out[i:], c) {
					i += len(c)
					kept = true
				}
			}
			if kept {
				continue
			}
		}
		r, size := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || escapedRune(r) {
			lo := max(0, i-20)
			bad = append(bad, strings.ToValidUTF8(out[lo:i], "?")+"⟦"+strings.ToValidUTF8(out[i:i+size], "?")+"⟧")
		}
		i += size
	}
	return bad
}

// Every text and Markdown view of a finding, the fleet view and the HTML
// report: no raw control character from a name, and the name's newline
// does not make a line of its own ("fix now      rm -rf /").
func TestViewsEscapeControls(t *testing.T) {
	rep := hostileReport()
	rep2 := hostileReport()
	rep2.Host = "other"
	snap := &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion}
	snap.Host.Hostname = rep.Host
	html, err := HTML(HTMLInput{Snap: snap, Report: rep})
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]struct {
		out    []byte
		colour bool
	}{
		"text":            {FindingsText([]rules.Report{rep}, FindingsOptions{Explain: true}), false},
		"text colour":     {FindingsText([]rules.Report{rep}, FindingsOptions{Explain: true, Color: true}), true},
		"fleet colour":    {FindingsText([]rules.Report{rep, rep2}, FindingsOptions{Explain: true, Color: true}), true},
		"markdown":        {FindingsMarkdown([]rules.Report{rep}, FindingsOptions{Explain: true}), false},
		"fleet markdown":  {FindingsMarkdown([]rules.Report{rep, rep2}, FindingsOptions{Explain: true}), false},
		"html":            {html, false},
		"collect summary": {Summary(snap), false},
	} {
		out := string(v.out)
		if bad := rawControls(out, v.colour); len(bad) > 0 {
			t.Errorf("%s: raw control characters: %q", name, bad)
		}
		for _, l := range strings.Split(out, "\n") {
			// (In HTML a newline inside a cell is a blank: no line; the
			// copy buttons' commands are checked by the escaped name.)
			if name != "html" && strings.HasPrefix(strings.TrimSpace(l), "fix now      rm -rf /") {
				t.Errorf("%s: a name's newline forged a line: %q", name, l)
			}
		}
		if name != "collect summary" && !strings.Contains(out, `sdz\x1b]0;owned\x07\nfix now`) {
			t.Errorf("%s: the name is not shown escaped", name)
		}
	}
	prom, err := FindingsPrometheus(Audit{Report: rep, Snap: snap})
	if err != nil {
		t.Fatal(err)
	}
	if bad := rawControls(string(prom), false); len(bad) > 0 {
		t.Errorf("prometheus: raw control characters in label values: %q", bad)
	}
	if s := string(FindingsText([]rules.Report{rep}, FindingsOptions{Color: true})); !strings.Contains(s, ansiBold) {
		t.Error("colour on: the painter's own codes are gone")
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"sda":              "sda",
		"a\tb":             "a\tb",
		"a\nb":             `a\nb`,
		"\x1b[31mred\x07":  `\x1b[31mred\x07`,
		"\r\x00\x7f":       `\r\x00\x7f`,
		"\u0085\u009b":     `\u0085\u009b`,
		"abc\u202egpj.exe": `abc\u202egpj.exe`,
		"\u2066x\u2069":    `\u2066x\u2069`,
		"\xff\xfe":         `\xff\xfe`,
		"é ünïcode → ok":   "é ünïcode → ok",
	} {
		if got := cleanLine(in); got != want {
			t.Errorf("cleanLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cleanText("a\nb\x1b"); got != "a\nb\\x1b" {
		t.Errorf("cleanText keeps newlines: %q", got)
	}
	if got := cleanPainted(ansiBold + "x\x1b]0;t\x07" + ansiReset); got != ansiBold+`x\x1b]0;t\x07`+ansiReset {
		t.Errorf("cleanPainted: %q", got)
	}
}

// A table cell's newline (a process or cgroup name in numa's and place's
// tables) is escaped, not a line of the table.
func TestTableCellNewline(t *testing.T) {
	d := newTextDoc(0)
	d.table(docTable{head: []string{"name", "cpus"}, rows: [][]string{{"ora\ntouch FORGED", "0-3"}}, pad: 2})
	out := string(d.bytes())
	if strings.Count(out, "\n") != 2 || !strings.Contains(out, `ora\ntouch FORGED`) {
		t.Errorf("table:\n%s", out)
	}
}
