package rules

import (
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// network.awr-rac-interconnect: a RAC instance's report with global cache
// waits above their norms (block transfers 2-way/3-way, busy, congested,
// lost): cache fusion ships blocks over the interconnect, so slow or lost
// transfers point at it. 000 models cache fusion with netperf's UDP_RR
// (300-byte requests, 8 KB replies: `dbhost bench net --test udp_rr`) and
// tunes its network with MTU 9000, a 4-port 802.3ad bond hashing layer3+4
// and 16 MB socket buffers. With the host, the interconnect NIC (the
// report's cluster_interconnects, else Oracle's 169.254 HAIP addresses)
// is named with those settings.
func init() {
	Register(Rule{
		ID:           "network.awr-rac-interconnect",
		Area:         AreaNetwork,
		Severity:     SevWarning,
		Title:        "RAC global cache waits above their norms: the interconnect (cache fusion)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed000, Section: "Optimizing network performance — Test environment",
				Quote: "The UDP\\_RR test is similar to the latency-sensitive, request-response traffic profile common in Oracle RAC Global Cache Fusion traffic."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "Frame MTU size\t9000"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "Bonded NICs\t4-port bond, mode 4"},
		},
		Scope: Scope{
			DBVersions: "Oracle RAC 10g-23ai: the gc wait events and, from 11g, Global Cache and Enqueue Services - Workload Characteristics",
			Note:       "read from an instance's AWR report (--artifact, dbhost awr); the interconnect NIC from cluster_interconnects or the host's 169.254 HAIP addresses",
		},
		Thresholds: []string{
			fmt.Sprintf("a global cache event at %d %% of DB time or more, averaging above %s ms for a 2-way block, %s ms for a 3-way block, %s ms for a busy block, %s ms for a congested one; any lost block",
				gcPct, awrNum(gcLimits["block2"]), awrNum(gcLimits["block3"]), awrNum(gcLimits["busy"]), awrNum(gcLimits["congested"])),
			"the report's average global cache cr/current block receive time above 1 ms is evidence",
		},
		Check: checkAWRRACInterconnect,
	})
}

// gcPct is the share of DB time from which a global cache event counts.
const gcPct = 1

// gcLimits are dbhost's own norms for the global cache averages, in ms
// (sub-millisecond 2-way transfers on a healthy 10 GbE interconnect; no
// seed gives a figure).
var gcLimits = map[string]float64{"block2": 1, "block3": 1.5, "busy": 5, "congested": 1}

var gcEvents = []struct{ name, kind string }{
	{"gc cr block 2-way", "block2"}, {"gc current block 2-way", "block2"},
	{"gc cr block 3-way", "block3"}, {"gc current block 3-way", "block3"},
	{"gc buffer busy acquire", "busy"}, {"gc buffer busy release", "busy"},
	{"gc cr block busy", "busy"}, {"gc current block busy", "busy"},
	{"gc cr block congested", "congested"}, {"gc current block congested", "congested"},
	{"gc cr block lost", "lost"}, {"gc current block lost", "lost"},
}

func checkAWRRACInterconnect(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return racInterconnectReport(in, r) })
}

func racInterconnectReport(in *Input, r *artifacts.AWRReport) Outcome {
	var over, fine, evs []string
	kinds := map[string]bool{}
	seen := false
	for _, g := range gcEvents {
		e, ok := r.Event(g.name)
		if !ok {
			continue
		}
		seen = true
		avg, okAvg := awrAvgMS(e)
		pct, okPct := awrPct(r, e)
		if g.kind == "lost" {
			if e.Waits != nil && *e.Waits > 0 {
				over = append(over, fmt.Sprintf("%s: %d lost", g.name, *e.Waits))
				evs = append(evs, awrEv(r, e))
				kinds["lost"] = true
			}
			continue
		}
		if !okAvg || !okPct || pct < gcPct || avg <= gcLimits[g.kind] {
			if okAvg {
				fine = append(fine, fmt.Sprintf("%s %s ms", g.name, awrNum(avg)))
			}
			continue
		}
		over = append(over, fmt.Sprintf("%s %s ms on average (%s %% of %s, norm %s ms)", g.name, awrNum(avg), awrNum(pct), awrPctOf(r), awrNum(gcLimits[g.kind])))
		evs = append(evs, awrEv(r, e))
		kinds[g.kind] = true
	}
	if !seen && !r.RAC && r.GlobalCache == nil {
		return NotApplicable("not a RAC instance's report (no global cache events)")
	}
	if len(r.TopEvents) == 0 && len(r.ForegroundEvents) == 0 {
		return CannotCheck("the report has no wait events")
	}
	for _, kind := range []string{"cr", "current"} {
		if v, ok := r.GlobalCache.GCReceiveMS(kind); ok {
			s := fmt.Sprintf("Workload Characteristics: avg global cache %s block receive time %s ms", kind, awrNum(v))
			if v > 1 {
				s += " (above 1 ms)"
			}
			evs = append(evs, s)
		}
	}
	if r.GlobalCache == nil {
	} else if v, ok := r.GlobalCache.Load["Estd Interconnect traffic (KB)"]; ok {
		evs = append(evs, fmt.Sprintf("Global Cache Load Profile: estimated interconnect traffic %s KB/s", awrNum(v)))
	}
	if len(over) == 0 {
		if len(fine) == 0 {
			return Passed("no global cache event at %d %% of DB time or more", gcPct).Reading(append([]string{awrEventsRead(r)}, evs...)...)
		}
		return Passed("global cache within the norms: %s", strings.Join(fine, ", ")).Reading(append(append([]string{}, fine...), evs...)...)
	}
	// 2-way transfers fast while blocks wait busy: the interconnect ships
	// quickly, the time is at the block's holder.
	fast2 := ""
	if kinds["busy"] && !kinds["block2"] && !kinds["block3"] && !kinds["congested"] && !kinds["lost"] {
		for _, name := range []string{"gc cr block 2-way", "gc current block 2-way"} {
			if e, ok := r.Event(name); ok {
				if avg, ok := awrAvgMS(e); ok && avg <= gcLimits["block2"] {
					fast2 += fmt.Sprintf("%s %s ms; ", name, awrNum(avg))
				}
			}
		}
	}
	if _, pe, ok := awrParam(r, "cluster_interconnects"); ok {
		evs = append(evs, pe)
	}
	os, osEv := awrOS(in, r)
	if osEv != "" {
		evs = append(evs, osEv)
	}
	fix := Fix{Runtime: []string{
		"dbhost bench net --test udp_rr --connect <the other node's interconnect address> (on it: dbhost bench net --serve): 000's model of cache fusion, 300-byte requests and 8 KB replies",
	}, Persistent: []string{}}
	given, none := awrHost(in)
	var hostEv []string
	switch {
	case given && os != OSAIX:
		if n := awrHostNote(in, r); n != "" {
			hostEv = append(hostEv, n)
		}
		hostEv = append(hostEv, racNICs(in, r, &fix)...)
	case os == OSAIX:
		hostEv = append(hostEv, "the AIX host's interconnect adapter: its MTU (lsattr -El entX), EtherChannel and the no udp_sendspace/udp_recvspace")
	default:
		hostEv = append(hostEv, none+" the interconnect NIC: its MTU, bond, UDP socket buffers and the NUMA node of its card and interrupts")
	}
	cur := "global cache waits above their norms: " + strings.Join(over, "; ")
	why := "Cache fusion ships blocks between the instances over the interconnect: a slow 2-way or 3-way transfer, a congested " +
		"or lost block is time the network (or the instance serving the block) adds to each remote access. 000 models this " +
		"traffic with netperf's UDP_RR (300-byte requests, 8 KB replies) and tuned its network with MTU 9000, a 4-port " +
		"802.3ad bond (xmit_hash_policy layer3+4) and 16 MB socket buffers."
	if fast2 != "" {
		cur += "; the 2-way transfers themselves are fast (" + strings.TrimSuffix(fast2, "; ") + ")"
		why += " Here the 2-way transfers are fast, so the busy time is spent at the block's holder (hot blocks, a log flush " +
			"before the block is shipped) more than on the wire: check the interconnect, then the segments behind the busy waits."
	}
	sev := SevWarning
	return Found(Finding{
		Severity:    sev,
		Setting:     "RAC interconnect (cache fusion)",
		Current:     cur,
		Recommended: "global cache transfers within their norms: the interconnect measured with UDP request/response, MTU 9000 end to end, a bond hashing layer3+4, UDP buffers of 16 MB, its interrupts on its card's NUMA node",
		Evidence:    strings.Join(append(evs, hostEv...), "; "),
		Why:         why,
		Fix:         fix,
		Risk:        "An MTU change must be made on both nodes and the switch at once (a mismatch drops the large cache fusion datagrams: lost blocks); the interconnect carries the cluster's heartbeat.",
	})
}

// racNICs names the interconnect NICs of the host with the settings 000
// tunes, and adds their fixes; when the NIC is unknown it says so.
func racNICs(in *Input, r *artifacts.AWRReport, fix *Fix) []string {
	ifs := in.Snap.Network.Interfaces
	byName := map[string]snapshot.Interface{}
	for _, i := range ifs {
		byName[i.Name] = i
	}
	var ips []net.IP
	if v, _, ok := awrParam(r, "cluster_interconnects"); ok {
		for _, f := range strings.FieldsFunc(oraUnquote(v), func(c rune) bool { return c == ':' || c == ',' || c == ' ' }) {
			if ip := net.ParseIP(strings.TrimSpace(f)); ip != nil {
				ips = append(ips, ip)
			}
		}
	}
	_, haip, _ := net.ParseCIDR("169.254.0.0/16")
	var names []string
	how := ""
	for _, i := range ifs {
		for _, a := range i.IPv4 {
			ip, _, err := net.ParseCIDR(a)
			if err != nil {
				ip = net.ParseIP(a)
			}
			if ip == nil {
				continue
			}
			match := false
			for _, want := range ips {
				if want.Equal(ip) {
					match, how = true, "cluster_interconnects"
				}
			}
			if len(ips) == 0 && haip.Contains(ip) {
				match, how = true, "its 169.254 HAIP address"
			}
			if match {
				names = append(names, i.Name)
				break
			}
		}
	}
	if len(names) == 0 {
		return []string{"which NIC of this host is the interconnect is unknown (no cluster_interconnects in the report, no 169.254 HAIP address read: IPv4 addresses are read live only): " +
			"check its MTU (9000), bond, UDP buffers and the NUMA node of its interrupts (network.jumbo-frames, network.bond-xmit-hash-policy, network.socket-buffers, numa.cpu-irq-imbalance)"}
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		i := byName[n]
		s := fmt.Sprintf("interconnect NIC %s (by %s)", n, how)
		if i.Master != "" {
			s += fmt.Sprintf(", a slave of %s", i.Master)
			if m, ok := byName[i.Master]; ok {
				i = m
			}
		}
		if i.MTU != nil {
			s += fmt.Sprintf(", MTU %d", *i.MTU)
			if *i.MTU < 9000 {
				s += " (000: 9000)"
				fix.Persistent = append(fix.Persistent, fmt.Sprintf("MTU 9000 on %s and the other nodes' interconnect and the switch ports (network.jumbo-frames): ip link set dev %s mtu 9000", i.Name, sh(i.Name)))
			}
		}
		if i.Bond != nil {
			s += fmt.Sprintf(", bond mode %s, xmit_hash_policy %s, slaves %s", i.Bond.Mode, i.Bond.XmitHashPolicy, strings.Join(i.Bond.Slaves, ","))
		}
		if i.NUMANode != nil {
			s += fmt.Sprintf(", card on NUMA node %d (its interrupts belong there: numa.cpu-irq-imbalance)", *i.NUMANode)
		}
		out = append(out, s)
	}
	for _, k := range []string{"net.core.rmem_max", "net.core.wmem_max"} {
		if v, why := in.SysctlInt(k); why == "" {
			s := fmt.Sprintf("this host: %s = %d", k, v)
			if v < 16<<20 {
				s += " (000: 16 MB, network.socket-buffers)"
			}
			out = append(out, s)
		}
	}
	return out
}
