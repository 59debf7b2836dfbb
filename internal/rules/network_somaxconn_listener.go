package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// network.somaxconn-listener: the kernel caps every listen() backlog at
// net.core.somaxconn, so a listener's QUEUESIZE above it is silently cut;
// 002 notes that on RAC srvctl cannot set QUEUESIZE at all, which leaves
// somaxconn (128 by default before 5.4) as the listener's queue.
func init() {
	Register(Rule{
		ID:       "network.somaxconn-listener",
		Area:     AreaNetwork,
		Severity: SevWarning,
		Title:    "Listener connection queue capped by net.core.somaxconn",
		Sources: []Source{
			{Doc: Seed002, Section: "RATE_LIMIT and Oracle RAC 11gR2? (QUEUESIZE, SOMAXCONN=/proc/sys/net/core/somaxconn=128 by default)"},
		},
		Scope: Scope{Kernels: "all; the default somaxconn is 128 before 5.4 and 4096 from 5.4", Distros: "all",
			DBVersions: "Oracle Net listeners (QUEUESIZE); PostgreSQL and MySQL backlogs are capped the same way"},
		Check: checkSomaxconn,
	})
}

const smallSomaxconn = 128

func checkSomaxconn(in *Input) Outcome {
	v, why := in.SysctlInt("net.core.somaxconn")
	if why != "" {
		return CannotCheck("%s", why)
	}
	ev := in.SysctlEvidence("net.core.somaxconn", fmt.Sprint(v))
	var fs []Finding
	crs, crsWhy := false, ""
	maxQ, maxWhere := int64(0), ""
	if in.Artifacts != nil {
		for _, l := range in.Artifacts.Listeners {
			if c, w := l.CRSManaged(); c {
				crs, crsWhy = true, l.File+": "+w
			}
			for _, name := range l.Listeners() {
				for _, q := range l.QueueSizes(name) {
					n, err := strconv.ParseInt(strings.TrimSpace(q.Value), 10, 64)
					if err != nil || n <= 0 {
						continue
					}
					if n > maxQ {
						maxQ, maxWhere = n, fmt.Sprintf("%s:%d %s QUEUESIZE = %d", l.File, q.Line, name, n)
					}
				}
			}
		}
	}
	fix := func(want int64) Fix { return SysctlFix("net.core.somaxconn", fmt.Sprint(want)) }
	chg := func(want int64) []change.Change {
		return []change.Change{in.SysctlChange("network.somaxconn-listener", "net.core.somaxconn", fmt.Sprint(want), "listen() backlogs are capped at net.core.somaxconn")}
	}
	switch {
	case maxQ > v:
		fs = append(fs, Finding{
			Setting:     "net.core.somaxconn",
			Current:     fmt.Sprintf("%d (below the listener's QUEUESIZE %d)", v, maxQ),
			Recommended: fmt.Sprintf("≥ %d", maxQ),
			Evidence:    ev + "; " + maxWhere,
			Why: "The kernel cuts every listen() backlog to somaxconn (002: \"backlog depth for listen() seems to be SOMAXCONN\"), so the " +
				"QUEUESIZE asked for in listener.ora is not what the listener gets: during a logon storm from application servers the " +
				"accept queue overflows, SYNs are dropped and clients retry after 1-3 s.",
			Fix:     fix(maxQ),
			Changes: chg(maxQ),
			Risk:    "None beyond a little kernel memory per pending connection; restart the listener so listen() is called again.",
		})
	case v <= smallSomaxconn && crs:
		fs = append(fs, Finding{
			Severity:    SevInfo,
			Setting:     "net.core.somaxconn",
			Current:     fmt.Sprint(v),
			Recommended: "1024 or more (the listener's queue on RAC)",
			Evidence:    ev + "; " + crsWhy,
			Why: "002: on RAC the listeners are managed by Clusterware and srvctl cannot set QUEUESIZE (Bug 11782958), so the listen() " +
				"backlog is somaxconn - 128 by default; a connection storm (the reason for RATE_LIMIT, unsupported on RAC) overflows it.",
			Fix:     fix(1024),
			Changes: chg(1024),
			Risk:    "None significant; restart the listeners (srvctl stop/start listener) to take the new backlog.",
		})
	case v <= smallSomaxconn && in.DB != DBNone && maxQ == 0:
		fs = append(fs, Finding{
			Severity:    SevInfo,
			Setting:     "net.core.somaxconn",
			Current:     fmt.Sprint(v),
			Recommended: "1024 or more",
			Evidence:    ev + fmt.Sprintf("; database %s on this host", in.DB),
			Why: "002: the listener's listen() backlog is capped by somaxconn, 128 by default on older kernels: a burst of connection " +
				"requests (application servers starting their pools) overflows it and clients see connect timeouts and retries.",
			Fix:     fix(1024),
			Changes: chg(1024),
			Risk:    "None significant; restart the listener or database for the new backlog.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if maxQ > 0 {
		return Passed("net.core.somaxconn = %d ≥ largest listener QUEUESIZE (%s)", v, maxWhere)
	}
	return Passed("net.core.somaxconn = %d", v)
}
