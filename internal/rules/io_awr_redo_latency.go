package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// io.awr-redo-latency: commits wait on redo. "log file parallel write" is
// LGWR's write itself; "log file sync" is what a committing session waits,
// the write plus LGWR being scheduled and posting back. A slow write points
// at the redo devices: on AIX the JFS2 block size (004: demoted I/O, 28 ms
// against 2 ms with agblksize=512), on Linux the devices' scheduler and
// queue, and redo sharing devices with data (003). A fast write under a slow
// sync points at the CPU side: a saturated host, or LGWR woken from a deep
// C-state (000).
func init() {
	Register(Rule{
		ID:           "io.awr-redo-latency",
		Area:         AreaIO,
		Severity:     SevWarning,
		Title:        "Commits wait on redo (log file sync / log file parallel write)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Direct IO demoted",
				Quote: "Waits on redolog (with demoted IO, FS blk=4k)"},
			{Doc: Seed004, Section: "IO : Benefits of CIO for Oracle",
				Quote: "Redolog are always written in 512B block; So jfs2 agblksize must be 512"},
			{Doc: Seed003, Section: "I/O Tuning – Database Layout",
				Quote: "Separate files by I/O (data , logs, undo, temp)"},
			{Doc: Seed000, Section: "scheduler",
				Quote: "we recommend the Deadline I/O scheduler, which is becoming more popular and has proven to perform better for database systems and low latency devices"},
			{Doc: Seed000, Section: "C-states",
				Quote: "each corresponding to greater power savings but also incurring longer latencies to wake up"},
		},
		Scope: Scope{
			Kernels:    "Linux block queues (scheduler, nr_requests); AIX JFS2 agblksize (004: named from the report's platform; the redo file systems of an AIX bundle are judged by io.aix-redo-agblksize)",
			DBVersions: "all (log file sync and log file parallel write exist since 8i)",
			Note:       "read from AWR/Statspack reports (--artifact, dbhost awr); which device holds the redo logs is not in the report",
		},
		Thresholds: []string{
			fmt.Sprintf("log file parallel write above %d ms or log file sync above %d ms on average", redoWriteMS, redoSyncMS),
			fmt.Sprintf("log file sync at %d %% of DB time or more (warning from %d %%)", redoPctMin, redoPctWarn),
			"a sync 3x its write or more, with the write under the threshold, is time outside the device",
		},
		Check: checkAWRRedo,
	})
}

const (
	redoWriteMS = 2  // 004: 2 ms without demoted I/O, 28 ms with
	redoSyncMS  = 5  // log file sync: the write and LGWR's scheduling
	redoPctMin  = 1  // below this share of DB time commits cost little
	redoPctWarn = 10 // from this share, a warning
)

func checkAWRRedo(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return redoReport(in, r) })
}

func redoReport(in *Input, r *artifacts.AWRReport) Outcome {
	sync, haveSync := r.Event("log file sync")
	write, haveWrite := r.Event("log file parallel write")
	if !haveSync && !haveWrite {
		if len(r.TopEvents) == 0 {
			return CannotCheck("the report has no top events")
		}
		return Passed("neither log file sync nor log file parallel write among the report's events").Reading(awrEventsRead(r))
	}
	syncMS, syncAvg := awrAvgMS(sync)
	writeMS, writeAvg := awrAvgMS(write)
	syncPct, syncPctOK := awrPct(r, sync)
	if !haveSync {
		syncAvg, syncPctOK = false, false
	}
	if !haveWrite {
		writeAvg = false
	}
	slowWrite := writeAvg && writeMS > redoWriteMS
	slowSync := syncAvg && syncMS > redoSyncMS
	var read []string
	if haveSync {
		read = append(read, awrEventRead(r, sync))
	}
	if haveWrite {
		read = append(read, awrEventRead(r, write))
	}
	if !slowWrite && !slowSync {
		return Passed("log file sync %s ms, log file parallel write %s ms on average", avgText(syncAvg, syncMS), avgText(writeAvg, writeMS)).Reading(read...)
	}
	if syncPctOK && syncPct < redoPctMin {
		return Passed("log file sync %s ms on average but %s %% of DB time", awrNum(syncMS), awrNum(syncPct)).Reading(read...)
	}
	var ev []string
	if haveSync {
		ev = append(ev, awrEv(r, sync))
	}
	if haveWrite {
		ev = append(ev, awrEv(r, write))
	}
	sev := SevInfo
	if syncPctOK && syncPct >= redoPctWarn || !syncPctOK && slowWrite {
		sev = SevWarning
	}
	given, none := awrHost(in)
	if given {
		if n := awrHostNote(in, r); n != "" {
			ev = append(ev, n)
		}
	}
	cpuSide := !slowWrite && writeAvg && syncAvg && syncMS >= 3*writeMS
	if cpuSide {
		return Found(redoCPUSide(in, r, ev, sev, syncMS, writeMS, given, none))
	}

	// The write itself is slow: the redo devices.
	rec := fmt.Sprintf("log file parallel write at or under %d ms: redo on its own low-latency device, with the deadline (mq-deadline) or none scheduler", redoWriteMS)
	fix := Fix{Runtime: []string{}, Persistent: []string{"put the online redo logs on devices of their own, apart from data, undo and temp (003)"}}
	why := "log file parallel write is LGWR's write of the redo; every commit waits for it (log file sync). 004 measured 28 ms " +
		"on AIX JFS2 with a 4 kB block size (redo is written in 512-byte blocks, so direct I/O was demoted) against 2 ms with " +
		"agblksize=512; 003 separates data, logs, undo and temp; 000 recommends the deadline scheduler for database devices."
	osName, osEv := awrOS(in, r)
	switch {
	case osName == OSAIX:
		ev = append(ev, osEv)
		rec = "redo logs on a JFS2 file system created with agblksize=512, mounted cio (004)"
		fix.Persistent = append(fix.Persistent, "mkfs -V jfs2 -o agblksize=512 for the redo file systems (a new file system: move the logs), "+
			"mount with -o cio; check for demoted I/O with trace -aj 59B,59C (004)")
	case r.Host.Platform == "":
		ev = append(ev, "the report does not name its platform (10g and Statspack): on AIX, a redo file system with agblksize other than 512 demotes the redo's direct I/O (004)")
	}
	if !given {
		ev = append(ev, none+" the schedulers and queues of this host's block devices")
	} else if osName != OSAIX {
		ev = append(ev, redoDevices(in)...)
	}
	return Found(Finding{
		Severity:    sev,
		Setting:     "redo log devices",
		Current:     fmt.Sprintf("log file parallel write %s ms, log file sync %s ms on average", avgText(writeAvg, writeMS), avgText(syncAvg, syncMS)),
		Recommended: rec,
		Evidence:    strings.Join(ev, "; "),
		Why:         why,
		Fix:         fix,
		Risk:        "Moving redo logs means adding new log groups on the new devices and dropping the old ones after a log switch and checkpoint; a new file system block size needs a new file system.",
	})
}

// redoCPUSide is the finding for a sync much slower than the write: the
// time is spent between LGWR and the committing sessions.
func redoCPUSide(in *Input, r *artifacts.AWRReport, ev []string, sev string, syncMS, writeMS float64, given bool, none string) Finding {
	if sat, satEv, ok := awrSaturated(r); ok {
		if sat {
			ev = append(ev, satEv+": LGWR and the committing sessions wait for a CPU")
		} else {
			ev = append(ev, satEv)
		}
	}
	if os, osEv := awrOS(in, r); os == OSAIX {
		// C-states, cpupower and intel_idle are Linux's: on AIX only the
		// CPU headroom is said.
		ev = append(ev, osEv)
		return Finding{
			Severity:    sev,
			Setting:     "LGWR scheduling (CPU run queue)",
			Current:     fmt.Sprintf("log file sync %s ms on average against %s ms for LGWR's write", awrNum(syncMS), awrNum(writeMS)),
			Recommended: "log file sync close to log file parallel write: CPUs not saturated (the LPAR's entitlement and virtual processors)",
			Evidence:    strings.Join(ev, "; "),
			Why: "The redo write is fast, so the rest of log file sync is LGWR being woken and scheduled and the session being posted " +
				"back: a saturated LPAR (run queue, a shared processor pool lending its capacity away) stretches it.",
			Fix: Fix{Runtime: []string{"vmstat -w 5 / lparstat 5 during the workload: the run queue and the physical CPU consumed against the entitlement"},
				Persistent: []string{"CPU headroom for LGWR: a larger entitlement or fewer concurrent sessions"}},
			Risk: "More entitlement is taken from the shared processor pool.",
		}
	}
	if !given {
		ev = append(ev, none+" the C-states and CPU frequency governor of this host (a deep C-state delays LGWR's wake-up)")
	} else if states := deepCStates(in); states != "" {
		ev = append(ev, states)
	}
	return Finding{
		Severity:    sev,
		Setting:     "LGWR scheduling (CPU run queue, C-states)",
		Current:     fmt.Sprintf("log file sync %s ms on average against %s ms for LGWR's write", awrNum(syncMS), awrNum(writeMS)),
		Recommended: "log file sync close to log file parallel write: CPUs not saturated, C-states limited to C1 on database hosts (000)",
		Evidence:    strings.Join(ev, "; "),
		Why: "The redo write is fast, so the rest of log file sync is LGWR being woken and scheduled and the session being posted " +
			"back: a saturated host (run queue) or CPUs in deep C-states (000: deeper C-states incur longer latencies to wake up) stretch it.",
		Fix: Fix{Runtime: redoIdleFix(in, given),
			Persistent: []string{"intel_idle.max_cstate=1 on the kernel command line (000 C-states), and CPU headroom for LGWR"}},
		Risk: "Limiting C-states raises idle power (000 Table 3: 182 W to 578 W idle floor).",
	}
}

// deepCStates names the deep C-states enabled on the host's CPUs ("" when
// none, or unknown).
func deepCStates(in *Input) string {
	seen := map[string]bool{}
	var deep []string
	for _, c := range in.Snap.CPUPower.Cpuidle {
		for _, st := range c.States {
			if st.Off() || st.LatencyUS <= 10 || seen[st.Name] {
				continue
			}
			seen[st.Name] = true
			deep = append(deep, fmt.Sprintf("%s (%d µs exit latency)", st.Name, st.LatencyUS))
		}
	}
	if len(deep) == 0 {
		return ""
	}
	return "this host allows deep C-states: " + strings.Join(deep, ", ")
}

// redoDevices describes the host's block devices as the redo could sit on
// them: the scheduler and queue of each disk that is not a path of a
// multipath device.
func redoDevices(in *Input) []string {
	v, why := in.blockDevices()
	if why != "" {
		return []string{why}
	}
	var slow, ok []string
	for i := range v.devs {
		d := &v.devs[i]
		if v.isPath(d.Name) || d.Kind == "other" {
			continue
		}
		sched := "?"
		if d.Scheduler != nil {
			sched = *d.Scheduler
		}
		desc := fmt.Sprintf("%s (%s, scheduler %s", d.Name, v.deviceClass(d), sched)
		if d.NrRequests != nil {
			desc += fmt.Sprintf(", nr_requests %d", *d.NrRequests)
		}
		desc += ")"
		if sched == "cfq" || sched == "bfq" {
			slow = append(slow, desc)
		} else {
			ok = append(ok, desc)
		}
	}
	var out []string
	if len(slow) > 0 {
		out = append(out, "devices with a fair-queuing scheduler (000 recommends deadline): "+strings.Join(slow, ", "))
	}
	if len(ok) > 0 {
		out = append(out, "other devices: "+strings.Join(ok, ", "))
	}
	out = append(out, "the report does not say which of them holds the redo logs: if it is the data files' device, separate them (003)")
	return out
}

func avgText(ok bool, v float64) string {
	if !ok {
		return "-"
	}
	return awrNum(v)
}

// redoIdleFix limits the host's C-states as cpu.deep-cstates-latency
// does, with the -D value from the host's own exit latencies
// (hostIdleSetFix). Without the host, or without its idle states, no value
// can be computed: the fix says how to find it instead of guessing one.
func redoIdleFix(in *Input, given bool) []string {
	const tuned = "or: tuned-adm profile latency-performance   (holds /dev/cpu_dma_latency at C1's exit latency while tuned runs)"
	if given {
		if fix := hostIdleSetFix(in.Snap); len(fix) > 0 {
			return append(fix, tuned)
		}
	}
	return []string{"on the database host: dbhost audit (cpu.deep-cstates-latency computes the cpupower idle-set -D value from that " +
		"host's C-state exit latencies), or by hand: cpupower idle-info lists each state's exit latency, and cpupower idle-set -D N " +
		"with N the exit latency in µs of the fastest state deeper than C1 disables those states and keeps POLL and C1", tuned}
}
