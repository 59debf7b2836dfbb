package rules

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.storage-irq-off-node: an FC HBA whose interrupts are served on
// another NUMA node than the one the card is installed on (000, I/O
// interrupts: "the I/O interrupts should be processed on the same socket
// or blade where the I/O card is installed"). The placement judged is the
// one in force now (each vector's effective affinity, else its
// smp_affinity_list), so that a fix followed by a new audit is quiet; the
// counts since boot are evidence only. Vectors the kernel spreads itself
// (managed interrupts: NVMe, and the multi-queue FC drivers, one vector per
// group of CPUs covering every CPU, each completing the I/O its CPUs
// submitted) cannot be moved (writing their smp_affinity fails) and are
// what the kernel means them to be: they are reported, never a finding.
func init() {
	Register(Rule{
		ID:       "numa.storage-irq-off-node",
		Area:     AreaNUMA,
		Severity: SevWarning,
		Title:    "An FC HBA's interrupts are served off the card's NUMA node",
		Sources: []Source{
			{Doc: Seed000, Section: "I/O interrupts",
				Quote: "For best results, the I/O interrupts should be processed on the same socket or blade where the I/O card is installed."},
			{Doc: Seed000, Section: "I/O interrupts",
				Quote: "For the HP QMH2672 FC card, the irqbalance daemon provides appropriate interrupt assignments."},
		},
		Scope: Scope{
			Kernels: "any with /proc/irq/N/smp_affinity_list (2.6.29+); effective_affinity_list from 4.13",
			Note:    "FC HBAs (class 0x0c04, or a function with an fc_host); NVMe and other managed vectors are placed by the kernel and only reported",
		},
		Thresholds: []string{"fewer than 10000 interrupts since boot on the off-node vectors are too few to matter"},
		Description: `For each FC HBA port with a known NUMA node on a multi-node host: the CPUs each of its
interrupt vectors is delivered to now. Vectors with no CPU of the card's node mean every
completion crosses the interconnect. 000 lets irqbalance place the QMH2672's interrupts;
dbhost prints the smp_affinity_list commands for the card's node as the runtime fix.`,
		Check: checkStorageIRQ,
	})
}

const storageIRQMinEvents = 10000

func checkStorageIRQ(in *Input) Outcome {
	s := in.Snap
	nodeOf := NodeOfCPU(s)
	cpuNodes := map[int][]int{}
	for c, n := range nodeOf {
		cpuNodes[n] = append(cpuNodes[n], c)
	}
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if len(cpuNodes) < 2 {
		return NotApplicable("%d NUMA node(s) with CPUs: every interrupt is on the card's node", len(cpuNodes))
	}
	if r := AbsentReason(s, "pci_devices"); r != "" && !strings.HasPrefix(r, "pci_devices[") && !strings.HasPrefix(r, "pci_devices.link") {
		return CannotCheck("%s", r)
	}
	var cards []snapshot.PCIDevice
	for _, d := range s.PCIDevices {
		if d.Kind == "fc" || len(d.FCHosts) > 0 || d.Kind == "nvme" {
			cards = append(cards, d)
		}
	}
	if len(cards) == 0 {
		return NotApplicable("no FC HBA or NVMe controller on a PCI bus")
	}
	if r := AbsentReason(s, "irqs"); r != "" && len(s.IRQs.IRQs) == 0 {
		return CannotCheck("%s", r)
	}
	byNum := map[string]snapshot.IRQ{}
	for _, q := range s.IRQs.IRQs {
		byNum[q.IRQ] = q
	}
	online := slices.Clone(s.Topology.CPUsOnline)
	slices.Sort(online)
	var fs []Finding
	var checked, unknown []string
	for _, d := range cards {
		name := d.Address + " (" + pciWhat(d) + ")"
		if d.NUMANode == nil {
			unknown = append(unknown, name+": node unknown (numa_node -1 or unread)")
			continue
		}
		node := *d.NUMANode
		var vecs []snapshot.IRQ
		for _, n := range d.IRQs {
			if q, ok := byNum[strconv.Itoa(n)]; ok {
				vecs = append(vecs, q)
			}
		}
		if len(vecs) == 0 {
			unknown = append(unknown, name+": none of its vectors in /proc/interrupts")
			continue
		}
		if d.Kind == "nvme" {
			checked = append(checked, fmt.Sprintf("%s on node %d: %d vectors, one per queue, each serving the CPUs that submit on its queue (the nvme driver's; managed by the kernel on current kernels, not movable)", name, node, len(vecs)))
			continue
		}
		if managedSpread(vecs, online) {
			checked = append(checked, fmt.Sprintf("%s on node %d: %d vectors spread by the kernel over every CPU (managed: each completes the I/O its CPUs submit; not movable)", name, node, len(vecs)))
			continue
		}
		local := cpuNodes[node]
		if len(local) == 0 {
			unknown = append(unknown, fmt.Sprintf("%s: node %d has no CPUs", name, node))
			continue
		}
		var off []int
		var offCount uint64
		var placed []string
		for _, q := range vecs {
			where := q.EffectiveAffinity
			if len(where) == 0 {
				where = q.Affinity
			}
			if len(where) == 0 {
				continue
			}
			placed = append(placed, q.IRQ+"→"+List(where))
			if !slices.ContainsFunc(where, func(c int) bool { n, ok := nodeOf[c]; return ok && n == node }) {
				n, _ := strconv.Atoi(q.IRQ)
				off = append(off, n)
				offCount += q.Total
			}
		}
		if len(placed) == 0 {
			unknown = append(unknown, name+": no affinity read for its vectors")
			continue
		}
		if len(off) == 0 || offCount < storageIRQMinEvents {
			checked = append(checked, fmt.Sprintf("%s on node %d: vectors on CPUs %s", name, node, strings.Join(placed, ", ")))
			continue
		}
		fs = append(fs, storageIRQFinding(s, d, name, node, local, off, offCount, placed, nodeOf))
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(checked) == 0 {
		return CannotCheck("pci_devices: no FC HBA or NVMe controller could be judged: %s", strings.Join(unknown, "; "))
	}
	msg := strings.Join(checked, "; ")
	if len(unknown) > 0 {
		msg += "; not judged: " + strings.Join(unknown, "; ")
	}
	return Passed("%s", msg).Reading("/proc/irq/N/smp_affinity_list of each vector, the card's numa_node: " + strings.Join(checked, "; "))
}

// managedSpread reports vectors laid out as the kernel spreads managed
// interrupts (irq_create_affinity_masks): apart from vectors allowed on
// every CPU (a driver's admin or default vector), at least two, on
// disjoint CPU sets that together cover every online CPU.
func managedSpread(vecs []snapshot.IRQ, online []int) bool {
	if len(online) == 0 {
		return false
	}
	seen := map[int]bool{}
	spread := 0
	for _, q := range vecs {
		a := q.Affinity
		if len(a) == 0 {
			return false
		}
		if len(a) >= len(online) {
			continue
		}
		spread++
		for _, c := range a {
			if seen[c] {
				return false
			}
			seen[c] = true
		}
	}
	if spread < 2 {
		return false
	}
	for _, c := range online {
		if !seen[c] {
			return false
		}
	}
	return true
}

func storageIRQFinding(s *snapshot.Snapshot, d snapshot.PCIDevice, name string, node int, local, off []int, offCount uint64,
	placed []string, nodeOf map[int]int) Finding {
	slices.Sort(local)
	perNode := map[int]uint64{}
	for _, n := range d.IRQs {
		for _, q := range s.IRQs.IRQs {
			if q.IRQ != strconv.Itoa(n) {
				continue
			}
			for i, c := range q.Counts {
				if i < len(s.IRQs.CPUs) {
					if nd, ok := nodeOf[s.IRQs.CPUs[i]]; ok {
						perNode[nd] += c
					}
				}
			}
		}
	}
	var counts []string
	for _, n := range sortedKeys(perNode) {
		counts = append(counts, fmt.Sprintf("node%d %d", n, perNode[n]))
	}
	irqbalance, advice := "unknown", "000 lets irqbalance place the QMH2672's interrupts: if it runs, see why it placed these off the card's node (IRQBALANCE_BANNED_CPUS, --banirq, a policy script in /etc/sysconfig/irqbalance)"
	if r := s.IRQs.IrqbalanceRunning; r != nil && *r {
		irqbalance = "running"
	} else if r != nil {
		irqbalance = "not running"
		advice = "000: \"For the HP QMH2672 FC card, the irqbalance daemon provides appropriate interrupt assignments\": systemctl enable --now irqbalance (it places a device's interrupts on its node), or keep the pinning below in a boot unit"
	}
	return Finding{
		Setting:     "irq:" + d.Address + " affinity",
		Current:     fmt.Sprintf("%s on node %d: vectors %s served on CPUs of other nodes", name, node, List(off)),
		Recommended: fmt.Sprintf("its interrupts on the CPUs of node %d (%s)", node, List(local)),
		Evidence: fmt.Sprintf("/sys/bus/pci/devices/%s/numa_node = %d; /proc/irq/N effective (else smp_affinity_list) CPUs: %s; %d interrupts since boot on the off-node vectors, the card's by node: %s; irqbalance %s",
			d.Address, node, strings.Join(placed, ", "), offCount, strings.Join(counts, ", "), irqbalance),
		Why: "000 (I/O interrupts): the interrupts of an I/O card are best processed on the socket or blade it is installed in; " +
			"served elsewhere, every completion's data and the card's registers are reached through the interconnect.",
		Fix: Fix{
			Runtime:    []string{fmt.Sprintf("for q in %s; do echo %s > /proc/irq/$q/smp_affinity_list; done", strings.Join(intStrings(off), " "), sh(List(local)))},
			Persistent: []string{advice},
		},
		Pending: PendingManual,
		Risk:    "irqbalance, when it runs, may move a pinned interrupt again unless told to leave it (--banirq); a managed vector refuses the write (EIO) and is the kernel's to place.",
	}
}
