package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestAWRUTF16 (issue 24, item 15): a Statspack report spooled on Windows
// (UTF-16 with a byte order mark, little or big endian) reads as its UTF-8
// original through the real binary; before, "not an AWR or Statspack
// report", exit 2.
func TestAWRUTF16(t *testing.T) {
	src, err := filepath.Abs(awrData + "sp_31_32_12102_crlf.lst")
	if err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	// The UTF-8 original in a directory of the same length as the UTF-16
	// copies' (the text output wraps around the file's name).
	src = filepath.Join(t.TempDir(), "sp_31_32_12102_crlf.lst")
	if err := os.WriteFile(src, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	want := dbhostExec(t, nil, "awr", src)
	if want.code != 0 {
		t.Fatalf("UTF-8: exit %d: %s", want.code, want.stderr)
	}
	for _, big := range []bool{false, true} {
		units := append([]uint16{0xfeff}, utf16.Encode([]rune(string(orig)))...)
		b := make([]byte, 0, 2*len(units))
		for _, u := range units {
			if big {
				b = append(b, byte(u>>8), byte(u))
			} else {
				b = append(b, byte(u), byte(u>>8))
			}
		}
		p := filepath.Join(t.TempDir(), "sp_31_32_12102_crlf.lst")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		r := dbhostExec(t, nil, "awr", p)
		if r.code != 0 {
			t.Errorf("UTF-16 (big endian %v): exit %d: %s", big, r.code, r.stderr)
			continue
		}
		if r.stdout != strings.ReplaceAll(want.stdout, src, p) {
			t.Errorf("UTF-16 (big endian %v): the report reads differently:\n%s\nUTF-8:\n%s", big, r.stdout, want.stdout)
		}
	}
}
