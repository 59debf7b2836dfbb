package rules

import (
	"fmt"
	"strings"
)

// virt.guest-numa-cells: a guest larger than one host node (memory or
// vCPUs) without a guest NUMA topology (<cpu><numa><cell>): the database
// inside sees one flat node and cannot place its memory near its CPUs.
func init() {
	Register(Rule{
		ID:       "virt.guest-numa-cells",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest larger than one host node has no guest NUMA topology",
		Sources: []Source{
			{Doc: Seed003, Section: "NUMA optimization",
				Quote: "NUMA required for scaling"},
			{Doc: Seed003, Section: "Quick Overview – KVM Architecture",
				Quote: "Guests inherit features from the kernel"},
			{Doc: Seed003, Section: "Memory Tuning – Autonuma",
				Quote: "Database OLTP in VMs - on 4 Socket System - 4 NUMA nodes - 64 cpus - 128G memory"},
			{Doc: libvirtDocs + "#cpu-model-and-topology", Section: "CPU model and topology — numa cell id, cpus, memory"},
		},
		Scope: Scope{
			Kernels: "KVM hosts with more than one NUMA node",
			Note:    "a guest fits a node when its <memory> is at most the largest node's MemTotal and its vCPUs at most that node's CPUs",
		},
		Pending: PendingRestart,
		Check:   checkVirtGuestNUMACells,
	})
}

func checkVirtGuestNUMACells(in *Input) Outcome {
	ds, skip := in.hostGuests(true)
	if skip != nil {
		return *skip
	}
	nodeKB, nodeCPUs, ok := largestNode(in.Snap)
	if !ok {
		return CannotCheck("%s", in.Reason("topology.nodes", "no node's MemTotal in the snapshot"))
	}
	var out []Finding
	var fine []string
	for _, d := range ds {
		var over []string
		if d.MemoryKB != nil && *d.MemoryKB > nodeKB {
			over = append(over, fmt.Sprintf("memory %s > %s (the largest host node)", KB(*d.MemoryKB), KB(nodeKB)))
		}
		if d.VCPUs > nodeCPUs {
			over = append(over, fmt.Sprintf("%d vCPUs > %d CPUs (the most of one host node)", d.VCPUs, nodeCPUs))
		}
		cells := 0
		if d.CPU != nil {
			cells = len(d.CPU.Cells)
		}
		switch {
		case len(over) == 0:
			fine = append(fine, d.Name+": fits one host node")
			continue
		case cells > 1:
			fine = append(fine, fmt.Sprintf("%s: larger than a node, %d guest NUMA cells", d.Name, cells))
			continue
		}
		cur := strings.Join(over, ", ") + fmt.Sprintf("; %d guest NUMA cell(s)", cells)
		want := int(max(ceilDiv(derefKB(d.MemoryKB), nodeKB), ceilDiv(int64(d.VCPUs), int64(max(nodeCPUs, 1))), 2))
		out = append(out, Finding{
			Setting:     fmt.Sprintf("domain %s: <cpu><numa><cell .../></numa></cpu>", d.Name),
			Current:     cur,
			Recommended: fmt.Sprintf("%d guest NUMA cells, one per host node the guest spans, each bound with <numatune><memnode cellid=... nodeset=.../>", want),
			Evidence:    fmt.Sprintf("domain %s: %s", domLabel(d), cur),
			Why: "003: on multi-socket hosts NUMA is required for scaling, and guests inherit NUMA from the host kernel only when the " +
				"guest is given a NUMA topology. Without cells the guest kernel and the database see one node: they cannot keep a " +
				"process's memory on the node of its vCPUs, and half or more of the guest's accesses are remote.",
			Fix:  guestsFix([]string{d.Name}, fmt.Sprintf("<cpu mode='host-passthrough'><numa><cell id='0' cpus='0-%d' memory='...' unit='KiB'/>...</numa></cpu> (%d cells) and <numatune><memnode cellid='0' mode='strict' nodeset='HOST NODE'/>...", d.VCPUs/want-1, want)),
			Risk: "The guest's database may need its own NUMA settings once it sees several nodes (Oracle _enable_NUMA_support, PostgreSQL/MySQL interleave, numa_balancing in the guest). The guest must be restarted.",
		})
	}
	if len(out) > 0 {
		return Found(out...)
	}
	return Passed("%s", strings.Join(fine, "; ")).Reading(strings.Join(fine, "; ")) // none read: the engine's could not check
}

func derefKB(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
