package rules

import (
	"fmt"
	"strings"
)

// io.aix-redo-separate: 004's "if possible separate redologs
// (+archivelogs)" from the data striped over every disk (S.A.M.E.), judged
// on an AIX host at the file-system level: the bundle has `mount` and
// `lsfs -q` (file system → logical volume) but not the logical volumes'
// disks (lslv -l), so two file systems of one volume group may still share
// hdisks — the scope says so. The files come from the artifacts and the
// usual mount names (helpers_aixfs.go).
func init() {
	Register(Rule{
		ID:       "io.aix-redo-separate",
		Area:     AreaIO,
		Severity: SevInfo,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "AIX: Oracle redo logs (or archived logs) on the data files' file system",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Database Layout",
				Quote: "apply the SAME strategy to data, indexes"},
			{Doc: Seed004, Section: "IO : Database Layout",
				Quote: "if possible separate redologs (+archivelogs)"},
		},
		Scope: Scope{
			Kernels:    "AIX (JFS2 and JFS file systems)",
			DBVersions: "Oracle on file systems (ASM disk groups are not file systems: not judged)",
			Note: "compared by file system (logical volume): the bundle does not map logical volumes to hdisks, so separate " +
				"file systems of one volume group may still share disks; files are found from the alert log's redo members, " +
				"db_create_file_dest or the control files' directory, log_archive_dest_N and db_recovery_file_dest, else the usual mount names",
		},
		Pending: PendingManual,
		Description: `004's storage advice stripes data and indexes over every disk (S.A.M.E.) and, "if possible",
keeps the redo logs (and the archived logs) apart: the log writer's small sequential writes at every
commit then do not queue behind the data files' random I/O, and the archiver reads the redo from other
disks than the ones it writes. dbhost reports a file system that holds the redo logs or the archived
logs together with the data files.`,
		Check: checkAIXRedoSeparate,
	})
}

func checkAIXRedoSeparate(in *Input) Outcome {
	s := in.Snap
	if s.AIX.Mounts == nil {
		return CannotCheck("%s", aixWhy(s, "aix.mounts", "mount"))
	}
	fss := in.aixOracleFS()
	var redo, arch, data []*aixOraFS
	for _, f := range fss {
		if f.has(aixRoleRedo) {
			redo = append(redo, f)
		}
		if f.has(aixRoleArch) {
			arch = append(arch, f)
		}
		if f.has(aixRoleData) {
			data = append(data, f)
		}
	}
	if len(fss) == 0 {
		if running, _, why := aixOracleRunning(s); why == "" && !running && in.Artifacts == nil {
			return NotApplicable("no Oracle process (ps -ef) and no Oracle artifact")
		}
	}
	if len(redo) == 0 || len(data) == 0 {
		return CannotCheck("the file systems of the redo logs and of the data files are not both known (redo: %d, data: %d): "+
			"give the alert log and init.ora/spfile (--artifact); ASM disk groups are not file systems", len(redo), len(data))
	}
	var fs []Finding
	var ok []string
	for _, f := range fss {
		if !f.has(aixRoleData) || !f.has(aixRoleRedo) && !f.has(aixRoleArch) {
			continue
		}
		var with []string
		if f.has(aixRoleRedo) {
			with = append(with, "redo logs")
		}
		if f.has(aixRoleArch) {
			with = append(with, "archived logs")
		}
		m := f.Mount
		fs = append(fs, Finding{
			Setting:     "mount:" + m.Path,
			Current:     fmt.Sprintf("%s (%s) holds the data files and the %s", m.Path, m.Device, strings.Join(with, " and ")),
			Recommended: fmt.Sprintf("the %s on file systems (logical volumes, ideally hdisks) of their own", strings.Join(with, " and ")),
			Evidence:    f.evidence(),
			Why: "004 (IO : Database Layout): stripe data and indexes over every disk (S.A.M.E.) and \"if possible separate " +
				"redologs (+archivelogs)\": the log writer's synchronous writes at each commit do not wait behind the data files' I/O.",
			Fix: Fix{Runtime: []string{}, Persistent: []string{
				"create a logical volume and JFS2 file system for the redo logs on hdisks the data files do not use (mklv, crfs -a agblksize=512), " +
					"mount it noatime,cio, then add new redo log groups there and drop the old ones (ALTER DATABASE ADD LOGFILE GROUP ...; " +
					"ALTER SYSTEM SWITCH LOGFILE; ALTER DATABASE DROP LOGFILE GROUP ...); archived logs: log_archive_dest_1='LOCATION=...' on a file system of their own",
			}},
			Risk: "Moving redo logs is an online operation done group by group; a group is dropped only when INACTIVE (and archived).",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	for _, f := range redo {
		ok = append(ok, fmt.Sprintf("redo logs on %s (%s)", f.Mount.Path, f.Mount.Device))
	}
	for _, f := range arch {
		ok = append(ok, fmt.Sprintf("archived logs on %s (%s)", f.Mount.Path, f.Mount.Device))
	}
	var read []string
	for _, f := range append(append(redo, arch...), data...) {
		read = append(read, f.evidence())
	}
	for _, f := range data {
		ok = append(ok, fmt.Sprintf("data files on %s (%s)", f.Mount.Path, f.Mount.Device))
	}
	return Passed("%s: separate file systems", strings.Join(ok, "; ")).Reading(read...)
}
