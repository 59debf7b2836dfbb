package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// network.tcp-fastopen-latency: 003's network-latency profile enables TCP Fast
// Open (tuned sets net.ipv4.tcp_fastopen=3: bit 1 the client side, bit 2 the
// server side; the kernel's default 1 is the client side only). A value with
// both bits set is accepted whatever other bits it carries.
func init() {
	Register(Rule{
		ID:       "network.tcp-fastopen-latency",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "TCP Fast Open not enabled for client and server on a latency workload",
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "net.ipv4.tcp_fastopen\tBoolean\t\t\tEnabled"},
			{Doc: Seed000, Section: "tuned-adm",
				Quote: "the network-latency profile on RHEL7"},
		},
		Scope: Scope{Kernels: "3.7+ (client), 3.13+ (server; default 1 = client only from 3.13)",
			Distros: "RHEL 7+ tuned network-latency (tcp_fastopen=3); the same sysctl elsewhere",
			Note:    "only connections whose application asks for Fast Open (MSG_FASTOPEN, TCP_FASTOPEN) gain a round trip"},
		Workloads: []string{WorkloadLatency},
		Check:     checkTCPFastOpen,
	})
}

// wantTCPFastOpen is tuned network-latency's value: client (1) and server (2).
const wantTCPFastOpen = 3

const tcpFastOpenWhy = "TCP Fast Open for client and server (tuned network-latency)"

func checkTCPFastOpen(in *Input) Outcome {
	const key = "net.ipv4.tcp_fastopen"
	v, why := in.SysctlInt(key)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if v&wantTCPFastOpen == wantTCPFastOpen {
		return Passed("%s = %d: client and server Fast Open enabled", key, v).Reading(in.SysctlEvidence(key, fmt.Sprint(v))).
			Wanting(in.SysctlChange("network.tcp-fastopen-latency", key, fmt.Sprint(v), tcpFastOpenWhy))
	}
	// Keep the bits the host has (0x4 "without cookie" and the like) and add client and server.
	want := fmt.Sprint(v | wantTCPFastOpen)
	c := in.SysctlChange("network.tcp-fastopen-latency", key, want, tcpFastOpenWhy)
	return Found(Finding{
		Setting:     key,
		Current:     fmt.Sprintf("%d (%s)", v, tfoSides(v)),
		Recommended: want + " (client and server, as tuned network-latency sets it)",
		Evidence:    in.SysctlEvidence(key, fmt.Sprint(v)),
		Why: "003: the network-latency profile (the one 000 recommends for latency on RHEL 7) enables tcp_fastopen: a client that " +
			"reconnects sends its first request in the SYN and the server answers it before the handshake completes, saving one " +
			"round trip per new connection. It only helps applications that ask for it (MSG_FASTOPEN on the client, the TCP_FASTOPEN " +
			"socket option on the listener); Oracle Net and libpq do not, so on a database host the gain is for other services.",
		Fix:     SysctlFix(key, want),
		Changes: []change.Change{c},
		Risk: "A Fast Open SYN's data can be replayed by the network: only idempotent first requests should use it; middleboxes " +
			"that drop SYNs with data make the kernel fall back (and blackhole detection turns it off for a while).",
	}).Wanting(c)
}

// tfoSides says what a tcp_fastopen value enables.
func tfoSides(v int64) string {
	switch v & 3 {
	case 0:
		return "disabled"
	case 1:
		return "client only"
	case 2:
		return "server only"
	}
	return "client and server"
}
