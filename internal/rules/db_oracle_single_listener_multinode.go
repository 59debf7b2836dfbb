package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.oracle-single-listener-multinode: one Oracle listener on a multi-node
// host whose NIC interrupts are served on one node (000 Scenario 3): the
// scheduler pulls the connections' work to that node (node 0 at 99.84 %
// busy, others ~50 %); one listener per node, each on its own NIC, added
// 25 % TPM.
func init() {
	Register(Rule{
		ID:       "db.oracle-single-listener-multinode",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "One Oracle listener on a multi-node host with NIC interrupts on one node",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 3: Multiple Oracle Listener Processes",
				Quote: "Starting multiple Oracle listener processes (one per NUMA node)"},
			{Doc: Seed000, Section: "Listener configuration",
				Quote: "Each listener is assigned a unique name, configured to one of the eight unique IP addresses, and bound to a unique TCP/IP port number."},
			{Doc: Seed000, Section: "HammerDB driver system configuration",
				Quote: "the resulting TPM numbers increased by an average of 25% in our test environment"},
			{Doc: Seed000, Section: "Table 12. Oracle recommendation summary.",
				Quote: "Multi-Listener\tON\tON\tON\t25%\t80%"},
		},
		Scope: Scope{
			DBVersions: "000: Oracle 12c on an 8-node Superdome X with 8 NICs, one subnet each",
			Note:       "listener.ora given with --artifact; interrupts from /proc/interrupts since boot (numa.cpu-irq-imbalance reports the imbalance itself)",
		},
		Thresholds: []string{"NIC interrupts are on one node when it serves 80 % of them", "fewer than 10000 NIC interrupts since boot are too few to judge"},
		Pending:    PendingRestart,
		Check:      checkSingleListenerMultinode,
	})
}

func checkSingleListenerMultinode(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.Listeners) == 0 {
		return NotApplicable("no listener.ora given (--artifact listener.ora)")
	}
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	nodes := NodeCount(s)
	if nodes < 2 {
		return NotApplicable("%d NUMA node: one listener is enough", nodes)
	}
	// TCP listeners of this host (SCAN listeners are the cluster's).
	type lsnr struct {
		name, file string
		line       int
		hosts      []string
	}
	var tcp []lsnr
	for _, l := range in.Artifacts.Listeners {
		for _, name := range l.Listeners() {
			if strings.HasPrefix(name, "LISTENER_SCAN") {
				continue
			}
			var hosts []string
			line := l.Entry(name).Line
			for _, a := range l.Addresses(name) {
				if strings.EqualFold(a.Protocol, "TCP") || strings.EqualFold(a.Protocol, "TCPS") {
					hosts = append(hosts, a.Host+":"+a.Port)
				}
			}
			if len(hosts) > 0 {
				tcp = append(tcp, lsnr{name, l.File, line, hosts})
			}
		}
	}
	var read []string // the TCP listeners read
	for _, l := range tcp {
		read = append(read, fmt.Sprintf("%s:%d: listener %s on %s", l.file, l.line, l.name, strings.Join(l.hosts, ", ")))
	}
	if len(tcp) == 0 {
		return NotApplicable("no TCP listener in the listener.ora files given")
	}
	if len(tcp) >= nodes {
		var n []string
		for _, l := range tcp {
			n = append(n, l.name)
		}
		return Passed("%d TCP listeners (%s) for %d NUMA nodes", len(tcp), strings.Join(n, ", "), nodes).Reading(strings.Join(read, "; "), fmt.Sprintf("%d NUMA node(s) (/sys/devices/system/node)", nodes))
	}
	tally := NICIRQsPerNode(s)
	perNode, total, nics := tally.PerNode, tally.Total, tally.NICs
	if len(nics) == 0 {
		return CannotCheck("%s", in.Reason("network.interfaces", "no physical NIC with interrupts in the snapshot (needs /proc/interrupts and the NICs' IRQs)"))
	}
	if total < nicIRQMinEvents {
		return CannotCheck("%d NIC interrupts since boot: too few to judge where the listener's traffic is served", total)
	}
	hot := -1
	var keys []int
	for n := range perNode {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	var parts []string
	for _, n := range keys {
		if hot < 0 || perNode[n] > perNode[hot] {
			hot = n
		}
		parts = append(parts, fmt.Sprintf("node%d %d", n, perNode[n]))
	}
	share := float64(perNode[hot]) / float64(total)
	if share < nicIRQShare {
		return Passed("%s on a %d-node host, NIC interrupts spread (%s)", artPlural(len(tcp), "TCP listener"), nodes, strings.Join(parts, ", ")).
			Reading(strings.Join(read, "; "), "/proc/interrupts, NIC interrupts per node: "+strings.Join(parts, ", "))
	}
	var lines []string
	for _, l := range tcp {
		lines = append(lines, fmt.Sprintf("%s:%d: %s on %s", l.file, l.line, l.name, strings.Join(l.hosts, ", ")))
	}
	ev := strings.Join(lines, "; ") + fmt.Sprintf("; /proc/interrupts of %s by node since boot: %s (%.0f %% on node %d)",
		strings.Join(nics, ", "), strings.Join(parts, ", "), 100*share, hot)
	if nic := oraListenerNIC(s, tcp[0].hosts); nic != "" {
		ev += "; " + nic
	}
	var cfg []string
	for n := 0; n < nodes && n < 8; n++ {
		cfg = append(cfg, fmt.Sprintf("LISTENER_N%d = (DESCRIPTION_LIST = (DESCRIPTION = (ADDRESS = (PROTOCOL = TCP)(HOST = <IP of a NIC on node %d>)(PORT = %d))))", n, n, 1601+n))
	}
	return Found(Finding{
		Setting:     "listener.ora:listeners",
		Current:     fmt.Sprintf("%s for %d NUMA nodes; %.0f %% of the NIC interrupts on node %d", artPlural(len(tcp), "TCP listener"), nodes, 100*share, hot),
		Recommended: "one listener per NUMA node, each on a NIC (and subnet) local to that node, started with numactl --cpunodebind=N",
		Evidence:    ev,
		Why: "000 (Scenario 3): with a single listener bound to the NIC of node 0 and that NIC's interrupts on node 0, node 0 " +
			"ran at 99.84 % busy (6.98 % in interrupts) while the other nodes were near 50 %; eight listeners, one per node " +
			"and NIC, raised TPM by 25 % (Table 12: +80 % over the default with NUMA and HugePages).",
		Fix: Fix{
			Runtime: []string{"numactl --cpunodebind=<N> $ORACLE_HOME/bin/lsnrctl start LISTENER_N<N>   (one per node)"},
			Persistent: append(cfg,
				"init.ora/spfile: local_listener naming the per-node listeners (ALTER SYSTEM SET local_listener='...' SCOPE=BOTH)",
				"tnsnames.ora (clients): one alias with an ADDRESS_LIST of every listener and (LOAD_BALANCE = on)"),
		},
		Risk: "Each listener needs its own NIC and subnet so replies leave by the interface that received the request (000); " +
			"clients must be given the new addresses. On RAC, node listeners are managed by srvctl, not listener.ora.",
	})
}

// oraListenerNIC names the NIC that carries a listener address (by IPv4,
// live snapshots only) and its NUMA node, "" when unknown.
func oraListenerNIC(s *snapshot.Snapshot, hosts []string) string {
	for _, h := range hosts {
		ip, _, _ := strings.Cut(h, ":")
		for _, ifc := range s.Network.Interfaces {
			for _, cidr := range ifc.IPv4 {
				a, _, _ := strings.Cut(cidr, "/")
				if a == ip {
					node := "unknown"
					if ifc.NUMANode != nil {
						node = fmt.Sprint(*ifc.NUMANode)
					}
					return fmt.Sprintf("listener address %s is on %s (NUMA node %s)", ip, ifc.Name, node)
				}
			}
		}
	}
	return ""
}
