package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// io.awr-read-latency: reads take long for the devices they come from.
// Single-block reads (db file sequential read) on flash should take well
// under 2 ms, on a SAN a few ms, on spinning disks under about 10 ms;
// multiblock and direct reads a few times more. The report gives the
// averages; the host gives the device class, and with it the expectation.
func init() {
	Register(Rule{
		ID:           "io.awr-read-latency",
		Area:         AreaIO,
		Severity:     SevWarning,
		Title:        "Database reads slow for their devices (db file sequential read, direct path read)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed003, Section: "I/O Tuning – Database Layout",
				Quote: "Use low latency / high bandwidth devices for hot spots"},
			{Doc: Seed003, Section: "I/O Tuning – Database Layout",
				Quote: "iostat -dmxz <interval>"},
			{Doc: Seed000, Section: "scheduler",
				Quote: "has proven to perform better for database systems and low latency devices"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — HW contention root cause",
				Quote: "is actually waiting for “db file sequential read”"},
		},
		Scope: Scope{
			Kernels: "the device class (rotational, SSD, NVMe, dm-multipath) as the host's sysfs says",
			Note:    "read from AWR/Statspack reports (--artifact, dbhost awr); which device holds the data files is not in the report",
		},
		Thresholds: []string{
			"single-block reads above 2 ms on flash, 5 ms on a SAN (multipath), 10 ms on disks; multiblock and direct reads above 5, 10 and 20 ms",
			fmt.Sprintf("the event at %d %% of DB time or more", readPct),
		},
		Check: checkAWRReadLatency,
	})
}

const readPct = 5

// readEvent is a read wait event and its expected latencies (ms) by class.
type readEvent struct {
	name                string
	flash, san, spindle float64
}

var readEvents = []readEvent{
	{"db file sequential read", 2, 5, 10},
	{"db file scattered read", 5, 10, 20},
	{"direct path read", 5, 10, 20},
	{"db file parallel read", 5, 10, 20},
	{"direct path read temp", 5, 10, 20},
	{"cell single block physical read", 2, 2, 2},
}

func checkAWRReadLatency(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return readLatencyReport(in, r) })
}

// readClass is what the host's devices are: "flash", "san" or "spindle",
// with the evidence ("" and a reason when the host is not given).
func readClass(in *Input) (class, evidence, why string) {
	v, why := in.blockDevices()
	if why != "" {
		return "", "", why
	}
	classes := map[string][]string{}
	for i := range v.devs {
		d := &v.devs[i]
		if v.isPath(d.Name) {
			continue
		}
		switch c := v.deviceClass(d); c {
		case "nvme", "ssd":
			classes["flash"] = append(classes["flash"], d.Name+" ("+c+")")
		case "multipath":
			classes["san"] = append(classes["san"], d.Name+" (multipath)")
		case "rotational":
			classes["spindle"] = append(classes["spindle"], d.Name+" (rotational)")
		}
	}
	var parts []string
	for _, c := range []string{"flash", "san", "spindle"} {
		if len(classes[c]) > 0 {
			parts = append(parts, strings.Join(classes[c], ", "))
		}
	}
	if len(parts) == 0 {
		return "", "", "no disk, SSD, NVMe or multipath device in the snapshot"
	}
	ev := "this host's devices: " + strings.Join(parts, "; ")
	// The most lenient class present: the data may sit on any of them.
	switch {
	case len(classes["spindle"]) > 0:
		return "spindle", ev, ""
	case len(classes["san"]) > 0:
		return "san", ev, ""
	}
	return "flash", ev, ""
}

func readLatencyReport(in *Input, r *artifacts.AWRReport) Outcome {
	if len(r.TopEvents) == 0 {
		return CannotCheck("the report has no top events")
	}
	given, none := awrHost(in)
	osName, osEv := awrOS(in, r)
	aix := osName == OSAIX
	class, classEv, classWhy := "", "", ""
	if given && !aix {
		class, classEv, classWhy = readClass(in)
	}
	var fs []Finding
	var undecided, fine []string
	for _, re := range readEvents {
		e, ok := r.TopEvent(re.name)
		if !ok {
			continue
		}
		avg, okAvg := awrAvgMS(e)
		pct, okPct := awrPct(r, e)
		if !okAvg || okPct && pct < readPct {
			continue
		}
		limit, what := re.spindle, "any device (spinning disks included)"
		switch class {
		case "flash":
			limit, what = re.flash, "flash (SSD, NVMe)"
		case "san":
			limit, what = re.san, "a SAN (dm-multipath)"
		}
		if avg <= limit {
			if class == "" && avg > re.flash {
				undecided = append(undecided, fmt.Sprintf("%s averages %s ms: slow for flash (%s ms), not for disks", e.Event, awrNum(avg), awrNum(re.flash)))
				continue
			}
			fine = append(fine, fmt.Sprintf("%s %s ms", e.Event, awrNum(avg)))
			continue
		}
		ev := []string{awrEv(r, e)}
		if given && aix {
			if n := awrHostNote(in, r); n != "" {
				ev = append(ev, n)
			}
			ev = append(ev, "the device class of an AIX host is not read here (the limit is that of disks): see io.aix-hdisk-queue-depth")
		} else if given {
			if n := awrHostNote(in, r); n != "" {
				ev = append(ev, n)
			}
			if classEv != "" {
				ev = append(ev, classEv)
			} else {
				ev = append(ev, classWhy)
			}
			ev = append(ev, redoDevices(in)[:1]...)
		} else {
			ev = append(ev, none+" the class of this host's devices (flash would make the limit "+awrNum(re.flash)+" ms)")
		}
		why := "Every such read is a session waiting for the device; 003 puts hot spots on low-latency devices and measures " +
			"with iostat -dmxz (await per device), 000 uses the deadline scheduler for database devices. Check the devices' " +
			"await against these averages: a queue in the host (scheduler, nr_requests, queue_depth) or the array itself."
		fix := Fix{Runtime: []string{"iostat -dmxz 5 during the workload: compare each device's r_await with the average above"},
			Persistent: []string{"move the hot data files to lower-latency devices; see io.scheduler, io.nr-requests and io.scsi-queue-depth for the host's queues"}}
		if aix {
			ev = append(ev, osEv)
			why = "Every such read is a session waiting for the device; 003 puts hot spots on low-latency devices. On AIX, iostat -D " +
				"gives each hdisk's read service time (avgserv) and queue time (avgtime, sqfull): a queue in the host (hdisk " +
				"queue_depth, the FC adapter's num_cmd_elems) or the array itself."
			fix = Fix{Runtime: []string{"iostat -D 5 during the workload: compare each hdisk's read avgserv and avgtime with the average above"},
				Persistent: []string{"move the hot data files to lower-latency devices; see io.aix-hdisk-queue-depth and io.aix-fc-num-cmd-elems for the host's queues"}}
		}
		fs = append(fs, Finding{
			Setting:     "storage read latency (" + e.Event + ")",
			Current:     fmt.Sprintf("%s ms on average", awrNum(avg)),
			Recommended: fmt.Sprintf("at most %s ms on %s", awrNum(limit), what),
			Evidence:    strings.Join(ev, "; "),
			Why:         why,
			Fix:         fix,
			Risk:        "None from measuring; moving data files needs planning (online move in 12c+).",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(undecided) > 0 && !given:
		return CannotCheck("%s; %s the device class", strings.Join(undecided, "; "), none)
	case len(undecided) > 0:
		return CannotCheck("%s; %s", strings.Join(undecided, "; "), classWhy)
	case len(fine) > 0:
		return Passed("%s", strings.Join(fine, ", ")).Reading(strings.Join(fine, ", "))
	}
	return Passed("no read event at %d %% of DB time or more", readPct).Reading(awrEventsRead(r))
}
