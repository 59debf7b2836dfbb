package artifacts

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bigAWR builds a report of about size bytes from a test report: the
// sections a long AWR report is long with (SQL ordered by ..., the complete
// SQL text, segment statistics) repeated before its init.ora parameters.
func bigAWR(t testing.TB, name string, size int) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", "awr", name))
	if err != nil {
		t.Fatal(err)
	}
	html := strings.HasSuffix(name, ".html")
	var filler bytes.Buffer
	for i := 0; filler.Len() < size; i++ {
		sqlText := strings.Repeat(fmt.Sprintf("select /* %d */ o.order_id, o.customer_id, l.amount from orders o join order_lines l on l.order_id = o.order_id where o.status = :b%d ", i, i), 8)
		if html {
			fmt.Fprintf(&filler, "<h3 class=\"awr\"><a class=\"awr\" name=\"%d\"></a>SQL ordered by Elapsed Time</h3>\n", 4000+i)
			filler.WriteString("<table border=\"0\" class=\"tdiff\" summary=\"This table displays top SQL by elapsed time\">\n<tr><th class=\"awrbg\" scope=\"col\">Elapsed Time (s)</th><th class=\"awrbg\" scope=\"col\">Executions</th><th class=\"awrbg\" scope=\"col\">SQL Id</th><th class=\"awrbg\" scope=\"col\">SQL Text</th></tr>\n")
			for k := 0; k < 20; k++ {
				fmt.Fprintf(&filler, "<tr><td align=\"right\" class='awrc'>%d.%d</td><td align=\"right\" class='awrc'>%d</td><td scope=\"row\" class='awrc'><a class=\"awr\" href=\"#%dx%d\">%dx%d</a></td><td class='awrc'>%s</td></tr>\n", k*37, k, k*1000+i, i, k, i, k, sqlText[:200])
			}
			filler.WriteString("</table>\n<p />\n")
			fmt.Fprintf(&filler, "<table border=\"0\" class=\"tdiff\" summary=\"This table displays the text of the SQL statements\"><tr><th class=\"awrbg\">SQL Id</th><th class=\"awrbg\">SQL Text</th></tr><tr><td class='awrc'>%dsql</td><td class='awrc'>%s</td></tr></table>\n", i, sqlText)
		} else {
			fmt.Fprintf(&filler, "SQL ordered by Elapsed Time          DB/Inst: X/x  Snaps: 1-2\n\n        Elapsed                  Elapsed Time\n        Time (s)    Executions  per Exec (s)  %%Total   %%CPU    %%IO    SQL Id\n---------------- -------------- ------------- ------ ------ ------ -------------\n")
			for k := 0; k < 20; k++ {
				fmt.Fprintf(&filler, "%16s %14d %13s %6s %6s %6s %13s\n", fmt.Sprintf("%d.%d", k*37, k), k*1000+i, "0.07", "43.8", "58.1", "0.9", fmt.Sprintf("%dx%d", i, k))
				fmt.Fprintf(&filler, "%s\n%s\n\n", sqlText[:78], sqlText[78:156])
			}
			filler.WriteString("          -------------------------------------------------------------\n\n")
		}
	}
	marker := "init.ora Parameters"
	i := bytes.LastIndex(b, []byte(marker))
	if i < 0 {
		t.Fatalf("%s has no %s", name, marker)
	}
	// Insert before the heading or paragraph that carries the title.
	j := bytes.LastIndex(b[:i], []byte("\n")) + 1
	out := append([]byte{}, b[:j]...)
	out = append(out, filler.Bytes()...)
	return append(out, b[j:]...)
}

// scanAnchor is the cheapest pass any reader of the file makes: find every
// '<' (HTML) or line end (text). ParseAWR's cost is printed against it.
func scanAnchor(b []byte, html bool) int {
	c := byte('\n')
	if html {
		c = '<'
	}
	n := 0
	for i := 0; i < len(b); {
		k := bytes.IndexByte(b[i:], c)
		if k < 0 {
			break
		}
		n++
		i += k + 1
	}
	return n
}

// TestAWRLargeReports parses 10 MB reports (HTML and text): the result is
// the same as for the small report, the time is printed as a ratio to a
// plain scan of the same bytes (never asserted: machines are noisy), and
// the memory allocated stays within a small multiple of the input.
func TestAWRLargeReports(t *testing.T) {
	for _, name := range []string{"awrrpt_2_2201_2202_19c_rac.html", "awrrpt_1_412_413_12102.txt"} {
		b := bigAWR(t, name, 10<<20)
		small := readAWR(t, name)
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		start := time.Now()
		r, errs := ParseAWR(b)
		parse := time.Since(start)
		runtime.ReadMemStats(&ms1)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", name, errs)
		}
		if len(r.TopEvents) != len(small.TopEvents) || len(r.Parameters) != len(small.Parameters) || len(r.Parameters) == 0 {
			t.Fatalf("%s: large report read differently: %d/%d events, %d/%d parameters", name, len(r.TopEvents),
				len(small.TopEvents), len(r.Parameters), len(small.Parameters))
		}
		start = time.Now()
		for k := 0; k < 5; k++ {
			scanAnchor(b, strings.HasSuffix(name, ".html"))
		}
		anchor := time.Since(start) / 5
		alloc := ms1.TotalAlloc - ms0.TotalAlloc
		t.Logf("%s: %.1f MB parsed in %v (%.0f MB/s), %.1fx a plain scan (%v); allocated %.1f MB (%.2fx the input)",
			name, float64(len(b))/(1<<20), parse.Round(time.Millisecond), float64(len(b))/(1<<20)/parse.Seconds(),
			float64(parse)/float64(max(anchor, 1)), anchor.Round(time.Microsecond), float64(alloc)/(1<<20), float64(alloc)/float64(len(b)))
		if alloc > uint64(5*len(b)/2) {
			t.Errorf("%s: allocated %d bytes for a %d-byte report (bound: 2.5x)", name, alloc, len(b))
		}
	}
}

func BenchmarkParseAWRHTML10MB(b *testing.B) {
	in := bigAWR(b, "awrrpt_2_2201_2202_19c_rac.html", 10<<20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		ParseAWR(in)
	}
}

func BenchmarkParseAWRText10MB(b *testing.B) {
	in := bigAWR(b, "awrrpt_1_412_413_12102.txt", 10<<20)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		ParseAWR(in)
	}
}
