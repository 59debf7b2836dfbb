// Package jsonfmt writes JSON for people and diffs: indented two spaces,
// with arrays of scalars (CPU lists, per-CPU counters) on one line.
package jsonfmt

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Marshal renders v (HTML characters unescaped) with Indent and a trailing newline.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(Indent(bytes.TrimRight(buf.Bytes(), "\n")), '\n'), nil
}

// Indent indents compact JSON two spaces per level, but keeps an array
// whose elements are all scalars on one line ("cpus": [0, 1, 2, 3]). A
// 240-CPU snapshot is mostly such arrays (IRQ counts per CPU, CPU lists): one
// line each keeps it readable and diffable at a third of the size that one
// number per line takes, and costs one linear pass.
func Indent(in []byte) []byte {
	out := make([]byte, 0, len(in)+len(in)/4)
	depth := 0
	newline := func() {
		out = append(out, '\n')
		for i := 0; i < depth; i++ {
			out = append(out, ' ', ' ')
		}
	}
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch c {
		case '"':
			j := skipString(in, i)
			out = appendString(out, in[i:j])
			i = j - 1
		case '{', '[':
			if c == '[' {
				if end, flat := flatArray(in, i); flat {
					// [1,2,3] → [1, 2, 3]
					for k := i; k <= end; k++ {
						out = append(out, in[k])
						if in[k] == ',' {
							out = append(out, ' ')
						} else if in[k] == '"' {
							j := skipString(in, k)
							out = appendString(out[:len(out)-1], in[k:j])
							k = j - 1
						}
					}
					i = end
					continue
				}
			}
			out = append(out, c)
			if i+1 < len(in) && (in[i+1] == '}' || in[i+1] == ']') {
				out = append(out, in[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			out = append(out, c)
		case ',':
			out = append(out, ',')
			newline()
		case ':':
			out = append(out, ':', ' ')
		default:
			out = append(out, c)
		}
	}
	return out
}

// appendString appends the JSON string str (its quotes included) with the
// escape \ufffd written as the character U+FFFD itself: encoding/json
// escapes the replacement of an invalid UTF-8 byte but writes a valid
// U+FFFD raw, so without this a snapshot read back and written again would
// differ from the first (a sysctl value with a byte 0xff).
func appendString(out, str []byte) []byte {
	for k := 0; k < len(str); k++ {
		if str[k] != '\\' || k+1 >= len(str) {
			out = append(out, str[k])
			continue
		}
		if bytes.HasPrefix(str[k+1:], []byte("ufffd")) {
			out = append(out, "\uFFFD"...)
			k += 5
			continue
		}
		out = append(out, str[k], str[k+1])
		k++
	}
	return out
}

// skipString returns the index just past the JSON string starting at in[i].
func skipString(in []byte, i int) int {
	for j := i + 1; j < len(in); j++ {
		switch in[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(in)
}

// flatArray reports whether the array starting at in[i] holds only scalars,
// and the index of its closing bracket.
func flatArray(in []byte, i int) (end int, flat bool) {
	for j := i + 1; j < len(in); j++ {
		switch in[j] {
		case '"':
			j = skipString(in, j) - 1
		case '[', '{':
			return 0, false
		case ']':
			return j, j > i+1
		}
	}
	return 0, false
}

// DecodeError describes an error of decoding the JSON document b, with the
// line it happened on: a syntax error or a value of the wrong type where the
// decoder says, an unknown field where its key first appears, and a cut-off
// document at its last line ("the file ends inside the JSON document"); an
// empty one says so.
func DecodeError(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	case errors.Is(err, io.EOF) && len(bytes.TrimSpace(b)) == 0:
		return "the file is empty: no JSON document"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Sprintf("line %d: the file ends inside the JSON document (cut off?)", 1+bytes.Count(bytes.TrimRight(b, " \t\r\n"), []byte("\n")))
	}
	if off < 0 {
		// Unknown fields carry no offset: find the first occurrence of the key.
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			if i := bytes.Index(b, []byte(strings.Trim(name, `"`)+`":`)); i > 0 {
				off = int64(i)
			}
		}
	}
	if off < 0 || off > int64(len(b)) {
		return err.Error()
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	return fmt.Sprintf("line %d: %v", line, err)
}
