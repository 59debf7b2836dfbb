package rules

import (
	"fmt"
	"strings"
)

// virt.host-ksm-thp-scan: on a host of database guests whose memory is not
// overcommitted, ksmd merges pages (and khugepaged scans guest memory that
// hugepages already back) for nothing: 003 "Virt Tuning – Kernel Samepage
// Merging (KSM)" keeps KSM for Windows guests and memory oversubscription.
func init() {
	Register(Rule{
		ID:       "virt.host-ksm-thp-scan",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "KSM (or THP scanning) runs on a host of database guests whose memory is not overcommitted",
		Sources: []Source{
			{Doc: Seed003, Section: "Virt Tuning – Kernel Samepage Merging (KSM)",
				Quote: "KSM and THP scan"},
			{Doc: Seed003, Section: "Virt Tuning – Kernel Samepage Merging (KSM)",
				Quote: "Oversubscribing memory on the host"},
			{Doc: Seed003, Section: "Virt Tuning – Kernel Samepage Merging (KSM)",
				Quote: "Running Windows Virtual Machines on RHEV"},
			{Doc: Seed003, Section: "Virt Tuning – Tuning Transparent Huge Pages",
				Quote: "Comparison between THP and huge pages on host"},
			{Doc: "https://docs.kernel.org/admin-guide/mm/ksm.html", Section: "Kernel Samepage Merging — KSM daemon sysfs interface (run, pages_sharing)"},
		},
		Scope: Scope{
			Kernels: "KVM hosts with CONFIG_KSM (RHEL 6+: ksm and ksmtuned services)",
			Note:    "overcommit: the guests' <memory> together above the host's MemTotal; every defined guest counted. THP is judged only when every guest is backed by hugepages (then khugepaged has nothing of theirs to collapse)",
		},
		Check: checkVirtKSMTHP,
	})
}

func checkVirtKSMTHP(in *Input) Outcome {
	ds, skip := in.guests()
	if skip != nil {
		return *skip
	}
	if in.Snap.Libvirt == nil {
		return NotApplicable("the guests were given as --artifact files: KSM and THP are judged on the hypervisor host itself (dbhost audit --libvirt there)")
	}
	total, ok := in.Snap.Memory.Meminfo["MemTotal"]
	if !ok {
		return CannotCheck("%s", in.Reason("memory.meminfo", "no MemTotal in the snapshot"))
	}
	var guestKB int64
	allHuge := true
	for _, d := range ds {
		if d.MemoryKB == nil {
			return CannotCheck("domain %s has no <memory>: the guests' memory cannot be added up", domLabel(d))
		}
		guestKB += *d.MemoryKB
		if d.MemoryBacking == nil || !d.MemoryBacking.Hugepages {
			allHuge = false
		}
	}
	if guestKB > total {
		return Passed("the %d guest(s) have %s together, more than the host's %s: memory is overcommitted, KSM may be wanted (003)", len(ds), KB(guestKB), KB(total)).
			Reading(domainsRead(ds, "<memory> "+KB(guestKB)+" together"), "/proc/meminfo MemTotal "+KB(total))
	}
	k := in.Snap.Libvirt.KSM
	var cur, fix []string
	var why []string
	if k == nil || k.Run == nil {
		if r := AbsentReason(in.Snap, "libvirt.ksm"); r != "" && !KernelLacks(in.Snap, "libvirt.ksm") {
			return CannotCheck("%s", r)
		}
	} else if *k.Run == 1 {
		sharing := ""
		if k.PagesSharing != nil {
			sharing = fmt.Sprintf(", %d pages sharing", *k.PagesSharing)
		}
		cur = append(cur, fmt.Sprintf("/sys/kernel/mm/ksm/run = 1 (ksmd merging%s)", sharing))
		fix = append(fix, "systemctl disable --now ksmtuned ksm; echo 2 > /sys/kernel/mm/ksm/run (unmerge what ksmd shared)")
		why = append(why, "003 keeps KSM for Windows guests and for oversubscribing host memory; its ksmd (and THP's khugepaged) scans cost host CPU (KSM and THP scan)")
	}
	thp := in.Snap.Memory.THP.Enabled
	if allHuge && thp != nil && *thp == "always" {
		cur = append(cur, "THP enabled = always while every guest is backed by hugepages (khugepaged scans for nothing)")
		fix = append(fix, echoTo("madvise", in.Snap.Memory.THP.Dir+"/enabled")+" (tuned: [vm] transparent_hugepages=madvise)")
		why = append(why, "003 compared THP with huge pages on the host for 4 VMs: with the guests in hugepages THP's scanning has nothing of theirs to collapse")
	}
	if len(cur) == 0 {
		return Passed("no KSM merging and no idle THP scanning; the %d guest(s) have %s of the host's %s", len(ds), KB(guestKB), KB(total)).
			Reading(domainsRead(ds, "<memory> "+KB(guestKB)+" together"), "/proc/meminfo MemTotal "+KB(total), ksmRead(in))
	}
	return Found(Finding{
		Setting:     "host: KSM (/sys/kernel/mm/ksm/run) and THP scanning",
		Current:     strings.Join(cur, "; "),
		Recommended: "KSM off (ksm and ksmtuned services stopped) when the guests' memory fits the host; THP madvise when hugepages back every guest",
		Evidence:    fmt.Sprintf("%d guest(s) with %s of memory together on a host of %s (no overcommit); %s", len(ds), KB(guestKB), KB(total), strings.Join(cur, "; ")),
		Why:         strings.Join(why, "; ") + ". Merged guest pages are also copied back on write, a latency spike inside the database.",
		Fix:         Fix{Runtime: fix, Persistent: []string{"systemctl disable ksm ksmtuned"}},
		Risk:        "Without KSM the host needs the guests' full memory: adding guests later may overcommit it (then KSM, or fewer guests). Pages already merged are only unmerged with run = 2.",
	})
}

// ksmRead names the host's KSM and THP settings as read.
func ksmRead(in *Input) string {
	ev := "/sys/kernel/mm/ksm/run unknown"
	if k := in.Snap.Libvirt.KSM; k != nil && k.Run != nil {
		ev = fmt.Sprintf("/sys/kernel/mm/ksm/run = %d", *k.Run)
	} else if KernelLacks(in.Snap, "libvirt.ksm") {
		ev = "no /sys/kernel/mm/ksm on this kernel"
	}
	if t := in.Snap.Memory.THP.Enabled; t != nil {
		ev += "; transparent_hugepage/enabled = " + *t
	}
	return ev
}
