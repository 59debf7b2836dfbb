package rules

import (
	"fmt"
	"strconv"
	"strings"
)

// cpu.aix-smt-mode: 004 runs Oracle on POWER7 in SMT4; an LPAR on POWER7 or
// later with SMT off or at 2 threads gives the database fewer hardware
// threads to run its processes on.
func init() {
	Register(Rule{
		ID:       "cpu.aix-smt-mode",
		Area:     AreaCPU,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX SMT below 4 threads per core on POWER7 or later (004: use SMT4)",
		Sources: []Source{
			{Doc: Seed004, Section: "Power7 specific tuning", Quote: "Use SMT4"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "Give a cpu boost performance to handle more concurrent threads in parallel"},
			{Doc: Seed004, Section: "Various Findings", Quote: "Slow DLPAR and SMTCTL operations when DB Console is running"},
		},
		Scope: Scope{
			Kernels: "AIX 6.1 and later on POWER7 and later (the processor mode of prtconf: POWER 7, POWER 8, ...)",
			Note:    "004 measured POWER7 (SMT4 its maximum); POWER8 and later support SMT8: 4 or more threads is accepted, the finding is info there",
		},
		Description: `004: "Use SMT4" on POWER7 — four hardware threads per core give a busy database more threads to run
in parallel. An LPAR in SMT1 or SMT2 (smtctl -t, or a boot setting left from an older processor) gives
its processes fewer logical CPUs. smtctl -t 4 -w now changes it at once, -w boot from the next boot.`,
		Check: checkAIXSMTMode,
	})
}

// aixPowerGen is the POWER generation the LPAR runs in (its processor
// implementation mode, else the processor type): 7 for "POWER 7" or
// "PowerPC_POWER7"; 0 when unknown.
func aixPowerGen(impl, typ string) int {
	for _, s := range []string{impl, typ} {
		u := strings.ToUpper(s)
		if i := strings.LastIndex(u, "POWER"); i >= 0 {
			rest := strings.TrimSpace(u[i+5:])
			j := 0
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(rest[:j]); err == nil {
				return n
			}
		}
	}
	return 0
}

func checkAIXSMTMode(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	if a.Prtconf == nil {
		return CannotCheck("%s", aixWhy(s, "aix.prtconf", "prtconf"))
	}
	gen := aixPowerGen(a.Prtconf.ImplementationMode, a.Prtconf.ProcessorType)
	if gen == 0 {
		return CannotCheck("aix.prtconf: processor mode unknown (Processor Implementation Mode %q, Processor Type %q)",
			a.Prtconf.ImplementationMode, a.Prtconf.ProcessorType)
	}
	if gen < 7 {
		return NotApplicable("POWER%d: 004's SMT4 is POWER7's", gen)
	}
	threads, from := 0, ""
	if a.SMT != nil {
		if a.SMT.Enabled != nil && !*a.SMT.Enabled {
			threads, from = 1, "smtctl: SMT is currently disabled"
		} else {
			for _, p := range a.SMT.Procs {
				if p.Threads > threads {
					threads = p.Threads
				}
			}
			if threads > 0 {
				from = fmt.Sprintf("smtctl: %d SMT threads per processor", threads)
			}
		}
	}
	if threads == 0 && a.LPAR != nil && a.LPAR.SMT != nil {
		threads, from = *a.LPAR.SMT, fmt.Sprintf("lparstat -i: Type %s", a.LPAR.Type)
	}
	if threads == 0 {
		return CannotCheck("%s; %s", aixWhy(s, "aix.smt", "smtctl"), aixWhy(s, "aix.lpar", "lparstat -i"))
	}
	if threads >= 4 {
		return Passed("%s on POWER%d", from, gen).Reading(from)
	}
	maxT := 4
	if a.SMT != nil && a.SMT.MaxThreads != nil {
		maxT = *a.SMT.MaxThreads
		if maxT < 4 {
			return Passed("%s; this LPAR supports at most %d (smtctl)", from, maxT).Reading(from, fmt.Sprintf("smtctl: at most %d threads", maxT))
		}
	}
	sev := SevWarning
	note := ""
	if gen > 7 {
		sev = SevInfo
		note = fmt.Sprintf(" 004 measured POWER7; this is POWER%d, which supports up to SMT%d.", gen, maxT)
	}
	return Found(Finding{
		Severity:    sev,
		Setting:     "smtctl:threads",
		Current:     fmt.Sprintf("SMT%d on POWER%d", threads, gen),
		Recommended: "SMT4 (smtctl -t 4)",
		Evidence:    fmt.Sprintf("%s; prtconf: %s / %s", from, a.Prtconf.ProcessorType, a.Prtconf.ImplementationMode),
		Why:         "004: \"Use SMT4\" on POWER7: it gives \"a cpu boost performance to handle more concurrent threads in parallel\"." + note,
		Fix: Fix{
			Runtime:    []string{"smtctl -t 4 -w now   # at once"},
			Persistent: []string{"smtctl -t 4 -w boot; bosboot -a   # from the next boot"},
		},
		Pending: PendingManual,
		Risk: "The number of logical CPUs changes: Oracle's cpu_count (when not set) follows it at the next restart, and " +
			"instance caging or processor_group settings sized on logical CPUs change meaning. 004: SMT changes are slow while " +
			"DB Console runs (over 2 minutes per core against seconds): stop it first. Single-thread speed per logical CPU drops.",
	})
}
