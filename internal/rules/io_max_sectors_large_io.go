package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// io.max-sectors-large-io: 000's other max_sectors_kb branch. Where large
// I/O is performed (a DSS workload: full scans, 000's FIO Oracle profile
// reads 1 MB at a time), raising max_sectors_kb from the 512 KB default to
// 1024 (or 2048) sends each large request as one physical I/O instead of
// two. This is for devices that are not one path among several: a
// multipath LUN's large I/O is split over its paths instead
// (io.max-sectors-multipath). The value is 1 MB, the large I/O of 000's
// profile, within what the device takes (max_hw_sectors_kb).
func init() {
	Register(Rule{
		ID:       "io.max-sectors-large-io",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "max_sectors_kb splits the 1 MB scan I/O of a DSS workload in two",
		Sources: []Source{
			{Doc: Seed000, Section: "max_sectors_kb",
				Quote: "In some environments where large I/O is performed, increasing the parameter to 1024 or even 2048 can reduce the number of physical I/Os"},
			{Doc: Seed000, Section: "max_sectors_kb",
				Quote: "The default value is 512 KB."},
			{Doc: Seed000, Section: "I/O simulation",
				Quote: "perform 1MB sequential reads using libaio, similar to full table scans"},
		},
		Scope: Scope{Kernels: "all; Linux 4.x and later default to 1280 KB where the device allows it, older kernels to 512 KB",
			Distros: "all",
			Note:    "whole disks and NVMe namespaces that are not a multipath path; an LVM or dm device on one keeps the limit it had when its table was loaded"},
		Workloads: []string{WorkloadDSS},
		Check:     checkMaxSectorsLargeIO,
	})
}

const largeIOWhy = "one physical I/O per 1 MB scan request (000 max_sectors_kb)"

func checkMaxSectorsLargeIO(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var fdevs, ok, cannot []string
	var wants []change.Change
	for i := range v.devs {
		d := &v.devs[i]
		if d.Kind != "disk" && d.Kind != "nvme" || v.isPath(d.Name) {
			continue
		}
		if d.MaxSectorsKB == nil || d.MaxHWSectorsKB == nil {
			cannot = append(cannot, in.devReason(d.Name, "max_sectors_kb"))
			continue
		}
		cur, hw := *d.MaxSectorsKB, *d.MaxHWSectorsKB
		if cur >= largeIOKB {
			ok = append(ok, fmt.Sprintf("%s %d KB", d.Name, cur))
			if cur == largeIOKB {
				wants = append(wants, blockChange(v, d, "queue/max_sectors_kb", fmt.Sprint(largeIOKB), fmt.Sprint(cur), "io.max-sectors-large-io", largeIOWhy))
			}
			continue
		}
		if hw < largeIOKB {
			ok = append(ok, fmt.Sprintf("%s %d KB (its max_hw_sectors_kb %d is the limit)", d.Name, cur, hw))
			continue
		}
		p := sysBlock(d.Name, "queue/max_sectors_kb")
		c := blockChange(v, d, "queue/max_sectors_kb", fmt.Sprint(largeIOKB), fmt.Sprint(cur), "io.max-sectors-large-io", largeIOWhy)
		wants = append(wants, c)
		ev := fmt.Sprintf("%s = %d, max_hw_sectors_kb %d (%s, class %s)", p, cur, hw, describeDev(d), v.deviceClass(d))
		risk := "Larger requests hold the device longer: a single-block read queued behind a 1 MB one waits more. Measure scan " +
			"throughput and single-block latency before and after (dbhost experiment)."
		var dms []string
		for _, h := range d.Holders {
			if hd := v.byName[h]; hd != nil && hd.Kind == "dm" {
				dms = append(dms, h)
			}
		}
		if len(dms) > 0 {
			ev += "; held by " + strings.Join(dms, ", ")
			risk += " " + strings.Join(dms, ", ") + " keep the limit they had when their table was loaded: the udev rule takes effect " +
				"for them at the next activation (reboot, or vgchange -an/-ay in a window)."
		}
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     fmt.Sprint(cur),
			Recommended: fmt.Sprintf("%d (000: 1024 or even 2048 for large I/O; the device takes up to %d)", largeIOKB, hw),
			Evidence:    ev,
			Why: "000: \"where large I/O is performed, increasing the parameter to 1024 or even 2048 can reduce the number of physical " +
				"I/Os, which can be a benefit if the number of I/Os or interrupts are impacting performance\". A DSS workload's full scans " +
				"issue 1 MB reads (000's I/O simulation: parallel query tasks reading 1 MB sequentially, \"similar to full table scans\"); at " + fmt.Sprint(cur) + " KB each goes out as several I/Os.",
			Fix: Fix{
				Runtime:    []string{echoTo(fmt.Sprint(largeIOKB), p)},
				Persistent: []string{},
				Edits:      []FileEdit{udevEdit(v, d, "queue/max_sectors_kb", fmt.Sprint(largeIOKB))},
			},
			Changes: []change.Change{c},
			Risk:    risk,
		})
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no whole disk or NVMe namespace outside multipath"),
		fmt.Sprintf("max_sectors_kb ≥ %d or at the device's limit", largeIOKB), "/sys/block/*/queue/max_sectors_kb").Wanting(wants...)
}
