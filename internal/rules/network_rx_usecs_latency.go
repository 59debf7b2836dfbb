package rules

import (
	"fmt"
	"strings"
)

// network.rx-usecs-latency: interrupt coalescing delays each receive
// interrupt; 000 sets ixgbe rx-usecs 0 (Table 5, one of "the largest impact"
// tunables, and Table 13) for latency-sensitive request/response traffic.
func init() {
	Register(Rule{
		ID:       "network.rx-usecs-latency",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "Receive interrupt coalescing delays packets on a latency workload",
		Sources: []Source{
			{Doc: Seed000, Section: "ixgbe driver rx-usecs",
				Quote: "ethtool -C <interface> rx-usecs 0"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "ixgbe rx_usecs\t0"},
		},
		Scope: Scope{Kernels: "all (ethtool -C)", Distros: "all",
			Note: "read live only (ETHTOOL_GCOALESCE): --root, --sosreport and saved snapshots without it cannot be checked"},
		Workloads: []string{WorkloadLatency},
		Check:     checkRxUsecs,
	})
}

func checkRxUsecs(in *Input) Outcome {
	if why := in.netAbsent(); why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var ok, cannot []string
	for _, it := range in.Snap.Network.Interfaces {
		if it.Kind != "physical" || it.OperState == "down" {
			continue
		}
		c := it.Coalesce
		if c == nil {
			r := AbsentReason(in.Snap, "network.interfaces["+it.Name+"].coalesce")
			if r == "" {
				r = fmt.Sprintf("%s: interrupt coalescing is read on the live host only (ETHTOOL_GCOALESCE); this snapshot's source is %q", it.Name, in.Snap.Source.Kind)
			}
			cannot = append(cannot, r)
			continue
		}
		if c.RxUsecs == 0 && !c.AdaptiveRx {
			ok = append(ok, it.Name)
			continue
		}
		cur := fmt.Sprintf("rx-usecs %d", c.RxUsecs)
		if c.AdaptiveRx {
			cur += ", adaptive-rx on"
		}
		fs = append(fs, Finding{
			Setting:     "ethtool -c " + it.Name + " rx-usecs",
			Current:     cur,
			Recommended: "rx-usecs 0, adaptive-rx off",
			Evidence:    fmt.Sprintf("ETHTOOL_GCOALESCE %s: rx-usecs %d, rx-frames %d, adaptive-rx %v (driver %s)", it.Name, c.RxUsecs, c.RxFrames, c.AdaptiveRx, it.Driver),
			Why: "000: the driver's interrupt throttling adds a delay \"in hopes that more packets can be processed within a single interrupt " +
				"event ... This added delay can impact latency-sensitive applications\"; rx-usecs 0 is one of Table 5's largest-impact settings " +
				"(single UDP_RR 7610 → 14191 TPS, +86 %, with the rest of the configuration).",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("ethtool -C %s adaptive-rx off rx-usecs 0", sh(it.Name))},
				Persistent: append([]string{}, NMCLIModify(in.Snap, it.Name, "ethtool.coalesce-adaptive-rx off ethtool.coalesce-rx-usecs 0", "   (NetworkManager ≥ 1.26)")...),
				Edits:      IfcfgEdits(in.Snap, it.Name, fmt.Sprintf("ETHTOOL_OPTS=\"-C %s adaptive-rx off rx-usecs 0\"", it.Name)),
			},
			Risk: "One interrupt per packet: more CPU in softirq at high packet rates; throughput workloads may lose. Keep it to latency-bound links.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(ok) == 0 && len(cannot) > 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	if len(ok) == 0 {
		return NotApplicable("no physical NIC up")
	}
	return Passed("no receive coalescing on %s", strings.Join(ok, ", ")).Reading("ethtool -c (ETHTOOL_GCOALESCE): rx-usecs 0, adaptive-rx off on " + strings.Join(ok, ", "))
}
