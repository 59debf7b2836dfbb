package rules

import (
	"fmt"
	"strings"
)

// network.one-subnet-per-interface: 000 Scenario 3 puts each network
// interface in a subnet of its own, so that the interface that receives a
// request also sends the reply (with several interfaces on one subnet the
// kernel sends every reply out of the first route's interface, whatever
// interface the request came in on: the per-NIC listeners and the NUMA
// placement of their interrupts are undone on the way out). 003 asks for
// separate networks for different functions, a private network for the
// database traffic: an Oracle RAC instance (cluster_database = TRUE) on a
// host whose addresses all sit on one subnet has its interconnect on the
// public network. Both are addressing changes an operator makes.
func init() {
	Register(Rule{
		ID:       "network.one-subnet-per-interface",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "Several interfaces on one subnet, or a RAC interconnect without a network of its own",
		Sources: []Source{
			{Doc: Seed000, Section: "Network interface configuration",
				Quote: "The first step is to configure each network interface in a different subnet. This ensures that the same network interface that receives the requests will be used to send the outbound reply."},
			{Doc: Seed003, Section: "Network Tuning – Databases",
				Quote: "Separate network for different functions (Private network for database traffic)"},
			{Doc: Seed003, Section: "Wrap Up – Bare Metal (cont.)",
				Quote: "Separate networks"},
		},
		Scope: Scope{Kernels: "all", Distros: "all",
			Note: "IPv4 addresses are read on the live host only; policy routing (ip rule per source address) also keeps replies on their interface"},
		Pending: PendingManual,
		Check:   checkOneSubnetPerInterface,
	})
}

func checkOneSubnetPerInterface(in *Input) Outcome {
	bySubnet, none := in.ipv4Subnets()
	if bySubnet == nil {
		return none
	}
	subnets := sortedStringKeys(bySubnet)
	var fs []Finding
	for _, n := range subnets {
		names := bySubnet[n]
		if len(names) < 2 {
			continue
		}
		fs = append(fs, Finding{
			Setting:     "IPv4 addressing of " + strings.Join(names, ", "),
			Current:     fmt.Sprintf("%d interfaces on %s", len(names), n),
			Recommended: "one subnet per interface (000 Scenario 3), or a bond of them with one address",
			Evidence:    fmt.Sprintf("%s: %s", n, ifAddrs(in, names)),
			Why: "000 Scenario 3: \"configure each network interface in a different subnet. This ensures that the same network interface " +
				"that receives the requests will be used to send the outbound reply.\" With several interfaces on one subnet the " +
				"kernel routes every reply out of one of them, so the per-interface listeners and the NUMA node of each NIC's " +
				"interrupts (000's one listener per node) serve the inbound half only. network.arp-filter-multi-nic covers the ARP side.",
			Fix: Fix{Runtime: []string{},
				Persistent: []string{"give each interface an address in its own subnet (the switch ports or VLANs to match), or bond them " +
					"(802.3ad, network.bond-xmit-hash-policy) behind one address; with the addresses kept, policy routing per source address " +
					"(ip rule add from ADDR table N) keeps each reply on its interface"}},
			Risk: "Readdressing moves services and clients: plan it with the network team; listeners and tnsnames entries follow the addresses.",
		})
	}
	// 003: a private network for the database traffic (RAC's interconnect).
	for _, inst := range in.oraInstances() {
		if !inst.RAC || len(subnets) > 1 {
			continue
		}
		_, where, _ := inst.Param("cluster_database")
		var names []string
		for _, n := range subnets {
			names = append(names, bySubnet[n]...)
		}
		fs = append(fs, Finding{
			Setting:     "RAC interconnect network (" + inst.SID + ")",
			Current:     "every address of this host on one subnet (" + strings.Join(subnets, ", ") + ")",
			Recommended: "a private network of its own for the cluster interconnect (003: separate networks)",
			Evidence:    fmt.Sprintf("cluster_database = TRUE (%s); %s: %s", where, strings.Join(subnets, ", "), ifAddrs(in, dedupe(names))),
			Why: "003: \"Separate network for different functions (Private network for database traffic)\". RAC's cache fusion moves " +
				"blocks between instances over the interconnect; sharing the public network, its latency rises with client traffic " +
				"(gc cr/current block waits) and a busy public network can evict a node.",
			Fix: Fix{Runtime: []string{},
				Persistent: []string{"a dedicated interface (or bond) on a private subnet for the interconnect; oifcfg setif -global <if>/<subnet>:cluster_interconnect"}},
			Risk: "Changing the interconnect needs Clusterware on every node restarted in a window.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("each IPv4 subnet has one interface: %s", strings.Join(subnets, ", ")).Reading(subnetsRead(in, bySubnet))
}

// subnetsRead names the IPv4 subnets read and the addresses on each.
func subnetsRead(in *Input, bySubnet map[string][]string) string {
	var out []string
	for _, n := range sortedStringKeys(bySubnet) {
		out = append(out, n+": "+ifAddrs(in, bySubnet[n]))
	}
	return "IPv4 addresses (ip -o addr): " + strings.Join(out, "; ")
}

// ifAddrs lists the named interfaces with their IPv4 addresses.
func ifAddrs(in *Input, names []string) string {
	var out []string
	for _, n := range names {
		for _, it := range in.Snap.Network.Interfaces {
			if it.Name == n {
				out = append(out, n+" "+strings.Join(it.IPv4, ","))
			}
		}
	}
	return strings.Join(out, "; ")
}
