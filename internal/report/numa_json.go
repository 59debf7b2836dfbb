package report

import (
	"bytes"
	"encoding/json"
)

// JSON renders v as indented JSON with arrays of scalars on one line (CPU
// lists of hundreds of ids stay readable) and a trailing newline.
func JSON(v any) ([]byte, error) {
	compact, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	indent := 0
	nl := func() {
		b.WriteByte('\n')
		for i := 0; i < indent; i++ {
			b.WriteString("  ")
		}
	}
	inStr, esc := false, false
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inStr {
			b.WriteByte(c)
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
			b.WriteByte(c)
		case '[':
			if end := scalarArrayEnd(compact, i); end > 0 {
				sIn, sEsc := false, false
				for j := i; j <= end; j++ {
					c := compact[j]
					b.WriteByte(c)
					switch {
					case sIn && sEsc:
						sEsc = false
					case sIn && c == '\\':
						sEsc = true
					case c == '"':
						sIn = !sIn
					case !sIn && c == ',':
						b.WriteByte(' ')
					}
				}
				i = end
				continue
			}
			fallthrough
		case '{':
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				b.WriteByte(c)
				b.WriteByte(compact[i+1])
				i++
				continue
			}
			b.WriteByte(c)
			indent++
			nl()
		case ']', '}':
			indent--
			nl()
			b.WriteByte(c)
		case ',':
			b.WriteByte(c)
			nl()
		case ':':
			b.WriteString(": ")
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// scalarArrayEnd returns the index of the ']' closing the array opened at
// start when it holds no object or array, else -1.
func scalarArrayEnd(s []byte, start int) int {
	inStr, esc := false, false
	for j := start + 1; j < len(s); j++ {
		c := s[j]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		switch c {
		case '"':
			inStr = true
		case '[', '{':
			return -1
		case ']':
			return j
		}
	}
	return -1
}
