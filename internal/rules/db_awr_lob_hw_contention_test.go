package rules

import (
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
	wantIn(t, "fix", strings.Join(append(f.Fix.Runtime, f.Fix.Persistent...), " "), "(CACHE)", "44951", "SECUREFILE")
	// No host fact decides it: the same finding with a host.
	g := awrFires(t, id, host(), r)
	if g.Current != f.Current {
		t.Errorf("host changed the diagnosis: %q", g.Current)
	}
	awrOutcome(t, id, "passed", "not among the report's events", nil, awrTestReport(t, "awrrpt_1_412_413_12102.txt"))
	awrOutcome(t, id, "cannot", "no top events", nil, &artifacts.AWRReport{File: "empty.txt"})
}
