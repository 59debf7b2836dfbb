package artifacts

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// A report, alert log or init.ora made on Windows (SQL*Plus's spool there,
// Notepad's "Unicode", PowerShell's Out-File) is often UTF-16, with or
// without a byte order mark, or UTF-8 with one. Every artifact is
// recognised and parsed as UTF-8: textEncoding tells what a file's first
// bytes are and toUTF8 converts it, before anything looks at it. The size
// limit is on the bytes read (maxFileSize); UTF-16 text of ASCII becomes
// half as many bytes of UTF-8, of other characters at most 1.5 times as
// many.

// encoding is an artifact's text encoding.
type encoding struct {
	utf16     bool
	bigEndian bool
	bom       int // length of its byte order mark (0 if none)
}

// textEncoding says how b, a file's first bytes, is encoded: a byte order
// mark (UTF-8 EF BB BF, UTF-16 FF FE or FE FF), else UTF-16 without one
// when it looks like it (looksUTF16), else UTF-8.
func textEncoding(b []byte) encoding {
	switch {
	case bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}):
		return encoding{bom: 3}
	case bytes.HasPrefix(b, []byte{0xff, 0xfe}):
		return encoding{utf16: true, bom: 2}
	case bytes.HasPrefix(b, []byte{0xfe, 0xff}):
		return encoding{utf16: true, bigEndian: true, bom: 2}
	}
	if le, ok := looksUTF16(b); ok {
		return encoding{utf16: true, bigEndian: !le}
	}
	return encoding{}
}

// looksUTF16 detects UTF-16 text without a byte order mark the way it is
// told in practice: an artifact is mostly ASCII, so in UTF-16 one byte of
// nearly every code unit is zero, always the same one (the second in
// little endian). Text in any 8-bit encoding has no zero byte, and a
// binary spfile has zeros in runs, not in every other byte: at least 32
// code units, 90 % of them with a zero high byte and a non-zero low byte.
func looksUTF16(b []byte) (littleEndian, ok bool) {
	n := min(len(b), 4096) &^ 1
	if n < 64 {
		return false, false
	}
	var le, be int
	for i := 0; i < n; i += 2 {
		switch {
		case b[i] != 0 && b[i+1] == 0:
			le++
		case b[i] == 0 && b[i+1] != 0:
			be++
		}
	}
	units := n / 2
	switch {
	case le*10 >= units*9:
		return true, true
	case be*10 >= units*9:
		return false, true
	}
	return false, false
}

// toUTF8 returns b as UTF-8: a UTF-8 byte order mark dropped, UTF-16
// decoded (its mark dropped; an unpaired surrogate or a last odd byte
// becomes U+FFFD). Text that is not UTF-16 is returned as it is.
func toUTF8(b []byte) []byte {
	return decodeAs(b, textEncoding(b))
}

// decodeAs converts b, which starts with e's byte order mark if it has
// one, to UTF-8.
func decodeAs(b []byte, e encoding) []byte {
	if !e.utf16 {
		return b[e.bom:]
	}
	return decodeUTF16(b[min(e.bom, len(b)):], e.bigEndian)
}

// decodeUTF16 decodes UTF-16 without a byte order mark to UTF-8.
func decodeUTF16(b []byte, bigEndian bool) []byte {
	out := make([]byte, 0, len(b)/2+len(b)/8)
	for i := 0; i+1 < len(b); i += 2 {
		u := uint16(b[i]) | uint16(b[i+1])<<8
		if bigEndian {
			u = uint16(b[i])<<8 | uint16(b[i+1])
		}
		r := rune(u)
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
			if u < 0xdc00 && i+3 < len(b) {
				u2 := uint16(b[i+2]) | uint16(b[i+3])<<8
				if bigEndian {
					u2 = uint16(b[i+2])<<8 | uint16(b[i+3])
				}
				if d := utf16.DecodeRune(rune(u), rune(u2)); d != utf8.RuneError {
					r = d
					i += 2
				}
			}
		}
		out = utf8.AppendRune(out, r)
	}
	if len(b)%2 == 1 {
		out = utf8.AppendRune(out, utf8.RuneError)
	}
	return out
}

// newlines counts the line feeds of b, text in e that starts at a code
// unit's boundary (an even offset of the file in UTF-16).
func (e encoding) newlines(b []byte) int {
	if !e.utf16 {
		return bytes.Count(b, []byte{'\n'})
	}
	nl := [2]byte{'\n', 0}
	if e.bigEndian {
		nl = [2]byte{0, '\n'}
	}
	n := 0
	for i := 0; i+1 < len(b); i += 2 {
		if b[i] == nl[0] && b[i+1] == nl[1] {
			n++
		}
	}
	return n
}
