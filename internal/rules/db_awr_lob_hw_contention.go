package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// db.awr-lob-hw-contention: "enq: HW - contention" high in the report, with
// "physical writes direct (lob)" showing NOCACHE BasicFile LOB writes: 002
// measured the cures (CACHE: 25 → 6 min; event 44951 at 3 chunks best;
// SecureFiles; hash partitioning). The session holding the HW enqueue waits
// on a single-block read, so the storage latency matters too. No host fact
// decides this one: it is the same with or without a host.
func init() {
	Register(Rule{
		ID:           "db.awr-lob-hw-contention",
		Area:         AreaDB,
		Severity:     SevWarning,
		Title:        "High-water-mark enqueue contention on LOB segments (enq: HW - contention)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it?",
				Quote: "properly setting LOB option cache vs nocache (default) and tuning I/O"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it?",
				Quote: "proper (hash) partitioning scheme on the affected table/LOB to split contention"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — HW contention root cause",
				Quote: "physical writes direct (lob)                125,316"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — Top 5 Timed Foreground Events",
				Quote: "changing to CACHE results in reducing the work from 7 jobs from almost 25mins to 6 mins"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — The mysterious event 44591",
				Quote: "set event 44951 to the maximum number of chunks that you would like to have reclaimed per attempt"},
		},
		Scope: Scope{
			DBVersions: "002: 11.2.0.3.8, BasicFile LOBs in ASSM tablespaces; SecureFiles from 11g (the preferred fix of bug 7319120)",
			Note:       "read from AWR/Statspack reports (--artifact, dbhost awr); the LOB's storage clause is not in the report",
		},
		Thresholds: []string{fmt.Sprintf("enq: HW - contention at %d %% of DB time or more", hwPct)},
		Check:      checkAWRLOBHW,
	})
}

const hwPct = 5

func checkAWRLOBHW(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return lobHWReport(in, r) })
}

func lobHWReport(in *Input, r *artifacts.AWRReport) Outcome {
	if len(r.TopEvents) == 0 {
		return CannotCheck("the report has no top events")
	}
	e, ok := r.Event("enq: HW - contention")
	if !ok {
		return Passed("enq: HW - contention not among the report's events").Reading(awrEventsRead(r))
	}
	pct, okPct := awrPct(r, e)
	if !okPct || pct < hwPct {
		return Passed("enq: HW - contention %s %% of DB time", awrNum(pct)).Reading(awrEventRead(r, e))
	}
	ev := []string{awrEv(r, e)}
	lob := false
	if s, ok := r.Stats["physical writes direct (lob)"]; ok && s.Total != nil {
		ev = append(ev, fmt.Sprintf("Instance Activity Stats: physical writes direct (lob) %s (%s per second)", awrNum(*s.Total), avgText(s.PerSecond != nil, deref(s.PerSecond))))
		lob = *s.Total > 0
	} else if !r.Has(artifacts.AWRSectionInstStats) {
		ev = append(ev, "the report has no Instance Activity Stats: physical writes direct (lob) unknown")
	}
	if rd, ok := r.Event("db file sequential read"); ok {
		ev = append(ev, awrEv(r, rd)+" — the session holding the enqueue waits on such reads (002)")
	}
	cur := fmt.Sprintf("enq: HW - contention %s %% of DB time", awrNum(pct))
	if lob {
		cur += " with direct (NOCACHE) LOB writes"
	}
	if given, _ := awrHost(in); given {
		if n := awrHostNote(in, r); n != "" {
			ev = append(ev, n)
		}
	}
	return Found(Finding{
		Setting:     "LOB storage (CACHE, SecureFile, partitioning, event 44951)",
		Current:     cur,
		Recommended: "ALTER TABLE ... MODIFY LOB (col) (CACHE); or SecureFile LOBs; or hash-partition the table; or event 44951 with a small chunk count (3 was best in 002)",
		Evidence:    strings.Join(ev, "; "),
		Why: "002: with BasicFile NOCACHE LOBs, 7 concurrent jobs spent 32 % of DB time on enq: HW - contention, each holder waiting " +
			"on a single-block read to reclaim LOB space; CACHE cut the run from almost 25 minutes to 6, and event 44951 at 3 chunks " +
			"per reclaim did best among the levels tried (larger values did more I/O per reclaim).",
		Fix: Fix{Runtime: []string{"ALTER TABLE <table> MODIFY LOB (<column>) (CACHE);"},
			Persistent: []string{"ALTER SYSTEM SET EVENT='44951 TRACE NAME CONTEXT FOREVER, LEVEL 3' SCOPE=SPFILE (ask Oracle Support first); or move the LOB to SecureFile (ALTER TABLE ... MOVE LOB ... STORE AS SECUREFILE)"},
		},
		Risk: "CACHE LOBs go through the buffer cache (it must hold them) and their redo moves the bottleneck to the redo devices " +
			"(002: log buffer space became the top event); event 44951 is set on Oracle Support's advice.",
	})
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
