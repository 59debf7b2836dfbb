package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/lazyre"
)

// db.aix-olson-tz: the system TZ in Olson form ("Europe/Berlin") makes
// Oracle's time calls (sysdate) slow on AIX 6.1; 004's workaround is the
// POSIX form ("MET-1MST-2,M3.5.0/02:00,M10.5.0/03:00").
func init() {
	Register(Rule{
		ID:       "db.aix-olson-tz",
		Area:     AreaDB,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX TZ in Olson form slows Oracle's time calls (sysdate): use the POSIX form",
		Sources: []Source{
			{Doc: Seed004, Section: "Various Findings",
				Quote: "Slow access to time operations (such as sysdate) in Oracle when using Olson TZ on AIX 6.1"},
			{Doc: Seed004, Section: "Various Findings",
				Quote: "Workaround is to set TZ using POSIX values"},
			{Doc: Seed004, Section: "Various Findings",
				Quote: "POSIX: TZ=MET-1MST-2,M3.5.0/02:00,M10.5.0/03:00"},
		},
		Scope: Scope{
			Kernels:    "AIX 6.1 (004's finding: warning); AIX 7.x keeps Olson support, the finding is info there (004 measured 6.1)",
			DBVersions: "any Oracle release: every process reads TZ from its environment",
			Note:       "TZ as /etc/environment sets it (the bundle's meta tz:); the oracle user's profile and the clusterware's environment (srvctl setenv) may set their own",
		},
		Description: `AIX 6.1 added Olson time zone names (TZ=Europe/Berlin) beside the POSIX strings AIX always had.
004 found Oracle's time operations (sysdate) slow with an Olson TZ on AIX 6.1 and sets TZ in POSIX form
instead: the same zone and daylight rules, written out (TZ=MET-1MST-2,M3.5.0/02:00,M10.5.0/03:00 for
Europe/Berlin). Processes read TZ when they start: the instance and its listener must be restarted.`,
		Check: checkAIXOlsonTZ,
	})
}

var (
	// A POSIX TZ: a name of three letters or more (or <+08>) and an offset.
	rePosixTZ = lazyre.New(`^:?(<[^>]+>|[A-Za-z]{3,})[+-]?\d{1,2}(:\d{2}){0,2}`)
	// An Olson name: Area/Location, or a bare zone name (UTC, GMT).
	reOlsonTZ = lazyre.New(`^:?[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$`)
)

// aixPosixTZ are the POSIX forms of common Olson zones (their tzdata
// footers: the rules in force since 2007).
var aixPosixTZ = map[string]string{
	"Europe/Berlin": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Paris": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/Madrid": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Rome": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/Amsterdam": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Brussels": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/Vienna": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Zurich": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/Stockholm": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Oslo": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/Copenhagen": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Warsaw": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/Prague": "CET-1CEST,M3.5.0,M10.5.0/3", "Europe/Budapest": "CET-1CEST,M3.5.0,M10.5.0/3",
	"Europe/London": "GMT0BST,M3.5.0/1,M10.5.0", "Europe/Dublin": "IST-1GMT0,M10.5.0,M3.5.0/1",
	"Europe/Lisbon": "WET0WEST,M3.5.0/1,M10.5.0", "Europe/Helsinki": "EET-2EEST,M3.5.0/3,M10.5.0/4",
	"Europe/Athens": "EET-2EEST,M3.5.0/3,M10.5.0/4", "Europe/Bucharest": "EET-2EEST,M3.5.0/3,M10.5.0/4",
	"America/New_York": "EST5EDT,M3.2.0,M11.1.0", "America/Chicago": "CST6CDT,M3.2.0,M11.1.0",
	"America/Denver": "MST7MDT,M3.2.0,M11.1.0", "America/Phoenix": "MST7",
	"America/Los_Angeles": "PST8PDT,M3.2.0,M11.1.0", "America/Sao_Paulo": "<-03>3",
	"Asia/Tokyo": "JST-9", "Asia/Shanghai": "CST-8", "Asia/Kolkata": "IST-5:30", "Asia/Singapore": "<+08>-8",
	"Australia/Sydney": "AEST-10AEDT,M10.1.0,M4.1.0/3", "UTC": "UTC0", "Etc/UTC": "UTC0", "GMT": "GMT0",
}

func checkAIXOlsonTZ(in *Input) Outcome {
	s := in.Snap
	if s.AIX.TZ == nil {
		return CannotCheck("%s", aixWhy(s, "aix.tz", "meta tz: (the TZ line of /etc/environment)"))
	}
	tz := strings.TrimSpace(*s.AIX.TZ)
	if tz == "" {
		return Passed("/etc/environment sets no TZ (the system default, UTC)").Reading("/etc/environment: no TZ value")
	}
	if rePosixTZ().MatchString(tz) || !reOlsonTZ().MatchString(tz) {
		return Passed("TZ=%s is in POSIX form", tz).Reading("/etc/environment: TZ=" + tz)
	}
	level, levelWhy := aixLevel(s)
	sev := SevWarning
	lvl := "AIX level unknown (" + levelWhy + ")"
	if levelWhy == "" {
		lvl = level.String()
		switch {
		case !level.AtLeast(6, 1):
			return Passed("TZ=%s on %s: Olson names came with AIX 6.1", tz, lvl).Reading("/etc/environment: TZ="+tz, "oslevel -s: "+lvl)
		case level.Version == 6 && level.Release == 1:
		default:
			sev = SevInfo
		}
	} else {
		sev = SevInfo
	}
	name := strings.TrimPrefix(tz, ":")
	posix, known := aixPosixTZ[name]
	rec := "TZ in POSIX form for " + name
	set := "TZ=<the POSIX form of " + name + ">"
	if known {
		rec = "TZ=" + posix + " (" + name + " in POSIX form)"
		set = "TZ=" + posix
	}
	why := "004 found \"slow access to time operations (such as sysdate) in Oracle when using Olson TZ on AIX 6.1\"; its workaround is the " +
		"POSIX form of the same zone (Olson TZ=Europe/Berlin, POSIX TZ=MET-1MST-2,M3.5.0/02:00,M10.5.0/03:00)."
	if sev == SevInfo {
		why += " 004 reports it for AIX 6.1; on this level it is a precaution."
	}
	return Found(Finding{
		Severity:    sev,
		Setting:     "/etc/environment:TZ",
		Current:     "TZ=" + tz + " (Olson form)",
		Recommended: rec,
		Evidence:    fmt.Sprintf("/etc/environment: TZ=%s (bundle meta tz:); %s", tz, lvl),
		Why:         why,
		Fix: Fix{
			Runtime: []string{
				"chtz " + sh(strings.TrimPrefix(set, "TZ=")) + "   # rewrites TZ in /etc/environment (or edit it)",
				"the oracle user's profile, and with clusterware: srvctl setenv database -d <db> -t " + sh(set) + " (and the listener's)",
				"restart the instances and listeners (a process reads TZ when it starts)",
			},
			Persistent: []string{},
			Edits:      []FileEdit{{File: "/etc/environment", Edit: "set " + set + " (chtz above does it)"}},
		},
		Pending: PendingRestart,
		Risk: "The POSIX string must carry the zone's daylight-saving rules: a wrong one shifts sysdate and every timestamp the " +
			"database writes. Check with `TZ='...' date` against the Olson zone before the restart; a POSIX string does not follow " +
			"future tzdata changes of the zone's rules.",
	})
}
