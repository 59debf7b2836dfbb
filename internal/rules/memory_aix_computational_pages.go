package rules

import (
	"fmt"
	"strings"
)

// memory.aix-computational-pages: the VMM must steal file cache pages, not
// computational ones (the SGA, the PGA, programs): minperm% low,
// maxperm%/maxclient% 90 and lru_file_repage 0 — AIX 6.1's defaults, which
// AIX 5.3 must be given (004: before 6.1 the defaults page out
// computational pages).
func init() {
	Register(Rule{
		ID:       "memory.aix-computational-pages",
		Area:     AreaMemory,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX VMM may page out computational memory (SGA) instead of file cache (minperm%, maxperm%, lru_file_repage)",
		Sources: []Source{
			{Doc: Seed004, Section: "Virtual Memory Management",
				Quote: "On older version of AIX (< AIX 6.1) with default settings, LRUD will page out some computational pages instead of removing only pages from the File System Cache."},
			{Doc: Seed004, Section: "Virtual Memory Management",
				Quote: "Tune the VMM to protect computational pages (Programs, SGA, PGA) from being paged out and force the LRUD to steal pages from FS-CACHE only."},
			{Doc: "https://techchannel.com/IT-Strategy/09/2010/paging-memory-i-o-delays", Section: "Paging, Memory and I/O Delays (AIX 5.3, 6.1 and 7 memory tunables and their defaults)"},
		},
		Scope: Scope{
			Kernels: "AIX 5.3: set them (vmo -p); AIX 6.1 and 7.x: the defaults (minperm% 3, maxperm% 90, maxclient% 90, lru_file_repage 0, restricted tunables) — " +
				"a value changed from them (often carried over by a migration from 5.3) is reported; lru_file_repage is gone from AIX 7.1. " +
				"The restricted values are read from vmo -F -a; without it the percentages come from vmstat -v and lru_file_repage on 6.1 is taken as its default",
		},
		Thresholds: []string{"minperm% above 5 counts as high (AIX 6.1 ships 3)"},
		Description: `When memory runs short, AIX's page stealer (LRUD) should take pages from the file cache, not the
SGA and PGA. 004: before AIX 6.1 the defaults page out computational pages; tune the VMM so that LRUD
steals from the file cache only. The settings that do it — minperm% 3, maxperm% 90, maxclient% 90,
lru_file_repage 0 — became the defaults in AIX 6.1 (restricted tunables there: change them only to
restore the defaults). A migration from 5.3 keeps old values in /etc/tunables/nextboot.`,
		Check: checkAIXComputationalPages,
	})
}

func checkAIXComputationalPages(in *Input) Outcome {
	s := in.Snap
	level, levelWhy := aixLevel(s)
	if levelWhy != "" {
		return CannotCheck("%s", levelWhy)
	}
	if s.AIX.Tunables.VMO == nil {
		return CannotCheck("%s", aixWhy(s, "aix.tunables.vmo", "vmo -a"))
	}
	legacy := !level.AtLeast(6, 1)
	type want struct {
		name, vmstat string // the vmo tunable, and vmstat -v's line for it
		ok           func(int64) bool
		rec          int64
	}
	wants := []want{
		{"minperm%", "minperm percentage", func(v int64) bool { return v <= 5 }, 3},
		{"maxperm%", "maxperm percentage", func(v int64) bool { return v >= 80 }, 90},
		{"maxclient%", "maxclient percentage", func(v int64) bool { return v >= 80 }, 90},
		{"lru_file_repage", "", func(v int64) bool { return v == 0 }, 0},
	}
	restricted := s.AIX.Tunables.VMORestricted
	var bad, good, cmds, persist, hidden []string
	for _, w := range wants {
		v, why := aixTunable(s, "vmo", w.name)
		if why != "" {
			// From AIX 6.1 these are restricted tunables, which vmo -a
			// does not list: vmo -F -a does.
			if r, ok := restricted[w.name]; ok && r.Number != nil {
				v, why = *r.Number, ""
			}
		}
		if why != "" && w.vmstat != "" && restricted == nil {
			// Without vmo -F -a, vmstat -v prints the percentages.
			if f, ok := s.AIX.VmstatV[w.vmstat]; ok {
				v, why = int64(f+0.5), ""
			}
		}
		if why != "" {
			switch {
			case w.name == "lru_file_repage" && !legacy && (restricted != nil || level.AtLeast(7, 1)):
				continue // gone from AIX 7.1 (vmo -F -a lists it on 6.1): the VMM behaves as with 0
			case w.name == "lru_file_repage" && !legacy:
				hidden = append(hidden, w.name+" (taken as its default 0)")
				continue
			case !legacy:
				hidden = append(hidden, w.name)
				continue
			}
			return CannotCheck("%s", why)
		}
		if w.ok(v) {
			good = append(good, fmt.Sprintf("%s %d", w.name, v))
			continue
		}
		bad = append(bad, fmt.Sprintf("%s %d (want %d)", w.name, v, w.rec))
		if legacy {
			cmds = append(cmds, fmt.Sprintf("vmo -p -o %s=%d", w.name, w.rec))
		} else {
			cmds = append(cmds, fmt.Sprintf("vmo -p -d %s   # back to the AIX default %d (a restricted tunable: vmo asks to confirm)", w.name, w.rec))
		}
		if legacy {
			persist = append(persist, fmt.Sprintf("vmo -p -o %s=%d   # -p also writes it to /etc/tunables/nextboot", w.name, w.rec))
		} else {
			persist = append(persist, fmt.Sprintf("vmo -p -d %s   # -p also removes the override from /etc/tunables/nextboot", w.name))
		}
	}
	if len(bad) == 0 {
		if len(good) == 0 {
			return CannotCheck("%s: restricted tunables, listed by vmo -a only with -F, and not in vmstat -v (%s)",
				strings.Join(hidden, ", "), aixWhy(s, "aix.vmstat_v", "vmstat -v"))
		}
		msg := strings.Join(good, ", ") + " on " + level.String()
		if len(hidden) > 0 {
			msg += "; " + strings.Join(hidden, ", ") + " not shown (restricted, listed by vmo -F -a: " +
				aixWhy(s, "aix.tunables.vmo_restricted", "vmo -F -a") + ")"
		}
		return Passed("%s", msg).Reading("vmo -a, vmstat -v, oslevel -s: " + msg)
	}
	why := "004: \"On older version of AIX (< AIX 6.1) with default settings, LRUD will page out some computational pages\"; " +
		"tune the VMM to protect computational pages (programs, SGA, PGA) and let LRUD steal from the file cache only. " +
		"minperm% low, maxperm%/maxclient% 90 and lru_file_repage 0 do that, and are AIX 6.1's defaults."
	if !legacy {
		why += " On " + level.String() + " they are restricted tunables: a value other than the default is usually left over from a 5.3 migration."
	}
	ev := "vmo -a / vmo -F -a: " + strings.Join(bad, ", ")
	if len(good) > 0 {
		ev += "; " + strings.Join(good, ", ")
	}
	if n, ok := s.AIX.VmstatV["numperm percentage"]; ok {
		ev += fmt.Sprintf("; vmstat -v: numperm percentage %s", num(n))
	}
	return Found(Finding{
		Setting:     "vmo:minperm%/maxperm%/maxclient%/lru_file_repage",
		Current:     strings.Join(bad, ", ") + " on " + level.String(),
		Recommended: "minperm% 3, maxperm% 90, maxclient% 90, lru_file_repage 0 (AIX 6.1's defaults)",
		Evidence:    ev,
		Why:         why,
		Fix:         Fix{Runtime: cmds, Persistent: persist},
		Pending:     PendingManual,
		Risk: "vmo -p changes the running VMM at once: the file cache may shrink quickly (backups and file copies read more from " +
			"disk). Restricted tunables on 6.1+ should only be returned to their defaults; check /etc/tunables/nextboot for other " +
			"5.3 leftovers (tuncheck, tunrestore -r -f nextboot).",
	})
}
