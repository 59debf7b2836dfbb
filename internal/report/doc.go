package report

import (
	"bytes"
	"strings"
	"text/tabwriter"
)

// A view for people (collect, plan, verify, numa, numa --pid, diff, bench,
// compare, experiment, rules, awr, apply, rollback, place) is written once, into a doc,
// and drawn as text or as Markdown by the doc: the two formats of a view
// always say the same, and no view has a second renderer.
type doc interface {
	title(s string)       // the view's first line ("# s" in Markdown)
	section(s string)     // a blank line, then s ("## s")
	line(s string)        // a line of text (a paragraph)
	item(s string)        // an indented line ("- s")
	note(s string)        // a blank line, then s (a paragraph)
	table(t docTable)     // aligned columns (a pipe table)
	code(s string) string // a path, setting or command as typed (`s`)
	bytes() []byte        // what was written

	// fields are a record's labelled values (docField): aligned in text,
	// nested list items in Markdown.
	fields(indent string, fs []docField)
}

// docField is one labelled value of a record (a finding's setting,
// evidence, fix). In text the labels are aligned after indent and a value
// is wrapped at textWidth (at its newlines too) unless whole (a command,
// kept on one line for copy and paste); a field without a label is a line
// of the one above, and without any label the values are lines after
// indent. In Markdown each line of a value is a nested list item, a whole
// one as code.
type docField struct {
	label, value string
	whole        bool
}

// docTable is a table: its header and rows, right-aligned or not; in text,
// each line starts with indent and columns are pad spaces apart. An open
// table's text leaves its last column unpadded and its lines untrimmed
// (collect's tables, where an empty cell's padding has always been kept).
type docTable struct {
	head   []string
	rows   [][]string
	right  bool
	pad    int
	indent string
	open   bool
	// textRow, when set, draws a row (and the head) in text in the view's
	// own fixed layout (widths, punctuation, "\n" for a second line):
	// bench's, compare's and experiment's lines; Markdown draws the same
	// cells as columns.
	textRow func(cells []string) string
	// textNoHead leaves the head out of the text (Markdown needs one).
	textNoHead bool
}

// textDoc draws a doc as dbhost's text: no line wider than width (0: no limit).
type textDoc struct {
	b  bytes.Buffer
	lw *lineWriter
}

// draw writes a view into d and returns what d drew.
func draw(d doc, view func(doc)) []byte {
	view(d)
	return d.bytes()
}

func newTextDoc(width int) *textDoc {
	d := &textDoc{}
	if width <= 0 {
		width = 1 << 30
	}
	d.lw = &lineWriter{w: &d.b, width: width}
	return d
}

func (d *textDoc) title(s string)       { d.lw.line(s) }
func (d *textDoc) section(s string)     { d.lw.line(""); d.lw.line(s) }
func (d *textDoc) line(s string)        { d.lw.line(s) }
func (d *textDoc) item(s string)        { d.lw.line("  " + s) }
func (d *textDoc) note(s string)        { d.lw.line(""); d.lw.line(s) }
func (d *textDoc) code(s string) string { return s }
func (d *textDoc) bytes() []byte        { return d.b.Bytes() }
func (d *textDoc) fields(indent string, fs []docField) {
	if len(fs) == 0 {
		return
	}
	labels := false
	for _, f := range fs {
		labels = labels || f.label != ""
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, f := range fs {
		lines := []string{cleanLine(f.value)}
		if !f.whole {
			lines = wrap(cleanText(f.value), textWidth)
		}
		for i, l := range lines {
			k := f.label
			if i > 0 {
				k = ""
			}
			if labels {
				l = k + "\t" + l
			}
			tw.Write([]byte(indent + l + "\n"))
		}
	}
	tw.Flush()
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		d.lw.line(l)
	}
}
func (d *textDoc) table(t docTable) {
	lines := append([][]string{t.head}, t.rows...)
	if t.textNoHead {
		lines = lines[1:]
	}
	if t.textRow != nil {
		for _, r := range lines {
			for _, l := range strings.Split(t.textRow(r), "\n") {
				d.lw.line(l)
			}
		}
		return
	}
	var flags uint
	if t.right {
		flags = tabwriter.AlignRight
	}
	var b bytes.Buffer
	tw := tabwriter.NewWriter(&b, 0, 0, t.pad, ' ', flags)
	end := "\t\n"
	if t.open {
		end = "\n"
	}
	for _, r := range lines {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = cleanLine(c) // a newline in a cell would end tabwriter's line
		}
		tw.Write([]byte(t.indent + strings.Join(cells, "\t") + end))
	}
	tw.Flush()
	for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
		if !t.open {
			l = strings.TrimRight(l, " ")
		}
		d.lw.line(l)
	}
}

// mdDoc draws a doc as Markdown (CommonMark with GitHub's pipe tables).
type mdDoc struct {
	b      bytes.Buffer
	inList bool
}

// block starts a block: a list in progress ends with a blank line.
func (d *mdDoc) block() {
	if d.inList {
		d.b.WriteString("\n")
		d.inList = false
	}
}

func (d *mdDoc) title(s string) { d.block(); d.b.WriteString("# " + mdInline(s) + "\n\n") }
func (d *mdDoc) section(s string) {
	d.block()
	d.b.WriteString("## " + mdInline(strings.TrimSuffix(s, ":")) + "\n\n")
}
func (d *mdDoc) line(s string) {
	d.block()
	if s != "" {
		d.b.WriteString(mdStart(mdInline(s)) + "\n\n")
	}
}

// mdInline escapes, outside its code spans (which d.code made, kept as
// they are), what Markdown would take for markup in dbhost's text: a < (an
// HTML tag: "<host>", SQL's "a<b"), a * and an _ at a word's edge
// (emphasis: "cpu*", Oracle's "_enable_NUMA_support"), a backslash before
// punctuation (an escape: a quoted "numa\_balancing" keeps its backslash).
// An _ inside a word ("dirty_ratio") is never emphasis and stays as it is.
func mdInline(s string) string {
	s = cleanLine(s)
	if !strings.ContainsAny(s, "<*_\\") {
		return s
	}
	word := func(i int) bool {
		if i < 0 || i >= len(s) {
			return false
		}
		c := s[i]
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	ticks := func(i int) int {
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		return n
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if n := ticks(i); n > 0 {
			end := -1 // the closing run of exactly n backticks
			for k := i + n; k < len(s); {
				if m := ticks(k); m > 0 {
					if m == n {
						end = k + m
						break
					}
					k += m
				} else {
					k++
				}
			}
			if end < 0 {
				end = i + n // no closing run: the backticks are text
			}
			b.WriteString(s[i:end])
			i = end
			continue
		}
		switch c := s[i]; {
		case c == '<' || c == '*', c == '_' && !(word(i-1) && word(i+1)),
			c == '\\' && i+1 < len(s) && strings.IndexByte(mdPunct, s[i+1]) >= 0:
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// mdPunct is the ASCII punctuation a backslash escapes in CommonMark.
const mdPunct = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// mdStart escapes what would make the start of s a list item, a quote or a
// heading (apply's and drift's marks: + - > *, a #) instead of text.
func mdStart(s string) string {
	if s != "" && strings.ContainsRune("-+*>#", rune(s[0])) {
		return "\\" + s
	}
	return s
}
func (d *mdDoc) note(s string) { d.line(s) }

// item is a list item, nested under the one above when s is indented; a
// leading -, + or * (drift's marks) is escaped, not taken for a nested list
// (mdStart).
func (d *mdDoc) item(s string) {
	mark := "- "
	if t := strings.TrimLeft(s, " "); t != s {
		s, mark = t, "  - " // an indented line details the item above it
	}
	d.b.WriteString(mark + mdStart(mdInline(s)) + "\n")
	d.inList = true
}
func (d *mdDoc) code(s string) string { return mdCode(s) }
func (d *mdDoc) bytes() []byte        { return d.b.Bytes() }
func (d *mdDoc) fields(_ string, fs []docField) {
	for _, f := range fs {
		lines := []string{f.value}
		if f.whole {
			lines[0] = mdCode(f.value)
		} else {
			lines = strings.Split(f.value, "\n")
		}
		for i, l := range lines {
			if l == "" {
				continue
			}
			if f.label != "" && i == 0 {
				l = "**" + mdInline(f.label) + "**: " + mdInline(l)
			} else {
				l = mdStart(mdInline(l))
			}
			d.b.WriteString("  - " + l + "\n") // nested under the item above
			d.inList = true
		}
	}
}
func (d *mdDoc) table(t docTable) {
	d.block()
	row := func(cells []string) {
		d.b.WriteString("|")
		for _, c := range cells {
			d.b.WriteString(" " + mdCell(strings.TrimSpace(c)) + " |") // a text's indent is no part of a cell
		}
		d.b.WriteString("\n")
	}
	row(t.head)
	d.b.WriteString("|")
	for i := range t.head {
		if t.right && i > 0 {
			d.b.WriteString("---:|")
		} else {
			d.b.WriteString("---|")
		}
	}
	d.b.WriteString("\n")
	for _, r := range t.rows {
		row(r)
	}
	d.b.WriteString("\n")
}

// mdCode is s as inline code, with a fence longer than any run of
// backticks inside it.
func mdCode(s string) string {
	s = cleanLine(s)
	if s == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
