package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// network.udp-mem: 003's network-throughput profile raises the ceiling of
// the memory all UDP sockets may hold, net.ipv4.udp_mem's third value (in
// pages), to 16777216, beside the 16 MiB TCP buffer maxima. On a database
// host UDP carries Oracle RAC's cache fusion interconnect: above the ceiling
// the kernel drops datagrams (UdpRcvbufErrors / MemErrors) and the
// interconnect retransmits ("gc cr block lost"). The kernel sizes udp_mem
// from memory at boot; only the ceiling is raised, min and pressure kept.
func init() {
	Register(Rule{
		ID:       "network.udp-mem",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "UDP memory ceiling (net.ipv4.udp_mem max) below network-throughput's 16777216 pages",
		// 003 lists the ceiling in its throughput profiles only: not an
		// OLTP or latency plan's setting.
		Workloads: []string{WorkloadDSS, WorkloadMixed},
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "udp_mem\tPages\tauto-scaling\t\tMax=16777216"},
		},
		Scope: Scope{Kernels: "all (udp_mem is in pages: 16777216 is 64 GiB with 4 KiB pages, 1 TiB with 64 KiB)",
			Distros: "RHEL 7's tuned network-throughput (udp_mem \"3145728 4194304 16777216\"); tuned 2.20's no longer sets it",
			Note:    "the ceiling over all UDP sockets; each socket stays bounded by rmem_max / wmem_max"},
		Check: checkUDPMem,
	})
}

const wantUDPMemMax = 16777216

const udpMemWhy = "UDP memory ceiling of 003's network-throughput profile"

func checkUDPMem(in *Input) Outcome {
	const key = "net.ipv4.udp_mem"
	s, why := in.Sysctl(key)
	if why != "" {
		return CannotCheck("%s", why)
	}
	t, err := parseIntTriple(s)
	if err != nil {
		return CannotCheck("sysctl.%s: %v", key, err)
	}
	if t[2] >= wantUDPMemMax {
		return Passed("%s max %d pages ≥ %d", key, t[2], wantUDPMemMax).Reading(in.SysctlEvidence(key, s)).
			Wanting(in.SysctlChange("network.udp-mem", key, fmt.Sprintf("%d %d %d", t[0], t[1], t[2]), udpMemWhy))
	}
	want := fmt.Sprintf("%d %d %d", t[0], t[1], wantUDPMemMax)
	c := in.SysctlChange("network.udp-mem", key, want, udpMemWhy)
	return Found(Finding{
		Setting:     key,
		Current:     fmt.Sprintf("%d %d %d (max %s)", t[0], t[1], t[2], KB(t[2]*4)),
		Recommended: want + " (max 16777216 pages; min and pressure kept)",
		Evidence:    in.SysctlEvidence(key, s),
		Why: "003's network-throughput profile sets udp_mem's maximum to 16777216 pages, with the TCP buffer maxima at 16 MiB. " +
			"Above the maximum the kernel drops UDP datagrams for every socket: on Oracle RAC the cache fusion interconnect is " +
			"UDP, and a drop costs a retransmit (\"gc cr block lost\" waits).",
		Fix:     SysctlFix(key, want),
		Changes: []change.Change{c},
		Risk: "A ceiling only: memory is used as sockets queue data, each socket bounded by rmem_max/wmem_max. With it above the " +
			"host's memory, the kernel's own UDP pressure limit no longer holds back a runaway receiver; watch UdpRcvbufErrors in /proc/net/snmp.",
	}).Wanting(c)
}
