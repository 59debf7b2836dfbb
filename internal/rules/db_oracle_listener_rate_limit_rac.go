package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// db.oracle-listener-rate-limit-rac: listener connection rate limiting
// (RATE_LIMIT, CONNECTION_RATE_<listener>) configured on a RAC / Oracle
// Clusterware host, where it is not supported: CRS rewrites listener.ora and
// srvctl cannot set it.
func init() {
	Register(Rule{
		ID:       "db.oracle-listener-rate-limit-rac",
		Area:     AreaDB,
		Severity: SevWarning,
		OS:       []string{OSLinux, OSAIX}, // reads only the artifacts
		Title:    "Listener RATE_LIMIT on a RAC / Clusterware-managed listener (unsupported)",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed002, Section: "RATE_LIMIT and Oracle RAC 11gR2?",
				Quote: "regarding rate limiting Oracle SQLNet/TNS connections is NOT supported on RAC installations"},
			{Doc: Seed002, Section: "RATE_LIMIT and Oracle RAC 11gR2?",
				Quote: "BUG:16409926 “LISTENER MEMORY LEAK IF RATE_LIMIT IS USED AND ENFORCED FREQUENTLY”"},
		},
		Scope: Scope{
			DBVersions: "Oracle 11gR2+ RAC / Oracle Restart (CRS-managed node and SCAN listeners); Bug 16409926 fixed in 11.2.0.4 and 12.1.0.1",
			Note:       "RAC is recognised from listener.ora (SCAN entries, ENABLE_GLOBAL_DYNAMIC_ENDPOINT_*), cluster_database = true, or srvctl output",
		},
		Pending: PendingRestart,
		Check:   checkListenerRateLimitRAC,
	})
}

func checkListenerRateLimitRAC(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.Listeners) == 0 {
		return NotApplicable("no listener.ora given (--artifact listener.ora)")
	}
	racEv := oraRACEvidence(in)
	var fs []Finding
	var checked []string
	for _, l := range in.Artifacts.Listeners {
		ev := racEv
		if crs, why := l.CRSManaged(); crs {
			ev = append([]string{l.File + ": " + why}, ev...)
		}
		for _, name := range oraListenerNames(l) {
			var rl []artifacts.Setting
			for _, r := range l.RateLimits(name) {
				switch strings.ToLower(strings.TrimSpace(r.Value)) {
				case "no", "off", "false", "0", "":
					continue // rate limiting disabled
				}
				rl = append(rl, r)
			}
			if len(rl) == 0 {
				checked = append(checked, fmt.Sprintf("%s: %s has no RATE_LIMIT", l.File, name))
				continue
			}
			var where []string
			for _, s := range rl {
				where = append(where, fmt.Sprintf("%s:%d: %s = %s", l.File, s.Line, s.Path, s.Value))
			}
			if len(ev) == 0 {
				checked = append(checked, fmt.Sprintf("%s: %s rate-limited (%s) on what looks like a single instance: supported", l.File, name, strings.Join(where, "; ")))
				continue
			}
			fs = append(fs, Finding{
				Setting:     fmt.Sprintf("listener.ora:%s RATE_LIMIT", name),
				Current:     fmt.Sprintf("%s on listener %s of a RAC / Clusterware host", artPlural(len(rl), "rate-limit setting"), name),
				Recommended: "no RATE_LIMIT / CONNECTION_RATE_ on RAC listeners; throttle connection storms in the connection pools",
				Evidence:    strings.Join(where, "; ") + "; RAC: " + strings.Join(ev, "; "),
				Why: "002: connection rate limiting is not supported on RAC (confirmed via an Oracle SR): CRS manages node and SCAN " +
					"listeners, overwrites listener.ora and endpoints_listener.ora, and srvctl has no way to set RATE_LIMIT " +
					"(nor QUEUESIZE, SDU); Bug 16409926 (listener memory leak when RATE_LIMIT is enforced) before 11.2.0.4.",
				Fix: Fix{Runtime: []string{}, Persistent: []string{
					fmt.Sprintf("%s: remove (RATE_LIMIT = ...) from %s and the CONNECTION_RATE_%s line; lsnrctl reload %s (srvctl stop/start listener -l %s on RAC)", l.File, name, name, name, name),
					"application servers: cap connection creation instead (min/initial pool size, max pool size, prefill / ramp-up)",
				}},
				Risk: "Without listener throttling, a middle tier that opens hundreds of connections at start can saturate the " +
					"database host's CPU: bound it in the pools before removing the setting.",
			})
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(checked) == 0 {
		// Nothing to judge is no pass (issue 26).
		return CannotCheck("no listener with an ADDRESS in the listener.ora files given")
	}
	return Passed("%s", strings.Join(checked, "; ")).Reading(strings.Join(checked, "; "))
}

// oraListenerNames are the listeners of a listener.ora: entries with an
// ADDRESS, plus those named only by a CONNECTION_RATE_<name> line.
func oraListenerNames(l *artifacts.NetConfig) []string {
	names := l.Listeners()
	seen := map[string]bool{}
	for _, n := range names {
		seen[n] = true
	}
	for _, e := range l.Order {
		if n, ok := strings.CutPrefix(e, "CONNECTION_RATE_"); ok && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	return names
}

// oraRACEvidence says why the host is part of a RAC cluster from the
// non-listener artifacts (cluster_database, srvctl services); nil when none.
func oraRACEvidence(in *Input) []string {
	var ev []string
	for _, p := range in.Artifacts.Params {
		if v, ok := p.Bool("", "cluster_database"); ok && v {
			ev = append(ev, fmt.Sprintf("%s:%d: cluster_database = true", p.File, oraParamLine(p, "", "cluster_database")))
			break
		}
	}
	if len(in.Artifacts.Services) > 0 {
		s := in.Artifacts.Services[0]
		ev = append(ev, fmt.Sprintf("%s:%d: srvctl service %s", s.File, s.Line, s.Name))
	}
	return ev
}
