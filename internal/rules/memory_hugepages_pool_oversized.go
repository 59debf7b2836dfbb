package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// memory.hugepages-pool-oversized: the hugepage pool holds far more pages
// than the Oracle SGAs expect (alert log "Dump of system resources acquired
// for SHARED GLOBAL AREA": EXPECTED_PAGES), and the surplus is free: memory
// reserved that nothing else can use (000 Scenario 2: 1,536,000 pages, SGA
// 1,077,250 — "could mean the HugePage pool is oversized").
func init() {
	Register(Rule{
		ID:       "memory.hugepages-pool-oversized",
		Area:     AreaMemory,
		Severity: SevInfo,
		Title:    "Hugepage pool larger than the Oracle SGAs expect",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — Confirming Oracle’s use of HugePages",
				Quote: "This could mean the HugePage pool is oversized for this system, or that other applications and Oracle instances have not yet been started"},
			{Doc: Seed000, Section: "Scenario 2: HugePages — Confirming Oracle’s use of HugePages",
				Quote: "2048K      1536000             1077250         1077250          NONE"},
		},
		Scope: Scope{
			DBVersions: "Oracle 12c+ (the SGA resource dump in the alert log); 000: 12c",
			Note:       "every instance using the pool must be given (one alert log each): an instance not given looks like surplus",
		},
		Thresholds: []string{"a surplus of at least 10 % of the pool and at least 1 GiB counts as oversized"},
		Check:      checkHugepagesPoolOversized,
	})
}

const (
	oversizeShare = 0.10    // surplus at least this share of the pool
	oversizeMinKB = 1 << 20 // and at least 1 GiB
)

func checkHugepagesPoolOversized(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.AlertLogs) == 0 {
		return NotApplicable("no Oracle alert log given (--artifact alert_SID.log)")
	}
	// Expected pages per page size, summed over the instances (last startup each).
	var sizeKB, expected, dumpAvail int64
	var ev []string
	for _, i := range in.oraInstances() {
		if i.Start == nil || i.Start.SGA == nil {
			continue
		}
		for _, r := range i.Start.SGA.PageSizes {
			if r.PageSizeKB <= 4 || r.Expected == nil {
				continue
			}
			if sizeKB != 0 && r.PageSizeKB != sizeKB {
				continue
			}
			sizeKB = r.PageSizeKB
			expected += *r.Expected
			avail := "?"
			if r.Available != nil {
				avail = fmt.Sprint(*r.Available)
				if *r.Available > dumpAvail {
					dumpAvail = *r.Available
				}
			}
			ev = append(ev, fmt.Sprintf("%s:%d: %s SGA dump, %dK pages available %s, expected %d", i.Alert.File, i.Start.SGA.Line, i.SID, r.PageSizeKB, avail, *r.Expected))
		}
	}
	if sizeKB == 0 {
		return CannotCheck("the alert logs' last startups have no SGA dump with large-page EXPECTED_PAGES (12c+ \"Dump of system resources acquired for SHARED GLOBAL AREA\")")
	}
	// The pool: this host's, else what the dump saw as available.
	total, free, from := dumpAvail, int64(-1), "the alert log's AVAILABLE_PAGES (the pool's free pages at that startup)"
	for _, h := range in.Snap.Memory.Hugepages {
		if h.SizeKB == sizeKB && AbsentReason(in.Snap, "memory.hugepages") == "" {
			total, free = h.Total, h.Free-h.Reserved
			from = fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB: nr_hugepages %d, free %d, reserved %d", sizeKB, h.Total, h.Free, h.Reserved)
		}
	}
	surplus := total - expected
	if free >= 0 && free < surplus {
		surplus = free // pages in use by others are not surplus
	}
	ev = append(ev, from)
	if total <= 0 || surplus <= 0 || float64(surplus) < oversizeShare*float64(total) || surplus*sizeKB < oversizeMinKB {
		note := "no large surplus"
		if total < expected {
			note = "the pool is smaller than that (see memory.hugepages-too-few; the alert log may predate a pool change or come from another host)"
		}
		return Passed("pool %d pages of %s, SGAs expect %d: %s (%s)", total, KB(sizeKB), expected, note, strings.Join(ev, "; ")).Reading(strings.Join(ev, "; "))
	}
	target := total - surplus
	return Found(Finding{
		Setting:     "vm.nr_hugepages",
		Current:     fmt.Sprintf("%d pages of %s; the SGAs given expect %d: %d pages (%s) reserved and unused", total, KB(sizeKB), expected, surplus, KB(surplus*sizeKB)),
		Recommended: fmt.Sprintf("about %d pages (the SGAs' expected pages plus what other users of the pool need)", target),
		Evidence:    strings.Join(ev, "; "),
		Why: "000 (Scenario 2): a pool of 1,536,000 pages (3 TB) for an SGA using 1,077,250 \"could mean the HugePage pool is " +
			"oversized for this system, or that other applications and Oracle instances have not yet been started\"; hugepages " +
			"are reserved: memory no process outside the pool can use.",
		Fix:     SysctlFix("vm.nr_hugepages", fmt.Sprint(target)),
		Changes: []change.Change{in.SysctlChange("memory.hugepages-pool-oversized", "vm.nr_hugepages", fmt.Sprint(target), "Hugepage pool larger than the Oracle SGAs expect")},
		Risk: "Shrink only after confirming no other instance (not given here), no instance still to be started and no SGA growth " +
			"needs the pages: with use_large_pages=ONLY an instance that no longer fits does not start. Keep headroom for per-node placement.",
	})
}
