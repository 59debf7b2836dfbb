package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// io.nomerges: 000 set nomerges 1 (Table 8/13): "good for mostly random
// requests as well as synchronous or direct I/O request. For standard
// filesystems, using the default value of 0 is sufficient". So the rule looks
// at devices the database uses raw (Oracle ASM: no filesystem on them).
func init() {
	Register(Rule{
		ID:       "io.nomerges",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "Request merging on raw database devices (random/direct I/O)",
		Sources: []Source{
			{Doc: Seed000, Section: "nomerges",
				Quote: "This is good for mostly random requests as well as synchronous or direct I/O request"},
			{Doc: Seed000, Section: "nomerges",
				Quote: "For standard filesystems, using the default value of 0 is sufficient"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "queue/nomerges\t1"},
		},
		Scope: Scope{Kernels: "all (nomerges 2 = no merge attempts at all exists since 3.0)", Distros: "all",
			DBVersions: "Oracle with ASM or raw devices; filesystems keep 0",
			Note:       "a device is taken as raw when neither it, a partition of it, nor a device stacked on it is mounted"},
		Workloads: []string{WorkloadOLTP, WorkloadMixed, WorkloadLatency},
		DBs:       []string{DBOracle},
		Check:     checkNomerges,
	})
}

func checkNomerges(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	if why := AbsentReason(in.Snap, "storage.mounts"); why != "" && len(in.Snap.Storage.Mounts) == 0 {
		return CannotCheck("%s", why)
	}
	mounted, unresolved := mountedDevicesUnresolved(in.Snap, v)
	var fs []Finding
	var fdevs []string // device of each finding
	var ok, cannot, maybe []string
	var wants []change.Change
	for i := range v.devs {
		d := &v.devs[i]
		class := v.deviceClass(d)
		if class == "path" || class == "dm" || class == "md" || class == "other" || len(d.Holders) > 0 {
			continue // judged on the device above it
		}
		if _, fsOn := mounted[d.Name]; fsOn {
			continue
		}
		if len(unresolved) > 0 && class != "multipath" {
			// A mount that matches no listed device may sit on this disk
			// (LVM or partitions whose dm device is not in the snapshot).
			maybe = append(maybe, d.Name)
			continue
		}
		if d.Nomerges == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "nomerges")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		wants = append(wants, blockChange(v, d, "queue/nomerges", "1", fmt.Sprint(*d.Nomerges), "io.nomerges", "skip the merge lookup on a low-latency device"))
		if *d.Nomerges >= 1 {
			ok = append(ok, fmt.Sprintf("%s %d", d.Name, *d.Nomerges))
			continue
		}
		p := sysBlock(d.Name, "queue/nomerges")
		ev := fmt.Sprintf("%s = 0 (%s, class %s); no filesystem of /proc/mounts on it or a device above it", p, describeDev(d), class)
		if ps := v.paths(d); len(ps) > 0 {
			ev += "; paths " + devNames(ps) + " (merging happens on the multipath device)"
		}
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Setting:     p,
			Current:     "0",
			Recommended: "1",
			Evidence:    ev,
			Why: "000: nomerges 1 \"is good for mostly random requests as well as synchronous or direct I/O request\" (ASM and raw " +
				"devices do direct I/O); part of the Table 8 configuration (+8 % throughput, -5 % latency on the Oracle FIO profile).",
			Fix:     Fix{Runtime: []string{echoTo("1", p)}, Persistent: []string{}, Edits: []FileEdit{udevEdit(v, d, "queue/nomerges", "1")}},
			Changes: []change.Change{wants[len(wants)-1]},
			Risk:    "Sequential scans and redo writes issued in small pieces are no longer merged: more, smaller I/Os. Check it is a database device first (e.g. oracleasm listdisks, ASM disk strings).",
		})
	}
	// With no raw device read: a pass only when every device is seen to
	// carry a filesystem; a mount whose device is not in the snapshot
	// leaves the others unknown (issue 26).
	var none Outcome
	if len(maybe) > 0 {
		none = CannotCheck("mounts whose device is not in the snapshot (%s) may sit on %s: which devices are raw is unknown", strings.Join(unresolved, ", "), strings.Join(maybe, ", "))
	} else {
		var on []string
		for name := range mounted {
			on = append(on, name)
		}
		sort.Strings(on)
		none = Passed("every device carries a filesystem (000: nomerges 0 is sufficient for filesystems)").
			Reading("/proc/mounts: filesystems on " + strings.Join(on, ", ") + " or the devices above them")
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, none, "raw devices with nomerges set", "/sys/block/*/queue/nomerges").Wanting(wants...)
}
