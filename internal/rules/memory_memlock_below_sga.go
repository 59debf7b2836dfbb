package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// memory.memlock-below-sga: the Oracle user's memlock limit is below the SGA,
// so the SGA cannot be locked in hugepages. Read from the alert log's SGA
// dump (the soft limit the instance actually saw, against what it expected)
// or from limits.conf / limits.d against the SGA size (alert log or init
// parameters).
func init() {
	Register(Rule{
		ID:       "memory.memlock-below-sga",
		Area:     AreaMemory,
		Severity: SevWarning,
		Title:    "memlock limit of the Oracle user below the SGA",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — HugePages configuration",
				Quote: "Configure the “memlock” setting in the /etc/security/limits.conf file"},
			{Doc: Seed000, Section: "Scenario 2: HugePages — Confirming Oracle’s use of HugePages",
				Quote: "Expected per process system memlock (soft) limit to lock"},
			{Doc: Seed000, Section: "Scenario 2: HugePages — Confirming Oracle’s use of HugePages",
				Quote: "EXPECTED_PAGES"},
		},
		Scope: Scope{
			DBVersions: "Oracle 11.2+ with hugepages (use_large_pages TRUE/ONLY); the SGA dump is 12c+",
			Note: "limits.conf(5): the user's own line wins over @group and * lines; the last of each in file order; memlock " +
				"is in kB; a session started by systemd or CRS gets its limits elsewhere (LimitMEMLOCK=, ohasd)",
		},
		Check: checkMemlockBelowSGA,
	})
}

func checkMemlockBelowSGA(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	var fs []Finding
	var fsSIDs []string
	var checked []string
	var wants []change.Change
	user := oraUser(in.Snap)
	cannotWhy := ""
	defKB := int64(2048)
	if def, ok := DefaultHugepages(in.Snap); ok && def.SizeKB > 0 {
		defKB = def.SizeKB
	}
	for _, i := range insts {
		// What the instance locks, to the kB: its hugepages (EXPECTED_PAGES ×
		// page size), the same number memory.hugepages-too-few sizes the
		// pool with. "Expected ... memlock: 2104G" is rounded down in the dump.
		h, hOK := i.hugeNeed(defKB)
		// 1. The alert log's own account of the limit it ran with.
		if i.Start != nil && i.Start.SGA != nil {
			d := i.Start.SGA
			if d.MemlockUnlimited {
				checked = append(checked, i.SID+": the instance saw memlock UNLIMITED")
				continue
			}
			if d.MemlockSoftBytes != nil && (d.ExpectedMemlockBytes != nil || hOK) {
				needKB, needEv := int64(0), ""
				if d.ExpectedMemlockBytes != nil {
					needKB, needEv = *d.ExpectedMemlockBytes/1024, "expected to lock the SGA: "+d.ExpectedMemlock
				}
				if hOK && h.kb() > needKB {
					needKB, needEv = h.kb(), needEv+"; "+h.ev+fmt.Sprintf(" = %d kB", h.kb())
				}
				if *d.MemlockSoftBytes/1024 >= needKB {
					checked = append(checked, fmt.Sprintf("%s: memlock %s ≥ %d kB needed", i.SID, d.MemlockSoft, needKB))
					continue
				}
				fsSIDs = append(fsSIDs, i.SID)
				fs = append(fs, memlockFinding(user, i.SID, fmt.Sprintf("%s (soft limit the instance saw at startup)", d.MemlockSoft), needKB,
					fmt.Sprintf("%s:%d: Per process system memlock (soft) limit = %s; %s", i.Alert.File, d.Line, d.MemlockSoft, strings.TrimPrefix(needEv, "; "))))
				continue
			}
		}
		// 2. limits.conf against the SGA size, in whole hugepages.
		sgaKB, sgaEv := oraSGAKB(i)
		if hOK && h.kb() > sgaKB {
			sgaKB, sgaEv = h.kb(), h.ev
		} else if sgaKB > 0 {
			sgaKB = ceilDiv(sgaKB, defKB) * defKB
		}
		if sgaKB <= 0 {
			checked = append(checked, i.SID+": SGA size unknown (no SGA dump, sga_max_size or sga_target)")
			continue
		}
		if ulp, _, set := i.Param("use_large_pages"); set && strings.EqualFold(oraUnquote(ulp), "FALSE") {
			checked = append(checked, i.SID+": use_large_pages = FALSE (the SGA is not locked)")
			continue
		}
		if why := AbsentReason(in.Snap, "config.limits"); why != "" && len(in.Snap.Config.Limits) == 0 {
			cannotWhy = why
			continue
		}
		limKB, unlimited, where := memlockLimit(in.Snap.Config.Limits, user)
		switch {
		case unlimited:
			checked = append(checked, fmt.Sprintf("%s: %s memlock unlimited (%s)", i.SID, user, where))
		case where != "" && limKB >= sgaKB:
			checked = append(checked, fmt.Sprintf("%s: %s memlock %d kB ≥ SGA %s (%s)", i.SID, user, limKB, KB(sgaKB), where))
			for _, typ := range []string{"soft", "hard"} {
				wants = append(wants, LimitChange("memory.memlock-below-sga", user, typ, "memlock", fmt.Sprint(sgaKB),
					limitValue(in.Snap.Config.Limits, user, typ), "the SGA cannot be locked in hugepages below this limit"))
			}
		case where == "":
			fsSIDs = append(fsSIDs, i.SID)
			fs = append(fs, memlockFinding(user, i.SID, "not set in limits.conf or limits.d (kernel default 64 kB; 8 MB since Linux 5.16)", sgaKB,
				fmt.Sprintf("no memlock line for %s, @group or * in /etc/security/limits.conf or limits.d; SGA %s", user, sgaEv)))
		default:
			fsSIDs = append(fsSIDs, i.SID)
			fs = append(fs, memlockFinding(user, i.SID, fmt.Sprintf("%d kB (%s)", limKB, KB(limKB)), sgaKB,
				fmt.Sprintf("%s: %s soft memlock %d kB; SGA %s", where, user, limKB, sgaEv)))
		}
	}
	if len(fs) > 0 {
		return Found(artMerge(fs, fsSIDs)...).Wanting(wants...)
	}
	if cannotWhy != "" {
		return CannotCheck("%s", cannotWhy)
	}
	return Passed("%s", strings.Join(checked, "; ")).Wanting(wants...).Reading(strings.Join(checked, "; ")) // none read: the engine's could not check
}

// limitValue is the value of the user's own TYPE memlock line (the last one,
// as pam_limits reads them; a "-" line sets both), "" when there is none.
func limitValue(lim []snapshot.LimitEntry, user, typ string) string {
	v := ""
	for _, e := range lim {
		if e.Item == "memlock" && e.Domain == user && (e.Type == typ || e.Type == "-") {
			v = e.Value
		}
	}
	return v
}

func memlockFinding(user, sid, current string, sgaKB int64, ev string) Finding {
	return Finding{
		Setting:     fmt.Sprintf("limits:%s memlock", user),
		Current:     fmt.Sprintf("%s for instance %s", current, sid),
		Recommended: fmt.Sprintf("≥ %d kB (%s, the SGA in whole hugepages), or unlimited", sgaKB, KB(sgaKB)),
		Evidence:    ev,
		Why: "000 (Scenario 2): the first step of putting the SGA in hugepages is the memlock setting in limits.conf; the " +
			"alert log's SGA dump prints the limit the instance ran with next to what it needed to lock the SGA. Below it the " +
			"SGA cannot be locked in hugepages (+13 % TPM in 000).",
		Fix: Fix{Runtime: []string{}, Persistent: []string{}, Edits: []FileEdit{{
			File: fmt.Sprintf("/etc/security/limits.d/99-%s-memlock.conf", user),
			Edit: fmt.Sprintf("add %s soft memlock %d and %s hard memlock %d (then log in again as %s and restart the instance; "+
				"CRS/systemd-started instances: raise their limit there too)", user, sgaKB, user, sgaKB, user),
		}}},
		Changes: []change.Change{
			LimitChange("memory.memlock-below-sga", user, "soft", "memlock", fmt.Sprint(sgaKB), current, "the SGA cannot be locked in hugepages below this limit"),
			LimitChange("memory.memlock-below-sga", user, "hard", "memlock", fmt.Sprint(sgaKB), "", "the soft limit cannot exceed the hard one"),
		},
		Risk: "Locked memory cannot be swapped or reclaimed: a limit far above the SGA lets any process of the user pin " +
			"memory (Oracle's preinstall package uses about 90 % of RAM).",
	}
}

// oraUser is the Oracle software owner: the user of the snapshot's Oracle
// processes, else "oracle".
func oraUser(s *snapshot.Snapshot) string {
	for _, p := range s.Processes {
		if engineDB(p.Engine) == DBOracle && p.User != "" && p.User != "root" {
			return p.User
		}
	}
	return "oracle"
}

// oraSGAKB is the SGA size in kB with its evidence: the LargePages block's
// total (11.2), else sga_max_size, else sga_target.
func oraSGAKB(i *oraInstance) (int64, string) {
	if i.Start != nil && i.Start.LargePages != nil && i.Start.LargePages.TotalSGAMB != nil {
		return *i.Start.LargePages.TotalSGAMB * 1024, fmt.Sprintf("%d MB (%s:%d: Total Shared Global Region size)", *i.Start.LargePages.TotalSGAMB, i.Alert.File, i.Start.LargePages.Line)
	}
	for _, name := range []string{"sga_max_size", "sga_target"} {
		if n, where, ok := i.Bytes(name); ok && n > 0 {
			return n / 1024, fmt.Sprintf("%s (%s: %s)", KB(n/1024), where, name)
		}
	}
	return 0, ""
}

// memlockLimit is the soft memlock limit pam_limits gives user: its own
// line wins over an @group line, which wins over "*"; within a class the last
// line read wins. unlimited for unlimited/infinity/-1; where is "" when no
// line applies.
func memlockLimit(lim []snapshot.LimitEntry, user string) (kb int64, unlimited bool, where string) {
	best := -1
	var pick snapshot.LimitEntry
	for _, e := range lim {
		if e.Item != "memlock" || (e.Type != "soft" && e.Type != "-") {
			continue
		}
		rank := -1
		switch {
		case e.Domain == user:
			rank = 3
		case strings.HasPrefix(e.Domain, "@"):
			rank = 2 // group membership is not in the snapshot: a DB host's group line is taken to apply
		case e.Domain == "*":
			rank = 1
		}
		if rank >= best && rank > 0 {
			best, pick = rank, e
		}
	}
	if best < 0 {
		return 0, false, ""
	}
	where = fmt.Sprintf("%s:%d (%s %s memlock %s)", pick.File, pick.Line, pick.Domain, pick.Type, pick.Value)
	switch strings.ToLower(pick.Value) {
	case "unlimited", "infinity", "-1":
		return 0, true, where
	}
	n, err := strconv.ParseInt(pick.Value, 10, 64)
	if err != nil {
		return 0, false, ""
	}
	return n, false, where
}
