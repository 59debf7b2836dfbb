package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.scsi-queue-depth: 000 raised the SCSI queue_depth from 32 to 128 (Table
// 8/13) for large LUNs and low-latency (SSD) devices. SATA disks are left
// out: NCQ allows at most 32 commands.
func init() {
	Register(Rule{
		ID:       "io.scsi-queue-depth",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "SCSI queue_depth below the 128 used for SAN/SSD database LUNs",
		Sources: []Source{
			{Doc: Seed000, Section: "queue_depth",
				Quote: "increasing the queue_depth parameter can allow more parallel activity for the device"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "device/queue_depth\t128"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (2) – hdisk queue_depth (qdepth)",
				Quote: "INCREASE hdisk queue depth"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (3) – HBA tuning (num_cmd_elems)",
				Quote: "Rule of thumb: nb_cmd_elems= (sum of qdepth) / nb HBA"},
		},
		Scope: Scope{Kernels: "all", Distros: "all",
			Note: "SAN paths and non-ATA SSD LUNs; SATA (vendor ATA) is capped at 32 by NCQ; the HBA's can_queue and the array port's fan-in bound the sum"},
		Check: checkSCSIQueueDepth,
	})
}

const wantQueueDepth = 128

// raisesQueueDepth says whether io.scsi-queue-depth concerns d: a non-ATA
// SCSI disk that is a SAN path or an SSD.
func (v *blockView) raisesQueueDepth(d *snapshot.BlockDevice) bool {
	if d.Kind != "disk" || strings.EqualFold(strings.TrimSpace(d.Vendor), "ATA") {
		return false
	}
	class := v.deviceClass(d)
	return class == "path" || class == "ssd"
}

// queueDepthTargets are the queue_depth values io.scsi-queue-depth sets:
// 128, but never more than the device's SCSI host adapter can hold in
// flight over all its devices (its can_queue, 004's "nb_cmd_elems = (sum
// of qdepth) / nb HBA" read the other way). Per adapter: the devices it
// does not raise keep their depth; those it raises share what is left of
// can_queue, at most 128 each. A device already at or above its share is
// kept where it is (capped[name] true when that is below 128). Devices
// without a known adapter or can_queue get 128.
func (v *blockView) queueDepthTargets(s *snapshot.Snapshot) (target map[string]int64, capped map[string]bool) {
	target, capped = map[string]int64{}, map[string]bool{}
	canQueue := map[int]int64{}
	for _, h := range s.Storage.SCSIHosts {
		if h.CanQueue != nil && *h.CanQueue > 0 {
			canQueue[h.Host] = *h.CanQueue
		}
	}
	byHost := map[int][]*snapshot.BlockDevice{}
	for i := range v.devs {
		d := &v.devs[i]
		if d.QueueDepth == nil {
			continue
		}
		if d.SCSIHost != nil {
			byHost[*d.SCSIHost] = append(byHost[*d.SCSIHost], d)
		}
		if v.raisesQueueDepth(d) {
			target[d.Name] = max(*d.QueueDepth, wantQueueDepth)
		}
	}
	for h, devs := range byHost {
		cq, ok := canQueue[h]
		if !ok {
			continue
		}
		raise := map[string]bool{}
		for _, d := range devs {
			raise[d.Name] = v.raisesQueueDepth(d) && *d.QueueDepth < wantQueueDepth
		}
		share := int64(wantQueueDepth)
		for changed := true; changed; {
			changed = false
			fixed, n := int64(0), int64(0)
			for _, d := range devs {
				if raise[d.Name] {
					n++
				} else {
					fixed += *d.QueueDepth
				}
			}
			if n == 0 {
				break
			}
			share = min(int64(wantQueueDepth), (cq-fixed)/n)
			for _, d := range devs {
				if raise[d.Name] && *d.QueueDepth >= share {
					raise[d.Name], changed = false, true
					target[d.Name], capped[d.Name] = *d.QueueDepth, true
				}
			}
		}
		for _, d := range devs {
			if raise[d.Name] {
				target[d.Name], capped[d.Name] = share, share < wantQueueDepth
			}
		}
	}
	return target, capped
}

func checkSCSIQueueDepth(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	targets, capped := v.queueDepthTargets(in.Snap)
	var fs []Finding
	var fdevs []string // device of each finding
	var ok, cannot []string
	var wants []change.Change
	for i := range v.devs {
		d := &v.devs[i]
		if !v.raisesQueueDepth(d) {
			continue // a local rotational disk: its spindle, not the queue, is the limit; SATA: NCQ's 32
		}
		class := v.deviceClass(d)
		if d.QueueDepth == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "queue_depth")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		want := targets[d.Name]
		capNote := ""
		if capped[d.Name] {
			capNote = fmt.Sprintf(" (host%d's can_queue leaves no more)", *d.SCSIHost)
		}
		if want <= wantQueueDepth {
			wants = append(wants, blockChange(v, d, "device/queue_depth", fmt.Sprint(want), fmt.Sprint(*d.QueueDepth), "io.scsi-queue-depth", "more parallel I/O to a large LUN or SSD"))
		}
		if *d.QueueDepth >= want {
			ok = append(ok, fmt.Sprintf("%s %d%s", d.Name, *d.QueueDepth, capNote))
			continue
		}
		p := sysBlock(d.Name, "device/queue_depth")
		ev := fmt.Sprintf("%s = %d (%s, class %s)", p, *d.QueueDepth, describeDev(d), class)
		if h := v.pathOf[d.Name]; h != "" {
			ev += fmt.Sprintf("; one of %d paths of %s", len(v.paths(v.byName[h])), h)
		}
		if d.NrRequests != nil {
			ev += fmt.Sprintf("; queue/nr_requests = %d", *d.NrRequests)
		}
		why := "000: queue_depth \"controls how many I/Os can be issued (in progress) to a device ... For large LUNs with many underlying " +
			"disk spindles or for low latency devices like SSD, increasing the queue_depth parameter can allow more parallel activity\"; " +
			"128 is in the Table 8 configuration (+8 % throughput, -5 % latency)."
		if capped[d.Name] {
			ev += fmt.Sprintf("; SCSI host%d can_queue %s", *d.SCSIHost, hostCanQueue(in.Snap, *d.SCSIHost))
			why += fmt.Sprintf(" Raised to %d, not 128: 004's rule of thumb sizes the adapter's queue (nb_cmd_elems, can_queue on Linux) "+
				"to the sum of its devices' queue depths, and host%d's can_queue holds no more once its other devices' depths are counted.", want, *d.SCSIHost)
		}
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     fmt.Sprint(*d.QueueDepth),
			Recommended: fmt.Sprint(want) + capNote,
			Evidence:    ev,
			Why:         why,
			Fix: Fix{
				Runtime:    []string{echoTo(fmt.Sprint(want), p)},
				Persistent: []string{},
				Edits:      []FileEdit{udevEdit(v, d, "device/queue_depth", fmt.Sprint(want))},
			},
			Changes: []change.Change{wants[len(wants)-1]},
			Risk: "The array port and HBA must absorb paths × LUNs × queue_depth commands (004: size HBA num_cmd_elems to the sum); " +
				"over-subscription gives QUEUE FULL / TASK SET FULL and higher latency. Follow the array vendor's limit.",
		})
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no SAN path or non-SATA SCSI SSD"), fmt.Sprintf("queue_depth ≥ %d or its adapter's share", wantQueueDepth), "/sys/block/*/device/queue_depth").Wanting(wants...)
}

// hostCanQueue prints SCSI host h's can_queue ("1008", or why it is unknown).
func hostCanQueue(s *snapshot.Snapshot, h int) string {
	for _, sh := range s.Storage.SCSIHosts {
		if sh.Host == h && sh.CanQueue != nil {
			return fmt.Sprint(*sh.CanQueue)
		}
	}
	return "unknown"
}
