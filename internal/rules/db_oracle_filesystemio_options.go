package rules

import (
	"fmt"
	"strings"
)

// db.oracle-filesystemio-options: datafiles on a filesystem (not ASM) read
// and written without both direct and asynchronous I/O: filesystemio_options
// other than SETALL (Linux default NONE), or disk_asynch_io = FALSE.
func init() {
	Register(Rule{
		ID:       "db.oracle-filesystemio-options",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "Oracle datafiles on a filesystem without direct and asynchronous I/O",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "SETALL : enables both asynchronous and direct I/O on file system files"},
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "Note : set the disk_asynch_io parameter to 'true' as well"},
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "Advice : set this parameter to 'ASYNCH', and let the system managed CIO via mount option"},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO)",
				Quote: "Utilization of asynchronous IO is strongly advised whatever the type of file-system and mount option implemented"},
			{Doc: Seed003, Section: "I/O Tuning – File Systems",
				Quote: "Avoid double caching"},
			{Doc: Seed003, Section: "I/O Tuning – File Systems",
				Quote: "Eliminate synchronous I/O stall"},
			{Doc: Seed000, Section: "I/O simulation",
				Quote: "32 writers that perform 8K random writes using libaio, similar to Oracle DB Writers"},
			{Doc: Seed000, Section: "Appendix: FIO profile used in testing",
				Quote: "direct=1"},
			{Doc: "https://access.redhat.com/documentation/en-US/Red_Hat_Enterprise_Linux/5/html/Tuning_and_Optimizing_Red_Hat_Enterprise_Linux_for_Oracle_9i_and_10g_Databases/",
				Section: "12.3 Enabling Asynchronous I/O (filesystemio_options defaults to none on Linux; setall strongly recommended)"},
		},
		Scope: Scope{
			Kernels:    "Linux (dbhost's collector); on AIX JFS2, 004 advises ASYNCH plus the cio mount option instead of SETALL",
			DBVersions: "Oracle 9i+; datafiles on a filesystem (not ASM, where the parameter has no effect)",
			Note:       "from init.ora/pfile/spfile or the alert log's non-default parameters",
		},
		Pending: PendingRestart,
		Check:   checkOracleFilesystemIO,
	})
}

func checkOracleFilesystemIO(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	var fs []Finding
	var fsSIDs []string
	var checked []string
	for _, i := range insts {
		storage, onFS, asm := oraDatafileStorage(in, i)
		if asm {
			checked = append(checked, i.SID+": "+storage+" (ASM: filesystemio_options has no effect)")
			continue
		}
		sev := SevWarning
		if !onFS {
			sev = SevInfo // storage unknown: applies only if the datafiles are on a filesystem
		}
		v, where, set := i.Param("filesystemio_options")
		val := strings.ToUpper(oraUnquote(v))
		if !set && !i.Complete() {
			checked = append(checked, i.SID+": filesystemio_options unknown (the alert log has no parameter list)")
		} else if val != "SETALL" {
			cur, ev := val, fmt.Sprintf("%s: filesystemio_options = %s", where, v)
			if !set {
				cur, ev = "not set (Linux default NONE)", "filesystemio_options not set in "+i.Source()
			}
			what := map[string]string{"NONE": "synchronous, buffered I/O", "ASYNCH": "asynchronous but buffered: double caching",
				"DIRECTIO": "direct but synchronous I/O"}[val]
			if !set {
				what = "synchronous, buffered I/O"
			} else if what == "" {
				what = "not a known value"
			}
			fsSIDs = append(fsSIDs, i.SID)
			fs = append(fs, Finding{
				Severity:    sev,
				Setting:     "oracle:filesystemio_options",
				Current:     fmt.Sprintf("%s for instance %s (%s)", cur, i.SID, what),
				Recommended: "SETALL",
				Evidence:    ev + "; " + storage,
				Why: "003: direct I/O avoids double caching and reduces CPU; asynchronous I/O eliminates synchronous I/O " +
					"stalls, critical for I/O-intensive databases. 004: SETALL enables both. 000 models Oracle's I/O as " +
					"direct, libaio-driven I/O.",
				Fix: Fix{Runtime: []string{}, Persistent: []string{
					fmt.Sprintf("ALTER SYSTEM SET filesystemio_options=SETALL SCOPE=SPFILE SID='*'; then restart %s", i.SID),
					"pfile: *.filesystemio_options='SETALL'",
				}},
				Risk: "Static parameter: needs a restart. Direct I/O bypasses the page cache: a buffer cache sized on the " +
					"assumption that the OS caches too may need to grow (reads formerly served from the page cache go to disk). " +
					"On AIX JFS2, 004 prefers ASYNCH plus the cio mount option.",
			})
		} else {
			checked = append(checked, i.SID+": filesystemio_options = SETALL")
		}
		if v, where, set := i.Param("disk_asynch_io"); set {
			if b, ok := oraBool(v); ok && !b {
				fsSIDs = append(fsSIDs, i.SID)
				fs = append(fs, Finding{
					Severity:    sev,
					Setting:     "oracle:disk_asynch_io",
					Current:     fmt.Sprintf("FALSE for instance %s (asynchronous I/O off for datafiles, control files and logs)", i.SID),
					Recommended: "TRUE (the default)",
					Evidence:    fmt.Sprintf("%s: disk_asynch_io = %s; %s", where, v, storage),
					Why: "004: set disk_asynch_io to true as well; asynchronous I/O is strongly advised whatever the filesystem " +
						"and mount option. 003: asynchronous I/O eliminates synchronous I/O stalls.",
					Fix: Fix{Runtime: []string{}, Persistent: []string{
						fmt.Sprintf("ALTER SYSTEM RESET disk_asynch_io SCOPE=SPFILE SID='*';   (or SET disk_asynch_io=TRUE), then restart %s", i.SID),
					}},
					Risk: "Static parameter: needs a restart. Check fs.aio-max-nr leaves room for every instance's AIO contexts.",
				})
			}
		}
	}
	if len(fs) > 0 {
		return Found(artMerge(fs, fsSIDs)...)
	}
	return Passed("%s", strings.Join(checked, "; ")).Reading(strings.Join(checked, "; ")) // none read: the engine's could not check
}

// oraDatafileStorage says where the instance's files are, from control_files
// and db_create_file_dest: on ASM ("+DATA/..."), on a filesystem ("/u02/...",
// with its mount when the snapshot has it), or unknown.
func oraDatafileStorage(in *Input, i *oraInstance) (text string, onFS, asm bool) {
	for _, name := range []string{"db_create_file_dest", "control_files"} {
		v, where, ok := i.Param(name)
		if !ok {
			continue
		}
		first := oraUnquote(strings.Split(v, ",")[0])
		switch {
		case strings.HasPrefix(first, "+"):
			return fmt.Sprintf("%s: %s = %s (ASM)", where, name, first), false, true
		case strings.HasPrefix(first, "/"):
			t := fmt.Sprintf("%s: %s = %s (a filesystem)", where, name, first)
			if m := oraMountOf(in, first); m != "" {
				t = fmt.Sprintf("%s: %s = %s (%s)", where, name, first, m)
			}
			return t, true, false
		}
	}
	return "datafile storage unknown (no control_files or db_create_file_dest): applies if the datafiles are on a filesystem", false, false
}

// oraMountOf is the mount holding path ("xfs /u02 on /dev/sdb1"), "" when unknown.
func oraMountOf(in *Input, path string) string {
	best := -1
	for k, m := range in.Snap.Storage.Mounts {
		p := strings.TrimSuffix(m.Path, "/")
		if (path == m.Path || strings.HasPrefix(path, p+"/")) && (best < 0 || len(m.Path) > len(in.Snap.Storage.Mounts[best].Path)) {
			best = k
		}
	}
	if best < 0 {
		return ""
	}
	m := in.Snap.Storage.Mounts[best]
	return fmt.Sprintf("%s %s on %s", m.FSType, m.Path, m.Device)
}
