package rules

import (
	"fmt"
	"strings"
)

// virt.vcpu-numa-pinning: a guest's vCPUs float over the whole host, or
// are pinned to CPUs of several host nodes while <numatune> is absent, or
// its memory is bound to nodes other than its vCPUs' (remote memory: the
// 2x of seed 001).
func init() {
	Register(Rule{
		ID:       "virt.vcpu-numa-pinning",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest's vCPUs are not pinned to the host nodes that hold its memory",
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – NUMA",
				Quote: "for KVM guests – CPU pinning"},
			{Doc: Seed003, Section: "Quick Overview – KVM Architecture",
				Quote: "The Linux scheduler is responsible for scheduling a virtual CPU, as it is a normal thread"},
			{Doc: Seed003, Section: "Virt Tuning – Using NUMA",
				Quote: "4 Virtual Machines running OLTP workload"},
			{Doc: Seed001, Section: "Measure the impact of remote versus local NUMA node access thanks to processor_group_name — Conclusion",
				Quote: "My tests show 2.15 times less logical reads per second with my farest remote access"},
			{Doc: libvirtDocs + "#cpu-tuning", Section: "CPU Tuning — vcpupin, emulatorpin"},
			{Doc: libvirtDocs + "#numa-node-tuning", Section: "NUMA Node Tuning — memory mode and nodeset"},
		},
		Scope: Scope{
			Kernels: "KVM hosts with more than one NUMA node",
			Note:    "placement='auto' (numad chooses the nodes) passes; a guest within one node without <numatune> passes (the kernel allocates where its vCPU threads run)",
		},
		Pending: PendingRestart,
		Check:   checkVirtVCPUPinning,
	})
}

func checkVirtVCPUPinning(in *Input) Outcome {
	ds, skip := in.hostGuests(true)
	if skip != nil {
		return *skip
	}
	var out []Finding
	var fine, alien []string // alien: pinned to CPUs this host lacks, not judged
	for _, d := range ds {
		if d.VCPUPlacement == "auto" || (d.NUMATune != nil && d.NUMATune.Placement == "auto") {
			fine = append(fine, d.Name+": placement auto (numad)")
			continue
		}
		cpus, how, pinned := guestCPUs(d)
		mem, memHow := guestMemNodes(d)
		if !pinned {
			cur := fmt.Sprintf("%d vCPU(s) not pinned: they may run on any of the host's %d CPUs on %d nodes", d.VCPUs, len(in.Snap.Topology.CPUsOnline), NodeCount(in.Snap))
			if how != "" {
				cur += " (only " + how + ")"
			}
			out = append(out, virtPinFinding(d.Name, domLabel(d), SevWarning, cur, memHow))
			continue
		}
		nodes, unknown := NodesOfCPUs(in.Snap, cpus)
		if len(unknown) > 0 {
			// One definition from another host must not hide what the
			// others show: it is named, the rest are judged.
			alien = append(alien, fmt.Sprintf("domain %s is pinned to CPU(s) %s, which this host does not have", domLabel(d), List(unknown)))
			continue
		}
		switch {
		case len(mem) > 0 && !subset(mem, nodes):
			cur := fmt.Sprintf("vCPUs on node(s) %s (%s: CPUs %s), memory bound to node(s) %s (%s)", List(nodes), how, List(cpus), List(mem), memHow)
			out = append(out, virtPinFinding(d.Name, domLabel(d), SevCritical, cur, memHow))
		case len(nodes) > 1 && len(mem) == 0:
			cur := fmt.Sprintf("vCPUs pinned over %d host nodes (%s: CPUs %s) and no <numatune>: memory lands wherever a vCPU first touches it", len(nodes), how, List(cpus))
			out = append(out, virtPinFinding(d.Name, domLabel(d), SevWarning, cur, memHow))
		default:
			fine = append(fine, fmt.Sprintf("%s: vCPUs on node(s) %s, memory %s", d.Name, List(nodes), orText(memHow, "first touch within them")))
		}
	}
	notJudged := ""
	if len(alien) > 0 {
		notJudged = strings.Join(alien, "; ") + ": is this the guest's host? (not judged)"
	}
	switch {
	case len(out) > 0:
		for i := range out {
			if notJudged != "" {
				out[i].Evidence += "; " + notJudged
			}
		}
		return Found(out...)
	case len(fine) == 0:
		return CannotCheck("%s", notJudged)
	case notJudged != "":
		fine = append(fine, notJudged)
	}
	return Passed("%s", strings.Join(fine, "; ")).Reading(strings.Join(fine, "; ")) // none read: the engine's could not check
}

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

func virtPinFinding(name, label, sev, cur, memHow string) Finding {
	return Finding{
		Severity:    sev,
		Setting:     fmt.Sprintf("domain %s: <cputune><vcpupin> and <numatune>", name),
		Current:     cur,
		Recommended: "each vCPU pinned (<vcpupin>) to whole cores of as few host nodes as the guest needs, <numatune><memory mode='strict' nodeset='THOSE NODES'/>, and a guest NUMA cell per host node it spans (dbhost place, engine kvm-guest, writes them)",
		Evidence:    fmt.Sprintf("domain %s: %s", label, cur),
		Why: "003: a vCPU is a host thread the Linux scheduler moves like any other; libvirt's CPU pinning keeps it on its node, and " +
			"pinned VMs ran the OLTP workload faster (4 VMs, NUMA). Memory on another node than the vCPUs is remote: 001 measured 2.15 " +
			"times fewer logical reads per second with the farthest remote access.",
		Fix:  guestsFix([]string{name}, "<cputune><vcpupin vcpu='N' cpuset='CPU'/>...</cputune> and <numatune><memory mode='strict' nodeset='NODE'/></numatune> (or virsh vcpupin/numatune --config)"),
		Risk: "A strict nodeset makes the guest fail to start (or be OOM-killed) when the nodes lack the memory; pinned guests no longer share idle CPUs of other nodes. vcpupin applies live (virsh vcpupin --live), the memory binding of a running guest only to new allocations: restart the guest.",
	}
}
