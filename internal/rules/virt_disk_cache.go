package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// virt.disk-cache: a guest's data disk is cached by the host (cache
// writethrough, writeback, unsafe, or no cache attribute: QEMU's default,
// writeback) instead of cache='none' (003 "Virtualization Tuning – Caching").
func init() {
	Register(Rule{
		ID:       "virt.disk-cache",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest's disk is cached in the host's page cache (cache is not none)",
		Sources: []Source{
			{Doc: Seed003, Section: "Virtualization Tuning – Caching",
				Quote: "I/O from the guest is not cached on the host"},
			{Doc: Seed003, Section: "Virtualization Tuning – Caching",
				Quote: "Potential scaling problems with this option with multiple guests (host CPU used to maintain cache)"},
			{Doc: Seed003, Section: "Virtualization Tuning – Caching",
				Quote: "Can lead to swapping on the host"},
			{Doc: Seed003, Section: "Virt Tuning – Effect of I/O Cache Settings",
				Quote: "Cache=WT vs Cache=none"},
			{Doc: libvirtDocs + "#hard-drives-floppy-disks-cdroms",
				Section: "Hard drives, floppy disks, CDROMs — driver cache (default, none, writethrough, writeback, directsync, unsafe)"},
		},
		Scope: Scope{
			Kernels: "KVM/QEMU hosts managed by libvirt (RHEL 6 to 9, Debian, Ubuntu, SLES)",
			Note:    "every disk or LUN of the guest that is not read-only (a database's disks are not told from the system disk); directsync (O_DIRECT + O_DSYNC) also bypasses the host cache",
		},
		Pending: PendingRestart,
		Check:   checkVirtDiskCache,
	})
}

func checkVirtDiskCache(in *Input) Outcome {
	ds, skip := in.guests()
	if skip != nil {
		return *skip
	}
	bad, checked := badDisks(ds, func(_ *snapshot.Domain, k snapshot.GuestDisk) (bool, string) {
		switch k.Cache {
		case "none", "directsync":
			return true, ""
		case "":
			return true, "no cache attribute (QEMU's default: writeback)"
		}
		return true, "cache=" + k.Cache
	})
	var out []Finding
	for _, g := range bad {
		d := g.d
		out = append(out, Finding{
			Setting:     fmt.Sprintf("domain %s: <disk><driver cache=...> of %s", d.Name, strings.Join(g.targets, ", ")),
			Current:     g.current(),
			Recommended: "cache='none' (with io='native') on every database disk",
			Evidence:    fmt.Sprintf("domain %s: %s", domLabel(d), g.current()),
			Why: "003: with cache=none the guest's I/O is not cached on the host; writethrough works on large hosts but has scaling " +
				"problems with several guests (host CPU keeps the cache) and can make the host swap (OLTP in 4 VMs, Cache=WT vs Cache=none). " +
				"The database already caches its blocks: a second copy in the host's page cache only costs memory and CPU.",
			Fix: guestsFix([]string{d.Name}, "<driver name='qemu' type='raw' cache='none' io='native'/> in each data disk's <disk>"),
			Risk: "cache=none opens the image with O_DIRECT: the file system holding it must support O_DIRECT (not tmpfs); a qcow2 image " +
				"should then be preallocated. The guest must be restarted for the definition to apply. A guest that relied on the host's " +
				"cache for reads (too small a buffer cache of its own) reads from disk until its cache is sized.",
		})
	}
	if len(out) > 0 {
		return Found(out...)
	}
	if checked == 0 {
		return NotApplicable("no data disk in the %d guest(s)' definitions", len(ds))
	}
	return Passed("%d data disk(s) of %d guest(s): cache none or directsync", checked, len(ds)).
		Reading(domainsRead(ds, fmt.Sprintf("%d data disk(s) with <driver cache='none'> or 'directsync'", checked)))
}
