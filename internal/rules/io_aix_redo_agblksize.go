package rules

import (
	"fmt"
	"strings"
)

// io.aix-redo-agblksize: Oracle's redo logs on a JFS2 file system whose
// block size (agblksize) is not 512: redo is written in 512-byte blocks,
// so each direct write is demoted (read, merge, write); 004's AWR: log
// file sync 28 ms with agblksize 4096, 2 ms with 512.
func init() {
	Register(Rule{
		ID:       "io.aix-redo-agblksize",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "Oracle redo logs on a JFS2 file system with agblksize other than 512 (demoted I/O)",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Benefits of CIO for Oracle",
				Quote: "Redolog are always written in 512B block; So jfs2 agblksize must be 512"},
			{Doc: Seed004, Section: "IO : Benefits of CIO for Oracle",
				Quote: "IO requests made by Oracle must by aligned with the jfs2 blocksize to avoid a demoted IO"},
			{Doc: Seed004, Section: "IO : Direct IO demoted",
				Quote: "Waits on redolog (with demoted IO, FS blk=4k)"},
			{Doc: Seed004, Section: "FS mount options advices",
				Quote: "jfs2 agblksize=512 (to avoid io demotion)"},
		},
		Scope: Scope{
			Kernels:    "AIX JFS2 (lsfs -q block size); the block size is fixed when the file system is made (crfs/mkfs -o agblksize)",
			DBVersions: "Oracle writing 512-byte redo blocks (V$LOG.BLOCKSIZE 512, the default on AIX)",
			Note:       "redo file systems from the alert log's \"Current log#\" members, else mount names holding redo/origlog/mirrlog",
		},
		Description: `Direct and concurrent I/O must be aligned with the JFS2 block size: an I/O smaller than
agblksize is "demoted" to a cached read-modify-write ("1 io write = 1 phys io read + 1 phys io write").
Redo is always written in 512-byte blocks, so a redo file system needs agblksize 512. 004's AWR
extract: log file sync averaged 28 ms on a file system with 4 kB blocks and 2 ms with 512-byte blocks.
agblksize cannot be changed in place: a new file system is made and the redo groups moved to it.`,
		Check: checkAIXRedoAgblksize,
	})
}

func checkAIXRedoAgblksize(in *Input) Outcome {
	s := in.Snap
	if s.AIX.Mounts == nil {
		return CannotCheck("%s", aixWhy(s, "aix.mounts", "mount"))
	}
	var redo []*aixOraFS
	for _, f := range in.aixOracleFS() {
		if f.has(aixRoleRedo) {
			redo = append(redo, f)
		}
	}
	if len(redo) == 0 {
		if running, _, why := aixOracleRunning(s); why == "" && !running && in.Artifacts == nil {
			return NotApplicable("no Oracle process (ps -ef) and no Oracle artifact")
		}
		return CannotCheck("no JFS2 file system known to hold the online redo logs: give the alert log (--artifact; its \"Current log#\" lines name them); ASM disk groups are not file systems")
	}
	var fs []Finding
	var ok, cannot []string
	for _, f := range redo {
		m := f.Mount
		if m.VFS != "jfs2" {
			ok = append(ok, fmt.Sprintf("%s is %s, not JFS2", m.Path, m.VFS))
			continue
		}
		if f.FS == nil || f.FS.AGBlkSize == nil {
			cannot = append(cannot, m.Path+": "+aixWhy(s, "aix.filesystems", "lsfs -q")+" (block size)")
			continue
		}
		bs := *f.FS.AGBlkSize
		if bs == 512 {
			ok = append(ok, fmt.Sprintf("%s agblksize 512", m.Path))
			continue
		}
		size := "<size>"
		if f.FS.SizeBlocks != nil {
			size = fmt.Sprintf("%d", *f.FS.SizeBlocks)
		}
		fs = append(fs, Finding{
			Setting:     "agblksize:" + m.Path,
			Current:     fmt.Sprintf("%s (redo logs) on JFS2 with agblksize %d", m.Path, bs),
			Recommended: "agblksize 512 for the file system holding the redo logs",
			Evidence:    fmt.Sprintf("lsfs -q: %s block size %d; mount: %s %s; %s", m.Path, bs, m.Device, strings.Join(m.Options, ","), f.evidence()),
			Why: "004: \"Redolog are always written in 512B block; So jfs2 agblksize must be 512\": with a larger block each redo " +
				"write is demoted to a read-modify-write through the cache. 004's AWR extract: log file sync averaged 28 ms with " +
				"FS blk=4k and 2 ms with 512.",
			Fix: Fix{
				Runtime: []string{
					fmt.Sprintf("crfs -v jfs2 -g <vg> -m %s -A yes -a size=%s -a agblksize=512 -a logname=INLINE   # agblksize cannot be changed in place", sh(m.Path+"_512"), sh(size)),
					fmt.Sprintf("chfs -a options=rw,noatime,cio %s; mount %s", sh(m.Path+"_512"), sh(m.Path+"_512")),
					fmt.Sprintf("ALTER DATABASE ADD LOGFILE GROUP <n> ('%s_512/redo<n>a.log') SIZE <same size>;  -- one per existing group, then ALTER SYSTEM SWITCH LOGFILE / CHECKPOINT and DROP LOGFILE GROUP <old> once INACTIVE", m.Path),
				},
				Persistent: []string{fmt.Sprintf("crfs (above) writes the new %s_512 stanza to /etc/filesystems", m.Path)},
			},
			Pending: PendingManual,
			Risk: "Done online: new groups are added, the old ones dropped when INACTIVE (keep the multiplexing: a member per " +
				"file system as before); with Data Guard add standby redo logs of the same size. Files other than redo on " +
				"a 512-byte file system cost more metadata: keep data files on their own file system (agblksize 4096 for " +
				"block sizes of 4 kB or more, 004).",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(cannot) > 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return Passed("%s", strings.Join(ok, "; ")).Reading(strings.Join(ok, "; ")) // none read: the engine's could not check
}
