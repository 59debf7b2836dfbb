// Package aix reads an AIX bundle (docs/aix.md): one pure parser per command
// output, written from the formats IBM documents for AIX 5.3 to 7.3, and
// Collect, which fills the Snapshot's aix section from a bundle's files.
//
// Every parser takes the command's output as a string (CRLF accepted) and
// returns what it could read, the lines it skipped (notes: a warning a
// command printed between its lines, a line cut by a terminal) and an error
// only when nothing in the text is what the command prints. A skipped line
// never drops the records around it.
package aix

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// notes are the lines a parser skipped, each with what was expected.
type notes []*facts.ParseError

func (n *notes) add(line int, format string, a ...any) {
	if len(*n) < maxNotes {
		*n = append(*n, &facts.ParseError{Line: line, Msg: fmt.Sprintf(format, a...)})
	}
}

// maxNotes bounds the skipped lines kept per file (a binary file is not
// thousands of absences).
const maxNotes = 20

func parseErr(line int, format string, a ...any) error {
	return &facts.ParseError{Line: line, Msg: fmt.Sprintf(format, a...)}
}

// lines splits a command's output into lines without their CR.
func lines(s string) []string {
	ls := strings.Split(s, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, "\r")
	}
	if n := len(ls); n > 0 && ls[n-1] == "" {
		ls = ls[:n-1]
	}
	return ls
}

// trunc shortens s for an error message.
func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// parseInt reads a decimal or hexadecimal (0x) integer as AIX prints them
// (lsattr prints max_xfer_size as 0x100000, ioo counts in decimal).
func parseInt(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		if h == "" || len(h) > 16 {
			return 0, false
		}
		u, err := strconv.ParseUint(h, 16, 64)
		if err != nil || u > math.MaxInt64 {
			return 0, false
		}
		return int64(u), true
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// value is one printed value with its kind: number (decimal or hex), n/a,
// or text.
func value(s string) snapshot.AIXValue {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "n/a") {
		return snapshot.AIXValue{Value: s, Kind: "n/a"}
	}
	if n, ok := parseInt(s); ok {
		return snapshot.AIXValue{Value: s, Kind: "number", Number: &n}
	}
	return snapshot.AIXValue{Value: s, Kind: "text"}
}

// parseFloat reads a decimal number ("2.00", "12363.94", "-").
func parseFloat(s string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// atoi reads a non-negative decimal int.
func atoi(s string) (int, bool) {
	v, err := strconv.Atoi(strings.TrimSpace(s))
	return v, err == nil && v >= 0
}

func ptr[T any](v T) *T { return &v }

// splitComma splits an options list ("rw,cio,log=INLINE") into its items;
// "" and "--" are no options ([]).
func splitComma(s string) []string {
	out := []string{}
	s = strings.TrimSpace(s)
	if s == "" || s == "--" || s == "-" {
		return out
	}
	for _, o := range strings.Split(s, ",") {
		if o = strings.TrimSpace(o); o != "" {
			out = append(out, o)
		}
	}
	return out
}

// yesNo reads AIX's yes/no and true/false columns.
func yesNo(s string) *bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "yes", "true":
		return ptr(true)
	case "no", "false":
		return ptr(false)
	}
	return nil
}

// sizeMB reads a size printed with its unit ("512MB", "16384 MB", "2GB",
// "1TB") as MB.
func sizeMB(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mul := int64(1)
	up := strings.ToUpper(s)
	for _, u := range []struct {
		suf string
		mul int64
	}{{"TB", 1 << 20}, {"GB", 1 << 10}, {"MB", 1}} {
		if strings.HasSuffix(up, u.suf) {
			s, mul = strings.TrimSpace(s[:len(s)-len(u.suf)]), u.mul
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/mul {
		return 0, false
	}
	return v * mul, true
}

// sortBy sorts device records by name as AIX numbers them (hdisk2 before hdisk10).
func sortBy[T any](s []T, name func(T) string) {
	sort.SliceStable(s, func(i, j int) bool { return devLess(name(s[i]), name(s[j])) })
}
