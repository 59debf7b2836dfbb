package rules

import (
	"fmt"
	"sort"
	"strings"
)

// db.aix-filesystemio-options: Oracle's filesystemio_options (and
// disk_asynch_io) on AIX, with the file systems' mount options: 004 advises
// ASYNCH and CIO through the mount option; DIRECTIO and NONE turn
// asynchronous I/O off.
func init() {
	Register(Rule{
		ID:       "db.aix-filesystemio-options",
		Area:     AreaDB,
		Severity: SevWarning,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "Oracle filesystemio_options / disk_asynch_io on AIX against the CIO mounts",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "Advice : set this parameter to 'ASYNCH', and let the system managed CIO via mount option"},
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "DIRECTIO : enables direct I/O on file system files (disables AIO)"},
			{Doc: Seed004, Section: "IO : AIO, DIO/CIO & Oracle Parameters",
				Quote: "Note : set the disk_asynch_io parameter to 'true' as well"},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO)",
				Quote: "Utilization of asynchronous IO is strongly advised whatever the type of file-system and mount option implemented"},
		},
		Scope: Scope{
			Kernels:    "AIX JFS2",
			DBVersions: "Oracle 10g and later (O_CIO with DIRECTIO/SETALL; O_CIO_R from 11.2.0.2 on AIX 6.1+)",
			Note:       "from the init.ora/spfile, else the alert log's non-default parameters (--artifact)",
		},
		Description: `On JFS2, Oracle 10g and later open data files with O_CIO when filesystemio_options is DIRECTIO or
SETALL. 004's advice: ASYNCH (asynchronous I/O on) and concurrent I/O from the cio mount option, so that
the same files can still be read through the cache from a second, rw mount (a cold backup). DIRECTIO
turns asynchronous I/O off, NONE turns both off; disk_asynch_io must be true.`,
		Check: checkAIXFilesystemioOptions,
	})
}

func checkAIXFilesystemioOptions(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	var cio []string
	if in.Snap.AIX.Mounts != nil {
		for _, f := range in.aixOracleFS() {
			if (f.has(aixRoleData) || f.has(aixRoleRedo)) && hasOpt(f.Mount.Options, "cio") != "" {
				cio = append(cio, f.Mount.Path)
			}
		}
	}
	sort.Strings(cio)
	var fs []Finding
	var ok []string
	for _, inst := range insts {
		v, where, set := inst.Param("filesystemio_options")
		val := strings.ToUpper(oraUnquote(v))
		if !set {
			val, where = "ASYNCH", "not set: Oracle's default on AIX"
		}
		if d, dwhere, dset := inst.Param("disk_asynch_io"); dset {
			if b, okb := oraBool(d); okb && !b {
				fs = append(fs, Finding{
					Setting:     inst.SID + ":disk_asynch_io",
					Current:     "disk_asynch_io=FALSE",
					Recommended: "disk_asynch_io=TRUE",
					Evidence:    fmt.Sprintf("%s: disk_asynch_io = %s", dwhere, d),
					Why:         "004: \"set the disk_asynch_io parameter to 'true' as well\"; asynchronous I/O \"is strongly advised whatever the type of file-system and mount option\".",
					Fix:         Fix{Runtime: []string{"ALTER SYSTEM SET disk_asynch_io=TRUE SCOPE=SPFILE SID='*';  -- then restart the instance"}, Persistent: []string{"spfile: *.disk_asynch_io=TRUE"}},
					Risk:        "A static parameter: in effect after the instance restarts (one RAC instance at a time).",
				})
			}
		}
		cioText := "no data/redo file system known to be mounted cio"
		if len(cio) > 0 {
			cioText = "cio mounts: " + strings.Join(cio, ", ")
		}
		switch val {
		case "ASYNCH":
			ok = append(ok, fmt.Sprintf("%s: filesystemio_options %s (%s)", inst.SID, val, where))
			continue
		case "NONE", "DIRECTIO", "SETALL":
		default:
			ok = append(ok, fmt.Sprintf("%s: filesystemio_options %q not judged (%s)", inst.SID, v, where))
			continue
		}
		sev := SevWarning
		why := "004: \"set this parameter to 'ASYNCH', and let the system managed CIO via mount option\"."
		switch val {
		case "NONE":
			why += " NONE \"disables both asynchronous and direct I/O on file system files\"."
		case "DIRECTIO":
			why += " DIRECTIO \"enables direct I/O on file system files (disables AIO)\"."
		case "SETALL":
			sev = SevInfo
			why += " SETALL keeps asynchronous I/O and opens the data files with O_CIO itself; with the cio mount option " +
				"doing that, ASYNCH lets a second rw mount of the same file system read them through the cache (004's cold backup)."
		}
		fs = append(fs, Finding{
			Severity:    sev,
			Setting:     inst.SID + ":filesystemio_options",
			Current:     "filesystemio_options=" + val,
			Recommended: "filesystemio_options=ASYNCH with the data and redo file systems mounted cio (io.aix-oracle-mount-options)",
			Evidence:    fmt.Sprintf("%s: filesystemio_options = %s; %s", where, v, cioText),
			Why:         why,
			Fix: Fix{
				Runtime:    []string{"ALTER SYSTEM SET filesystemio_options=ASYNCH SCOPE=SPFILE SID='*';  -- then restart the instance"},
				Persistent: []string{"spfile: *.filesystemio_options=ASYNCH"},
			},
			Risk: "A static parameter: in effect after a restart. Mount the data and redo file systems cio first: ASYNCH on a " +
				"plain rw mount caches the data files twice (file cache and SGA).",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%s", strings.Join(ok, "; ")).Reading(strings.Join(ok, "; "))
}
