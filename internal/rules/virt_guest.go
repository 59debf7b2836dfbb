package rules

import "fmt"

// virt.guest: the audit runs inside a virtual machine. Says what of the
// catalog applies inside the guest and what has to be tuned on the host (003
// "Database on RHEV" / KVM slides), so a guest audit is not mistaken for a
// host audit.
func init() {
	Register(Rule{
		ID:       "virt.guest",
		Area:     AreaVirt,
		Severity: SevInfo,
		Title:    "This host is a virtual machine: part of the tuning belongs to the hypervisor host",
		Sources: []Source{
			{Doc: Seed003, Section: "Quick Overview – KVM Architecture",
				Quote: "Guests inherit features from the kernel"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "Inherits From/Notes\t\t\tthroughput-performance\tthroughput-performance"},
			{Doc: Seed003, Section: "Virtualization Tuning – Caching",
				Quote: "I/O from the guest is not cached on the host"},
			{Doc: Seed003, Section: "Memory Tuning – huge pages in Virtual Machines",
				Quote: "The effect of hugepages are more pronounced with multiple Vms"},
		},
		Scope: Scope{
			Kernels: "KVM/RHEV in 003; the split holds for VMware, Hyper-V, Xen and PowerVM guests",
			Note:    "C-states, CPU governor, BIOS NUMA and host hugepage backing are the host's; sysctls, I/O scheduler, DB hugepages and THP are the guest's",
		},
		Check: checkGuest,
	})
}

func checkGuest(in *Input) Outcome {
	v := in.Snap.Host.Virt
	if !v.Guest {
		if why := AbsentReason(in.Snap, "host.virt"); why != "" && v.DMIVendor == "" {
			return CannotCheck("%s", why)
		}
		return Passed("not a guest: no hypervisor CPU flag, DMI vendor %q", v.DMIVendor).
			Reading(fmt.Sprintf("/proc/cpuinfo flags without hypervisor; /sys/class/dmi/id/sys_vendor %q", v.DMIVendor))
	}
	typ := v.Type
	if typ == "" {
		typ = "unknown hypervisor"
	}
	profile := "none"
	if p := in.Snap.Config.Tuned.ActiveProfile; p != nil {
		profile = *p
	}
	return Found(Finding{
		Setting:     "virtualization",
		Current:     fmt.Sprintf("%s guest; tuned profile %s", typ, profile),
		Recommended: "tuned virtual-guest in the guest; host: virtual-host, vCPU and memory pinned to host nodes, guest memory in host hugepages, disks cache=none",
		Evidence:    fmt.Sprintf("%s (/proc/cpuinfo, /sys/class/dmi/id)", v.Evidence),
		Why: "003: guests run as host processes and inherit NUMA and huge pages from the host kernel; hugepages matter more with " +
			"several VMs; cache=none keeps guest I/O out of the host page cache (writethrough can make the host swap). Inside " +
			"this guest dbhost still checks what the guest kernel owns: sysctls (swappiness, dirty ratios, numa_balancing), THP, " +
			"the database's hugepages and limits, I/O schedulers and queues, and NUMA when the guest has vNUMA cells. Not " +
			"applicable here, the host's: C-states (cpu.deep-cstates-latency), the governor (cpu.governor-not-performance), " +
			"intel_pstate and energy bias (cpu.intel-pstate-min-perf, cpu.energy-perf-bias), SMT (cpu.smt-off); the guest's " +
			"definition (disk cache and io, virtio, vhost, hugepage backing, vCPU and memory pinning) is judged on the host with " +
			"dbhost audit --libvirt (the virt.* rules).",
		Fix: Fix{
			Runtime:    []string{"tuned-adm profile virtual-guest"},
			Persistent: []string{"on the hypervisor host: tuned-adm profile virtual-host; libvirt <numatune>/<vcpupin> and <memoryBacking><hugepages/>; <driver cache='none'/> for database disks"},
		},
		Risk: "None in the guest; host changes affect every VM on it.",
	})
}
