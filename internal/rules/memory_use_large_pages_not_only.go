package rules

import (
	"fmt"
	"strings"
)

// memory.use-large-pages-not-only: on a host with a hugepage pool, an Oracle
// instance whose use_large_pages is not ONLY may start with its SGA (partly)
// in 4 KiB pages without failing: FALSE never uses the pool, TRUE/AUTO fall
// back silently when the pool is short.
func init() {
	Register(Rule{
		ID:       "memory.use-large-pages-not-only",
		Area:     AreaMemory,
		Severity: SevInfo,
		Title:    "Oracle use_large_pages is not ONLY on a host with hugepages",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — HugePages configuration",
				Quote: "Ensure the Oracle parameter “USE_LARGE_PAGES” is set to either “TRUE” or “ONLY”"},
			{Doc: Seed000, Section: "Scenario 2: HugePages — Confirming Oracle’s use of HugePages",
				Quote: "4K - Large pagesizes only"},
			{Doc: Seed001, Section: "binding (with processor_group_name) versus caging: Facts, Observations and Customer cases. — OBSERVATIONS",
				Quote: "not using large pages is not an option for me"},
		},
		Scope: Scope{
			DBVersions: "Oracle 11.2.0.2+ (use_large_pages; TRUE falls back per segment from 11.2.0.3); 000, 001: 12.1.0.2",
			Note: "warning for FALSE (the pool is never used); info for TRUE/AUTO/unset, a trade-off between a slower start and a refused one; " +
				"no finding for TRUE/AUTO/unset when the alert log's last startup shows the whole SGA in large pages (000: \"either TRUE or ONLY\")",
		},
		Pending: PendingRestart,
		Check:   checkUseLargePagesOnly,
	})
}

func checkUseLargePagesOnly(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	pool, why := artHugePool(in)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if pool.Total <= 0 {
		return NotApplicable("no hugepage pool on this host (nr_hugepages 0): see memory.hugepages-too-few")
	}
	poolEv := fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB: nr_hugepages %d, free %d", pool.SizeKB, pool.Total, pool.Free)
	var fs []Finding
	var fsSIDs []string
	var checked []string
	for _, i := range insts {
		v, where, set := i.Param("use_large_pages")
		val := strings.ToUpper(oraUnquote(v))
		if !set && !i.Complete() {
			checked = append(checked, i.SID+": use_large_pages unknown (the alert log has no parameter list)")
			continue
		}
		if val == "ONLY" {
			checked = append(checked, i.SID+": use_large_pages = ONLY")
			continue
		}
		ev := fmt.Sprintf("%s: use_large_pages = %s", where, v)
		cur := val
		if !set {
			cur, ev = "TRUE (default, not set)", "use_large_pages not set in "+i.Source()
		}
		if n, _, amm := i.Bytes("memory_target"); amm && n > 0 {
			checked = append(checked, i.SID+": AMM on (memory.oracle-amm-with-hugepages)")
			continue
		}
		// 000 accepts TRUE as well as ONLY ("either TRUE or ONLY"): when the
		// last startup put the whole SGA in large pages, TRUE did its job.
		if val != "FALSE" {
			if whole, ok := oraWholeSGAInLargePages(i); ok {
				checked = append(checked, fmt.Sprintf("%s: use_large_pages = %s and the whole SGA in large pages at the last startup (%s)", i.SID, cur, whole))
				continue
			}
		}
		f := Finding{
			Setting:     "oracle:use_large_pages",
			Current:     fmt.Sprintf("%s for instance %s", cur, i.SID),
			Recommended: "ONLY",
			Evidence:    ev + "; " + poolEv + oraLargePagesEvidence(i),
			Why: "000 (Scenario 2): the SGA in 2 MB hugepages gave +13 % TPM, 7 % less system time and page tables of 175 MB " +
				"instead of 5.5 GB. With TRUE (or AUTO) an instance whose pool is short starts anyway with the rest of its SGA " +
				"in 4 KiB pages, which nobody notices until performance drops; ONLY makes that a startup error.",
			Fix: Fix{Runtime: []string{}, Persistent: []string{
				fmt.Sprintf("ALTER SYSTEM SET use_large_pages='ONLY' SCOPE=SPFILE SID=%s; then restart %s", sqlStr(sidOrStar(i.SID)), i.SID),
			}},
			Risk: "The trade-off: with ONLY, an instance whose SGA does not fit in the free hugepages refuses to start " +
				"(ORA-27137) instead of starting slower; size the pool (memory.hugepages-too-few) before switching, and " +
				"keep it in step with every SGA change.",
		}
		if set && val == "FALSE" {
			f.Severity = SevWarning
			f.Why = "000 (Scenario 2): the instance never uses the hugepage pool that is reserved for it; the SGA in 2 MB " +
				"hugepages gave +13 % TPM, 7 % less system time and page tables of 175 MB instead of 5.5 GB."
		}
		fsSIDs = append(fsSIDs, i.SID)
		fs = append(fs, f)
	}
	if len(fs) > 0 {
		return Found(artMerge(fs, fsSIDs)...)
	}
	return Passed("%s", strings.Join(checked, "; ")).Reading(strings.Join(checked, "; ")) // none read: the engine's could not check
}

// oraWholeSGAInLargePages says whether the instance's last startup put its
// whole SGA in large pages, with the alert log lines that show it: the 12c+
// SGA dump with every large page size's EXPECTED_PAGES allocated and no 4K
// page allocated, or 11.2's "Total Shared Global Region in Large Pages" at 100 %.
func oraWholeSGAInLargePages(i *oraInstance) (string, bool) {
	if i.Start == nil {
		return "", false
	}
	if d := i.Start.SGA; d != nil {
		var ev []string
		for _, r := range d.PageSizes {
			if r.PageSizeKB <= 4 {
				if r.Allocated != nil && *r.Allocated > 0 {
					return "", false
				}
				continue
			}
			if r.Expected == nil || r.Allocated == nil || *r.Allocated < *r.Expected {
				return "", false
			}
			if *r.Expected > 0 {
				ev = append(ev, fmt.Sprintf("%dK pages expected %d, allocated %d", r.PageSizeKB, *r.Expected, *r.Allocated))
			}
		}
		if len(ev) > 0 {
			return fmt.Sprintf("%s:%d: SGA dump, %s", i.Alert.File, d.Line, strings.Join(ev, ", ")), true
		}
		return "", false
	}
	if lp := i.Start.LargePages; lp != nil && lp.TotalSGAPercent != nil && *lp.TotalSGAPercent >= 100 {
		return fmt.Sprintf("%s:%d: %d %% of the SGA in large pages", i.Alert.File, lp.Line, *lp.TotalSGAPercent), true
	}
	return "", false
}

// oraLargePagesEvidence adds what the instance's last startup said about large pages.
func oraLargePagesEvidence(i *oraInstance) string {
	if i.Start == nil {
		return ""
	}
	if d := i.Start.SGA; d != nil {
		for _, r := range d.PageSizes {
			if r.PageSizeKB > 4 && r.Expected != nil && r.Allocated != nil {
				return fmt.Sprintf("; %s:%d: SGA dump, %dK pages expected %d, allocated %d", i.Alert.File, d.Line, r.PageSizeKB, *r.Expected, *r.Allocated)
			}
		}
	}
	if lp := i.Start.LargePages; lp != nil && lp.TotalSGAPercent != nil {
		return fmt.Sprintf("; %s:%d: %d %% of the SGA in large pages", i.Alert.File, lp.Line, *lp.TotalSGAPercent)
	}
	return ""
}
