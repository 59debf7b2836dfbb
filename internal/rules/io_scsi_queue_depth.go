package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
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

func checkSCSIQueueDepth(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var fdevs []string // device of each finding
	var ok, cannot []string
	var wants []change.Change
	for i := range v.devs {
		d := &v.devs[i]
		if d.Kind != "disk" || strings.EqualFold(strings.TrimSpace(d.Vendor), "ATA") {
			continue
		}
		class := v.deviceClass(d)
		if class != "path" && class != "ssd" {
			continue // a local rotational disk: its spindle, not the queue, is the limit
		}
		if d.QueueDepth == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "queue_depth")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		wants = append(wants, blockChange(v, d, "device/queue_depth", fmt.Sprint(wantQueueDepth), fmt.Sprint(*d.QueueDepth), "io.scsi-queue-depth", "more parallel I/O to a large LUN or SSD"))
		if *d.QueueDepth >= wantQueueDepth {
			ok = append(ok, fmt.Sprintf("%s %d", d.Name, *d.QueueDepth))
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
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     fmt.Sprint(*d.QueueDepth),
			Recommended: fmt.Sprint(wantQueueDepth),
			Evidence:    ev,
			Why: "000: queue_depth \"controls how many I/Os can be issued (in progress) to a device ... For large LUNs with many underlying " +
				"disk spindles or for low latency devices like SSD, increasing the queue_depth parameter can allow more parallel activity\"; " +
				"128 is in the Table 8 configuration (+8 % throughput, -5 % latency).",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("echo %d > %s", wantQueueDepth, p)},
				Persistent: []string{udevLine(v, d, "device/queue_depth", fmt.Sprint(wantQueueDepth))},
			},
			Changes: []change.Change{wants[len(wants)-1]},
			Risk: "The array port and HBA must absorb paths × LUNs × queue_depth commands (004: size HBA num_cmd_elems to the sum); " +
				"over-subscription gives QUEUE FULL / TASK SET FULL and higher latency. Follow the array vendor's limit.",
		})
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no SAN path or non-SATA SCSI SSD"), fmt.Sprintf("queue_depth ≥ %d", wantQueueDepth)).Wanting(wants...)
}
