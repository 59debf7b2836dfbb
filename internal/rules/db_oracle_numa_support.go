package rules

import (
	"fmt"
	"strings"
)

// db.oracle-numa-support: the alert log of an Oracle instance on a NUMA host
// says "Oracle NUMA support not enabled" (000 Scenario 1, after numa=off was
// removed: "The parameter _enable_NUMA_support should be set to TRUE").
func init() {
	Register(Rule{
		ID:       "db.oracle-numa-support",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Oracle NUMA support is not enabled on a NUMA host",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Oracle NUMA optimizations",
				Quote: "Configure the Oracle instance with the “_enable_NUMA_support=TRUE” parameter."},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Oracle NUMA optimizations",
				Quote: "Oracle NUMA support not enabled"},
			{Doc: Seed000, Section: "Table 12. Oracle recommendation summary.",
				Quote: "NUMA\tON\tOFF\tOFF\t27%\t27%"},
		},
		Scope: Scope{
			DBVersions: "000: Oracle 12c (the parameter is hidden: an underscore parameter)",
			Distros:    "000: RHEL 7 on an 8-node Superdome X",
			Note:       "read from the alert log given with --artifact; the last startup in the log counts",
		},
		Pending: PendingRestart,
		Check:   checkOracleNUMASupport,
	})
}

func checkOracleNUMASupport(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.AlertLogs) == 0 {
		return NotApplicable("no Oracle alert log given (--artifact alert_SID.log)")
	}
	var fs []Finding
	var read []string
	seen := 0
	for _, a := range in.Artifacts.AlertLogs {
		st := a.Last()
		if st == nil || st.NUMA == nil || st.NUMA.Enabled == nil {
			continue
		}
		seen++
		read = append(read, fmt.Sprintf("%s:%d: %s", a.File, st.NUMA.Line, strings.Join(st.NUMA.Lines, " / ")))
		nodes := NodeCount(in.Snap)
		if st.NUMA.Nodes != nil && *st.NUMA.Nodes > nodes {
			nodes = *st.NUMA.Nodes
		}
		if *st.NUMA.Enabled || nodes <= 1 {
			continue
		}
		sid := st.SID
		if sid == "" {
			sid = "the instance"
		}
		cur := "FALSE (Oracle NUMA support not enabled)"
		ev := fmt.Sprintf("%s:%d: %s", a.File, st.NUMA.Line, strings.Join(st.NUMA.Lines, " / "))
		if v, where, ok := in.OracleParam(st.SID, "_enable_NUMA_support"); ok {
			cur = v + " (Oracle NUMA support not enabled)"
			ev += fmt.Sprintf("; %s: _enable_NUMA_support = %s", where, v)
		}
		ev += fmt.Sprintf("; this host: %d NUMA node(s)", NodeCount(in.Snap))
		fs = append(fs, Finding{
			Setting:     "oracle:_enable_NUMA_support",
			Current:     cur,
			Recommended: "TRUE",
			Evidence:    ev,
			Why: "000: with NUMA on in the kernel, Oracle NUMA support enabled and automatic NUMA balancing off, Oracle TPM " +
				"rose 27 % on an 8-node host (Table 12); without it Oracle ignores the node layout it detected.",
			Fix: Fix{Runtime: []string{}, Persistent: []string{
				fmt.Sprintf(`ALTER SYSTEM SET "_enable_NUMA_support"=TRUE SCOPE=SPFILE SID=%s; then restart %s`, sqlStr(sidOrStar(st.SID)), sid),
			}},
			Risk: "An underscore (hidden) parameter: agree it with Oracle Support. The SGA is then split per node, so each node's " +
				"hugepage pool must hold its share (memory.hugepages-too-few). Needs an instance restart.",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case seen == 0:
		return CannotCheck("the alert log's last startup has no NUMA lines (\"NUMA system with N nodes detected\" / \"Oracle NUMA support ...\")")
	}
	return Passed("alert log: Oracle NUMA support enabled, or a single NUMA node").
		Reading(strings.Join(read, "; "), fmt.Sprintf("this host: %d NUMA node(s)", NodeCount(in.Snap)))
}

func sidOrStar(sid string) string {
	if sid == "" {
		return "*"
	}
	return sid
}
