package report

import (
	"bytes"
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
	var b bytes.Buffer
	lw := &lineWriter{w: &b, width: width}
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
	lw.line(fmt.Sprintf("Drift of %s from %s to %s: %s", host, when(d.A), when(d.B), plural(n, "change")))
	if !d.SameHost {
		lw.line(fmt.Sprintf("Note: two different hosts (%s, %s): every difference between them is listed.", orDash(d.A.Host), orDash(d.B.Host)))
	}
	if n == 0 {
		lw.line("No drift: settings, topology and database instances are the same.")
		return b.Bytes()
	}
	for _, sec := range []string{drift.Settings, drift.Topology, drift.Processes} {
		k := d.Count(sec)
		if k == 0 {
			continue
		}
		lw.line("")
		lw.line(fmt.Sprintf("%s (%d)", strings.ToUpper(sec), k))
		for _, c := range d.Changes {
			if c.Section != sec {
				continue
			}
			switch c.Kind {
			case "added":
				lw.line("  + " + c.Path + " = " + oneLine(*c.B))
			case "removed":
				lw.line("  - " + c.Path + " (was " + oneLine(*c.A) + ")")
			default:
				lw.line("  ~ " + c.Path + ": " + clip(oneLine(*c.A), width/3) + " → " + oneLine(*c.B))
			}
		}
	}
	lw.line("")
	lw.line("~ changed, + only in the second snapshot, - only in the first. Counters (free memory, CPU time, interrupts, vmstat) are not drift.")
	return b.Bytes()
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return count(n) + " " + what + "s"
}
