package artifacts

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// encodings of a test file made on Windows.
var textEncodings = []struct {
	name   string
	encode func(s string) []byte
}{
	{"utf-16le-bom", func(s string) []byte { return utf16Bytes(s, false, true) }},
	{"utf-16be-bom", func(s string) []byte { return utf16Bytes(s, true, true) }},
	{"utf-16le", func(s string) []byte { return utf16Bytes(s, false, false) }},
	{"utf-16be", func(s string) []byte { return utf16Bytes(s, true, false) }},
	{"utf-8-bom", func(s string) []byte { return append([]byte{0xef, 0xbb, 0xbf}, s...) }},
}

// utf16Bytes encodes s in UTF-16, with a byte order mark when bom.
func utf16Bytes(s string, bigEndian, bom bool) []byte {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	b := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			b = append(b, byte(u>>8), byte(u))
		} else {
			b = append(b, byte(u), byte(u>>8))
		}
	}
	return b
}

// asJSON is what a parse gave, for comparing two (the file's name aside).
func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLoadUTF16 (issue 24, item 15): an artifact made on Windows, in UTF-16
// (with or without a byte order mark, either byte order) or in UTF-8 with a
// byte order mark, is recognised and read as its UTF-8 original is: every
// kind recognised by content, through Load (--artifact), LoadAWR (dbhost
// awr) and Set.Add. Before, a UTF-16 Statspack report was "not an AWR or
// Statspack report" and a UTF-16 alert log or init.ora "not a recognised
// artifact".
func TestLoadUTF16(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"awr/sp_31_32_12102_crlf.lst", "awr/sp_8811_8812_9208.lst", "awr/awrrpt_1_412_413_12102.txt",
		"awr/awrrpt_1_3301_3302_10205.html", "awr/awrgrpt_510_511_23ai.html", "alert_ORCL.log", "alert_cdb19.log", "initORCL.ora",
		"listener.ora", "tnsnames.ora", "oracle-ds.xml", "srvctl_config_service.txt", "spfileORCL.strings", "cgconfig.conf"} {
		orig := readTestdata(t, name)
		want, wantErrs := Load([]string{filepath.Join("testdata", name)})
		if want.Files[0].Kind == "" {
			t.Fatalf("%s: not recognised in UTF-8: %v", name, wantErrs)
		}
		wantAWR, _ := LoadAWR([]string{filepath.Join("testdata", name)})
		for _, enc := range textEncodings {
			p := filepath.Join(dir, enc.name+"-"+filepath.Base(name))
			b := enc.encode(string(orig))
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			got, errs := Load([]string{p})
			if got.Files[0].Kind != want.Files[0].Kind {
				t.Errorf("%s in %s: kind %q, want %q (%v)", name, enc.name, got.Files[0].Kind, want.Files[0].Kind, errs)
				continue
			}
			if len(errs) != len(wantErrs) {
				t.Errorf("%s in %s: errors %v, in UTF-8 %v", name, enc.name, errs, wantErrs)
			}
			got.Files[0].Path = want.Files[0].Path
			g, w := asJSON(t, got), asJSON(t, want)
			g = strings.ReplaceAll(g, p, filepath.Join("testdata", name))
			if g != w {
				t.Errorf("%s in %s: read differently from its UTF-8 original", name, enc.name)
			}
			s := &Set{}
			s.Add("x", b)
			if s.Files[0].Kind != want.Files[0].Kind {
				t.Errorf("%s in %s: Set.Add's kind %q", name, enc.name, s.Files[0].Kind)
			}
			if len(wantAWR) == 1 {
				reps, errs := LoadAWR([]string{p})
				if len(reps) != 1 {
					t.Errorf("%s in %s: dbhost awr: %v", name, enc.name, errs)
					continue
				}
				reps[0].File = wantAWR[0].File
				if asJSON(t, reps[0]) != asJSON(t, wantAWR[0]) {
					t.Errorf("%s in %s: the report read differently from its UTF-8 original", name, enc.name)
				}
			}
		}
	}
}

// TestLoadBigUTF16AlertLog: of a UTF-16 alert log over the limit the end is
// read, at a code unit's boundary, with the line numbers of the whole file.
func TestLoadBigUTF16AlertLog(t *testing.T) {
	old := maxFileSize
	maxFileSize = 4097 // odd: the tail must still start on a code unit
	defer func() { maxFileSize = old }()
	var sb strings.Builder
	sb.WriteString("Starting ORACLE instance (normal)\nNUMA system with 2 nodes detected\n")
	for sb.Len() < 20000 {
		sb.WriteString("Thread 1 advanced to log sequence 42 (LGWR switch) – ĊĊ\n") // U+010A: a 0x0A byte that is no line feed
	}
	prefix := strings.Count(sb.String(), "\n")
	sb.WriteString("Starting ORACLE instance (restrict)\nOracle NUMA support not enabled\n")
	for _, enc := range textEncodings[:2] {
		p := filepath.Join(t.TempDir(), "alert_BIG.log")
		if err := os.WriteFile(p, enc.encode(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		s, errs := Load([]string{p})
		noErrors(t, errs)
		if len(s.AlertLogs) != 1 || !strings.Contains(s.Files[0].Note, "only the last") {
			t.Fatalf("%s: files = %+v", enc.name, s.Files)
		}
		st := s.AlertLogs[0].Last()
		if st == nil || st.Mode != "restrict" || st.Line != prefix+1 || st.NUMA == nil || st.NUMA.Line != prefix+2 {
			t.Fatalf("%s: last startup = %+v (want line %d)", enc.name, st, prefix+1)
		}
	}
}

// TestToUTF8Property: any text encoded in UTF-16 (either order, with a
// mark) or UTF-8 with a mark comes back as it was; UTF-8 text without a
// mark, and a binary spfile, are left alone.
func TestToUTF8Property(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 15))
	for range 2000 {
		var sb strings.Builder
		for range 1 + r.IntN(300) {
			switch r.IntN(4) {
			case 0:
				sb.WriteRune(rune(0x20 + r.IntN(0x5f)))
			case 1:
				sb.WriteByte('\n')
			case 2:
				sb.WriteRune(rune(0xa0 + r.IntN(0xd700-0xa0)))
			default:
				sb.WriteRune(rune(0x10000 + r.IntN(0x10000)))
			}
		}
		s := sb.String()
		for _, enc := range textEncodings {
			if strings.HasSuffix(enc.name, "be") || strings.HasSuffix(enc.name, "le") {
				continue // without a mark: told only from mostly-ASCII text (TestLoadUTF16)
			}
			if got := string(toUTF8(enc.encode(s))); got != s {
				t.Fatalf("%s: %q came back as %q", enc.name, s, got)
			}
		}
		if utf8.ValidString(s) && !strings.HasPrefix(s, "\ufeff") {
			if got := string(toUTF8([]byte(s))); got != s {
				t.Fatalf("UTF-8 %q came back as %q", s, got)
			}
		}
	}
	spfile := readTestdata(t, "spfileBDT12c1.ora")
	if got := toUTF8(spfile); string(got) != string(spfile) {
		t.Errorf("a binary spfile was decoded as %+v", textEncoding(spfile))
	}
}
