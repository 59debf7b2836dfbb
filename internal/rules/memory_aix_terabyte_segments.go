package rules

import (
	"fmt"
	"sort"
	"strings"
)

// memory.aix-terabyte-segments: 004's Terabyte Segment aliasing
// (esid_allocator): on by default on AIX 7.1, "vmo -p -o esid_allocator=1"
// on AIX 6.1 — except under Oracle 11.2.0.3, whose performance "progressively
// degrades over time" with Terabyte segments until AIX 7.1 TL1 SP5; earlier
// levels take 004's workaround, "vmo -r -o shm_1tb_unsh_enable=0" + reboot.
// Enabling the segments is never advised where that slowdown would follow.
func init() {
	Register(Rule{
		ID:       "memory.aix-terabyte-segments",
		Area:     AreaMemory,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX Terabyte Segment aliasing (esid_allocator) and Oracle 11.2.0.3's slowdown with it",
		Sources: []Source{
			{Doc: Seed004, Section: "Power7 specific tuning", Quote: "Use Terabyte Segment aliasing – Enabled by default on AIX 7.1"},
			{Doc: Seed004, Section: "Power7 specific tuning", Quote: "Improve CPU performance by reducing SLB miss (segment address resolution)"},
			{Doc: Seed004, Section: "Power7 specific tuning", Quote: "# vmo -p -o esid_allocator=1 (To enable it on AIX 6.1)"},
			{Doc: Seed004, Section: "Various Findings", Quote: "Database performance progressively degrades over time until the instance is restarted."},
			{Doc: Seed004, Section: "Various Findings", Quote: "Issue is exposed by a change in Rdbms 11.2.0.3"},
			{Doc: Seed004, Section: "Various Findings", Quote: "Triggered by large number of connections + Terabyte segments"},
			{Doc: Seed004, Section: "Various Findings", Quote: "Fixed in AIX 7.1 TL1 SP5"},
			{Doc: Seed004, Section: "Various Findings", Quote: "\"vmo -r -o shm_1tb_unsh_enable=0\" + reboot"},
		},
		Scope: Scope{
			Kernels:    "AIX 6.1 and later (vmo esid_allocator; shm_1tb_unsh_enable from vmo -a or vmo -F -a); 004's fix level: AIX 7.1 TL1 SP5 (7.2 and later include it)",
			DBVersions: "Oracle 11.2.0.3 for the slowdown (the version of the alert logs given)",
			Note:       "004 gives no AIX 6.1 fix level: 6.1 counts as an earlier version. Without an alert log the Oracle version is not known and the slowdown is not judged",
		},
		Description: `Terabyte Segment aliasing (vmo esid_allocator=1) maps shared memory in 1 TB segments, so that a
large SGA costs fewer segment lookaside buffer (SLB) misses. 004: on by default on AIX 7.1, enabled on
AIX 6.1 with "vmo -p -o esid_allocator=1". 004 also reports that with Oracle 11.2.0.3 a large number of
connections and Terabyte segments make the database slower and slower until the instance restarts,
fixed in AIX 7.1 TL1 SP5; on earlier levels the workaround is "vmo -r -o shm_1tb_unsh_enable=0" and a
reboot. The rule raises the slowdown when an alert log given says 11.2.0.3 on such a level, and
advises enabling the segments (info) only where no 11.2.0.3 instance is known to run.`,
		Check: checkAIXTerabyteSegments,
	})
}

// aixTBFixed reports whether a level has 004's fix (AIX 7.1 TL1 SP5; 7.2
// and later). An unknown TL or SP (-1) on 7.1 is not taken as fixed.
func aixTBFixed(l AIXLevel) bool {
	switch {
	case l.AtLeast(7, 2):
		return true
	case l.Version == 7 && l.Release == 1:
		return l.TL > 1 || l.TL == 1 && l.SP >= 5
	}
	return false
}

func checkAIXTerabyteSegments(in *Input) Outcome {
	s := in.Snap
	level, why := aixLevel(s)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if !level.AtLeast(6, 1) {
		return NotApplicable("%s: Terabyte Segment aliasing comes with AIX 6.1", level)
	}
	// Oracle 11.2.0.3 instances, from the alert logs given.
	var o11203, versions []string
	if in.Artifacts != nil {
		for _, a := range in.Artifacts.AlertLogs {
			st := a.Last()
			if st == nil || st.Version == "" {
				continue
			}
			versions = append(versions, fmt.Sprintf("%s: %s", a.File, st.Version))
			if st.Version == "11.2.0.3" || strings.HasPrefix(st.Version, "11.2.0.3.") {
				o11203 = append(o11203, fmt.Sprintf("%s: Oracle %s (last startup, line %d)", a.File, st.Version, st.Line))
			}
		}
	}
	sort.Strings(o11203)
	esid, esidWhy := aixTunable(s, "vmo", "esid_allocator")
	on, onHow := false, ""
	switch {
	case esidWhy == "":
		on, onHow = esid == 1, fmt.Sprintf("vmo -a: esid_allocator = %d", esid)
	case level.AtLeast(7, 1):
		on, onHow = true, "esid_allocator not read ("+esidWhy+"); on by default on AIX 7.1 and later (004)"
	default:
		return CannotCheck("%s", esidWhy)
	}
	unsh, unshHow := int64(-1), "shm_1tb_unsh_enable not listed by vmo -a or vmo -F -a"
	if v, ok := s.AIX.Tunables.VMO["shm_1tb_unsh_enable"]; ok && v.Number != nil {
		unsh, unshHow = *v.Number, fmt.Sprintf("vmo -a: shm_1tb_unsh_enable = %d", *v.Number)
	} else if v, ok := s.AIX.Tunables.VMORestricted["shm_1tb_unsh_enable"]; ok && v.Number != nil {
		unsh, unshHow = *v.Number, fmt.Sprintf("vmo -F -a: shm_1tb_unsh_enable = %d", *v.Number)
	}
	fixed := aixTBFixed(level)
	ev := fmt.Sprintf("oslevel -s: %s; %s; %s", level, onHow, unshHow)
	if len(o11203) > 0 && !fixed {
		if !on || unsh == 0 {
			return Passed("%s; %s: Terabyte segments are off for unshared memory (004's workaround for 11.2.0.3 before AIX 7.1 TL1 SP5)", ev, strings.Join(o11203, ", ")).
				Reading(append([]string{ev}, o11203...)...)
		}
		sev := SevWarning
		if esidWhy != "" {
			sev = SevInfo // "on" is AIX 7.1's default, not a value read
		}
		return Found(Finding{
			Severity:    sev,
			Setting:     "vmo:shm_1tb_unsh_enable",
			Current:     fmt.Sprintf("Terabyte segments on (%s) under Oracle 11.2.0.3 on %s", onHow, level),
			Recommended: "AIX 7.1 TL1 SP5 or later; until then shm_1tb_unsh_enable=0 (vmo -r, reboot)",
			Evidence:    ev + "; " + strings.Join(o11203, ", "),
			Why: "004, Various Findings: \"Database performance progressively degrades over time until the instance is restarted.\" — " +
				"\"exposed by a change in Rdbms 11.2.0.3\", \"Triggered by large number of connections + Terabyte segments\", " +
				"\"Fixed in AIX 7.1 TL1 SP5\"; for earlier versions the workaround disables Terabyte segments for unshared memory.",
			Fix: Fix{Runtime: []string{"vmo -r -o shm_1tb_unsh_enable=0   # 004's workaround: in effect after the reboot",
				"shutdown -Fr   # in a maintenance window, the database stopped"},
				Persistent: []string{"vmo -r writes /etc/tunables/nextboot; or update AIX to 7.1 TL1 SP5 or later (004: fixed there)"}},
			RebootRequired: true,
			Risk: "A reboot. Without Terabyte segments the SGA costs more SLB misses (004: the aliasing \"Improve CPU performance\"); " +
				"after the AIX update to 7.1 TL1 SP5 or later the workaround can be undone (vmo -r -d shm_1tb_unsh_enable).",
		})
	}
	if on {
		msg := ev + ": Terabyte Segment aliasing on"
		if len(o11203) > 0 {
			msg += "; Oracle 11.2.0.3 on " + level.String() + ", which has 004's fix (AIX 7.1 TL1 SP5)"
		}
		return Passed("%s", msg).Reading(append([]string{ev}, o11203...)...)
	}
	if len(o11203) > 0 {
		return Passed("%s; %s: Terabyte Segment aliasing stays off — 004's 11.2.0.3 slowdown with Terabyte segments is fixed only in AIX 7.1 TL1 SP5", ev, strings.Join(o11203, ", ")).
			Reading(append([]string{ev}, o11203...)...)
	}
	known := "no alert log given: the Oracle version is not known"
	if len(versions) > 0 {
		known = "Oracle versions of the alert logs given: " + strings.Join(versions, ", ")
	}
	return Found(Finding{
		Severity:    SevInfo,
		Setting:     "vmo:esid_allocator",
		Current:     fmt.Sprintf("esid_allocator %d on %s (Terabyte Segment aliasing off)", esid, level),
		Recommended: "esid_allocator 1",
		Evidence:    ev + "; " + known,
		Why: "004, Power7 specific tuning: Terabyte Segment aliasing, \"Enabled by default on AIX 7.1\", reduces SLB misses " +
			"(\"Improve CPU performance by reducing SLB miss\"); on AIX 6.1 \"vmo -p -o esid_allocator=1\" enables it.",
		Fix: Fix{Runtime: []string{"vmo -p -o esid_allocator=1   # now and in /etc/tunables/nextboot; segments attached from then on use it"},
			Persistent: []string{"vmo -p writes /etc/tunables/nextboot"}},
		Pending: PendingRestart,
		Risk: "Not with Oracle 11.2.0.3 before AIX 7.1 TL1 SP5: 004 found its performance degrading over time with Terabyte segments " +
			"(give the alert log with --artifact: the rule then says so). The SGA is attached at instance startup: restart it to use the aliasing.",
	})
}
