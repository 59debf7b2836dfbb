package report

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/drift"
)

// DriftText renders a diff of two snapshots for people: who and when, then
// the changes by section (settings, topology, processes), one per line,
// no line wider than width (200 when 0).
func DriftText(d *drift.Diff, width int) []byte {
	if width <= 0 {
		width = 200
	}
	w := newTextDoc(width)
	driftView(w, d, width/3)
	return w.bytes()
}

// DriftMarkdown is DriftText's view in Markdown.
func DriftMarkdown(d *drift.Diff) []byte {
	w := &mdDoc{}
	driftView(w, d, 1<<30)
	return w.bytes()
}

// driftView writes the diff; an old value is cut to clipA characters.
func driftView(w doc, d *drift.Diff, clipA int) {
	when := func(s drift.Side) string {
		if s.CollectedAt == "" {
			return s.File
		}
		return s.File + " (" + s.CollectedAt + ")"
	}
	host := orDash(d.A.Host)
	if !d.SameHost {
		host = orDash(d.A.Host) + " → " + orDash(d.B.Host)
	}
	n := d.Count("")
	w.title(fmt.Sprintf("Drift of %s from %s to %s: %s", host, when(d.A), when(d.B), plural(n, "change")))
	if !d.SameHost {
		w.line(fmt.Sprintf("Note: two different hosts (%s, %s): every difference between them is listed.", orDash(d.A.Host), orDash(d.B.Host)))
	}
	if n == 0 {
		w.line("No drift: settings, topology and database instances are the same.")
		return
	}
	for _, sec := range []string{drift.Settings, drift.Topology, drift.Processes} {
		k := d.Count(sec)
		if k == 0 {
			continue
		}
		w.section(fmt.Sprintf("%s (%d)", strings.ToUpper(sec), k))
		for _, c := range d.Changes {
			if c.Section != sec {
				continue
			}
			switch c.Kind {
			case "added":
				w.item("+ " + w.code(c.Path) + " = " + w.code(oneLine(*c.B)))
			case "removed":
				w.item("- " + w.code(c.Path) + " (was " + w.code(oneLine(*c.A)) + ")")
			default:
				w.item("~ " + w.code(c.Path) + ": " + w.code(clip(oneLine(*c.A), clipA)) + " → " + w.code(oneLine(*c.B)))
			}
		}
	}
	w.note("~ changed, + only in the second snapshot, - only in the first. Counters (free memory, CPU time, interrupts, vmstat) are not drift.")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return count(n) + " " + what + "s"
}
