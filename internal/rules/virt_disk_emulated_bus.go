package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// virt.disk-emulated-bus: a guest's data disk sits on an emulated
// controller (IDE, SATA/AHCI, USB, or a SCSI bus whose controllers are
// emulated LSI or similar) instead of virtio-blk or virtio-scsi.
func init() {
	Register(Rule{
		ID:       "virt.disk-emulated-bus",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest's disk is on an emulated bus (IDE, SATA) instead of virtio",
		Sources: []Source{
			{Doc: Seed003, Section: "Quick Overview – KVM Architecture",
				Quote: "Guests run as a process in userspace on the host"},
			{Doc: Seed003, Section: "Virtualization Tuning – Network",
				Quote: "VirtIO drivers for network"},
			{Doc: libvirtDocs + "#hard-drives-floppy-disks-cdroms",
				Section: "Hard drives, floppy disks, CDROMs — target bus (ide, scsi, virtio, xen, usb, sata, sd)"},
			{Doc: libvirtDocs + "#controllers",
				Section: "Controllers — scsi controller model (virtio-scsi, lsilogic, lsisas1068, ...)"},
		},
		Scope: Scope{
			Kernels: "KVM/QEMU guests with virtio drivers (Linux 2.6.25+; Windows with the virtio-win drivers)",
			Note:    "data disks and LUNs; a CD-ROM on SATA or IDE is fine. 003 shows the paravirtual (virtio) path for the network; the same holds for disks",
		},
		Pending: PendingRestart,
		Check:   checkVirtDiskBus,
	})
}

// emulatedSCSI: the guest's SCSI controllers are all emulated HBAs (a
// definition without a scsi controller element gets libvirt's choice).
func emulatedSCSI(d *snapshot.Domain) string {
	var models []string
	for _, c := range d.Controllers {
		if c.Type != "scsi" {
			continue
		}
		if c.Model == "virtio-scsi" || c.Model == "virtio-transitional" || c.Model == "virtio-non-transitional" || c.Model == "" {
			return ""
		}
		models = append(models, c.Model)
	}
	return strings.Join(models, ", ")
}

func checkVirtDiskBus(in *Input) Outcome {
	ds, skip := in.guests()
	if skip != nil {
		return *skip
	}
	bad, checked := badDisks(ds, func(d *snapshot.Domain, k snapshot.GuestDisk) (bool, string) {
		switch k.Bus {
		case "ide", "sata", "usb", "fdc", "sd":
			return true, "bus=" + k.Bus + " (emulated)"
		case "scsi":
			if m := emulatedSCSI(d); m != "" {
				return true, "bus=scsi on an emulated " + m + " controller"
			}
		}
		return true, ""
	})
	var out []Finding
	for _, g := range bad {
		d := g.d
		out = append(out, Finding{
			Setting:     fmt.Sprintf("domain %s: <target bus=...> of %s", d.Name, strings.Join(g.targets, ", ")),
			Current:     g.current(),
			Recommended: "bus='virtio' (virtio-blk), or bus='scsi' on a <controller type='scsi' model='virtio-scsi'/> (many LUNs, SCSI passthrough)",
			Evidence:    fmt.Sprintf("domain %s (machine %s): %s", domLabel(d), d.OS.Machine, g.current()),
			Why: "003: a guest runs as a process on the host, so an emulated controller is software in QEMU that traps on every register " +
				"access of the guest's driver; the paravirtual (virtio) drivers 003 recommends for the network exist for disks too and pass " +
				"whole request rings with one notification.",
			Fix:  guestsFix([]string{d.Name}, "<target dev='vdX' bus='virtio'/> on each data disk (or bus='scsi' with <controller type='scsi' model='virtio-scsi'/>)"),
			Risk: "The guest needs virtio drivers in its initramfs before the boot disk moves (Linux: virtio_blk/virtio_scsi; Windows: virtio-win); device names change (sdX/hdX become vdX): mount by UUID or label, and re-point ASM disk strings or udev rules.",
		})
	}
	if len(out) > 0 {
		return Found(out...)
	}
	if checked == 0 {
		return NotApplicable("no data disk in the %d guest(s)' definitions", len(ds))
	}
	return Passed("%d data disk(s) of %d guest(s) on virtio-blk or virtio-scsi", checked, len(ds)).
		Reading(domainsRead(ds, fmt.Sprintf("%d data disk(s) with <target bus='virtio'> or on virtio-scsi", checked)))
}
