package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.cpu-irq-imbalance: one NUMA node much busier than the others, and/or
// the network interrupts all served on one node (000 Scenario 3: a single
// Oracle listener on the NIC of node 0 kept node 0 at 99.8 % while the others
// were near 50 %). CPU time and interrupt counts are cumulative since boot, so
// this sees a lasting imbalance, not a momentary one.
func init() {
	Register(Rule{
		ID:       "numa.cpu-irq-imbalance",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "One NUMA node carries the CPU load or the network interrupts",
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 3: Multiple Oracle Listener Processes",
				Quote: "NUMA node 0 ends up not only processing more Oracle requests, it also processes the bulk of the system interrupts"},
			{Doc: Seed000, Section: "Table 11. Detailed CPU usage by NUMA node.",
				Quote: "0\t84.54%\t8.47%\t6.98%\t0.01%"},
			{Doc: Seed000, Section: "Optimizing network performance — Test environment",
				Quote: "each with an interrupt assigned to a CPU in the same NUMA node as the NIC"},
			{Doc: Seed000, Section: "Scenario 3: Multiple Oracle Listener Processes",
				Quote: "Associating each listener with a different physical network interface"},
			{Doc: Seed000, Section: "Table 12. Oracle recommendation summary.",
				Quote: "Multi-Listener\tON\tON\tON\t25%\t80%"},
		},
		Scope: Scope{
			Kernels:    "any; /proc/stat and /proc/interrupts are cumulative since boot",
			DBVersions: "000: Oracle 12c with one listener; the IRQ part applies to any network-bound database",
			Note:       "a host idle most of the time since boot dilutes the CPU part; the interrupt part is not diluted",
		},
		Thresholds: []string{"a node is hot at 60 % busy since boot and 1.5 times the others' average", "NIC interrupts are on one node when it serves 80 % of them", "fewer than 10000 NIC interrupts since boot are too few to judge"},
		Check:      checkCPUIRQImbalance,
	})
}

const (
	hotNodeBusy     = 0.60  // busiest node at least this busy since boot
	hotNodeRatio    = 1.5   // and this many times the others' average
	nicIRQShare     = 0.80  // share of NIC interrupts on one node
	nicIRQMinEvents = 10000 // below this, too few interrupts to judge
)

func checkCPUIRQImbalance(in *Input) Outcome {
	s := in.Snap
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	nodeOf := NodeOfCPU(s)
	cpuNodes := map[int]bool{}
	for _, n := range nodeOf {
		cpuNodes[n] = true
	}
	if len(cpuNodes) < 2 {
		return NotApplicable("%d NUMA node(s) with CPUs: nothing to balance", len(cpuNodes))
	}
	var fs []Finding
	var checked []string
	if len(s.CPULoad.PerCPU) > 0 {
		if f, ok, what := cpuImbalance(s, nodeOf); ok {
			fs = append(fs, f)
		} else {
			checked = append(checked, what)
		}
	}
	if f, ok, what := nicIRQImbalance(s); ok {
		fs = append(fs, f)
	} else if what != "" {
		checked = append(checked, what)
	}
	fs = append(fs, nicIRQRemote(s, nodeOf)...)
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(checked) == 0:
		return CannotCheck("%s", in.Reason("cpu_load", "no per-CPU times and no NIC interrupts in the snapshot"))
	}
	return Passed("%s", strings.Join(checked, "; ")).Reading(strings.Join(checked, "; ") + " (/proc/stat, /proc/interrupts)")
}

// cpuImbalance compares per-node busy time since boot.
func cpuImbalance(s *snapshot.Snapshot, nodeOf map[int]int) (Finding, bool, string) {
	busy, total := map[int]float64{}, map[int]float64{}
	for _, c := range s.CPULoad.PerCPU {
		n, ok := nodeOf[c.CPU]
		if !ok || c.CPU < 0 {
			continue
		}
		idle := float64(c.Idle + c.IOWait)
		all := float64(c.User+c.Nice+c.System+c.IRQ+c.SoftIRQ+c.Steal) + idle
		busy[n] += all - idle
		total[n] += all
	}
	nodes := sortedKeys(total)
	if len(nodes) < 2 {
		return Finding{}, false, "per-CPU times cover fewer than 2 nodes"
	}
	pct := map[int]float64{}
	hot := nodes[0]
	for _, n := range nodes {
		if total[n] > 0 {
			pct[n] = busy[n] / total[n]
		}
		if pct[n] > pct[hot] {
			hot = n
		}
	}
	var others float64
	for _, n := range nodes {
		if n != hot {
			others += pct[n]
		}
	}
	others /= float64(len(nodes) - 1)
	var parts []string
	for _, n := range nodes {
		parts = append(parts, fmt.Sprintf("node%d %.1f %%", n, 100*pct[n]))
	}
	per := strings.Join(parts, ", ")
	if pct[hot] < hotNodeBusy || pct[hot] < hotNodeRatio*others {
		return Finding{}, false, "CPU busy since boot " + per
	}
	return Finding{
		Setting:     fmt.Sprintf("numa:node%d CPU load", hot),
		Current:     fmt.Sprintf("node %d %.1f %% busy, other nodes %.1f %% on average (since boot)", hot, 100*pct[hot], 100*others),
		Recommended: "load spread over the nodes: one listener (or connection pool) per node, each on a NIC whose interrupts stay on its own node, instances bound per node",
		Evidence:    "/proc/stat per-CPU time since boot, by node: " + per,
		Why: "000 Scenario 3: a single Oracle listener on the NIC of node 0 kept node 0 at 99.84 % busy while the other seven " +
			"nodes were near 50 %; one listener per node, each on its own NIC and subnet, added 25 % TPM (Table 12).",
		Fix: Fix{Runtime: []string{}, Persistent: []string{
			"listener.ora: one listener per NUMA node, each on an interface (and subnet) whose IRQs are on that node; " +
				"start each with numactl --cpunodebind=N; spread clients over them (tnsnames ADDRESS_LIST with LOAD_BALANCE=on)",
		}},
		Risk: "A since-boot average can hide or exaggerate a momentary imbalance: confirm with mpstat -N ALL or sar -P ALL under load.",
	}, true, ""
}

// nicIRQImbalance checks where the interrupts of the physical NICs were served.
func nicIRQImbalance(s *snapshot.Snapshot) (Finding, bool, string) {
	tally := NICIRQsPerNode(s)
	perNode, total, nics := tally.PerNode, tally.Total, tally.NICs
	if len(nics) == 0 {
		return Finding{}, false, ""
	}
	if total < nicIRQMinEvents {
		return Finding{}, false, fmt.Sprintf("%d NIC interrupts since boot: too few to judge", total)
	}
	nodes := sortedKeys(perNode)
	hot := nodes[0]
	var parts []string
	for _, n := range nodes {
		if perNode[n] > perNode[hot] {
			hot = n
		}
		parts = append(parts, fmt.Sprintf("node%d %d", n, perNode[n]))
	}
	share := float64(perNode[hot]) / float64(total)
	per := strings.Join(parts, ", ")
	if share < nicIRQShare {
		return Finding{}, false, fmt.Sprintf("NIC interrupts spread over nodes (%s)", per)
	}
	irqbalance := "unknown"
	if r := s.IRQs.IrqbalanceRunning; r != nil {
		irqbalance = map[bool]string{true: "running", false: "not running"}[*r]
	}
	// 000 keeps a card's interrupts on its own socket ("each with an interrupt
	// assigned to a CPU in the same NUMA node as the NIC") and cures the hot
	// node with a NIC and a listener per node (Scenario 3). Moving one NIC's
	// queues to other nodes only makes nicIRQRemote fire on the next audit,
	// and irqbalance already keeps them on the NIC's node: neither is the fix.
	var where []string
	for _, ifc := range s.Network.Interfaces {
		if ifc.Kind == "physical" && ifc.NUMANode != nil && len(ifc.IRQs) > 0 {
			where = append(where, fmt.Sprintf("%s on node %d", ifc.Name, *ifc.NUMANode))
		}
	}
	local := ""
	if len(where) > 0 {
		local = "; NIC nodes (device/numa_node): " + strings.Join(where, ", ")
	}
	return Finding{
		Setting:     "irq:" + strings.Join(nics, ",") + " affinity",
		Current:     fmt.Sprintf("%.0f %% of the interrupts of %s served on node %d", 100*share, strings.Join(nics, ", "), hot),
		Recommended: "a NIC on each node, each NIC's interrupts kept on its own node, and one listener per node bound to that node's NIC",
		Evidence: fmt.Sprintf("/proc/interrupts, IRQs %s of %s, by node since boot: %s; irqbalance %s%s",
			List(tally.IRQs), strings.Join(nics, ", "), per, irqbalance, local),
		Why: "000 Scenario 3: with the NIC's interrupts all on node 0, node 0 spent 6.98 % of its time in interrupts (others " +
			"about 0.6 %) and the scheduler pulled the work toward it: node 0 at 99.84 % busy, the rest near 50 %. 000 kept " +
			"each NIC's interrupts on the NIC's own node and added a NIC, an IP address and a listener per node (+25 % TPM, Table 12).",
		Fix: Fix{
			Runtime: []string{},
			Persistent: []string{
				"cable and address a NIC on each NUMA node (its own IP address and subnet), leaving each NIC's queue interrupts on its own node",
				"Oracle: one listener per node on that node's NIC, started with numactl --cpunodebind=N; clients spread over them (tnsnames ADDRESS_LIST with LOAD_BALANCE=on) (000 Scenario 3)",
			},
		},
		Risk: "Do not spread one NIC's queues over remote nodes (or let irqbalance do it): every packet's data would cross the interconnect, and this rule would then report the NIC's interrupts served off its node.",
	}, true, ""
}

// nicIRQRemote finds NICs whose interrupts are served mostly on a node other
// than the NIC's own (device/numa_node): every packet's data crosses the
// interconnect to the CPU that handles it.
func nicIRQRemote(s *snapshot.Snapshot, nodeOf map[int]int) []Finding {
	byNum := map[string]snapshot.IRQ{}
	for _, q := range s.IRQs.IRQs {
		byNum[q.IRQ] = q
	}
	var out []Finding
	for _, ifc := range s.Network.Interfaces {
		if ifc.Kind != "physical" || ifc.NUMANode == nil || len(ifc.IRQs) == 0 {
			continue
		}
		perNode := map[int]uint64{}
		var total uint64
		for _, num := range ifc.IRQs {
			q, ok := byNum[strconv.Itoa(num)]
			if !ok {
				continue
			}
			for i, c := range q.Counts {
				if i < len(s.IRQs.CPUs) {
					if n, ok := nodeOf[s.IRQs.CPUs[i]]; ok {
						perNode[n] += c
						total += c
					}
				}
			}
		}
		if total < nicIRQMinEvents {
			continue
		}
		own := *ifc.NUMANode
		remote := total - perNode[own]
		if float64(remote) < nicIRQShare*float64(total) {
			continue
		}
		var parts []string
		for _, n := range sortedKeys(perNode) {
			parts = append(parts, fmt.Sprintf("node%d %d", n, perNode[n]))
		}
		cpus := ""
		for _, nd := range s.Topology.Nodes {
			if nd.ID == own {
				cpus = List(nd.CPUs)
			}
		}
		out = append(out, Finding{
			Setting:     "irq:" + ifc.Name + " affinity",
			Current:     fmt.Sprintf("%.0f %% of %s's interrupts served off its node %d", 100*float64(remote)/float64(total), ifc.Name, own),
			Recommended: fmt.Sprintf("%s's queue interrupts on the CPUs of node %d (%s)", ifc.Name, own, cpus),
			Evidence: fmt.Sprintf("/sys/class/net/%s/device/numa_node = %d; /proc/interrupts IRQs %s by node since boot: %s",
				ifc.Name, own, List(ifc.IRQs), strings.Join(parts, ", ")),
			Why: "000 Scenario 3: the node that serves a NIC's interrupts draws the work (node 0 at 99.84 % busy, 6.98 % in " +
				"interrupts); serving them on another node than the NIC's adds an interconnect hop to every packet.",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("for q in %s; do echo %s > /proc/irq/$q/smp_affinity_list; done", strings.Join(intStrings(ifc.IRQs), " "), sh(cpus))},
				Persistent: []string{"a boot unit (or udev rule) writing the CPUs of the NIC's node to smp_affinity_list per queue"},
			},
			Risk: "Pinning all queues of a busy NIC to one node concentrates softirq work there; spread them over that node's CPUs.",
		})
	}
	return out
}

func intStrings(a []int) []string {
	out := make([]string, len(a))
	for i, n := range a {
		out[i] = strconv.Itoa(n)
	}
	return out
}

func sortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
