package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
)

func TestAWRLOBHWContention(t *testing.T) {
	const id = "db.awr-lob-hw-contention"
	r := awrTestReport(t, "awrrpt_1_205_206_11203.txt") // 002: enq: HW - contention 32.2 %, NOCACHE BasicFile LOB writes
	f := awrFires(t, id, nil, r)
	wantIn(t, "current", f.Current, "enq: HW - contention 32.2 % of DB time with direct (NOCACHE) LOB writes")
	wantIn(t, "evidence", f.Evidence, "enq: HW - contention: 62717 waits, 918 s, avg 15 ms", "physical writes direct (lob) 125316 (83.8 per second)",
		"db file sequential read: 64995 waits", "the session holding the enqueue waits on such reads")
	wantIn(t, "fix", strings.Join(append(f.Fix.Runtime, f.Fix.Persistent...), " "), "(CACHE)", "44951", "SECUREFILE", "STORE AS (CACHE CHUNK 16384)")
	// 002's chunk advice with CACHE, and SecureFile with its caveats on 11.2.0.3.
	wantIn(t, "recommended", f.Recommended, "MODIFY LOB (col) (CACHE)", "with CACHE a larger chunk (16k or 32k",
		"not SecureFile on 11.2.0.3.0 without testing", "up to at least 11.2.0.4.2", "extreme buffer busy waits")
	if f.Severity != SevWarning {
		t.Errorf("severity %s", f.Severity)
	}
	// No host fact decides it: the same finding with a host.
	g := awrFires(t, id, host(), r)
	if g.Current != f.Current {
		t.Errorf("host changed the diagnosis: %q", g.Current)
	}
	awrOutcome(t, id, "passed", "not among the report's events", nil, awrTestReport(t, "awrrpt_1_412_413_12102.txt"))
	awrOutcome(t, id, "cannot", "no top events", nil, &artifacts.AWRReport{File: "empty.txt"})
}

// lobVariant is 002's NOCACHE report edited: the top events and the
// Instance Activity Stats lines replaced.
func lobVariant(t *testing.T, repl ...string) *artifacts.AWRReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "artifacts", "testdata", "awr", "awrrpt_1_205_206_11203.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i+1 < len(repl); i += 2 {
		if !strings.Contains(s, repl[i]) {
			t.Fatalf("no %q", repl[i])
		}
		s = strings.ReplaceAll(s, repl[i], repl[i+1])
	}
	r, errs := artifacts.ParseAWR([]byte(s))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r.File = "lob.txt"
	return r
}

// TestAWRLOBNeedsLOBEvidence: issue 27 item 4. 002's report after CACHE
// (its second Top 5 and statistics: log buffer space on top, enq: HW -
// contention 14.8 %, physical writes direct (lob) 0, lob writes 315,009)
// is not told to set CACHE; HW contention without LOB writes is not a LOB's;
// SecureFile follows 002's caveats by version.
func TestAWRLOBNeedsLOBEvidence(t *testing.T) {
	const id = "db.awr-lob-hw-contention"
	top5 := []string{
		"enq: HW - contention                 62,717         918     15   32.2 Configurat\n" +
			"direct path write                    93,156         277      3    9.7 User I/O\n" +
			"db file sequential read              64,995         199      3    7.0 User I/O\n" +
			"DB CPU                                               91           3.2\n",
		"log buffer space                      1,542         116     75   15.6 Configurat\n" +
			"enq: HW - contention                 58,609         110      2   14.8 Configurat\n" +
			"buffer busy waits                   125,436          99      1   13.3 Concurrenc\n" +
			"DB CPU                                               91          12.3\n"}
	fg := []string{"enq: HW - contention             62,717     1        918      15      0.7   32.2\n", ""}
	cached := lobVariant(t, append(append(top5, fg...),
		"lob writes                                  315,000          210.7           3.5",
		"lob writes                                  315,009        1,736.4           5.0",
		"physical writes direct (lob)                125,316           83.8           1.4",
		"physical writes direct (lob)                      0            0.0           0.0")...)
	f := awrFires(t, id, nil, cached)
	wantIn(t, "current", f.Current, "enq: HW - contention 14.8 % of DB time", "315009 LOB writes and no direct LOB writes: the LOBs are already cached")
	all := f.Recommended + " " + strings.Join(append(f.Fix.Runtime, f.Fix.Persistent...), " ")
	if strings.Contains(all, "MODIFY LOB") || strings.Contains(f.Current, "NOCACHE") || len(f.Fix.Runtime) != 0 {
		t.Errorf("CACHE asked again after CACHE: %q %+v", f.Recommended, f.Fix)
	}
	wantIn(t, "recommended", f.Recommended, "a larger chunk (16k or 32k", "hash-partition", "44951")

	// No LOB writes at all: HW contention on another segment, not this rule's.
	awrOutcome(t, id, "passed", "without LOB writes", nil, lobVariant(t,
		"lob writes                                  315,000          210.7           3.5",
		"lob writes                                        0            0.0           0.0",
		"physical writes direct (lob)                125,316           83.8           1.4",
		"physical writes direct (lob)                      0            0.0           0.0"))
	// No Instance Activity Stats: the LOB is not known; info, no CACHE.
	noStats := lobVariant(t, "Instance Activity Stats ", "Instance Activity Something ")
	f = awrFires(t, id, nil, noStats)
	if f.Severity != SevInfo || len(f.Fix.Runtime) != 0 || strings.Contains(f.Recommended, "CACHE)") {
		t.Errorf("no LOB evidence, yet: %s %q %+v", f.Severity, f.Recommended, f.Fix)
	}
	wantIn(t, "current", f.Current, "no LOB statistics")

	// SecureFile by version: 11.2.0.4 still the space caveat, 19c none.
	v4 := lobVariant(t, "11.2.0.3.0  NO", "11.2.0.4.0  NO")
	wantIn(t, "recommended", awrFires(t, id, nil, v4).Recommended, "SecureFile LOBs only after testing on 11.2.0.4.0", "up to at least 11.2.0.4.2")
	v19 := lobVariant(t, "11.2.0.3.0  NO", "19.0.0.0.0  NO")
	f = awrFires(t, id, nil, v19)
	wantIn(t, "recommended", f.Recommended, "SecureFile LOBs (Oracle's preferred fix")
	if strings.Contains(f.Recommended, "without testing") {
		t.Errorf("19c: %q", f.Recommended)
	}
	// A 16 kB block: the chunk is 32k.
	wantIn(t, "fix", strings.Join(awrFires(t, id, nil, lobVariant(t, "db_block_size                 8192", "db_block_size                 16384")).Fix.Persistent, " "), "CACHE CHUNK 32768")
}
