package artifacts

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseAWRHTML reads an AWR HTML report (awrrpt.sql/awrgrpt.sql, 10g-23ai)
// into tables in one pass over the bytes. It keeps what it needs of the
// markup and nothing else: the <title>, each <table>'s summary attribute,
// the text just before the table (its section title: an <h2>/<h3> heading
// or a bare "<p />Load Profile<p />" line; list items and links are notes
// and navigation, not titles), header cells (<th>, colspan expanded) and
// data cells. Tables no mapper reads (SQL text, segment lists) keep only
// their headings, so memory stays bounded by the sections read.
func parseAWRHTML(b []byte) *awrDoc {
	p := htmlScanner{b: b, line: 1}
	doc := &awrDoc{}
	var (
		caption   strings.Builder // the current run of text outside tables
		lastSeg   string          // the last non-blank run before it
		inTitle   bool
		titleText strings.Builder
		listDepth int
		linkDepth int
		skipDepth int // <script>/<style>
		tbl       *awrTable
		tblDepth  int
		row       *awrRow
		rowHeader bool // every cell of the row so far is a <th>
		hdrRows   [][]hdrCell
		hdrRow    []hdrCell
		cell      *strings.Builder
		cellSpan  int
		cellRows  int
		keep      bool // the current table is one a mapper reads
		overflow  bool // the current row is past AWRMaxRows: counted, not read
	)
	endCell := func() {
		if cell == nil || row == nil {
			return
		}
		txt := collapse(decodeEntities(cell.String()))
		hdrRow = append(hdrRow, hdrCell{txt, cellSpan, cellRows})
		row.cells = append(row.cells, txt)
		for k := 1; k < cellSpan; k++ {
			row.cells = append(row.cells, "") // a data cell fills the first column of its span
		}
		cell = nil
	}
	endRow := func() {
		endCell()
		if overflow {
			overflow = false
			if tbl != nil {
				tbl.total++
			}
			row = nil
			return
		}
		if row == nil || tbl == nil {
			row = nil
			return
		}
		if rowHeader && len(tbl.rows) == 0 && len(row.cells) > 0 {
			hdrRows = append(hdrRows, hdrRow)
		} else if len(row.cells) > 0 {
			if len(tbl.rows) == 0 && tbl.header == nil {
				tbl.header = mergeHeaderRows(hdrRows)
				classify(tbl)
				keep = tbl.section != ""
			}
			if keep {
				row.raw = strings.Join(row.cells, "  ")
				tbl.add(*row)
			}
		}
		row = nil
	}
	endTable := func() {
		endRow()
		if tbl == nil {
			return
		}
		if tbl.header == nil {
			tbl.header = mergeHeaderRows(hdrRows)
			classify(tbl)
		}
		if tbl.section != "" {
			doc.tables = append(doc.tables, tbl)
		}
		tbl, hdrRows = nil, nil
		caption.Reset()
		lastSeg = ""
	}
	// A block boundary (<p>, a heading, <br>) ends a run of text: the
	// title of a table is the last run before it.
	boundary := func() {
		if s := collapse(caption.String()); s != "" {
			lastSeg = s
		}
		caption.Reset()
	}
	for {
		text, tag, ok := p.next()
		if text != nil {
			switch {
			case skipDepth > 0:
			case inTitle:
				titleText.Write(text)
			case cell != nil:
				if cell.Len() < maxCell {
					cell.Write(text)
				}
			case tbl == nil && listDepth == 0 && linkDepth == 0:
				if caption.Len() < 512 {
					caption.Write(text)
					caption.WriteByte(' ')
				}
			}
		}
		if !ok {
			break
		}
		if tag.name == "" {
			continue
		}
		if skipDepth > 0 && !(tag.end && (tag.name == "script" || tag.name == "style")) {
			continue // markup inside a script ("<table>" in a string) is text
		}
		switch tag.name {
		case "script", "style":
			if tag.end {
				skipDepth = max(0, skipDepth-1)
			} else if !tag.selfClose {
				skipDepth++
			}
		case "title":
			inTitle = !tag.end
			if tag.end {
				doc.title = collapse(decodeEntities(titleText.String()))
			}
		case "h1", "h2", "h3", "h4", "h5":
			if tbl == nil {
				boundary()
			}
		case "ul", "ol":
			if tag.end {
				listDepth = max(0, listDepth-1)
			} else {
				listDepth++
			}
		case "a":
			if tag.end {
				linkDepth = max(0, linkDepth-1)
			} else if tag.attr("href") != "" && !tag.selfClose {
				linkDepth++
			}
		case "table":
			if tag.end {
				tblDepth--
				if tblDepth <= 0 {
					tblDepth = 0
					endTable()
				}
				continue
			}
			tblDepth++
			if tblDepth > 1 {
				continue // a nested table's cells become the outer cell's text
			}
			boundary()
			tbl = &awrTable{line: tag.line, summary: collapse(decodeEntities(tag.attr("summary"))),
				title: decodeEntities(lastSeg)}
			hdrRows = nil
			keep = true
		case "tr":
			if tblDepth > 1 || tbl == nil {
				continue
			}
			endRow()
			if !tag.end {
				row = &awrRow{line: tag.line}
				rowHeader, hdrRow = true, nil
			}
		case "td", "th":
			if tblDepth > 1 || tbl == nil {
				continue
			}
			if tag.end {
				endCell()
				continue
			}
			if row == nil {
				row = &awrRow{line: tag.line}
				rowHeader, hdrRow = true, nil
			}
			endCell()
			if tag.name == "td" {
				rowHeader = false
			}
			if !keep && tbl.header != nil {
				continue // a table no mapper reads: its text is not kept
			}
			if tbl.header != nil && len(tbl.rows) >= AWRMaxRows {
				overflow = true // its cells are not read (a 250,000-row table)
				continue
			}
			cell = &strings.Builder{}
			cellSpan, cellRows = spanAttr(tag, "colspan"), spanAttr(tag, "rowspan")
		case "br", "p", "div", "li":
			if cell != nil {
				cell.WriteByte(' ')
			} else if tbl == nil && listDepth == 0 {
				boundary()
			}
		}
	}
	endTable()
	return doc
}

// hdrCell is one header cell with its spans.
type hdrCell struct {
	text       string
	cols, rows int
}

// spanAttr reads a colspan/rowspan attribute: 1 unless it is 2..64.
func spanAttr(t htmlTag, name string) int {
	v := strings.TrimSpace(t.attr(name))
	if v == "" {
		return 1 // most cells: no Atoi error to allocate
	}
	if n, err := strconv.Atoi(v); err == nil && n > 1 && n <= 64 {
		return n
	}
	return 1
}

// mergeHeaderRows lays header rows out on a grid (colspan and rowspan as a
// browser would) and gives one heading per column: a group heading over
// several columns ("Wait Time" over "Total(s)" and "Avg(ms)") becomes the
// prefix of each column below it.
func mergeHeaderRows(rows [][]hdrCell) []string {
	var out []string
	busy := map[int]int{} // column → rows still covered by a rowspan above
	for _, r := range rows {
		col := 0
		placed := map[int]bool{}
		for _, c := range r {
			for busy[col] > 0 && !placed[col] {
				col++
			}
			for k := 0; k < c.cols; k++ {
				for len(out) <= col+k {
					out = append(out, "")
				}
				if c.text != "" {
					if out[col+k] != "" {
						out[col+k] += " "
					}
					out[col+k] += c.text
				}
				placed[col+k] = true
				if c.rows > 1 {
					busy[col+k] = c.rows // decremented below, this row included
				}
			}
			col += c.cols
		}
		for k, n := range busy {
			if n > 0 {
				busy[k] = n - 1
			}
		}
	}
	if out == nil {
		return []string{}
	}
	return out
}

// htmlTag is one tag as the scanner saw it.
type htmlTag struct {
	name      string // lower case; "" for comments, doctype and malformed tags
	end       bool
	selfClose bool
	attrs     []byte // the raw attribute text
	line      int
}

// attr returns the value of a tag attribute (case-insensitive name), "" if absent.
func (t htmlTag) attr(name string) string {
	a := t.attrs
	for len(a) > 0 {
		i := 0
		for i < len(a) && (a[i] == ' ' || a[i] == '\t' || a[i] == '\n' || a[i] == '\r' || a[i] == '/') {
			i++
		}
		a = a[i:]
		j := 0
		for j < len(a) && a[j] != '=' && a[j] != ' ' && a[j] != '\t' && a[j] != '\n' && a[j] != '\r' && a[j] != '>' {
			j++
		}
		key := a[:j]
		a = a[j:]
		for len(a) > 0 && (a[0] == ' ' || a[0] == '\t' || a[0] == '\n' || a[0] == '\r') {
			a = a[1:]
		}
		var val []byte
		if len(a) > 0 && a[0] == '=' {
			a = a[1:]
			for len(a) > 0 && (a[0] == ' ' || a[0] == '\t' || a[0] == '\n' || a[0] == '\r') {
				a = a[1:]
			}
			if len(a) > 0 && (a[0] == '"' || a[0] == '\'') {
				q := a[0]
				k := bytes.IndexByte(a[1:], q)
				if k < 0 {
					val, a = a[1:], nil
				} else {
					val, a = a[1:1+k], a[2+k:]
				}
			} else {
				k := 0
				for k < len(a) && a[k] != ' ' && a[k] != '\t' && a[k] != '\n' && a[k] != '>' {
					k++
				}
				val, a = a[:k], a[k:]
			}
		}
		if len(key) == 0 && len(val) == 0 {
			if len(a) > 0 {
				a = a[1:]
			}
			continue
		}
		if strings.EqualFold(string(key), name) {
			return string(val)
		}
	}
	return ""
}

// htmlScanner walks HTML bytes: text runs and tags, counting lines.
type htmlScanner struct {
	b    []byte
	pos  int
	line int
}

// next returns the text before the next tag (nil when none) and the tag;
// ok is false at the end of input (text may still hold the trailing text).
func (p *htmlScanner) next() (text []byte, tag htmlTag, ok bool) {
	if p.pos >= len(p.b) {
		return nil, htmlTag{}, false
	}
	rest := p.b[p.pos:]
	i := bytes.IndexByte(rest, '<')
	if i < 0 {
		p.line += bytes.Count(rest, []byte{'\n'})
		p.pos = len(p.b)
		return rest, htmlTag{}, false
	}
	if i > 0 {
		text = rest[:i]
		p.line += bytes.Count(text, []byte{'\n'})
	}
	p.pos += i
	rest = p.b[p.pos:]
	line := p.line
	// Comments and CDATA: skip to their end.
	if bytes.HasPrefix(rest, []byte("<!--")) {
		j := bytes.Index(rest[4:], []byte("-->"))
		end := len(rest)
		if j >= 0 {
			end = 4 + j + 3
		}
		p.line += bytes.Count(rest[:end], []byte{'\n'})
		p.pos += end
		return text, htmlTag{line: line}, true
	}
	j := bytes.IndexByte(rest, '>')
	if j < 0 {
		// An unterminated tag: the rest is text.
		p.line += bytes.Count(rest, []byte{'\n'})
		p.pos = len(p.b)
		return append(text, rest...), htmlTag{}, false
	}
	raw := rest[1:j]
	p.line += bytes.Count(rest[:j+1], []byte{'\n'})
	p.pos += j + 1
	t := htmlTag{line: line}
	if len(raw) > 0 && raw[0] == '/' {
		t.end = true
		raw = raw[1:]
	}
	if len(raw) > 0 && raw[len(raw)-1] == '/' {
		t.selfClose = true
		raw = raw[:len(raw)-1]
	}
	k := 0
	for k < len(raw) && (raw[k] >= 'a' && raw[k] <= 'z' || raw[k] >= 'A' && raw[k] <= 'Z' || raw[k] >= '0' && raw[k] <= '9') {
		k++
	}
	if k == 0 {
		return text, htmlTag{line: line}, true // <!DOCTYPE ...>, <?xml ...?>, a stray '<'
	}
	t.name = strings.ToLower(string(raw[:k]))
	t.attrs = raw[k:]
	return text, t, true
}

// decodeEntities replaces the HTML character references AWR prints
// (&#160;, &nbsp;, &amp;, &lt;, &gt;, &quot;, &#39;, &#xHH;).
func decodeEntities(s string) string {
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '&')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, ';')
		if j < 0 || j > 10 {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		ent := s[1:j]
		r := rune(-1)
		switch strings.ToLower(ent) {
		case "nbsp":
			r = ' '
		case "amp":
			r = '&'
		case "lt":
			r = '<'
		case "gt":
			r = '>'
		case "quot":
			r = '"'
		case "apos":
			r = '\''
		default:
			if strings.HasPrefix(ent, "#x") || strings.HasPrefix(ent, "#X") {
				if v, err := strconv.ParseUint(ent[2:], 16, 32); err == nil {
					r = rune(v)
				}
			} else if strings.HasPrefix(ent, "#") {
				if v, err := strconv.ParseUint(ent[1:], 10, 32); err == nil {
					r = rune(v)
				}
			}
		}
		if r < 0 || !utf8.ValidRune(r) {
			b.WriteByte('&')
			s = s[1:]
			continue
		}
		if r == 0xa0 {
			r = ' '
		}
		b.WriteRune(r)
		s = s[j+1:]
	}
	return b.String()
}
