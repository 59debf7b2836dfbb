package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.aix-aio-servers: AIX's asynchronous I/O for Oracle sized by 004's
// rules of thumb — maxservers = 10 × disks accessed concurrently / CPUs,
// maxreqs a multiple of 4096 above 4 × disks × queue_depth — and the
// alert log's "Warning: lio_listio returned EAGAIN" (too few).
func init() {
	Register(Rule{
		ID:       "db.aix-aio-servers",
		Area:     AreaDB,
		Severity: SevWarning,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "AIX asynchronous I/O servers or queue (maxservers, maxreqs) too small for Oracle",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO) tuning",
				Quote: "maxservers should be = (10 * <# of disk accessed concurrently>) / # cpu"},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO) tuning",
				Quote: "maxreqs (= a multiple of 4096) should be > 4 * #disks * queue_depth"},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO) tuning",
				Quote: "In Oracle's alert.log file, if maxservers set to low : \"Warning: lio_listio returned EAGAIN\" \"Performance degradation may be seen\""},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO) fastpath",
				Quote: "No need to tune the min and max aioservers"},
		},
		Scope: Scope{
			Kernels: "AIX 5.3 (lsattr -El aio0: maxservers, maxreqs) and 6.1 and later (ioo aio_maxservers, aio_maxreqs; aio_fsfastpath, a restricted tunable, from ioo -F -a)",
			Note: "disks accessed concurrently: those with transfers in iostat -D, else every disk; maxservers is per logical CPU. " +
				"004: \"only tests allow to set correctly minservers and maxservers\"",
		},
		Description: `Oracle on AIX issues its file I/O through the legacy AIO servers (kprocs). 004's rules of thumb:
maxservers (per logical CPU) = 10 × the disks accessed concurrently / the CPUs, and maxreqs, the AIO
queue, a multiple of 4096 above 4 × disks × queue_depth. With fsfastpath (aio_fsfastpath=1, AIX 6.1's
default) I/Os to CIO file systems go straight to the LVM and the servers need no tuning. Too few shows
in the alert log as "Warning: lio_listio returned EAGAIN" / "Performance degradation may be seen".`,
		Check: checkAIXAIOServers,
	})
}

// aixAIO are the AIO settings of this AIX level and where they come from.
type aixAIO struct {
	maxservers, maxreqs int64
	fsfastpath          *int64 // ioo aio_fsfastpath (6.1+)
	legacy              bool   // AIX 5.3: aio0
	from                string
}

func aixAIOSettings(s *snapshot.Snapshot) (aixAIO, string) {
	a := s.AIX
	level, levelWhy := aixLevel(s)
	if a.AIO0 != nil && (levelWhy != "" || !level.AtLeast(6, 1)) {
		ms, ok1 := aixAttr(a.AIO0, "maxservers")
		mr, ok2 := aixAttr(a.AIO0, "maxreqs")
		if !ok1 || !ok2 {
			return aixAIO{}, "aix.aio0: lsattr -El aio0 lists no numeric maxservers/maxreqs"
		}
		return aixAIO{maxservers: ms, maxreqs: mr, legacy: true, from: "lsattr -El aio0"}, ""
	}
	ms, why := aixTunable(s, "ioo", "aio_maxservers")
	if why != "" {
		if a.AIO0 == nil && levelWhy == "" && !level.AtLeast(6, 1) {
			return aixAIO{}, aixWhy(s, "aix.aio0", "lsattr -El aio0")
		}
		return aixAIO{}, why
	}
	mr, why := aixTunable(s, "ioo", "aio_maxreqs")
	if why != "" {
		return aixAIO{}, why
	}
	st := aixAIO{maxservers: ms, maxreqs: mr, from: "ioo -a"}
	if fp, why := aixTunable(s, "ioo", "aio_fsfastpath"); why == "" {
		st.fsfastpath = &fp
	} else if v, ok := a.Tunables.IOORestricted["aio_fsfastpath"]; ok && v.Number != nil {
		// aio_fsfastpath is a restricted tunable: ioo -a does not list it,
		// ioo -F -a does (after its "##Restricted tunables" line).
		fp := *v.Number
		st.fsfastpath = &fp
		st.from = "ioo -a; aio_fsfastpath from ioo -F -a"
	}
	return st, ""
}

// aixActiveDisks are the disks accessed concurrently (transfers in an
// iostat -D report), else every disk, with their queue_depth sum.
func aixActiveDisks(a *snapshot.AIX) (n int, sumQD int64, how string) {
	active := 0
	for _, d := range a.Disks {
		if io, ok := aixDiskIO(d); ok && io.tps > 0 {
			active++
		}
	}
	all := active == 0
	for _, d := range a.Disks {
		io, ok := aixDiskIO(d)
		if !all && !(ok && io.tps > 0) {
			continue
		}
		n++
		if d.QueueDepth != nil {
			sumQD += *d.QueueDepth
		}
	}
	how = fmt.Sprintf("%d disk(s) with transfers in iostat -D", n)
	if all {
		how = fmt.Sprintf("%d disk(s) (lsdev -Cc disk; no iostat -D activity to tell the busy ones)", n)
	}
	return n, sumQD, how + fmt.Sprintf(", queue_depth adding up to %d", sumQD)
}

func checkAIXAIOServers(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	st, why := aixAIOSettings(s)
	eagain, eagainEv := 0, ""
	if in.Artifacts != nil {
		for _, l := range in.Artifacts.AlertLogs {
			if l.AIOEAgainCount > 0 {
				eagain += l.AIOEAgainCount
				if eagainEv == "" {
					e := l.AIOEAgain[0]
					eagainEv = fmt.Sprintf("%s:%d %q", l.File, e.Line, e.Text)
					if e.Time != "" {
						eagainEv += " at " + e.Time
					}
				}
			}
		}
	}
	if why != "" {
		return CannotCheck("%s", why)
	}
	cur := fmt.Sprintf("maxservers %d per CPU, maxreqs %d (%s)", st.maxservers, st.maxreqs, st.from)
	if a.Disks == nil && eagain == 0 {
		return CannotCheck("%s", aixWhy(s, "aix.disks", "lsdev -Cc disk"))
	}
	cpus, cpuHow := aixLogicalCPUs(s)
	nDisks, sumQD, diskHow := aixActiveDisks(a)
	fast := st.fsfastpath != nil && *st.fsfastpath == 1
	var fs []Finding
	set := func(name string, v int64) string {
		if st.legacy {
			return fmt.Sprintf("chdev -l aio0 -a %s=%d -P   # in effect at the next reboot (AIX 5.3)", name, v)
		}
		return fmt.Sprintf("ioo -p -o aio_%s=%d   # at once, and in /etc/tunables/nextboot", name, v)
	}
	keep := func(name string, v int64) string {
		if st.legacy {
			return fmt.Sprintf("the ODM keeps aio0 %s=%d (lsattr -El aio0)", name, v)
		}
		return fmt.Sprintf("ioo -p -o aio_%s=%d   # -p also writes aio_%s = %d to /etc/tunables/nextboot", name, v, name, v)
	}
	risk := "More servers cost kernel processes and memory; 004: \"only tests allow to set correctly minservers and maxservers\": " +
		"watch the servers in use (ps -k | grep aio | wc -l, iostat -A) after the change."
	if st.legacy {
		risk += " On AIX 5.3 chdev -P waits for a reboot (aio0 must also be autoconfig=available)."
	}
	// maxservers: 004's formula, or EAGAIN in the alert log.
	wantS := int64(0)
	if cpus > 0 && nDisks > 0 {
		wantS = int64((10*nDisks + cpus - 1) / cpus)
	}
	if eagain > 0 || wantS > st.maxservers && !fast {
		want := max(wantS, st.maxservers)
		ev := []string{cur}
		if cpus > 0 {
			ev = append(ev, fmt.Sprintf("%s; %s: 10 × %d / %d = %d per CPU", cpuHow, diskHow, nDisks, cpus, wantS))
		}
		why := "004: maxservers = (10 × disks accessed concurrently) / CPUs."
		sev := SevWarning
		if eagain > 0 {
			want = max(want, 2*st.maxservers)
			ev = append(ev, fmt.Sprintf("%d \"lio_listio returned EAGAIN\" warning(s) in the alert log, first %s", eagain, eagainEv))
			why += " The alert log says it: \"Warning: lio_listio returned EAGAIN\" is what 004 gives for maxservers set too low."
		} else {
			sev = SevInfo
			why += " No EAGAIN warning is known (give the alert log with --artifact): the formula is 004's rule of thumb."
		}
		if fast {
			why += " fsfastpath is on: I/Os to CIO file systems bypass the servers, yet Oracle still ran out."
		}
		fs = append(fs, Finding{
			Severity:    sev,
			Setting:     "aio:maxservers",
			Current:     fmt.Sprintf("maxservers %d per CPU", st.maxservers),
			Recommended: fmt.Sprintf("maxservers %d per CPU", want),
			Evidence:    strings.Join(ev, "; "),
			Why:         why,
			Fix:         Fix{Runtime: []string{set("maxservers", want)}, Persistent: []string{keep("maxservers", want)}},
			Risk:        risk,
		})
	}
	// maxreqs: a multiple of 4096 above 4 × disks × queue_depth.
	if sumQD > 0 && st.maxreqs <= 4*sumQD {
		want := (4*sumQD/4096 + 1) * 4096
		fs = append(fs, Finding{
			Setting:     "aio:maxreqs",
			Current:     fmt.Sprintf("maxreqs %d", st.maxreqs),
			Recommended: fmt.Sprintf("maxreqs %d (a multiple of 4096 above 4 × %d)", want, sumQD),
			Evidence:    fmt.Sprintf("%s; %s: 4 × %d = %d", cur, diskHow, sumQD, 4*sumQD),
			Why:         "004: maxreqs, the AIO queue, \"(= a multiple of 4096) should be > 4 * #disks * queue_depth\": with a smaller queue Oracle's I/O requests are refused (EAGAIN).",
			Fix:         Fix{Runtime: []string{set("maxreqs", want)}, Persistent: []string{keep("maxreqs", want)}},
			Risk:        risk,
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	msg := cur + "; " + diskHow
	if cpus > 0 {
		msg += fmt.Sprintf("; %s: 004's maxservers %d per CPU", cpuHow, wantS)
	}
	if fast {
		msg += "; aio_fsfastpath 1 (CIO I/Os bypass the servers)"
	}
	return Passed("%s", msg).Reading(msg)
}
