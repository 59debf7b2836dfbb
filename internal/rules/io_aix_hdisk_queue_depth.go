package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.aix-hdisk-queue-depth: 004's queue_depth rule read from iostat -D: a
// disk the storage serves fast (avgserv below 3 ms) whose I/Os wait in
// AIX's queue (avgtime above 1 ms) or find its service queue full
// (sqfull) needs a deeper hdisk queue.
func init() {
	Register(Rule{
		ID:       "io.aix-hdisk-queue-depth",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX hdisk queue_depth too small for what the storage serves (iostat -D)",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIX IO tuning (2) – hdisk queue_depth (qdepth)",
				Quote: "avgserv < 2-3ms => this mean that Storage behave well (can handle more load)"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (2) – hdisk queue_depth (qdepth)",
				Quote: "And \"avgtime\" > 1ms => this mean that disk gueue are full, IO wait to be gueued => INCREASE hdisk queue depth"},
			{Doc: Seed004, Section: "IO : AIX IO tuning (2) – hdisk queue_depth (qdepth)",
				Quote: "chdev -1 hdiskXX -a queue depth=YYY"},
		},
		Scope: Scope{
			Kernels: "AIX (iostat -D, lsattr -El hdiskN)",
			Note: "the interval reports of the bundle's iostat -D 2 3 are judged (the since-boot report only when there is no interval): " +
				"a short sample of the load at collection time",
		},
		Thresholds: []string{"a disk is judged at 10 transfers/s or more in the reports read (fewer make the averages noise)"},
		Description: `004: "use iostat -D and monitor avgserv, avgtime". A read or write average service time
(avgserv) under 2-3 ms says the storage keeps up; a wait-queue average time (avgtime) above 1 ms
says I/Os queue in AIX because the hdisk's queue_depth is full — raise queue_depth. A service queue
found full (sqfull above 0 in an interval report) says the same. When avgserv is above 3 ms the
storage is the bottleneck and a deeper queue only moves the wait there: the rule stays quiet.`,
		Check: checkAIXHdiskQueueDepth,
	})
}

// aixQDMinTPS is the activity below which iostat -D's averages are not judged.
const aixQDMinTPS = 10

// aixServMaxMS, aixQueueMinMS are 004's figures: avgserv < 2-3 ms, avgtime > 1 ms.
const aixServMaxMS, aixQueueMinMS = 3.0, 1.0

// aixIOAvg is a disk's iostat -D figures averaged over the reports read.
type aixIOAvg struct {
	reports       int
	sinceBoot     bool
	tps, serv, qt float64
	sqfull        float64
	hasServ, hasQ bool
}

// aixDiskIO averages a disk's interval reports (the since-boot report when
// there is no interval). ok is false when it has no report.
func aixDiskIO(d snapshot.AIXDisk) (aixIOAvg, bool) {
	var reps []snapshot.AIXDiskIOStat
	for _, r := range d.IOStat {
		if !r.SinceBoot {
			reps = append(reps, r)
		}
	}
	a := aixIOAvg{}
	if len(reps) == 0 {
		for _, r := range d.IOStat {
			if r.SinceBoot {
				reps = append(reps, r)
				a.sinceBoot = true
				break
			}
		}
	}
	if len(reps) == 0 {
		return a, false
	}
	nq, ns, nf := 0, 0, 0
	for _, r := range reps {
		a.reports++
		if r.TPS != nil {
			a.tps += *r.TPS
		}
		if sv, ok := aixServ(r); ok {
			a.serv += sv
			ns++
		}
		if r.QueueAvgTimeMS != nil {
			a.qt += *r.QueueAvgTimeMS
			nq++
		}
		if r.SQFull != nil && !r.SinceBoot {
			a.sqfull += *r.SQFull
			nf++
		}
	}
	// Each interval report's sqfull covers its own interval: the reports
	// are averaged like every other figure, never summed.
	if nf > 0 {
		a.sqfull /= float64(nf)
	}
	a.tps /= float64(a.reports)
	if ns > 0 {
		a.serv /= float64(ns)
		a.hasServ = true
	}
	if nq > 0 {
		a.qt /= float64(nq)
		a.hasQ = true
	}
	return a, true
}

// aixServ is a report's average service time: reads and writes weighted by
// their rates when both are printed, else the one that is.
func aixServ(r snapshot.AIXDiskIOStat) (float64, bool) {
	rs, ws := r.ReadAvgServMS, r.WriteAvgServMS
	switch {
	case rs != nil && ws != nil && r.RPS != nil && r.WPS != nil && *r.RPS+*r.WPS > 0:
		return (*rs**r.RPS + *ws**r.WPS) / (*r.RPS + *r.WPS), true
	case rs != nil && ws != nil:
		return max(*rs, *ws), true
	case rs != nil:
		return *rs, true
	case ws != nil:
		return *ws, true
	}
	return 0, false
}

func checkAIXHdiskQueueDepth(in *Input) Outcome {
	s := in.Snap
	if s.AIX.Disks == nil {
		return CannotCheck("%s", aixWhy(s, "aix.disks", "lsdev -Cc disk"))
	}
	disks := append([]snapshot.AIXDisk(nil), s.AIX.Disks...)
	sort.Slice(disks, func(i, j int) bool { return aixDiskLess(disks[i].Name, disks[j].Name) })
	var fs []Finding
	judged, idle, noStat := 0, 0, 0
	var unknown []string
	for _, d := range disks {
		io, ok := aixDiskIO(d)
		if !ok {
			noStat++
			continue
		}
		if io.tps < aixQDMinTPS {
			idle++
			continue
		}
		if !io.hasServ || !io.hasQ {
			unknown = append(unknown, d.Name+": iostat -D printed no avgserv or avgtime")
			continue
		}
		judged++
		queued := io.qt > aixQueueMinMS
		full := io.sqfull > 0
		if io.serv >= aixServMaxMS || !queued && !full {
			continue
		}
		if d.QueueDepth == nil {
			unknown = append(unknown, d.Name+": "+aixWhy(s, "aix.disks.attributes", "lsattr -El "+d.Name)+" (queue_depth)")
			continue
		}
		qd := *d.QueueDepth
		want := max(2*qd, 16)
		what := fmt.Sprintf("avgserv %s ms, wait queue avgtime %s ms, sqfull %s at %s transfers/s", num2(io.serv), num2(io.qt), num2(io.sqfull), num2(io.tps))
		span := fmt.Sprintf("averaged over %d interval report(s) of iostat -D", io.reports)
		if io.sinceBoot {
			span = "the since-boot report of iostat -D (the bundle has no interval report)"
		}
		var sig []string
		if queued {
			sig = append(sig, fmt.Sprintf("I/Os wait %s ms in AIX's queue (avgtime > %s ms)", num2(io.qt), num(aixQueueMinMS)))
		}
		if full {
			sig = append(sig, fmt.Sprintf("the service queue was found full (sqfull %s, the mean of the interval reports)", num2(io.sqfull)))
		}
		fs = append(fs, Finding{
			Setting:     d.Name + ":queue_depth",
			Current:     fmt.Sprintf("queue_depth %d; %s", qd, what),
			Recommended: fmt.Sprintf("queue_depth %d (double it, then measure again; at most what the storage vendor supports)", want),
			Evidence: fmt.Sprintf("lsattr -El %s: queue_depth %d; %s for %s (%s)", d.Name, qd, what, d.Name, span) +
				"; " + strings.Join(sig, ", and ") + fmt.Sprintf(", while the storage serves in %s ms (< %s ms)", num2(io.serv), num(aixServMaxMS)),
			Why: "004: \"avgserv < 2-3ms\" means the storage \"can handle more load\", and avgtime > 1 ms means \"disk queue are full, " +
				"IO wait to be queued\": increase the hdisk's queue_depth. A deeper queue lets the array serve more I/Os at once " +
				"instead of AIX holding them back.",
			Fix: Fix{
				Runtime: []string{
					fmt.Sprintf("chdev -l %s -a queue_depth=%d -P   # recorded in the ODM, in effect at the next reboot", sh(d.Name), want),
					fmt.Sprintf("or now, with its volume group varied off: varyoffvg <vg>; chdev -l %s -a queue_depth=%d; varyonvg <vg>", sh(d.Name), want),
				},
				Persistent: []string{fmt.Sprintf("the ODM keeps queue_depth=%d (lsattr -El %s -a queue_depth)", want, d.Name)},
			},
			RebootRequired: true,
			Risk: "chdev without -P needs the disk closed (its volume group varied off: the database stopped); with -P the change waits " +
				"for a reboot. The adapters' num_cmd_elems must hold the deeper queues of all their disks (io.aix-fc-num-cmd-elems), " +
				"and an array shared by many hosts may reject more outstanding I/Os (queue full): stay within the vendor's maximum.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(unknown) > 0 {
		return CannotCheck("%s", strings.Join(unknown, "; "))
	}
	if judged == 0 {
		switch {
		case noStat == len(disks):
			return CannotCheck("%s", aixWhy(s, "aix.disks.iostat", "iostat -D 2 3"))
		}
		// Nothing was judged: an idle capture is no evidence (issue 26).
		return CannotCheck("no disk busy enough to judge (%d below %d transfers/s, %d without iostat -D figures): capture iostat -D under the database's load", idle, aixQDMinTPS, noStat)
	}
	return Passed("%d busy disk(s): none with avgserv < %s ms and avgtime > %s ms or sqfull (iostat -D)", judged, num(aixServMaxMS), num(aixQueueMinMS)).
		Reading(fmt.Sprintf("iostat -D: %d disk(s) at %d transfers/s or more judged, %d below, %d without figures", judged, aixQDMinTPS, idle, noStat))
}

// num2 formats a float with at most two decimals.
func num2(f float64) string {
	return num(float64(int64(f*100+0.5)) / 100)
}
