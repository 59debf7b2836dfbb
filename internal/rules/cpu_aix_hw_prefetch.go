package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// cpu.aix-hw-prefetch: on a big SMP POWER system (larger than a Power 750)
// 004 disables the hardware memory prefetch for database workloads
// (dscrctl -n -b -s 1). dscrctl -q (aix.dscr) says whether it is off; a
// bundle without it gets the finding with the reason.
func init() {
	Register(Rule{
		ID:       "cpu.aix-hw-prefetch",
		Area:     AreaCPU,
		Severity: SevInfo,
		OS:       aixRule,
		DBs:      []string{DBOracle, DBPostgres, DBMySQL},
		Title:    "Big SMP POWER system: hardware prefetch (DSCR) off usually helps the database (dscrctl)",
		Sources: []Source{
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "Usually improve performance on Database Workload on big SMP Power system (> P750)"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "dscrctl -n -b -s 1 (this will dynamically disable HW memory prefetch and keep this configuration across reboot)"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "dscrctl -n -b -s 0 (to reset HW prefetching to default value)"},
		},
		Scope: Scope{
			Kernels: "AIX 6.1 TL6 and later on POWER7 and later (dscrctl)",
			Note: "a system larger than a Power 750: more than 32 active cores in the frame (lparstat -i), or a Power 770/780/795 or " +
				"later high-end model (prtconf). The prefetch depth in force is dscrctl -q's os_default_pd (or platform_default_pd when " +
				"the OS's is 0); off is DPFD_NONE (1). Without dscrctl on the host (before AIX 6.1 TL6 or POWER7) it is not applicable",
		},
		Thresholds: []string{"more than 32 active physical cores in the system (a Power 750's maximum) is a big SMP"},
		Description: `004: disabling the hardware memory prefetch "usually improve[s] performance on Database Workload on big
SMP Power system (> P750)": dscrctl -n -b -s 1 changes the system's default Data Stream Control Register
at once and for the next boots; dscrctl -n -b -s 0 restores the default. dscrctl -q shows the value in
force. "Usually": measure the workload before and after (AWR, or a benchmark).`,
		Check: checkAIXHWPrefetch,
	})
}

// aixBigModels are high-end POWER7/POWER8 machine types (Power 770, 780,
// 795, E870, E880): larger than a Power 750.
var aixBigModels = []string{"9117-MM", "9179-MH", "9119-FH", "9119-MH"}

func checkAIXHWPrefetch(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	cores, model := 0, ""
	if a.LPAR != nil && a.LPAR.PhysicalCPUsInSystem != nil {
		cores = *a.LPAR.PhysicalCPUsInSystem
	}
	if a.Prtconf != nil {
		model = a.Prtconf.SystemModel
	}
	bigModel := false
	for _, m := range aixBigModels {
		bigModel = bigModel || strings.Contains(model, m)
	}
	if cores == 0 && model == "" {
		return CannotCheck("%s; %s", aixWhy(s, "aix.lpar", "lparstat -i"), aixWhy(s, "aix.prtconf", "prtconf"))
	}
	what := []string{}
	if cores > 0 {
		what = append(what, fmt.Sprintf("lparstat -i: %d active physical CPUs in system", cores))
	}
	if model != "" {
		what = append(what, "prtconf: System Model "+model)
	}
	if cores <= 32 && !bigModel {
		return NotApplicable("not a big SMP system (%s): 004 advises it above a Power 750", strings.Join(what, "; "))
	}
	current := ""
	if d := a.DSCR; d != nil && d.PrefetchOff != nil {
		dscr := aixDSCRText(d)
		if *d.PrefetchOff {
			return Passed("hardware prefetch off (%s) on a big SMP system (%s)", dscr, strings.Join(what, "; ")).Reading(strings.Join(what, "; "), "dscrctl -q: "+dscr)
		}
		current = fmt.Sprintf("hardware prefetch on, depth %d (%s)", *d.PrefetchDepth, dscr)
		what = append(what, "dscrctl -q: "+dscr)
	} else {
		why := aixWhy(s, "aix.dscr", "dscrctl -q")
		if a.DSCR != nil {
			why = "aix.dscr: dscrctl -q prints no os_default_pd"
		}
		if strings.Contains(why, ": not present on this host: ") {
			return NotApplicable("%s: dscrctl exists from AIX 6.1 TL6 on POWER7 and later (%s)", why, strings.Join(what, "; "))
		}
		current = "hardware prefetch at the value in force, not known (" + why + "); AIX's default prefetches"
	}
	return Found(Finding{
		Setting:     "dscrctl:default DSCR",
		Current:     current,
		Recommended: "hardware prefetch off for the database (dscrctl -n -b -s 1), kept if a measurement confirms it",
		Evidence:    strings.Join(what, "; "),
		Why: "004: disabling hardware prefetch \"usually improve[s] performance on Database Workload on big SMP Power system " +
			"(> P750)\"; this system is one.",
		Fix: Fix{
			Runtime:    []string{"dscrctl -q   # the DSCR in force", "dscrctl -n -b -s 1   # prefetch off, now and across reboots"},
			Persistent: []string{"dscrctl -b keeps it across reboots (dscrctl -n -b -s 0 restores the default)"},
		},
		Pending: PendingManual,
		Risk: "\"Usually\": sequential scans (DSS, backups) may lose from it; compare AWR reports or a benchmark before and " +
			"after, and go back with dscrctl -n -b -s 0. It applies to every process of the LPAR.",
	})
}

// aixDSCRText is dscrctl -q's defaults as it prints them.
func aixDSCRText(d *snapshot.AIXDSCR) string {
	var out []string
	for _, v := range []struct {
		name string
		pd   *int64
		sym  string
	}{{"os_default_pd", d.OSDefaultPD, d.OSDefaultPDName}, {"platform_default_pd", d.PlatformDefaultPD, d.PlatformDefaultPDName}} {
		if v.pd == nil {
			continue
		}
		t := fmt.Sprintf("%s 0x%x", v.name, *v.pd)
		if v.sym != "" {
			t += " (" + v.sym + ")"
		}
		out = append(out, t)
	}
	return strings.Join(out, ", ")
}
