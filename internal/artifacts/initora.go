package artifacts

import (
	"bytes"
	"github.com/dbhost/dbhost/internal/lazyre"
	"strings"
)

// InitParams is one init.ora / pfile, or the parameters recovered from a
// binary spfile or `strings spfileSID.ora`.
type InitParams struct {
	File   string `json:"file"`
	Spfile bool   `json:"spfile"`
	// BySID maps "*" (lines without or with a "*." prefix) or an instance SID to
	// its parameters; names are lower-cased, values unquoted, list items joined
	// with ",". A parameter set twice for the same SID keeps the last value.
	BySID   map[string]map[string]string `json:"by_sid"`
	Entries []InitParam                  `json:"entries"`
	// Skipped lists lines of a spfile dump that were binary junk, not parameters.
	Skipped []int `json:"skipped,omitempty"`
}

// InitParam is one parameter line.
type InitParam struct {
	SID    string   `json:"sid"`  // "*" when unprefixed
	Name   string   `json:"name"` // lower-cased, without quotes
	Value  string   `json:"value"`
	Values []string `json:"values"` // list items, unquoted
	Line   int      `json:"line"`
}

// Get is the value of name for an instance: the instance's own setting, else
// the "*" default. sid "" or "*" asks for the default only. Names are
// case-insensitive; SIDs match exactly first, then case-insensitively.
func (p *InitParams) Get(sid, name string) (string, bool) {
	if p == nil {
		return "", false
	}
	name = strings.ToLower(strings.Trim(name, `"`))
	if sid != "" && sid != "*" {
		if m, ok := p.BySID[sid]; ok {
			if v, ok := m[name]; ok {
				return v, true
			}
		}
		for s, m := range p.BySID {
			if s != "*" && s != sid && strings.EqualFold(s, sid) {
				if v, ok := m[name]; ok {
					return v, true
				}
			}
		}
	}
	v, ok := p.BySID["*"][name]
	return v, ok
}

// GetBytes is Get parsed with ParseBytes (sga_target, memory_target, ...).
// ok is false when the parameter is not set; err says why a set value is not a size.
func (p *InitParams) GetBytes(sid, name string) (n int64, ok bool, err error) {
	v, ok := p.Get(sid, name)
	if !ok {
		return 0, false, nil
	}
	n, err = ParseBytes(v)
	return n, true, err
}

// Bool is Get read as an Oracle boolean (TRUE/FALSE, also YES/NO, ON/OFF,
// case-insensitive); ok is false when the parameter is not set or not a boolean.
func (p *InitParams) Bool(sid, name string) (v, ok bool) {
	s, set := p.Get(sid, name)
	if !set {
		return false, false
	}
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "TRUE", "YES", "ON":
		return true, true
	case "FALSE", "NO", "OFF":
		return false, true
	}
	return false, false
}

// SIDs lists the instance SIDs that have their own settings (not "*"), sorted.
func (p *InitParams) SIDs() []string {
	var out []string
	for s := range p.BySID {
		if s != "*" {
			out = append(out, s)
		}
	}
	sortStrings(out)
	return out
}

var (
	reInitName = lazyre.New(`^"?[A-Za-z_][A-Za-z0-9_$#]*"?$`)
	reInitSID  = lazyre.New(`^(?:\*|[A-Za-z0-9_$#+-]+)$`)
	// reInitStart is a line that starts a new parameter: it never continues the previous one.
	reInitStart = lazyre.New(`^\s*[A-Za-z0-9_$#+*."-]+\s*=`)
)

// maxContinuation bounds how many physical lines one parameter may span.
const maxContinuation = 200

// ParseInit parses init.ora / pfile text or a spfile (binary or its
// `strings` output). Syntax: [sid.|*.]name = value, where value is a bare
// word, a quoted string (” or "" doubles a quote), or a list of those
// separated by commas, optionally in parentheses; a value continues on the
// next line while a quote or parenthesis is open or the line ends with ',' or
// '\'. '#' starts a comment outside quotes. In spfile content, binary bytes
// split lines and lines that are not parameters are skipped (listed in Skipped).
func ParseInit(b []byte) (*InitParams, []error) {
	p := &InitParams{BySID: map[string]map[string]string{}}
	p.Spfile = looksLikeSpfile(b)
	if bytes.IndexByte(b, 0) >= 0 {
		// A binary spfile: like strings(1), keep runs of printable text.
		b = printableRuns(b)
	}
	var el errList
	lines := splitLines(b)
	for i := 0; i < len(lines); i++ {
		start := i + 1
		text := stripInitComment(lines[i])
		if strings.TrimSpace(text) == "" {
			continue
		}
		eq := strings.IndexByte(text, '=')
		if eq < 0 {
			if p.Spfile {
				p.Skipped = append(p.Skipped, start)
			} else {
				el.add(errAt(start, "expected [sid.]name = value, got %q", trunc(strings.TrimSpace(text), 60)))
			}
			continue
		}
		// Join continuation lines.
		joined := text
		for n := 0; needsContinuation(joined) && n < maxContinuation && i+1 < len(lines) && !reInitStart().MatchString(lines[i+1]); n++ {
			i++
			next := stripInitComment(lines[i])
			joined = strings.TrimSuffix(strings.TrimRight(joined, " \t"), `\`)
			if p.Spfile {
				joined += strings.TrimSpace(next)
			} else {
				joined += " " + strings.TrimSpace(next)
			}
		}
		sid, name, values, err := parseInitLine(joined)
		if err == "" && needsContinuation(joined) && !strings.HasSuffix(strings.TrimSpace(joined), ",") {
			err = "unterminated quote or parenthesis"
		}
		if err != "" {
			if p.Spfile {
				p.Skipped = append(p.Skipped, start)
			} else {
				el.add(errAt(start, "%s in %q", err, trunc(strings.TrimSpace(joined), 60)))
			}
			continue
		}
		val := strings.Join(values, ",")
		p.Entries = append(p.Entries, InitParam{SID: sid, Name: name, Value: val, Values: values, Line: start})
		m := p.BySID[sid]
		if m == nil {
			m = map[string]string{}
			p.BySID[sid] = m
		}
		m[name] = val
	}
	return p, el.list()
}

// parseInitLine splits "[sid.]name = value-list"; err is "" when it parsed.
func parseInitLine(s string) (sid, name string, values []string, err string) {
	eq := strings.IndexByte(s, '=')
	lhs := strings.TrimSpace(s[:eq])
	rhs := strings.TrimSpace(s[eq+1:])
	sid = "*"
	name = lhs
	if dot := strings.IndexByte(lhs, '.'); dot >= 0 {
		sid, name = strings.TrimSpace(lhs[:dot]), strings.TrimSpace(lhs[dot+1:])
		if !reInitSID().MatchString(sid) {
			return "", "", nil, "expected an instance SID or * before '.'"
		}
	}
	if !reInitName().MatchString(name) {
		return "", "", nil, "expected a parameter name before '='"
	}
	name = strings.ToLower(strings.Trim(name, `"`))
	if rhs == "" {
		return "", "", nil, "expected a value after '='"
	}
	values, err = parseInitValues(rhs)
	return sid, name, values, err
}

// parseInitValues parses a value list: v1, v2 or (v1, v2).
func parseInitValues(s string) ([]string, string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "(") {
		if !strings.HasSuffix(s, ")") {
			return nil, "expected ')' closing the list"
		}
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	var out []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i >= len(s) {
			if len(out) > 0 {
				return nil, "expected a value after ','"
			}
			return nil, "expected a value"
		}
		var v string
		if q := s[i]; q == '\'' || q == '"' {
			var sb strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				if s[j] == q {
					if j+1 < len(s) && s[j+1] == q {
						sb.WriteByte(q)
						j += 2
						continue
					}
					closed = true
					j++
					break
				}
				sb.WriteByte(s[j])
				j++
			}
			if !closed {
				return nil, "unterminated quote"
			}
			v = sb.String()
			i = j
			for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
				i++
			}
			if i < len(s) && s[i] != ',' {
				return nil, "expected ',' or the end of the value after a quoted string"
			}
		} else {
			j := strings.IndexByte(s[i:], ',')
			if j < 0 {
				j = len(s) - i
			}
			v = strings.TrimSpace(s[i : i+j])
			if strings.ContainsAny(v, `()'"`) {
				return nil, "unexpected quote or parenthesis in a bare value"
			}
			i += j
		}
		out = append(out, v)
		if i >= len(s) {
			return out, ""
		}
		i++ // the ','
	}
}

// needsContinuation: an open quote or parenthesis, or a trailing ',' or '\'.
func needsContinuation(s string) bool {
	var q byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
	}
	t := strings.TrimRight(s, " \t")
	return q != 0 || depth > 0 || strings.HasSuffix(t, ",") || strings.HasSuffix(t, `\`)
}

// stripInitComment drops a '#' comment outside quotes and a trailing '\r'.
func stripInitComment(s string) string {
	s = strings.TrimSuffix(s, "\r")
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			}
		case c == '\'' || c == '"':
			q = c
		case c == '#':
			return s[:i]
		}
	}
	return s
}

// printableRuns keeps runs of at least 4 printable ASCII bytes, one per line,
// as strings(1) does.
func printableRuns(b []byte) []byte {
	var out []byte
	start := -1
	flush := func(end int) {
		if start >= 0 && end-start >= 4 {
			out = append(out, b[start:end]...)
			out = append(out, '\n')
		}
		start = -1
	}
	for i, c := range b {
		if c == '\t' || (c >= 0x20 && c < 0x7f) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(b))
	return out
}

// splitLines splits on '\n' (a final newline adds no empty line).
func splitLines(b []byte) []string {
	s := string(b)
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
