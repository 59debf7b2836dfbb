package facts

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

func TestParsePIDStat(t *testing.T) {
	cpu, err := parsePIDStat(pidStatText(42, "odd) (name ) x", 17))
	if err != nil || cpu != 17 {
		t.Errorf("got %d %v", cpu, err)
	}
	for _, bad := range []string{"", "42 (x) S 1 2 3", "no paren at all", strings.Replace(pidStatText(1, "x", 5), " 5 ", " -5 ", 1)} {
		if _, err := parsePIDStat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzParsePIDStat: a stat line with any comm (the kernel prints it raw:
// spaces, parentheses, newlines), the processor the fuzzer chose in field 39
// and 39 to 52 fields (kernels from 2.6 to 6.x) parses back to that
// processor, in every line ending; fewer fields or a processor that is not a
// CPU number fail. Any text is read the same by parsePIDStat and by a second,
// independent reading (refPIDStatCPU).
func FuzzParsePIDStat(f *testing.F) {
	f.Add(pidStatText(1, "x", 3), "x", uint32(3), uint8(13))
	f.Fuzz(func(t *testing.T, s, comm string, cpu uint32, extra uint8) {
		got, err := parsePIDStat(s)
		want, ok := refPIDStatCPU(s)
		if (err == nil) != ok || got != want {
			t.Fatalf("parsePIDStat(%q) = %d, %v; the reference reads %d, %v", s, got, err, want, ok)
		}

		c := int(cpu % (1<<16 + 1))
		n := 39 + int(extra)%14       // fields in all
		fields := make([]string, n-2) // fields 3..n
		for i := range fields {
			fields[i] = strconv.Itoa((i*7919 + int(extra)) % 100003)
		}
		fields[0] = "S"
		fields[36] = strconv.Itoa(c)
		head := fmt.Sprintf("%d (%s) ", 1+int(cpu>>16), comm)
		for _, end := range []string{"\n", "", "\r\n"} {
			line := head + strings.Join(fields, " ") + end
			if got, err := parsePIDStat(line); err != nil || got != c {
				t.Fatalf("field 39 of %q: %d, %v; want %d", line, got, err, c)
			}
		}
		for _, bad := range []string{
			head + strings.Join(fields[:36], " ") + "\n",                                   // 38 fields
			head + strings.Join(fields[:36], " ") + " x " + strings.Join(fields[37:], " "), // not a number
			head + strings.Join(fields[:36], " ") + " 65537 " + strings.Join(fields[37:], " "),
			head + strings.Join(fields[:36], " ") + " -1 " + strings.Join(fields[37:], " "),
		} {
			if got, err := parsePIDStat(bad); err == nil {
				t.Fatalf("parsePIDStat(%q) = %d, want an error", bad, got)
			}
		}
	})
}

// refPIDStatCPU reads field 39 of a stat line the long way round: skip to
// the last ')', then walk the rest rune by rune counting whitespace-separated
// words (the comm is field 2); the word must be a decimal (optionally signed)
// from 0 to 65536.
func refPIDStatCPU(s string) (int, bool) {
	end := strings.LastIndexByte(s, ')')
	if end < 0 {
		return 0, false
	}
	field, start, in := 2, 0, false
	rest := s[end+1:] + " "
	word := ""
	for i, r := range rest {
		switch {
		case unicode.IsSpace(r) && in:
			in = false
			if field++; field == 39 {
				word = rest[start:i]
			}
		case !unicode.IsSpace(r) && !in:
			in, start = true, i
		}
		if word != "" {
			break
		}
	}
	if word == "" {
		return 0, false
	}
	neg := false
	if word[0] == '+' || word[0] == '-' {
		neg, word = word[0] == '-', word[1:]
	}
	if word == "" || len(strings.TrimLeft(word, "0")) > 6 {
		return 0, false
	}
	v := 0
	for _, r := range word {
		if r < '0' || r > '9' {
			return 0, false
		}
		v = v*10 + int(r-'0')
	}
	if (neg && v != 0) || v > 1<<16 {
		return 0, false
	}
	return v, true
}
