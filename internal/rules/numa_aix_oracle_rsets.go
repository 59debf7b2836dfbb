package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.aix-oracle-rsets: on an AIX LPAR with several SRADs (NUMA domains)
// Oracle's NUMA support (_enable_NUMA_support, off by default on AIX in
// 11g) uses one rset per SRAD named ${ORACLE_SID}/0, /1, ...; 004
// prepares them with mkrset and measured +12 % to +44 % in one test.
func init() {
	Register(Rule{
		ID:       "numa.aix-oracle-rsets",
		Area:     AreaNUMA,
		Severity: SevInfo,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "Oracle NUMA support on a multi-SRAD AIX LPAR: rsets per SRAD and _enable_NUMA_support",
		Sources: []Source{
			{Doc: Seed004, Section: "Oracle NUMA feature", Quote: "_enable_NUMA_support=true is required to enable NUMA features."},
			{Doc: Seed004, Section: "Oracle NUMA feature",
				Quote: "When NUMA enabled Oracle checks for AIX rset named \"${ORACLE_SID}/0\" at startup."},
			{Doc: Seed004, Section: "Preparing a system for Oracle NUMA Optimization",
				Quote: "If the Issrad output shows unevenly distributed domains, fix the problem before proceeding."},
			{Doc: Seed004, Section: "Preparing a system for Oracle NUMA Optimization", Quote: "mkrset -c 0-31 -m 0 SA/0"},
			{Doc: Seed004, Section: "Affinitizing User Connections",
				Quote: "For network connections, multiple listeners can be arranged with each listener affinitized to a different domain."},
			{Doc: Seed004, Section: "Relative Performance",
				Quote: "the relative performance shown applies only to this individual test, and can vary widely with different workloads."},
		},
		Scope: Scope{
			Kernels:    "AIX 6.1 and later on POWER7 and later (lssrad, mkrset)",
			DBVersions: "Oracle 11g on AIX (NUMA support ported, off by default)",
			Note:       "004: In-Memory Parallel Execution was up to 5x faster with NUMA support off in some benchmarks: measure",
		},
		Thresholds: []string{"SRADs are uneven when the largest holds more than 1.5 times the memory or CPUs of the smallest"},
		Description: `On a dedicated LPAR whose CPUs and memory span several SRADs (lssrad -av), Oracle 11g on AIX can
place its SGA and processes per domain: _enable_NUMA_support=true, and one rset per SRAD named
${ORACLE_SID}/0, ${ORACLE_SID}/1, ... (mkrset -c CPUS -m SRAD SID/N: each rset the CPUs and the memory of its
own SRAD; 004's slide repeats "-m 0" for SA/1 to SA/3, which would tie every domain's rset to SRAD 0's
memory), the oracle user with CAP_NUMA_ATTACH, and one listener per rset started inside it (execrset), so
that the shadow processes, the listeners' children, inherit the domain.
004 measured 112 % (round-robin connections) and 144 % (connections partitioned per domain, one listener
per rset) of the default in one in-memory test, and warns the gain "can vary widely"; lssrad must show
even domains first.`,
		Check: checkAIXOracleRsets,
	})
}

func checkAIXOracleRsets(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	if a.SRADs == nil {
		return CannotCheck("%s", aixWhy(s, "aix.srads", "lssrad -av"))
	}
	var srads []snapshot.AIXSRAD
	for _, sr := range a.SRADs {
		if len(sr.CPUs) > 0 {
			srads = append(srads, sr)
		}
	}
	if len(srads) < 2 {
		return NotApplicable("%d SRAD(s) with CPUs (lssrad -av): no NUMA placement to make", len(srads))
	}
	running, sids, why := aixOracleRunning(s)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if !running {
		return NotApplicable("no Oracle process in ps -ef")
	}
	var layout []string
	minC, maxC, minM, maxM := 1<<30, 0, 1e18, 0.0
	for _, sr := range srads {
		m := 0.0
		if sr.MemMB != nil {
			m = *sr.MemMB
		}
		layout = append(layout, fmt.Sprintf("SRAD %d: %d CPUs, %s MB", sr.SRAD, len(sr.CPUs), num2(m)))
		minC, maxC = min(minC, len(sr.CPUs)), max(maxC, len(sr.CPUs))
		minM, maxM = min(minM, m), max(maxM, m)
	}
	ev := "lssrad -av: " + strings.Join(layout, "; ")
	if float64(maxC) > 1.5*float64(minC) || maxM > 1.5*minM {
		return Found(Finding{
			Setting:     "lssrad:SRAD balance",
			Current:     fmt.Sprintf("uneven SRADs: %d to %d CPUs, %s to %s MB", minC, maxC, num2(minM), num2(maxM)),
			Recommended: "SRADs with even CPUs and memory before any NUMA placement",
			Evidence:    ev,
			Why:         "004: \"If the lssrad output shows unevenly distributed domains, fix the problem before proceeding\" with Oracle's NUMA optimization.",
			Fix:         Fix{Runtime: []string{"on the HMC: give the LPAR whole processors and memory per domain (dedicated processors; DLPAR add/remove), or restart the LPAR for the hypervisor to lay it out again (Dynamic Platform Optimizer: optmem)"}},
			Pending:     PendingManual,
			Risk:        "An LPAR reconfiguration on the HMC; a restart of the LPAR relays its memory out.",
		})
	}
	names := map[string]bool{}
	for _, r := range a.Rsets {
		names[r.Name] = true
	}
	if len(sids) == 0 {
		return CannotCheck("the Oracle instances' ORACLE_SID is unknown (no ora_pmon_SID in ps -ef)")
	}
	var fs []Finding
	var ok []string
	for _, sid := range sids {
		var missing []string
		for i := range srads {
			if !names[fmt.Sprintf("%s/%d", sid, i)] {
				missing = append(missing, fmt.Sprintf("%s/%d", sid, i))
			}
		}
		val, where, set := in.OracleParam(sid, "_enable_numa_support")
		enabled, known := false, set
		if set {
			enabled, _ = oraBool(oraUnquote(val))
		}
		param := "_enable_NUMA_support not known (give the init.ora or alert log with --artifact)"
		if known {
			param = fmt.Sprintf("%s: _enable_NUMA_support = %s", where, val)
		}
		if a.Rsets == nil {
			missing = nil
		}
		if len(missing) == 0 && a.Rsets != nil && (enabled || !known) {
			ok = append(ok, fmt.Sprintf("%s: rsets %s/0..%s/%d for %d SRADs; %s", sid, sid, sid, len(srads)-1, len(srads), param))
			continue
		}
		if a.Rsets == nil && !known {
			return CannotCheck("%s; %s", aixWhy(s, "aix.rsets", "lsrset -av"), param)
		}
		var cmds []string
		for i, sr := range srads {
			// Each rset holds its own SRAD's memory domain, never SRAD 0's for all.
			cmds = append(cmds, fmt.Sprintf("mkrset -c %s -m %d %s", sh(List(sr.CPUs)), sr.SRAD, sh(fmt.Sprintf("%s/%d", sid, i))))
		}
		for i := range srads {
			// 004, "Affinitizing User Connections": one listener per domain; the
			// shadows are its children and inherit its affinity.
			cmds = append(cmds, fmt.Sprintf("execrset %s -e lsnrctl start %s   # a listener per rset (its own port in listener.ora); clients spread over them",
				sh(fmt.Sprintf("%s/%d", sid, i)), sh(fmt.Sprintf("LISTENER_%s_%d", sid, i))))
		}
		cmds = append(cmds, "chuser capabilities=CAP_NUMA_ATTACH,CAP_BYPASS_RAC_VMM,CAP_PROPAGATE oracle",
			"vmo -o memplace_data=1 -o memplace_stack=1   # 004: process private memory local",
			"ALTER SYSTEM SET \"_enable_NUMA_support\"=TRUE SCOPE=SPFILE SID="+sqlStr(sid)+";  -- then restart; the alert log says \"NUMA system found and support enabled\"")
		cur := param
		if len(missing) > 0 {
			cur = "no rset " + strings.Join(missing, ", ") + "; " + param
		}
		sev := SevInfo
		why := "004: on AIX Oracle's NUMA support is off by default in 11g; \"_enable_NUMA_support=true is required\" and Oracle then " +
			"looks for rsets ${ORACLE_SID}/0, /1, ... — one per SRAD. 004 measured 112 % to 144 % of the default in one in-memory " +
			"test, and warns it \"can vary widely\" (In-Memory PX was faster without)."
		if enabled && len(missing) > 0 {
			sev = SevWarning
			why = "_enable_NUMA_support is on but the rsets Oracle looks for at startup (${ORACLE_SID}/0, /1, ...) are missing: " + why
		}
		fs = append(fs, Finding{
			Severity:    sev,
			Setting:     sid + ":NUMA rsets",
			Current:     cur,
			Recommended: fmt.Sprintf("rsets %s/0..%s/%d, one per SRAD, and _enable_NUMA_support=TRUE after a measurement", sid, sid, len(srads)-1),
			Evidence:    ev + "; lsrset -av: " + rsetNames(a.Rsets) + "; " + param,
			Why:         why,
			Fix:         Fix{Runtime: cmds, Persistent: []string{"rsets made with mkrset are lost at reboot: recreate them from /etc/inittab or an rc script before the database starts"}},
			Pending:     PendingRestart,
			Risk: "An underscore parameter: set it with Oracle Support's agreement. Connections must follow the domains (one " +
				"listener per rset, 004's 144 % case) or the gain is lost; In-Memory Parallel Execution was up to 5x slower with NUMA on.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%s", strings.Join(ok, "; ")).Reading(strings.Join(ok, "; ")) // none read: the engine's could not check
}

func rsetNames(rs []snapshot.AIXRset) string {
	if rs == nil {
		return "not collected"
	}
	var n []string
	for _, r := range rs {
		n = append(n, r.Name)
	}
	sort.Strings(n)
	if len(n) == 0 {
		return "none"
	}
	return aixNames(n)
}
