package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// io.multipath-rr-min-io-rq: 000 runs its 3PAR LUNs with the round-robin
// path selector and rr_min_io_rq 1 (Table 8/13): "Most storage devices work
// well with a round-robin path selector and an rr_min_io_rq value of 1".
func init() {
	Register(Rule{
		ID:       "io.multipath-rr-min-io-rq",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "multipath round-robin switches paths less often than every request",
		Sources: []Source{
			{Doc: Seed000, Section: "Multipath configuration",
				Quote: "Most storage devices work well with a round-robin path selector and an rr_min_io_rq value of 1"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "rr_min_io_rq (/etc/multipath.conf)\t1"},
			{Doc: Seed003, Section: "I/O Tuning – Hardware",
				Quote: "Check for your storage vendors recommendations (upto 20% performance gains with correct settings)"},
		},
		Scope: Scope{
			Kernels: "request-based dm-multipath (2.6.31+, RHEL 6.2+) uses rr_min_io_rq; rr_min_io applies to bio-based multipath only",
			Distros: "all with multipath-tools",
			Note:    "the array vendor's multipath profile wins; service-time and queue-length selectors ignore the repeat count",
		},
		Pending: PendingRestart,
		Check:   checkRRMinIO,
	})
}

func checkRRMinIO(in *Input) Outcome {
	mc := in.Snap.Storage.MultipathConf
	hasMP := false
	for _, d := range in.Snap.Storage.Devices {
		if d.Multipath {
			hasMP = true
		}
	}
	if mc == nil {
		if r := AbsentReason(in.Snap, "storage.multipath_conf"); r != "" && (hasMP || !strings.Contains(r, "not present")) {
			return CannotCheck("%s", r)
		}
		if hasMP {
			return Passed("no /etc/multipath.conf: built-in defaults (rr_min_io_rq 1)").Reading("/etc/multipath.conf: absent (" + AbsentReason(in.Snap, "storage.multipath_conf") + "); a dm-multipath device in /sys/block")
		}
		return NotApplicable("no /etc/multipath.conf and no dm-multipath device")
	}
	sections := make([]string, 0, len(mc))
	for k := range mc {
		if k == "defaults" || strings.HasPrefix(k, "devices[") {
			sections = append(sections, k)
		}
	}
	sort.Strings(sections)
	// effective value of key for a section: overrides > section > defaults.
	eff := func(sec, key string) (string, string) {
		for _, s := range []string{"overrides", sec, "defaults"} {
			if v, ok := mc[s][key]; ok {
				return v, s
			}
		}
		return "", ""
	}
	var fs []Finding
	var ok []string
	for _, sec := range sections {
		sel, selFrom := eff(sec, "path_selector")
		if sel != "" && !strings.HasPrefix(strings.TrimSpace(sel), "round-robin") {
			ok = append(ok, fmt.Sprintf("%s: path_selector %q", sec, sel))
			continue
		}
		name := sec
		if sec != "defaults" {
			name = fmt.Sprintf("%s (vendor %q product %q)", sec, mc[sec]["vendor"], mc[sec]["product"])
		}
		rq, rqFrom := eff(sec, "rr_min_io_rq")
		old, oldFrom := eff(sec, "rr_min_io")
		ev := fmt.Sprintf("/etc/multipath.conf %s: path_selector %q", name, sel)
		if selFrom != "" && selFrom != sec {
			ev += " (from " + selFrom + ")"
		}
		switch {
		case rq != "":
			n, err := strconv.Atoi(strings.TrimSpace(rq))
			if err != nil || n <= 1 {
				ok = append(ok, fmt.Sprintf("%s: rr_min_io_rq %s", sec, rq))
				continue
			}
			ev += fmt.Sprintf(", rr_min_io_rq %d (from %s)", n, rqFrom)
			fs = append(fs, rrFinding(sec, rqFrom, fmt.Sprint(n), ev, mc))
		case old != "" && old != "1":
			ev += fmt.Sprintf(", rr_min_io %s (from %s) and no rr_min_io_rq", old, oldFrom)
			fs = append(fs, rrFinding(sec, sec, "unset (rr_min_io "+old+" is ignored by request-based multipath)", ev, mc))
		default:
			ok = append(ok, sec+": rr_min_io_rq default 1")
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%s", strings.Join(ok, "; ")).Reading("/etc/multipath.conf: " + strings.Join(ok, "; "))
}

// rrFinding reports section sec; from is the section the value came from
// (the one the fix edits).
func rrFinding(sec, from, cur, ev string, mc map[string]map[string]string) Finding {
	block := from + " { rr_min_io_rq 1 }"
	if strings.HasPrefix(from, "devices[") {
		block = fmt.Sprintf("devices { device { vendor %q product %q rr_min_io_rq 1 } }", mc[from]["vendor"], mc[from]["product"])
	}
	return Finding{
		Setting:     "/etc/multipath.conf " + sec + " rr_min_io_rq",
		Current:     cur,
		Recommended: "1 (or the array vendor's profile)",
		Evidence:    ev,
		Why: "000: \"Most storage devices work well with a round-robin path selector and an rr_min_io_rq value of 1\" - every request " +
			"goes to the next path, spreading I/O over all FC paths (16 per LUN in 000's test). 003: vendor-recommended multipath " +
			"settings are worth up to 20 %.",
		Fix: Fix{
			Runtime:    []string{},
			Persistent: []string{},
			Edits:      []FileEdit{{File: "/etc/multipath.conf", Edit: "set " + block, Then: "multipathd reconfigure"}},
		},
		Risk: "Reloading maps is online; some arrays (ALUA active/optimized groups) prefer service-time: follow the vendor.",
	}
}
