package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// network.jumbo-frames: MTU 9000 on 10 GbE+ database links (000 Table 5/13;
// 003 DSS on iSCSI). Information only: every switch port and peer on the path
// must carry jumbo frames too.
const jumboRisk = "A switch port or peer left at 1500 silently drops full-size frames (connections hang after the handshake, RAC " +
	"interconnect evictions). Change the switches first, then both ends; never only one side."

func init() {
	Register(Rule{
		ID:       "network.jumbo-frames",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "Standard 1500-byte MTU on a 10 GbE+ link",
		Sources: []Source{
			{Doc: Seed000, Section: "9000 byte MTU (Jumbo Frames)",
				Quote: "Using Jumbo frames does require configuration of the attached network switch equipment to properly support larger MTU sizes."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "Frame MTU size\t9000"},
			{Doc: Seed003, Section: "Network tuning – Jumbo Frames with iSCSI storage",
				Quote: "For a DSS workload running on iSCSI storage using different MTUs"},
		},
		Scope: Scope{Kernels: "all", Distros: "all",
			Note: "only where the whole layer-2 path (switches, storage/iSCSI targets, RAC peers) is configured for 9000: check before changing"},
		Check: checkJumboFrames,
	})
}

func checkJumboFrames(in *Input) Outcome {
	if why := in.netAbsent(); why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var ok, unknown []string
	var wants []change.Change
	jumbo := func(it snapshot.Interface) change.Change {
		c := SysfsChange("network.jumbo-frames", "/sys/class/net/"+it.Name+"/mtu", "9000", fmt.Sprint(*it.MTU),
			"8K RAC blocks and large scans without fragmentation")
		c.Risk = jumboRisk
		return c
	}
	for _, it := range upInterfaces(in.Snap) {
		if it.Kind != "physical" && it.Kind != "bond" {
			continue
		}
		if it.MTU == nil {
			unknown = append(unknown, in.Reason("network.interfaces["+it.Name+"].mtu", "not read"))
			continue
		}
		if it.SpeedMbps == nil || *it.SpeedMbps < 10000 {
			continue
		}
		if *it.MTU >= 9000 {
			ok = append(ok, fmt.Sprintf("%s mtu %d", it.Name, *it.MTU))
			wants = append(wants, jumbo(it))
			continue
		}
		ev := fmt.Sprintf("/sys/class/net/%s/mtu = %d; speed %d Mb/s, %s", it.Name, *it.MTU, *it.SpeedMbps, it.Kind)
		if it.Bond != nil && len(it.Bond.Slaves) > 0 {
			ev += "; slaves " + strings.Join(it.Bond.Slaves, ",") + " follow the bond's MTU"
		}
		if it.Driver != "" {
			ev += "; driver " + it.Driver
		}
		fs = append(fs, Finding{
			Setting:     "/sys/class/net/" + it.Name + "/mtu",
			Current:     fmt.Sprint(*it.MTU),
			Recommended: "9000 where switches and peers support it end to end",
			Evidence:    ev,
			Why: "000: with 1500 bytes a UDP message over 1460 bytes is fragmented and steering cannot place the fragments on the right " +
				"queue (RAC cache fusion sends 8K blocks); 9000 is in Table 13. 003: a DSS load on iSCSI moved ~198 MB/s per interface at " +
				"MTU 1500 and ~1,000 MB/s at 9000 (sar -n DEV).",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("ip link set dev %s mtu 9000", sh(it.Name)), "ping -M do -s 8972 <peer>   (verify the path carries 9000 unfragmented)"},
				Persistent: append([]string{}, NMCLIModify(in.Snap, it.Name, "802-3-ethernet.mtu 9000", "   (a bond: run it for the bond; its slaves take the bond's MTU)")...),
				Edits:      jumboEdits(in.Snap, it.Name),
			},
			Risk:    jumboRisk,
			Changes: []change.Change{jumbo(it)},
		})
	}
	if len(fs) > 0 {
		return Found(fs...).Wanting(wants...)
	}
	if len(ok) == 0 && len(unknown) > 0 {
		return CannotCheck("%s", strings.Join(unknown, "; "))
	}
	if len(ok) == 0 {
		return NotApplicable("no 10 GbE+ interface up with a known speed")
	}
	return Passed("jumbo frames on %s", strings.Join(ok, ", ")).Wanting(wants...).Reading("/sys/class/net/*/mtu: " + strings.Join(ok, ", "))
}

// jumboEdits: MTU=9000 in the interface's ifcfg file (Red Hat family), or
// mtu: 9000 in its netplan definition (Ubuntu 18.04+).
func jumboEdits(s *snapshot.Snapshot, ifname string) []FileEdit {
	if s.Host.OSID == "ubuntu" && osMajor(s.Host) >= 18 {
		return []FileEdit{{File: "/etc/netplan/*.yaml", Edit: "set mtu: 9000 in the definition of " + ifname, Then: "netplan apply"}}
	}
	return IfcfgEdits(s, ifname, "MTU=9000")
}
