package jsonfmt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// foldKey maps every rune to the smallest of its case-fold orbit: two keys
// are equal after foldKey when strings.EqualFold (encoding/json's field
// matching) says they are.
func foldKey(k string) string {
	ascii := true
	for i := 0; i < len(k); i++ {
		if k[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToUpper(k) // an ASCII letter's orbit's smallest rune is its capital
	}
	var b strings.Builder
	for _, r := range k {
		m := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			m = min(m, f)
		}
		b.WriteRune(m)
	}
	return b.String()
}

// DuplicateKeyError is an object of a JSON document that holds one key
// twice. encoding/json keeps the last value without a word (and matches a
// struct field's name without regard to case), so a file can show one value
// to a person reading it and give another to the program: a document dbhost
// reads is refused instead.
type DuplicateKeyError struct {
	Key   string // the key as written the second time
	Line  int    // the line of its second occurrence (1-based)
	First int    // the line of its first occurrence
	Path  string // the object's place in the document ("changes[2]"; "" at the top)
}

func (e *DuplicateKeyError) Error() string {
	in := ""
	if e.Path != "" {
		in = " in " + e.Path
	}
	return fmt.Sprintf("line %d: duplicate key %q%s (first on line %d): a JSON object holds each key once", e.Line, e.Key, in, e.First)
}

// CheckKeys returns a *DuplicateKeyError for the first object of b (a JSON
// document encoding/json has already decoded: its syntax is valid) that
// holds a key twice. With fold, keys equal but for case are the same key
// (as encoding/json matches a struct's fields: use it for documents whose
// objects are all structs, never maps keyed by data). One pass, no
// allocation per value: a 64 MiB snapshot is scanned in its decode's time
// or less.
func CheckKeys(b []byte, fold bool) error {
	s := keyScanner{b: b, fold: fold, line: 1}
	s.value("")
	return s.err
}

// ArrayLines returns the line (1-based) where each element of the array
// under key of b's top-level object starts; nil when there is no such
// array. b is a document encoding/json has decoded.
func ArrayLines(b []byte, key string) []int {
	s := keyScanner{b: b, line: 1, want: key, lines: []int{}}
	s.value("")
	if !s.found {
		return nil
	}
	return s.lines
}

type keyScanner struct {
	b    []byte
	i    int
	line int
	fold bool
	err  error
	// ArrayLines: the top-level key whose array's element lines are kept.
	want  string
	found bool
	lines []int
}

func (s *keyScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '\n':
			s.line++
		case ' ', '\t', '\r':
		default:
			return
		}
		s.i++
	}
}

// str reads a string at s.i (at its quote) and returns its decoded text.
func (s *keyScanner) str() string {
	start := s.i
	s.i++
	escaped := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		if c == '\\' {
			escaped = true
			s.i += 2
			continue
		}
		s.i++
		if c == '"' {
			break
		}
	}
	raw := s.b[start:s.i]
	if !escaped {
		return validUTF8(string(raw[1 : len(raw)-1]))
	}
	if v, err := strconv.Unquote(string(raw)); err == nil {
		return validUTF8(v)
	}
	return validUTF8(unquoteJSON(raw))
}

// validUTF8 replaces each byte that is not UTF-8 with U+FFFD, as
// encoding/json does: two keys that differ only there are one key to it.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r) // ranging yields U+FFFD for each invalid byte
	}
	return b.String()
}

// unquoteJSON decodes the escapes strconv.Unquote does not know (\/ and
// lone surrogates), as encoding/json does.
func unquoteJSON(raw []byte) string {
	var out strings.Builder
	r := raw[1 : len(raw)-1]
	for i := 0; i < len(r); i++ {
		if r[i] != '\\' || i+1 >= len(r) {
			out.WriteByte(r[i])
			continue
		}
		i++
		switch r[i] {
		case 'u':
			if i+4 >= len(r) {
				break
			}
			n, _ := strconv.ParseUint(string(r[i+1:i+5]), 16, 32)
			i += 4
			c := rune(n)
			if utf16.IsSurrogate(c) {
				// A pair is one rune; a lone surrogate is U+FFFD.
				c = utf8.RuneError
				if i+6 < len(r) && r[i+1] == '\\' && r[i+2] == 'u' {
					if m, err := strconv.ParseUint(string(r[i+3:i+7]), 16, 32); err == nil {
						if d := utf16.DecodeRune(rune(n), rune(m)); d != utf8.RuneError {
							c = d
							i += 6
						}
					}
				}
			}
			out.WriteRune(c)
		case 'n':
			out.WriteByte('\n')
		case 't':
			out.WriteByte('\t')
		case 'r':
			out.WriteByte('\r')
		case 'b':
			out.WriteByte('\b')
		case 'f':
			out.WriteByte('\f')
		default:
			out.WriteByte(r[i])
		}
	}
	return out.String()
}

// value scans one value at path, then returns.
func (s *keyScanner) value(path string) {
	s.space()
	if s.i >= len(s.b) || s.err != nil {
		return
	}
	switch s.b[s.i] {
	case '{':
		s.object(path)
	case '[':
		s.i++
		for n := 0; s.err == nil; n++ {
			s.space()
			if s.i >= len(s.b) || s.b[s.i] == ']' {
				s.i++
				return
			}
			if s.b[s.i] == ',' {
				s.i++
				s.space()
			}
			if s.lines != nil && s.found && path == s.want {
				s.lines = append(s.lines, s.line)
			}
			sub := path
			if s.i < len(s.b) && (s.b[s.i] == '{' || s.b[s.i] == '[') {
				sub = path + "[" + strconv.Itoa(n) + "]" // scalars need no path
			}
			s.value(sub)
		}
	case '"':
		s.str()
	default:
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', ']', '}', ' ', '\t', '\r', '\n':
				return
			}
			s.i++
		}
	}
}

func (s *keyScanner) object(path string) {
	s.i++
	type seen struct {
		key  string
		line int
	}
	var keys []seen // objects are small: a list beats a map's allocations
	for s.err == nil {
		s.space()
		if s.i >= len(s.b) || s.b[s.i] == '}' {
			s.i++
			return
		}
		if s.b[s.i] == ',' {
			s.i++
			s.space()
		}
		line := s.line
		k := s.str()
		cmp := k
		if s.fold {
			cmp = foldKey(k)
		}
		for _, o := range keys {
			if o.key == cmp {
				s.err = &DuplicateKeyError{Key: k, Line: line, First: o.line, Path: path}
				return
			}
		}
		keys = append(keys, seen{cmp, line})
		s.space()
		s.i++ // ':'
		sub := k
		if path != "" {
			sub = path + "." + k
		}
		if path == "" && s.want != "" && k == s.want {
			s.space()
			if s.i < len(s.b) && s.b[s.i] == '[' {
				s.found = true
			}
		}
		s.value(sub)
	}
}
