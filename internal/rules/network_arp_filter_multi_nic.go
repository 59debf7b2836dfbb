package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// network.arp-filter-multi-nic: several interfaces with addresses on the same
// IPv4 subnet answer ARP for each other's addresses ("ARP flux"); 003 sets
// net.ipv4.conf.all.arp_filter = 1 when database networks share a subnet.
func init() {
	Register(Rule{
		ID:       "network.arp-filter-multi-nic",
		Area:     AreaNetwork,
		Severity: SevWarning,
		Title:    "Several interfaces on one subnet without arp_filter (ARP flux)",
		Sources: []Source{
			{Doc: Seed003, Section: "Network Tuning – Databases",
				Quote: "If on same network, use arp_filter to prevent ARP flux"},
			{Doc: Seed003, Section: "Wrap Up – Bare Metal (cont.)",
				Quote: "Separate networks"},
		},
		Scope: Scope{Kernels: "all; the effective value is conf.all OR conf.<if>", Distros: "all",
			Note: "IPv4 addresses are read on the live host only"},
		Check: checkArpFilter,
	})
}

func checkArpFilter(in *Input) Outcome {
	bySubnet, none := in.ipv4Subnets()
	if bySubnet == nil {
		return none
	}
	all, allWhy := in.SysctlInt("net.ipv4.conf.all.arp_filter")
	byName := map[string]*int64{}
	for _, it := range in.Snap.Network.Interfaces {
		byName[it.Name] = it.ArpFilter
	}
	subnets := sortedStringKeys(bySubnet)
	var fs []Finding
	var ok, cannot []string
	var wants []change.Change
	for _, n := range subnets {
		names := bySubnet[n]
		if len(names) < 2 {
			continue
		}
		if allWhy == "" && all > 0 {
			ok = append(ok, fmt.Sprintf("%s on %s: conf.all.arp_filter = %d", strings.Join(names, ","), n, all))
			wants = append(wants, in.SysctlChange("network.arp-filter-multi-nic", "net.ipv4.conf.all.arp_filter", "1", arpFilterWhy))
			continue
		}
		var off, unknown []string
		for _, name := range names {
			v := byName[name]
			switch {
			case v == nil:
				unknown = append(unknown, name)
			case *v == 0:
				off = append(off, name)
			}
		}
		if len(off) == 0 {
			if len(unknown) > 0 || allWhy != "" {
				r := in.Reason("network.interfaces.arp_filter", "per-interface arp_filter not read")
				if allWhy != "" {
					r = allWhy + "; " + r
				}
				cannot = append(cannot, r)
			} else {
				ok = append(ok, fmt.Sprintf("%s on %s: per-interface arp_filter 1", strings.Join(names, ","), n))
			}
			continue
		}
		allTxt := "unknown (" + allWhy + ")"
		if allWhy == "" {
			allTxt = fmt.Sprint(all)
		}
		fs = append(fs, Finding{
			Setting:     "net.ipv4.conf.all.arp_filter",
			Current:     fmt.Sprintf("0 on %s (conf.all = %s)", strings.Join(off, ","), allTxt),
			Recommended: "1",
			Evidence: fmt.Sprintf("interfaces %s all have addresses in %s; /proc/sys/net/ipv4/conf/{all,%s}/arp_filter",
				strings.Join(names, ","), n, strings.Join(off, ",")),
			Why: "003: \"If on same network, use arp_filter to prevent ARP flux\": without it any of the interfaces may answer ARP for the " +
				"others' addresses, so traffic meant for one NIC (a listener, the RAC interconnect, iSCSI) arrives on another, defeating " +
				"NIC separation and NUMA placement of its interrupts.",
			Fix:     SysctlFix("net.ipv4.conf.all.arp_filter", "1"),
			Changes: []change.Change{in.SysctlChange("network.arp-filter-multi-nic", "net.ipv4.conf.all.arp_filter", "1", arpFilterWhy)},
			Risk:    "Only matters with several NICs on one subnet; on multi-homed setups with policy routing check that replies still leave the intended interface.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(cannot) > 0 && len(ok) == 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	if len(ok) == 0 {
		return Passed("no two interfaces share an IPv4 subnet").Reading(subnetsRead(in, bySubnet))
	}
	return Passed("%s", strings.Join(ok, "; ")).Wanting(wants[:min(len(wants), 1)]...).Reading(strings.Join(ok, "; "), subnetsRead(in, bySubnet))
}

const arpFilterWhy = "Several interfaces on one subnet without arp_filter (ARP flux)"
