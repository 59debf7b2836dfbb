package rules

import (
	"fmt"
	"strings"
)

// io.aix-oracle-mount-options: 004's "FS mount options advices" table —
// data files and redo logs on JFS2 mounted noatime,cio; archived logs
// noatime,rbrw; binaries and control files noatime.
func init() {
	Register(Rule{
		ID:       "io.aix-oracle-mount-options",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "AIX file systems holding Oracle files without 004's mount options (cio, noatime, rbrw)",
		Sources: []Source{
			{Doc: Seed004, Section: "FS mount options advices", Quote: "mount –o noatime,cio"},
			{Doc: Seed004, Section: "FS mount options advices", Quote: "noatime reduce inode modification on read"},
			{Doc: Seed004, Section: "FS mount options advices", Quote: "Use jfs2 cache, but memory is released after read/write."},
			{Doc: Seed004, Section: "IO : Benefits of CIO for Oracle",
				Quote: "Avoid double caching : Some data are already cache in the Application layer (SGA)"},
			{Doc: Seed004, Section: "IO: Filesystems Mount Options (DIO, CIO)",
				Quote: "Performance achieved using CIO is comparable to raw-devices."},
		},
		Scope: Scope{
			Kernels:    "AIX 5.2 ML1 and later (CIO on JFS2); rbrw: AIX 6.1 and later",
			DBVersions: "Oracle 10g and later on JFS2 (ASM disk groups are not file systems: not judged)",
			Note: "Oracle's files are found from the artifacts (alert log redo members, db_create_file_dest / control_files, " +
				"log_archive_dest_N, db_recovery_file_dest), ORACLE_HOME from ps -ef, else the usual mount names (oradata, redo, arch)",
		},
		Description: `004's table of mount options: data files "mount -o noatime,cio" (cached by Oracle's SGA only: no
double caching, no inode lock), redo logs the same (on agblksize 512: io.aix-redo-agblksize), archived
logs "noatime,rbrw" (JFS2 cache released after the read or write), binaries and control files
"noatime". Concurrent I/O bypasses the file cache: only Oracle's data and redo belong on a cio mount —
never ORACLE_HOME or files other programs read through the cache.`,
		Check: checkAIXOracleMountOptions,
	})
}

func checkAIXOracleMountOptions(in *Input) Outcome {
	s := in.Snap
	if s.AIX.Mounts == nil {
		return CannotCheck("%s", aixWhy(s, "aix.mounts", "mount"))
	}
	fss := in.aixOracleFS()
	if len(fss) == 0 {
		if running, _, why := aixOracleRunning(s); why == "" && !running && in.Artifacts == nil {
			return NotApplicable("no Oracle process (ps -ef) and no Oracle artifact")
		}
		return CannotCheck("no JFS2 file system known to hold Oracle files: give the alert log and init.ora/spfile (--artifact); ASM disk groups are not file systems")
	}
	var fs []Finding
	var ok []string
	for _, f := range fss {
		m := f.Mount
		var want []string
		sev := SevInfo
		cioRole := f.has(aixRoleData) || f.has(aixRoleRedo)
		if cioRole && m.VFS == "jfs2" && hasOpt(m.Options, "cio") == "" {
			want = append(want, "cio")
			sev = SevWarning
		}
		if hasOpt(m.Options, "noatime") == "" {
			want = append(want, "noatime")
		}
		if f.has(aixRoleArch) && !cioRole && m.VFS == "jfs2" && hasOpt(m.Options, "rbrw") == "" && !f.has(aixRoleBinary) {
			want = append(want, "rbrw")
		}
		if f.has(aixRoleBinary) && hasOpt(m.Options, "cio") != "" {
			// ORACLE_HOME on a cio mount: its programs and libraries lose the file cache.
			fs = append(fs, aixMountFinding(f, nil, SevWarning, "the cio option removed (ORACLE_HOME is read through the file cache)"))
			continue
		}
		if len(want) == 0 {
			ok = append(ok, fmt.Sprintf("%s (%s): %s", m.Path, f.roleList(), strings.Join(m.Options, ",")))
			continue
		}
		fs = append(fs, aixMountFinding(f, want, sev, ""))
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%s", strings.Join(ok, "; ")).Reading(strings.Join(ok, "; ")) // none read: the engine's could not check
}

// aixMountFinding is the finding for one Oracle file system missing the
// options want (or, with want nil, holding cio it must not: remove says so).
func aixMountFinding(f *aixOraFS, want []string, sev, remove string) Finding {
	m := f.Mount
	opts := withOpts(m.Options, want...)
	if remove != "" {
		opts = nil
		for _, o := range m.Options {
			if o != "cio" {
				opts = append(opts, o)
			}
		}
	}
	// chfs keeps the options in /etc/filesystems: log= and the like are
	// not mount options of the stanza, leave them to chfs.
	var stanza []string
	for _, o := range opts {
		if !strings.HasPrefix(o, "log=") {
			stanza = append(stanza, o)
		}
	}
	rec := strings.Join(opts, ",")
	if remove != "" {
		rec = remove
	}
	ev := fmt.Sprintf("mount: %s on %s %s %s", m.Device, m.Path, m.VFS, strings.Join(m.Options, ","))
	if f.FS != nil {
		ev += fmt.Sprintf("; lsfs -q: options %s", strings.Join(f.FS.Options, ","))
	}
	ev += "; " + f.evidence()
	why := "004's mount options for Oracle: data files and redo logs \"noatime,cio\" (cached by Oracle only: no double caching, " +
		"no inode lock, \"comparable to raw-devices\"), archived logs \"noatime,rbrw\", binaries and control files \"noatime\" " +
		"(\"noatime reduce inode modification on read\")."
	return Finding{
		Severity:    sev,
		Setting:     "mount:" + m.Path,
		Current:     fmt.Sprintf("%s (%s) mounted %s", m.Path, f.roleList(), strings.Join(m.Options, ",")),
		Recommended: rec,
		Evidence:    ev,
		Why:         why,
		Fix: Fix{
			Runtime: []string{
				fmt.Sprintf("chfs -a options=%s %s   # /etc/filesystems", sh(strings.Join(stanza, ",")), sh(m.Path)),
				fmt.Sprintf("umount %s; mount %s   # with the database's files there closed", sh(m.Path), sh(m.Path)),
			},
			Persistent: []string{fmt.Sprintf("/etc/filesystems, stanza %s: options = %s (chfs writes it)", m.Path, strings.Join(stanza, ","))},
		},
		Pending: PendingManual,
		Risk: "The remount needs the file system unused: shut the instance down (or take the tablespaces / redo groups there " +
			"offline). With cio every read goes to the storage: a too small buffer cache (db_cache_size) that the file cache " +
			"was hiding shows up as more physical reads — size the SGA first; keep ORACLE_HOME and any non-Oracle files off " +
			"cio mounts. 004: to copy files for a cold backup faster, mount the file system a second time elsewhere with rw only.",
	}
}
