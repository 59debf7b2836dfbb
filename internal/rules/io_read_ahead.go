package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// io.read-ahead: 003's throughput-performance profile sets disk read-ahead
// 4096 KB (balanced 128) and advises configuring device read-ahead for large
// data loads and sequential reads: a DSS concern.
func init() {
	Register(Rule{
		ID:       "io.read-ahead",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "Device read-ahead below the 4096 KB of the throughput profiles for DSS loads",
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "Disk Read-ahead\tKB\t128\t4096"},
			{Doc: Seed003, Section: "I/O Tuning – File Systems",
				Quote: "Configure read ahead (for sequential read operations)"},
			{Doc: Seed003, Section: "I/O Tuning – Effect of read ahead during data load",
				Quote: "Completion time for loading 30G data"},
		},
		Scope: Scope{Kernels: "all", Distros: "RHEL 7 tuned throughput-performance; blockdev --setra on any distribution",
			Note: "read-ahead is applied at the top of a device stack (the device the filesystem or database opens)"},
		Workloads: []string{WorkloadDSS},
		Check:     checkReadAhead,
	})
}

const wantReadAheadKB = 4096

func checkReadAhead(in *Input) Outcome {
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
		if len(d.Holders) > 0 || v.isPath(d.Name) {
			continue // the device stacked above it does the read-ahead
		}
		if d.ReadAheadKB == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "read_ahead_kb")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		wants = append(wants, blockChange(v, d, "queue/read_ahead_kb", fmt.Sprint(wantReadAheadKB), fmt.Sprint(*d.ReadAheadKB), "io.read-ahead", readAheadWhy))
		if *d.ReadAheadKB >= wantReadAheadKB {
			ok = append(ok, fmt.Sprintf("%s %d KB", d.Name, *d.ReadAheadKB))
			continue
		}
		p := sysBlock(d.Name, "queue/read_ahead_kb")
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     fmt.Sprintf("%d KB", *d.ReadAheadKB),
			Recommended: fmt.Sprintf("%d KB", wantReadAheadKB),
			Evidence:    fmt.Sprintf("%s = %d (%s)", p, *d.ReadAheadKB, describeDev(d)),
			Why: "003: \"Configure read ahead (for sequential read operations) ... Configure device read ahead for large data loads\"; " +
				"the throughput-performance profile raises disk read-ahead from 128 to 4096 KB (003 charts the completion time of a 30 GB DB2 9.7 load with and without it).",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("blockdev --setra %d %s", wantReadAheadKB*2, sh("/dev/"+d.Name))},
				Persistent: []string{"or tuned-adm profile throughput-performance ([disk] readahead=>4096)"},
				Edits:      []FileEdit{udevEdit(v, d, "queue/read_ahead_kb", fmt.Sprint(wantReadAheadKB))},
			},
			Changes: []change.Change{wants[len(wants)-1]},
			Risk:    "Random-read (OLTP) devices can waste bandwidth and page cache on read-ahead; apply to the DSS data devices only.",
		})
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no block device"), fmt.Sprintf("read-ahead ≥ %d KB", wantReadAheadKB), "/sys/block/*/queue/read_ahead_kb").Wanting(wants...)
}

const readAheadWhy = "larger read-ahead for sequential (DSS) scans"
