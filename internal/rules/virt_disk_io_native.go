package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// virt.disk-io-native: a guest disk with cache='none' submits its I/O from
// QEMU's thread pool (io='threads', the default) instead of Linux native
// asynchronous I/O (io='native', or io_uring on QEMU 5.0+).
func init() {
	Register(Rule{
		ID:       "virt.disk-io-native",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest's uncached disk does not use native asynchronous I/O (io is not native)",
		Sources: []Source{
			{Doc: Seed003, Section: "I/O Tuning – File Systems",
				Quote: "Eliminate synchronous I/O stall"},
			{Doc: Seed003, Section: "I/O Tuning – File Systems",
				Quote: "Critical for I/O intensive applications"},
			{Doc: Seed003, Section: "Virtualization Tuning – Caching",
				Quote: "I/O from the guest is not cached on the host"},
			{Doc: libvirtDocs + "#hard-drives-floppy-disks-cdroms",
				Section: "Hard drives, floppy disks, CDROMs — driver io (threads, native, io_uring since libvirt 6.3)"},
		},
		Scope: Scope{
			Kernels: "KVM/QEMU hosts managed by libvirt; io='native' needs cache='none' or 'directsync' (O_DIRECT)",
			Note:    "disks with cache none or directsync only (virt.disk-cache reports the others); io_uring is accepted as native asynchronous I/O",
		},
		Pending: PendingRestart,
		Check:   checkVirtDiskIONative,
	})
}

func checkVirtDiskIONative(in *Input) Outcome {
	ds, skip := in.guests()
	if skip != nil {
		return *skip
	}
	bad, checked := badDisks(ds, func(_ *snapshot.Domain, k snapshot.GuestDisk) (bool, string) {
		if k.Cache != "none" && k.Cache != "directsync" {
			return false, ""
		}
		switch k.IO {
		case "native", "io_uring":
			return true, ""
		case "":
			return true, "cache=" + k.Cache + ", no io attribute (QEMU's default: threads)"
		}
		return true, "cache=" + k.Cache + ", io=" + k.IO
	})
	var out []Finding
	for _, g := range bad {
		d := g.d
		out = append(out, Finding{
			Setting:     fmt.Sprintf("domain %s: <disk><driver io=...> of %s", d.Name, strings.Join(g.targets, ", ")),
			Current:     g.current(),
			Recommended: "io='native' with cache='none'",
			Evidence:    fmt.Sprintf("domain %s: %s", domLabel(d), g.current()),
			Why: "003: asynchronous I/O eliminates synchronous I/O stalls and is critical for I/O-intensive applications. With " +
				"io='threads' QEMU turns each guest request into a blocking call on one of its worker threads; io='native' submits it " +
				"with Linux AIO from the I/O thread, with fewer context switches and threads per outstanding I/O.",
			Fix:  guestsFix([]string{d.Name}, "<driver name='qemu' type='raw' cache='none' io='native'/> in each of these disks"),
			Risk: "On a sparse or non-preallocated image file io='native' can block when the file grows: preallocate the image (or use a block device). The guest must be restarted.",
		})
	}
	if len(out) > 0 {
		return Found(out...)
	}
	if checked == 0 {
		return NotApplicable("no data disk with cache none or directsync in %d guest(s) (virt.disk-cache)", len(ds))
	}
	return Passed("%d uncached disk(s): io native or io_uring", checked).Reading(domainsRead(ds, fmt.Sprintf("%d uncached disk(s) with <driver io='native'> or 'io_uring'", checked)))
}
