package artifacts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// longTopEvents is a test report whose top events table has n rows: the
// table's first data row (the line holding first) repeated with the event
// renamed and its time lowered row by row, in place of the table's rows.
func longTopEvents(t *testing.T, name, first string, rows, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "awr", name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	at := -1
	for i, l := range lines {
		if strings.Contains(l, first) {
			at = i
			break
		}
	}
	if at < 0 {
		t.Fatalf("%s: no line with %q", name, first)
	}
	var out bytes.Buffer
	for _, l := range lines[:at] {
		out.WriteString(l)
	}
	row := lines[at]
	for i := range n {
		// Same width as the original, so that a text report's columns hold.
		ev := fmt.Sprintf("ev %-*d", len(first)-3, i)
		out.WriteString(strings.Replace(row, first, ev[:len(first)], 1))
	}
	for _, l := range lines[at+rows:] {
		out.WriteString(l)
	}
	return out.Bytes()
}

// A top events table of 20,000 rows (HTML and text): 25 are kept, in the
// report's order, a note gives the full count, the rest of the report reads
// as before, and the memory allocated stays near the file's size.
func TestAWRTopEventsCapped(t *testing.T) {
	const n = 20000
	for _, c := range []struct{ name, first string }{
		{"awrrpt_2_2201_2202_19c_rac.html", "db file sequential read"},
		{"awrrpt_1_412_413_12102.txt", "library cache: mutex X     "},
	} {
		t.Run(c.name, func(t *testing.T) {
			small := readAWR(t, c.name)
			b := longTopEvents(t, c.name, c.first, len(small.TopEvents)-1, n)
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			r, errs := ParseAWR(b)
			runtime.ReadMemStats(&ms1)
			if len(errs) > 0 {
				t.Fatalf("%v", errs)
			}
			if len(r.TopEvents) != AWRMaxTop {
				t.Errorf("%d top events kept, want %d", len(r.TopEvents), AWRMaxTop)
			}
			k := 0 // the generated rows, in the report's order: ev 0, ev 1, ...
			for _, e := range r.TopEvents {
				if strings.HasPrefix(e.Event, "ev ") {
					if f := strings.Fields(e.Event); len(f) < 2 || f[1] != fmt.Sprint(k) {
						t.Errorf("top event %q, want ev %d (the report's order)", e.Event, k)
					}
					k++
				}
			}
			want := fmt.Sprintf("%s rows, %d shown", thousands(n+1), AWRMaxTop)
			if !strings.Contains(strings.Join(r.Notes, "\n"), want) {
				t.Errorf("no note %q: %q", want, r.Notes)
			}
			if len(r.Parameters) != len(small.Parameters) || len(r.WaitClasses) != len(small.WaitClasses) {
				t.Errorf("the rest of the report read differently: %d/%d parameters, %d/%d wait classes",
					len(r.Parameters), len(small.Parameters), len(r.WaitClasses), len(small.WaitClasses))
			}
			// The rows kept (AWRMaxRows of them) cost a fixed amount; the
			// others nothing but their scan.
			if alloc := ms1.TotalAlloc - ms0.TotalAlloc; alloc > uint64(len(b))+64<<20 {
				t.Errorf("allocated %d bytes for a %d-byte report (bound: its size + 64 MiB)", alloc, len(b))
			}
		})
	}
}
