package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// db.awr-lob-hw-contention: "enq: HW - contention" high in the report with
// evidence that LOB segments are written: "physical writes direct (lob)"
// (NOCACHE BasicFile LOB writes) or, once CACHE is set, "lob writes" with no
// direct LOB writes. 002 measured the cures (CACHE: 25 → 6 min; event 44951
// at 3 chunks best; hash partitioning; a 16k/32k chunk "very workload
// specific") and warns about SecureFiles by version (space waste up to at
// least 11.2.0.4.2, "extreme buffer busy waits" on 11.2.0.3.8). A report
// taken after CACHE is not told to set CACHE; HW contention without LOB
// writes is not this rule's (other segments extend too). No host fact
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
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it?",
				Quote: "altering LOB option chunksize (often increasing the default 8k to something like 16k/32k gives some minimal better results – but this is very workload specific)"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it?",
				Quote: "supprisgnly the same on at least <= 11.2.0.4.2 as of writing"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — HW contention root cause",
				Quote: "physical writes direct (lob)                125,316"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — Top 5 Timed Foreground Events",
				Quote: "changing to CACHE results in reducing the work from 7 jobs from almost 25mins to 6 mins"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — The mysterious event 44591",
				Quote: "set event 44951 to the maximum number of chunks that you would like to have reclaimed per attempt"},
			{Doc: Seed002, Section: "Part 3: Oracle SecureFile LOB is better than BasicFile, isn’t it?",
				Quote: "One can hit an extreme “buffer busy waits” on SecureFile which might require rebuilding the table with hidden parameter"},
		},
		Scope: Scope{
			DBVersions: "002: 11.2.0.3.8, BasicFile LOBs in ASSM tablespaces; SecureFiles from 11g (the preferred fix of bug 7319120), " +
				"with 002's caveats up to 11.2.0.4.2",
			Note: "read from AWR/Statspack reports (--artifact, dbhost awr); LOB writes from Instance Activity Stats; the LOB's storage clause is not in the report",
		},
		Thresholds: []string{fmt.Sprintf("enq: HW - contention at %d %% of DB time or more", hwPct)},
		Check:      checkAWRLOBHW,
	})
}

const hwPct = 5

func checkAWRLOBHW(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return lobHWReport(in, r) })
}

// awrStat is an Instance Activity statistic's total, with its evidence;
// ok is false when the report does not print it.
func awrStat(r *artifacts.AWRReport, name string) (float64, string, bool) {
	s, ok := r.Stats[name]
	if !ok || s.Total == nil {
		return 0, "", false
	}
	return *s.Total, fmt.Sprintf("Instance Activity Stats: %s %s (%s per second)", name, awrNum(*s.Total), avgText(s.PerSecond != nil, deref(s.PerSecond))), true
}

// oraRelease is a release's numbers ("11.2.0.3.0" → 11 2 0 3 0); nil when
// it does not start with a number.
func oraRelease(v string) []int {
	var out []int
	for _, f := range strings.Split(strings.TrimSpace(v), ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// releaseBefore says whether release a is below b (missing parts are 0).
func releaseBefore(a, b []int) bool {
	for i := 0; i < len(a) || i < len(b); i++ {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x < y
		}
	}
	return false
}

// secureFileAdvice is what 002 says of moving to SecureFile for this
// report's release.
func secureFileAdvice(version string) string {
	v := oraRelease(version)
	const both = "002 found SecureFiles wasting space up to at least 11.2.0.4.2 (badly on 11.2.0.2.x) and hit " +
		"\"extreme buffer busy waits\" on them on 11.2.0.3.8 (said fixed in 11.2.0.4.x)"
	switch {
	case len(v) < 2:
		return "SecureFile LOBs (Oracle's preferred fix, bug 7319120) only after testing: " + both + "; the report does not say its release"
	case v[0] < 11:
		return "" // no SecureFiles before 11g
	case releaseBefore(v, []int{11, 2, 0, 4}):
		return fmt.Sprintf("not SecureFile on %s without testing: %s", version, both)
	case releaseBefore(v, []int{11, 2, 0, 5}):
		return fmt.Sprintf("SecureFile LOBs only after testing on %s: 002 found them still wasting space up to at least 11.2.0.4.2 "+
			"(the report's release does not print the patch level)", version)
	}
	return fmt.Sprintf("SecureFile LOBs (Oracle's preferred fix, bug 7319120; 002's space and buffer busy caveats were on 11.2.0.x up to 11.2.0.4.2, this is %s)", version)
}

// lobChunk is 002's chunk advice for the report's block size: 16k or 32k,
// a multiple of the block size ("" when the block is 32 kB already).
func lobChunk(r *artifacts.AWRReport) (string, string) {
	bs := int64(8192)
	if v, _, ok := awrParam(r, "db_block_size"); ok {
		if n, err := strconv.ParseInt(oraUnquote(v), 10, 64); err == nil && n > 0 {
			bs = n
		}
	}
	if bs >= 32768 {
		return "", ""
	}
	c := int64(16384)
	if c <= bs {
		c = 32768
	}
	return fmt.Sprintf("CHUNK %d", c), fmt.Sprintf("a larger chunk (16k or 32k instead of the default of one %d-byte block: 002 saw \"some minimal better results\", \"very workload specific\")", bs)
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
	direct, directEv, haveDirect := awrStat(r, "physical writes direct (lob)")
	writes, writesEv, haveWrites := awrStat(r, "lob writes")
	for _, x := range []string{directEv, writesEv} {
		if x != "" {
			ev = append(ev, x)
		}
	}
	if !r.Has(artifacts.AWRSectionInstStats) {
		ev = append(ev, "the report has no Instance Activity Stats: physical writes direct (lob) and lob writes unknown")
	}
	if haveDirect && direct == 0 && haveWrites && writes == 0 {
		return Passed("enq: HW - contention %s %% of DB time without LOB writes (physical writes direct (lob) 0, lob writes 0): not LOB space", awrNum(pct)).Reading(ev...)
	}
	if rd, ok := r.Event("db file sequential read"); ok {
		ev = append(ev, awrEv(r, rd)+" — the session holding the enqueue waits on such reads (002)")
	}
	if given, _ := awrHost(in); given {
		if n := awrHostNote(in, r); n != "" {
			ev = append(ev, n)
		}
	}
	cur := fmt.Sprintf("enq: HW - contention %s %% of DB time", awrNum(pct))
	chunkClause, chunkText := lobChunk(r)
	sf := secureFileAdvice(r.Version)
	if _, pe, ok := awrParam(r, "db_block_size"); ok {
		ev = append(ev, pe)
	}
	if r.Version != "" {
		ev = append(ev, "release "+r.Version)
	}
	var rec []string
	fix := Fix{Runtime: []string{}, Persistent: []string{}}
	f := Finding{Setting: "LOB storage (CACHE, chunk, partitioning, event 44951, SecureFile)"}
	event := "ALTER SYSTEM SET EVENT='44951 TRACE NAME CONTEXT FOREVER, LEVEL 3' SCOPE=SPFILE (ask Oracle Support first)"
	switch {
	case haveDirect && direct > 0:
		// 002's NOCACHE BasicFile LOB: CACHE first, with a larger chunk.
		cur += " with direct (NOCACHE) LOB writes"
		rec = append(rec, "ALTER TABLE ... MODIFY LOB (col) (CACHE)")
		fix.Runtime = append(fix.Runtime, "ALTER TABLE <table> MODIFY LOB (<column>) (CACHE);")
		if chunkClause != "" {
			rec = append(rec, "with CACHE "+chunkText)
			fix.Persistent = append(fix.Persistent, fmt.Sprintf("ALTER TABLE <table> MOVE LOB (<column>) STORE AS (CACHE %s); (the chunk changes only with a move; rebuild the table's indexes after it)", chunkClause))
		}
		f.Why = "002: with BasicFile NOCACHE LOBs, 7 concurrent jobs spent 32 % of DB time on enq: HW - contention, each holder waiting " +
			"on a single-block read to reclaim LOB space; CACHE cut the run from almost 25 minutes to 6, and event 44951 at 3 chunks " +
			"per reclaim did best among the levels tried (larger values did more I/O per reclaim)."
		f.Risk = "CACHE LOBs go through the buffer cache (it must hold them) and their redo moves the bottleneck to the redo devices " +
			"(002: log buffer space became the top event); event 44951 is set on Oracle Support's advice."
	case haveDirect && haveWrites && writes > 0:
		// The LOB writes go through the buffer cache: CACHE is set (002's
		// second report), what is left is the space management itself.
		cur += fmt.Sprintf(" with %s LOB writes and no direct LOB writes: the LOBs are already cached (CACHE)", awrNum(writes))
		f.Why = "002: after CACHE the HW waits fell (14.8 % of DB time, 2 ms each, no longer behind single-block reads) and the " +
			"bottleneck moved to the redo (log buffer space, see io.awr-write-waits); what is left for the HW enqueue is how LOB space is " +
			"reclaimed and shared: event 44951 (3 chunks did best), hash partitioning, the chunk size."
		f.Risk = "Partitioning and a chunk change rebuild the table; event 44951 is set on Oracle Support's advice."
		if chunkClause != "" {
			rec = append(rec, chunkText)
			fix.Persistent = append(fix.Persistent, fmt.Sprintf("ALTER TABLE <table> MOVE LOB (<column>) STORE AS (CACHE %s); (the chunk changes only with a move; rebuild the table's indexes after it)", chunkClause))
		}
	default:
		// No proof either way: whether LOB segments (or NOCACHE ones) are
		// involved is not in the report.
		f.Severity = SevInfo
		switch {
		case haveWrites && writes > 0:
			cur += fmt.Sprintf(" with %s LOB writes; the report does not print physical writes direct (lob), so whether the LOBs are NOCACHE is unknown", awrNum(writes))
		case haveDirect:
			cur += ": no direct LOB writes and no lob writes statistic in the report, so whether the contended segment is a LOB's is unknown"
		default:
			cur += ": the report shows no LOB statistics, so whether the contended segment is a LOB's is unknown"
		}
		rec = append(rec, "find the contended segment first (v$wait_chains / ASH: p2 tablespace, p3 block of enq: HW - contention) and, for a LOB, its CACHE and CHUNK (DBA_LOBS)")
		fix.Persistent = append(fix.Persistent, "SELECT owner, table_name, column_name, cache, chunk, securefile FROM dba_lobs WHERE owner NOT IN ('SYS','SYSTEM');")
		f.Why = "002 traced enq: HW - contention on BasicFile LOBs to NOCACHE LOB writes (physical writes direct (lob)); HW contention " +
			"also comes from other segments that extend often, which 002's cures do not address."
		f.Risk = "None in reading; the fixes depend on the segment."
	}
	if f.Severity != SevInfo {
		rec = append(rec, "hash-partition the table", "or event 44951 with a small chunk count (3 was best in 002)")
		fix.Persistent = append(fix.Persistent, event)
		if sf != "" {
			rec = append(rec, sf)
			fix.Persistent = append(fix.Persistent, "after testing: ALTER TABLE <table> MOVE LOB (<column>) STORE AS SECUREFILE (CACHE)")
		}
	}
	f.Current = cur
	f.Recommended = strings.Join(rec, "; ")
	f.Evidence = strings.Join(ev, "; ")
	f.Fix = fix
	return Found(f)
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
