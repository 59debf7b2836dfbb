package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// io.nr-requests: 000 raised nr_requests from 128 to 1024 for the Oracle FIO
// profile on a 16-path all-SSD array (Table 8/13).
func init() {
	Register(Rule{
		ID:       "io.nr-requests",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "Request queue (nr_requests) smaller than the 1024 used for database I/O",
		Sources: []Source{
			{Doc: Seed000, Section: "nr_requests",
				Quote: "Increasing the nr_requests value allows for more active I/O request."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "queue/nr_requests\t1024"},
		},
		Scope: Scope{
			Kernels: "all; on blk-mq with scheduler none nr_requests is the hardware tag depth and cannot be raised, with mq-deadline/kyber/bfq it can (up to 2048)",
			Distros: "all",
			Note:    "SAN LUNs and SAS/SCSI devices carrying database I/O (not SATA disks: NCQ depth 32); a dm-multipath device and its paths are set alike",
		},
		Check: checkNrRequests,
	})
}

const wantNrRequests = 1024

func checkNrRequests(in *Input) Outcome {
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
		class := v.deviceClass(d)
		switch class {
		case "multipath", "path", "ssd", "rotational":
		default:
			continue // NVMe (hardware queues), bio-based dm/md, virtio
		}
		if strings.EqualFold(strings.TrimSpace(d.Vendor), "ATA") {
			continue // a SATA disk: NCQ holds 32 commands, a deeper software queue only adds latency
		}
		if d.Scheduler != nil && (*d.Scheduler == "none" || *d.Scheduler == "noop") && blkMQ(d) {
			continue // the tag depth: not a software queue to enlarge
		}
		if d.NrRequests == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "nr_requests")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		wants = append(wants, blockChange(v, d, "queue/nr_requests", fmt.Sprint(wantNrRequests), fmt.Sprint(*d.NrRequests), "io.nr-requests", "more requests in flight before tasks wait for a free one"))
		if *d.NrRequests >= wantNrRequests {
			ok = append(ok, fmt.Sprintf("%s %d", d.Name, *d.NrRequests))
			continue
		}
		p := sysBlock(d.Name, "queue/nr_requests")
		ev := fmt.Sprintf("%s = %d (%s, class %s)", p, *d.NrRequests, describeDev(d), class)
		if d.QueueDepth != nil {
			ev += fmt.Sprintf("; device/queue_depth = %d", *d.QueueDepth)
		}
		if h := v.pathOf[d.Name]; h != "" {
			ev += "; path of multipath device " + h
		}
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     fmt.Sprint(*d.NrRequests),
			Recommended: fmt.Sprint(wantNrRequests),
			Evidence:    ev,
			Why: "000: \"If all of the device requests are in use ... a task must wait for a free request in order to initiate the I/O\"; " +
				"1024 was part of the Table 8 configuration that gave the Oracle FIO profile +8 % throughput and -5 % latency.",
			Fix: Fix{
				Runtime:    []string{echoTo(fmt.Sprint(wantNrRequests), p)},
				Persistent: []string{},
				Edits: []FileEdit{func() FileEdit {
					e := udevEdit(v, d, "queue/nr_requests", fmt.Sprint(wantNrRequests))
					e.Edit += " after the scheduler assignment (changing the scheduler resets nr_requests)"
					return e
				}()},
			},
			Changes: []change.Change{wants[len(wants)-1]},
			Risk:    "More queued requests raise the worst-case queueing latency under saturation; no reboot needed.",
		})
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no SCSI/SAN device with a software request queue"), fmt.Sprintf("nr_requests ≥ %d", wantNrRequests), "/sys/block/*/queue/nr_requests").Wanting(wants...)
}
