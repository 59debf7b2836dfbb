package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// network.somaxconn-listener: the kernel caps every listen() backlog at
// net.core.somaxconn, so a listener queue larger than it is silently cut. The
// listener's queue is its QUEUESIZE in listener.ora, else Oracle Net's Linux
// default of 128; 002 notes that on RAC srvctl cannot set QUEUESIZE at all,
// which leaves that default. No source gives a somaxconn target of its own:
// the rule only asks that somaxconn hold the queue the listener asks for.
func init() {
	Register(Rule{
		ID:       "network.somaxconn-listener",
		Area:     AreaNetwork,
		Severity: SevWarning,
		Title:    "Listener connection queue capped by net.core.somaxconn",
		DBs:      []string{DBOracle, DBNone},
		Sources: []Source{
			{Doc: Seed002, Section: "RATE_LIMIT and Oracle RAC 11gR2?",
				Quote: "backlog depth for listen() seems to be SOMAXCONN=/proc/sys/net/core/somaxconn=128 by default"},
			{Doc: Seed002, Section: "RATE_LIMIT and Oracle RAC 11gR2?",
				Quote: "there is no option to alter more advanced parameters like QUEUESIZE"},
			{Doc: "https://docs.oracle.com/en/database/oracle/oracle-database/23/netag/handling-large-volumes-concurrent-connection-requests.html",
				Section: "9.4.2 Handling Large Volumes of Concurrent Connection Requests (default QUEUESIZE for TCP/IP on Linux: 128)"},
		},
		Scope: Scope{Kernels: "all; the default somaxconn is 128 before 5.4 and 4096 from 5.4", Distros: "all",
			DBVersions: "Oracle Net listeners (QUEUESIZE, default 128 on Linux)",
			Note:       "without listener.ora the listener is taken to use the default 128"},
		Check: checkSomaxconn,
	})
}

// oraDefaultQueueSize is Oracle Net's default listener queue on Linux.
const oraDefaultQueueSize = 128

const somaxconnWhy = "listen() backlogs are capped at net.core.somaxconn"

func checkSomaxconn(in *Input) Outcome {
	v, why := in.SysctlInt("net.core.somaxconn")
	if why != "" {
		return CannotCheck("%s", why)
	}
	ev := in.SysctlEvidence("net.core.somaxconn", fmt.Sprint(v))
	// The largest queue a listener asks for, and where that was read.
	maxQ, maxWhere, crsWhy := int64(0), "", ""
	if in.Artifacts != nil {
		for _, l := range in.Artifacts.Listeners {
			if c, w := l.CRSManaged(); c {
				crsWhy = l.File + ": " + w
			}
			for _, name := range l.Listeners() {
				q, where := int64(oraDefaultQueueSize), fmt.Sprintf("%s: listener %s has no QUEUESIZE (Oracle Net default %d)", l.File, name, oraDefaultQueueSize)
				for _, qs := range l.QueueSizes(name) {
					n, err := strconv.ParseInt(strings.TrimSpace(qs.Value), 10, 64)
					if err != nil || n <= 0 {
						continue
					}
					if n > q || strings.Contains(where, "no QUEUESIZE") {
						q, where = n, fmt.Sprintf("%s:%d %s QUEUESIZE = %d", l.File, qs.Line, name, n)
					}
				}
				if q > maxQ {
					maxQ, maxWhere = q, where
				}
			}
		}
	}
	if maxQ == 0 {
		if in.DB != DBOracle {
			return Passed("net.core.somaxconn = %d; no listener.ora given", v).Reading(in.SysctlEvidence("net.core.somaxconn", fmt.Sprint(v)))
		}
		maxQ, maxWhere = oraDefaultQueueSize, fmt.Sprintf("no listener.ora given: Oracle Net's default QUEUESIZE %d", oraDefaultQueueSize)
	}
	if v >= maxQ {
		return Passed("net.core.somaxconn = %d ≥ the listener queue (%s)", v, maxWhere).
			Reading(in.SysctlEvidence("net.core.somaxconn", fmt.Sprint(v)), maxWhere).
			Wanting(in.SysctlChange("network.somaxconn-listener", "net.core.somaxconn", fmt.Sprint(maxQ), somaxconnWhy))
	}
	f := Finding{
		Setting:     "net.core.somaxconn",
		Current:     fmt.Sprintf("%d (below the listener's queue %d)", v, maxQ),
		Recommended: fmt.Sprintf("≥ %d", maxQ),
		Evidence:    ev + "; " + maxWhere,
		Why: "The kernel cuts every listen() backlog to somaxconn (002: \"backlog depth for listen() seems to be SOMAXCONN\"), so the " +
			"listener does not get the queue it asks for: during a logon storm from application servers the accept queue " +
			"overflows, SYNs are dropped and clients retry after 1-3 s.",
		Fix:     SysctlFix("net.core.somaxconn", fmt.Sprint(maxQ)),
		Changes: []change.Change{in.SysctlChange("network.somaxconn-listener", "net.core.somaxconn", fmt.Sprint(maxQ), somaxconnWhy)},
		Risk:    "None beyond a little kernel memory per pending connection; restart the listener so listen() is called again.",
	}
	if crsWhy != "" {
		f.Evidence += "; " + crsWhy
		f.Why += " 002: on RAC srvctl cannot set QUEUESIZE (Bug 11782958), so a Clusterware listener keeps the default."
	}
	return Found(f)
}
