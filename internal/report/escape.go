package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dbhost/dbhost/internal/rules"
)

// Values from outside (a host's device, cgroup and process names, a file's
// lines, a plan or spec someone sent) reach every view dbhost prints. A
// control character in them would reach the terminal raw: ESC starts a
// sequence that moves the cursor, rewrites the title or ends a bracketed
// paste, a newline or CR forges a line of dbhost's own, and a bidi override
// shows a command in another order than it runs. So every text and Markdown
// view is drawn through cleanText or cleanLine (the doc renderers, the line
// writer, the findings' fields, the HTML report's fields and copy buttons):
// C0 controls but tab, DEL, C1 controls (U+0080-U+009F), the bidi
// embeddings, overrides and isolates (U+202A-U+202E, U+2066-U+2069) and
// bytes that are not UTF-8 are written as escapes: \x1b, \u202e, \xff.
// JSON needs none of this: encoding/json escapes them.

// cleanText escapes the control characters of s (see above) but keeps its
// newlines: a value whose lines a view draws as lines.
func cleanText(s string) string { return clean(s, true, false) }

// CleanText is cleanText for the CLI's own messages (an error naming a
// file or quoting its line).
func CleanText(s string) string { return cleanText(s) }

// cleanLine escapes the control characters of s and its newlines: a value
// that is one line (a name, a command, a table cell).
func cleanLine(s string) string { return clean(s, false, false) }

// sgrCodes are the colour sequences dbhost's painter writes: a line drawn
// with colour on keeps them (cleanPainted) and escapes every other ESC.
var sgrCodes = []string{ansiReset, ansiBold, ansiRed, ansiYellow, ansiCyan, ansiDim}

// cleanPainted is cleanLine for a line dbhost painted: its own colour codes
// are kept.
func cleanPainted(s string) string { return clean(s, false, true) }

func clean(s string, keepNewline, keepSGR bool) string {
	if !needsClean(s, keepNewline) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1b && keepSGR {
			kept := false
			for _, code := range sgrCodes {
				if strings.HasPrefix(s[i:], code) {
					b.WriteString(code)
					i += len(code)
					kept = true
					break
				}
			}
			if kept {
				continue
			}
		}
		if c < utf8.RuneSelf {
			switch {
			case c == '\n' && keepNewline, c == '\t':
				b.WriteByte(c)
			case c == '\n':
				b.WriteString(`\n`)
			case c == '\r':
				b.WriteString(`\r`)
			case c < 0x20 || c == 0x7f:
				fmt.Fprintf(&b, `\x%02x`, c)
			default:
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, c)
		case escapedRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// escapedRune: a C1 control or a bidi embedding, override or isolate.
func escapedRune(r rune) bool {
	return r >= 0x80 && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// needsClean reports whether clean would change s (most values: no).
func needsClean(s string, keepNewline bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && !(c == '\n' && keepNewline) || c == 0x7f {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || escapedRune(r) {
			return true
		}
		i += size
	}
	return false
}

// cleanFinding is f with every field a renderer shows escaped (cleanLine):
// no rule writes a newline into a finding, so one inside a field came from
// a name (the sources' citations are dbhost's own). Text, Markdown and the
// HTML report draw findings through it.
func cleanFinding(f rules.Finding) rules.Finding {
	f.Title, f.Setting, f.Current, f.Recommended = cleanLine(f.Title), cleanLine(f.Setting), cleanLine(f.Current), cleanLine(f.Recommended)
	f.Evidence, f.Why, f.Risk, f.Pending = cleanLine(f.Evidence), cleanLine(f.Why), cleanLine(f.Risk), cleanLine(f.Pending)
	edits := f.Fix.Edits
	f.Fix = rules.Fix{Runtime: cleanLines(f.Fix.Runtime), Persistent: cleanLines(f.Fix.Persistent)}
	for _, e := range edits {
		f.Fix.Edits = append(f.Fix.Edits, rules.FileEdit{File: cleanLine(e.File), Edit: cleanLine(e.Edit), Then: cleanLine(e.Then)})
	}
	return f
}

func cleanLines(ls []string) []string {
	if ls == nil {
		return nil
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = cleanLine(l)
	}
	return out
}
