package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.scsi-host-can-queue: 004's HBA rule of thumb, "nb_cmd_elems = (sum of
// qdepth) / nb HBA": an adapter's command queue must hold what the disks
// behind it may have in flight. On Linux the adapter's queue is
// /sys/class/scsi_host/hostN/can_queue and each device's
// /sys/block/sdX/device/queue_depth: when the depths of the devices on one
// adapter add up to more than its can_queue, the adapter is the limit and
// the commands above it wait in the SCSI midlayer (host busy), however deep
// each device's queue. dbhost does not lower device depths for this (which
// device's I/O matters is the DBA's call) and io.scsi-queue-depth never
// raises a device past its adapter's share.
func init() {
	Register(Rule{
		ID:       "io.scsi-host-can-queue",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "A SCSI host adapter's queue (can_queue) is smaller than its devices' queue depths added up",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "Rule of thumb: nb_cmd_elems= (sum of qdepth) / nb HBA"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "This queue has the same role for the HBS as the qdepth for the disk"},
		},
		Scope: Scope{Kernels: "all (can_queue in /sys/class/scsi_host since 2.6)", Distros: "all",
			Note: "the sum is the worst case, every device's queue full at once; an adapter's can_queue is set by its driver " +
				"(module options such as lpfc's lpfc_hba_queue_depth) or firmware"},
		Check: checkSCSIHostCanQueue,
	})
}

func checkSCSIHostCanQueue(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	hosts := in.Snap.Storage.SCSIHosts
	if len(hosts) == 0 {
		if r := AbsentReason(in.Snap, "storage.scsi_hosts"); r != "" {
			return CannotCheck("%s", r)
		}
		return NotApplicable("no SCSI host adapter (/sys/class/scsi_host is empty)")
	}
	byHost := map[int][]*snapshot.BlockDevice{}
	var unknownDepth []string
	for i := range v.devs {
		d := &v.devs[i]
		if d.SCSIHost == nil {
			continue
		}
		if d.QueueDepth == nil {
			unknownDepth = append(unknownDepth, in.devReason(d.Name, "queue_depth"))
			continue
		}
		byHost[*d.SCSIHost] = append(byHost[*d.SCSIHost], d)
	}
	var fs []Finding
	var ok, cannot []string
	sort.Slice(hosts, func(i, j int) bool { return hosts[i].Host < hosts[j].Host })
	for _, h := range hosts {
		devs := byHost[h.Host]
		if len(devs) == 0 {
			continue
		}
		name := fmt.Sprintf("host%d", h.Host)
		if h.Driver != "" {
			name += " (" + h.Driver + ")"
		}
		if h.CanQueue == nil {
			cannot = append(cannot, in.Reason(fmt.Sprintf("storage.scsi_hosts[host%d].can_queue", h.Host), "not in the snapshot"))
			continue
		}
		sum := int64(0)
		var parts []string
		for _, d := range devs {
			sum += *d.QueueDepth
			parts = append(parts, fmt.Sprintf("%s %d", d.Name, *d.QueueDepth))
		}
		cq := *h.CanQueue
		if sum <= cq {
			ok = append(ok, fmt.Sprintf("%s: %d devices, queue depths %d ≤ can_queue %d", name, len(devs), sum, cq))
			continue
		}
		share := cq / int64(len(devs))
		list := strings.Join(parts, ", ")
		if len(parts) > 8 {
			list = strings.Join(parts[:8], ", ") + fmt.Sprintf(" and %d more", len(parts)-8)
		}
		p := fmt.Sprintf("/sys/class/scsi_host/host%d/can_queue", h.Host)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     fmt.Sprintf("%d (its %d devices' queue_depth add up to %d)", cq, len(devs), sum),
			Recommended: fmt.Sprintf("≥ %d, or the devices' queue_depth lowered to about %d each", sum, share),
			Evidence:    fmt.Sprintf("%s = %d, %s; queue_depth: %s", p, cq, name, list),
			Why: fmt.Sprintf("004: an adapter's queue has \"the same role for the HBS as the qdepth for the disk\" and should hold the "+
				"sum of its disks' queue depths (nb_cmd_elems = sum of qdepth / nb HBA). Here %s takes %d commands while its devices "+
				"may queue %d: under load the adapter, not the devices, is the limit, and commands above %d wait in the SCSI midlayer "+
				"with no benefit from the deeper device queues. With several adapters carrying the same LUNs (multipath), each "+
				"carries its own paths' depths.", name, cq, sum, cq),
			Fix: Fix{
				Runtime: []string{fmt.Sprintf("echo %d > /sys/block/<dev>/device/queue_depth   (for the devices on host%d whose I/O matters least)", share, h.Host)},
				Persistent: []string{"raise the adapter's queue where its driver allows it (a module option such as lpfc's lpfc_hba_queue_depth, " +
					"or the HBA's firmware settings); else a udev rule setting the lower queue_depth"},
			},
			Pending: PendingManual,
			Risk: "The sum is the worst case, every device's queue full at once; with a few busy LUNs among many idle ones the adapter " +
				"is rarely full. Lowering device depths caps each LUN's parallelism; a larger adapter queue needs the array port to absorb it.",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(ok) > 0:
		return Passed("%s", strings.Join(append(ok, cannot...), "; ")).Reading("/sys/class/scsi_host/*/can_queue, /sys/block/*/device/queue_depth: " + strings.Join(ok, "; "))
	case len(cannot) > 0 || len(unknownDepth) > 0:
		return CannotCheck("%s", strings.Join(append(cannot, unknownDepth...), "; "))
	}
	return NotApplicable("no block device hangs off a SCSI host adapter in the snapshot")
}
