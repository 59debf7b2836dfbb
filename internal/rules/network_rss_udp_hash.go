package rules

import (
	"strings"
)

// network.rss-udp-hash: 000 turns on the 4-tuple receive hash for UDP on
// ixgbe (ethtool -N <if> rx-flow-hash udp4 sdfn): by default UDP is hashed on
// the IP addresses only and one queue overloads. The hash setting is read
// with the ETHTOOL_GRXFH ioctl, not from sysfs, and the snapshot does not
// hold it: the rule says which NICs to check and how.
func init() {
	Register(Rule{
		ID:       "network.rss-udp-hash",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "UDP receive hashing on IP addresses only (RSS udp4 not 4-tuple)",
		Sources: []Source{
			{Doc: Seed000, Section: "ixgbe UDP HW RSS mode",
				Quote: "ethtool -N <interface> rx-flow-hash udp4 sdfn"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "ixgbe UDP HW RSS mode\tSDFN"},
		},
		Scope: Scope{Kernels: "all with ethtool rx-flow-hash (ETHTOOL_SRXFH)", Distros: "all",
			Note: "multi-queue NICs carrying UDP (Oracle RAC interconnect, cache fusion); ixgbe in 000, most NICs accept the same command"},
		Description: "Check: ethtool -n <if> rx-flow-hash udp4 (want \"IP SA, IP DA, L4 bytes 0 & 1, L4 bytes 2 & 3\"). " +
			"Fix: ethtool -N <if> rx-flow-hash udp4 sdfn; persistent: a udev rule ACTION==\"add\", SUBSYSTEM==\"net\", KERNEL==\"<if>\", RUN+=\"/usr/sbin/ethtool -N <if> rx-flow-hash udp4 sdfn\" " +
			"or ETHTOOL_OPTS=\"-N <if> rx-flow-hash udp4 sdfn\" in ifcfg-<if>.",
		Check: checkRSSUDPHash,
	})
}

func checkRSSUDPHash(in *Input) Outcome {
	if why := in.netAbsent(); why != "" {
		return CannotCheck("%s", why)
	}
	var nics []string
	for _, it := range in.Snap.Network.Interfaces {
		if it.Kind == "physical" && it.OperState != "down" && it.RxQueues > 1 {
			nics = append(nics, it.Name)
		}
	}
	if len(nics) == 0 {
		return NotApplicable("no multi-queue physical NIC up")
	}
	return CannotCheck("the UDP receive hash (ethtool -n <if> rx-flow-hash udp4, ETHTOOL_GRXFH) is not in the snapshot; check %s "+
		"and set 4-tuple hashing with: ethtool -N <if> rx-flow-hash udp4 sdfn (000: UDP is otherwise hashed on IP addresses only)",
		strings.Join(nics, ", "))
}
