package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// io.awr-write-waits: sessions wait for the database writer (free buffer
// waits: no clean buffer, DBWR cannot write fast enough) or for LGWR (log
// buffer space: the redo buffer is full, LGWR cannot write it fast enough).
// Both are writes the host must absorb: asynchronous and direct I/O on file
// systems (004, 003), and fast devices.
func init() {
	Register(Rule{
		ID:           "io.awr-write-waits",
		Area:         AreaIO,
		Severity:     SevWarning,
		Title:        "Sessions wait for the database's writers (free buffer waits, log buffer space)",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "SETALL : enables both asynchronous and direct I/O on file system files"},
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "Advice : set this parameter to 'ASYNCH', and let the system managed CIO via mount option"},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO)",
				Quote: "Utilization of asynchronous IO is strongly advised whatever the type of file-system and mount option implemented"},
			{Doc: Seed003, Section: "I/O Tuning – File Systems",
				Quote: "Eliminate synchronous I/O stall"},
			{Doc: Seed002, Section: "Part 5: Oracle SecureFile LOB is better than BasicFile, isn’t it? — Top 5 Timed Foreground Events",
				Quote: "the main bottleneck moved to the REDO subsystem now"},
		},
		Scope: Scope{
			DBVersions: "all; filesystemio_options defaults to none on Linux file systems, ASYNCH on AIX",
			Kernels:    "Linux: SETALL; AIX (the report's platform, else the audited host's): ASYNCH with cio mounts, as db.aix-filesystemio-options",
			Note:       "read from AWR/Statspack reports (--artifact, dbhost awr)",
		},
		Thresholds: []string{fmt.Sprintf("free buffer waits, log buffer space or write complete waits at %d %% of DB time or more", writeWaitPct)},
		Check:      checkAWRWriteWaits,
	})
}

const writeWaitPct = 1

func checkAWRWriteWaits(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return writeWaitsReport(in, r) })
}

func writeWaitsReport(in *Input, r *artifacts.AWRReport) Outcome {
	if len(r.TopEvents) == 0 {
		return CannotCheck("the report has no top events")
	}
	given, none := awrHost(in)
	osName, osEv := awrOS(in, r)
	aix := osName == OSAIX
	var fs []Finding
	var seen []string
	for _, name := range []string{"free buffer waits", "write complete waits", "log buffer space"} {
		e, ok := r.Event(name)
		if !ok {
			continue
		}
		pct, okPct := awrPct(r, e)
		if !okPct || pct < writeWaitPct {
			seen = append(seen, fmt.Sprintf("%s %s %%", name, awrNum(pct)))
			continue
		}
		ev := []string{awrEv(r, e)}
		var f Finding
		if name == "log buffer space" {
			if w, ok := r.Event("log file parallel write"); ok {
				ev = append(ev, awrEv(r, w))
			}
			if _, pe, ok := awrParam(r, "log_buffer"); ok {
				ev = append(ev, pe)
			}
			if v := r.LoadProfile.RedoBytesPerS; v != nil {
				ev = append(ev, fmt.Sprintf("Load Profile: %s bytes of redo per second", awrNum(*v)))
			}
			f = Finding{
				Setting:     "redo write throughput (LGWR) and log_buffer",
				Current:     fmt.Sprintf("log buffer space %s %% of DB time", awrNum(pct)),
				Recommended: "LGWR writing as fast as the sessions generate redo: low-latency redo devices (see io.awr-redo-latency), a log_buffer of several seconds of redo",
				Why: "Sessions wait for room in the redo buffer while LGWR writes it out: LGWR's writes are too slow for the redo rate. " +
					"002: once the LOB writes were cached, log buffer space topped the events — the bottleneck had moved to the redo.",
				Fix:  Fix{Runtime: []string{}, Persistent: []string{"faster, separate redo devices; ALTER SYSTEM SET log_buffer=<bytes> SCOPE=SPFILE (restart)"}},
				Risk: "A larger log_buffer only absorbs bursts; sustained redo above the devices' rate needs faster devices.",
			}
		} else {
			if w, ok := r.Event("db file parallel write"); ok {
				ev = append(ev, awrEv(r, w))
			}
			fsio, fsEv, haveFS := awrParam(r, "filesystemio_options")
			for _, p := range []string{"disk_asynch_io", "db_writer_processes"} {
				if _, pe, ok := awrParam(r, p); ok {
					ev = append(ev, pe)
				}
			}
			rec := "DBWR writing asynchronously and directly: filesystemio_options=SETALL on file systems (ASM uses async I/O itself), disk_asynch_io=TRUE, and data devices fast enough for the write rate"
			cur := fmt.Sprintf("%s %s %% of DB time", name, awrNum(pct))
			if osEv != "" {
				ev = append(ev, osEv)
			}
			if aix {
				rec = "DBWR writing asynchronously and directly as 004 advises on AIX: filesystemio_options=ASYNCH with the data and redo file systems mounted cio, disk_asynch_io=TRUE (as db.aix-filesystemio-options), and data devices fast enough for the write rate"
			}
			if haveFS {
				ev = append(ev, fsEv)
				switch v := strings.ToUpper(oraUnquote(fsio)); {
				case v != "SETALL" && v != "ASYNCH":
					cur += fmt.Sprintf(" with filesystemio_options=%s (no asynchronous I/O for file system files)", fsio)
				case aix && v == "SETALL":
					cur += " with filesystemio_options=SETALL (004 on AIX: ASYNCH, and cio from the mount option)"
				}
			} else if aix {
				ev = append(ev, "filesystemio_options not set: Oracle's default on AIX is ASYNCH (direct I/O then comes from cio mounts)")
			} else if osName == OSLinux {
				ev = append(ev, "filesystemio_options not set: the Linux default is none (synchronous, buffered) for file system files")
			} else {
				ev = append(ev, "filesystemio_options not set: the platform's default (none on Linux file systems, ASYNCH on AIX)")
			}
			if aix {
				if awrHostSystem(in) == OSAIX {
					ev = append(ev, "this AIX host's AIO servers and cio mounts: see db.aix-aio-servers, io.aix-oracle-mount-options and db.aix-filesystemio-options in this audit")
				} else {
					ev = append(ev, "the AIX host's AIO servers and cio mounts are judged with its bundle (dbhost audit --aix-bundle DIR --artifact REPORT)")
				}
			} else if given {
				if n := awrHostNote(in, r); n != "" {
					ev = append(ev, n)
				}
				if nr, why := in.SysctlInt("fs.aio-nr"); why == "" {
					if max, why := in.SysctlInt("fs.aio-max-nr"); why == "" {
						ev = append(ev, fmt.Sprintf("this host: fs.aio-nr %d of fs.aio-max-nr %d", nr, max))
					}
				}
				ev = append(ev, redoDevices(in)[:1]...)
			} else {
				ev = append(ev, none+" the host's asynchronous I/O limit (fs.aio-max-nr) and its data devices")
			}
			fix := Fix{Runtime: []string{}, Persistent: []string{"ALTER SYSTEM SET filesystemio_options=SETALL SCOPE=SPFILE; ALTER SYSTEM SET disk_asynch_io=TRUE SCOPE=SPFILE; restart"}}
			why := "Sessions find no free buffer because DBWR cannot write dirty buffers out fast enough. 004 strongly advises " +
				"asynchronous I/O and SETALL (asynchronous and direct) for file system files; 003 lists direct and async I/O " +
				"as eliminating synchronous I/O stalls and double caching."
			risk := "Direct I/O bypasses the page cache: an undersized buffer cache that relied on it reads more (enlarge db_cache_size with it)."
			if aix {
				fix.Persistent = []string{"mount the data and redo file systems cio (their /etc/filesystems options with cio added by chfs -a options=..., then a remount: io.aix-oracle-mount-options gives the command per file system); " +
					"ALTER SYSTEM SET filesystemio_options=ASYNCH SCOPE=SPFILE; ALTER SYSTEM SET disk_asynch_io=TRUE SCOPE=SPFILE; restart"}
				why = "Sessions find no free buffer because DBWR cannot write dirty buffers out fast enough. On AIX 004 strongly advises " +
					"asynchronous I/O \"whatever the type of file-system and mount option\" and \"set this parameter to 'ASYNCH', and let the " +
					"system managed CIO via mount option\" (db.aix-filesystemio-options judges the same); 003 lists direct and async I/O as " +
					"eliminating synchronous I/O stalls."
				risk = "cio bypasses the file cache: an undersized buffer cache that relied on it reads more (enlarge db_cache_size with it); " +
					"a remount needs the file system unmounted (the database down)."
			}
			f = Finding{
				Setting:     "DBWR write path (filesystemio_options, disk_asynch_io, data devices)",
				Current:     cur,
				Recommended: rec,
				Why:         why,
				Fix:         fix,
				Risk:        risk,
			}
		}
		f.Evidence = strings.Join(ev, "; ")
		fs = append(fs, f)
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(seen) > 0 {
		return Passed("%s of DB time", strings.Join(seen, ", ")).Reading(strings.Join(seen, ", "))
	}
	return Passed("no free buffer waits or log buffer space among the report's events").Reading(awrEventsRead(r))
}
