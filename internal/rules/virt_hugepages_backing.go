package rules

import (
	"fmt"
	"strings"
)

// virt.hugepages-backing: the host keeps a hugepage pool but a guest's
// memory is not backed by it (<memoryBacking><hugepages/> missing): 003
// "Memory Tuning – huge pages in Virtual Machines".
func init() {
	Register(Rule{
		ID:       "virt.hugepages-backing",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest's memory is not backed by the host's hugepages",
		Sources: []Source{
			{Doc: Seed003, Section: "Memory Tuning – huge pages in Virtual Machines",
				Quote: "The effect of hugepages are more pronounced with multiple Vms"},
			{Doc: Seed003, Section: "Quick Overview – KVM Architecture",
				Quote: "Guests inherit features from the kernel"},
			{Doc: Seed003, Section: "Virt Tuning – Tuning Transparent Huge Pages",
				Quote: "Comparison between THP and huge pages on host"},
			{Doc: libvirtDocs + "#memory-backing", Section: "Memory Backing — hugepages, page size and nodeset"},
		},
		Scope: Scope{
			Kernels: "KVM hosts with a hugetlbfs pool (vm.nr_hugepages or per-node nr_hugepages); libvirt 0.7.5+ (<hugepages/>), 1.2.5+ (<page size>)",
			Note:    "judged only when the host keeps a pool: a pool nobody uses is memory.hugepages-pool-oversized's finding",
		},
		Pending: PendingRestart,
		Check:   checkVirtHugepagesBacking,
	})
}

func checkVirtHugepagesBacking(in *Input) Outcome {
	ds, skip := in.hostGuests(false)
	if skip != nil {
		return *skip
	}
	if why := AbsentReason(in.Snap, "memory.hugepages"); why != "" {
		return CannotCheck("%s", why)
	}
	var pool []string
	for _, h := range in.Snap.Memory.Hugepages {
		if h.Total > 0 {
			pool = append(pool, fmt.Sprintf("%d × %s (%d free)", h.Total, KB(h.SizeKB), h.Free))
		}
	}
	if len(pool) == 0 {
		return Passed("the host keeps no hugepage pool (/sys/kernel/mm/hugepages): no guest can be backed by one").
			Reading(fmt.Sprintf("/sys/kernel/mm/hugepages: %d pool size(s), none with pages", len(in.Snap.Memory.Hugepages)))
	}
	var bad, cur, names []string
	for _, d := range ds {
		if d.MemoryBacking != nil && d.MemoryBacking.Hugepages {
			continue
		}
		mem := "memory unknown"
		if d.MemoryKB != nil {
			mem = KB(*d.MemoryKB)
		}
		bad = append(bad, d.Name)
		names = append(names, d.Name)
		cur = append(cur, fmt.Sprintf("%s: %s in 4 KiB pages (no <memoryBacking><hugepages/>)", domLabel(d), mem))
	}
	if len(bad) == 0 {
		return Passed("%d guest(s) backed by the host's hugepages (pool %s)", len(ds), strings.Join(pool, ", ")).
			Reading("/sys/kernel/mm/hugepages: "+strings.Join(pool, ", "), domainsRead(ds, "<memoryBacking><hugepages/> in each"))
	}
	return Found(Finding{
		Setting:     "domains " + strings.Join(bad, ", ") + ": <memoryBacking><hugepages/>",
		Current:     strings.Join(cur, "; "),
		Recommended: "<memoryBacking><hugepages/></memoryBacking> in each database guest, the host pool per node sized to the guests (virt.hugepages-pool-short)",
		Evidence:    fmt.Sprintf("host hugepage pool %s; %s", strings.Join(pool, ", "), strings.Join(cur, "; ")),
		Why: "003: guests inherit huge pages from the host kernel, and the gain of hugepages is larger with several VMs than with one " +
			"(OLTP in 1 and 4 VMs); huge pages on the host beat THP for guests. A guest in 4 KiB pages pays two-level page walks on " +
			"every TLB miss, while the host's pool sits unused.",
		Fix:  guestsFix(names, "<memoryBacking><hugepages/></memoryBacking>"),
		Risk: "A guest backed by hugepages does not start when the pool (on its nodes, with <numatune> strict) is short; hugepage memory is not swapped, ballooned or merged by KSM. The guest must be restarted.",
	})
}
