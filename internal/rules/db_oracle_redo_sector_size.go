package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// db.oracle-redo-sector-size: 004 sizes the filesystem block for the redo
// log, "always written in 512B block": a redo write smaller than the unit
// the storage writes costs "1 phys io read + 1 phys io write". On Linux the
// mismatch is a 512e device: it takes 512-byte writes (logical_block_size
// 512) but writes 4 KiB sectors (physical_block_size 4096), so a 512-byte
// redo block is a read-modify-write inside the drive or array. 004's AWR
// figure (log file sync 28 ms against 2 ms) measures another mechanism,
// JFS2's demoted I/O (a CIO write falling back to the file cache), and is
// not claimed for it. Oracle takes the redo
// BLOCKSIZE from the sector size the device reports; on 512e it is 512
// unless the log groups were created with BLOCKSIZE 4096. The online redo
// members come from the alert logs given (Current log# ... mem# ...: PATH),
// their devices from the mounts.
func init() {
	Register(Rule{
		ID:       "db.oracle-redo-sector-size",
		Area:     AreaDB,
		Severity: SevInfo,
		Title:    "Online redo logs on a 512e device (4 KiB physical sectors): 512-byte redo writes are read-modify-writes",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Benefits of CIO for Oracle",
				Quote: "Redolog are always written in 512B block; So jfs2 agblksize must be 512"},
			{Doc: Seed004, Section: "IO : Benefits of CIO for Oracle",
				Quote: "1 io write = 1 phys io read + 1 phys io write"},
			{Doc: "https://docs.oracle.com/en/database/oracle/oracle-database/19/admin/managing-the-redo-log.html",
				Section: "Planning the Block Size of Redo Log Files (BLOCKSIZE 512, 1024 or 4096; 4096 for disks with 4 KB sectors, including 512-byte emulation mode)"},
		},
		Scope: Scope{Kernels: "all (queue/physical_block_size since 2.6.31)", DBVersions: "Oracle 11.2+ (ALTER DATABASE ADD LOGFILE ... BLOCKSIZE)",
			Note: "the redo BLOCKSIZE in use is not in the alert log: V$LOG.BLOCKSIZE says it; ASM members are not mapped to disks here"},
		Check: checkOracleRedoSectorSize,
	})
}

func checkOracleRedoSectorSize(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.AlertLogs) == 0 {
		return NotApplicable("no Oracle alert log given (--artifact alert_SID.log)")
	}
	type member struct{ where, path string }
	var members []member
	for _, a := range in.Artifacts.AlertLogs {
		st := a.Last()
		if st == nil {
			continue
		}
		for _, r := range st.RedoLogs {
			members = append(members, member{fmt.Sprintf("%s:%d", a.File, r.Line), r.Path})
		}
	}
	if len(members) == 0 {
		return CannotCheck("the alert logs given name no online redo member (no \"Current log# N seq# N mem# N: PATH\" line after their last startup)")
	}
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	byDev := map[string][]string{}
	desc := map[string]string{}
	var ok, cannot []string
	for _, m := range members {
		if strings.HasPrefix(m.path, "+") {
			cannot = append(cannot, m.path+": an ASM member (its disk group's disks are not mapped here; check the disks' physical_block_size and the disk group's SECTOR_SIZE)")
			continue
		}
		mnt, d, why := fileDevice(in.Snap, v, m.path)
		if d == nil {
			cannot = append(cannot, why)
			continue
		}
		logical, physical, how := sectorSizes(v, d)
		if how != "" {
			cannot = append(cannot, m.path+": "+how)
			continue
		}
		if logical >= physical || logical >= 4096 {
			ok = append(ok, fmt.Sprintf("%s on %s (logical %d, physical %d)", m.path, d.Name, logical, physical))
			continue
		}
		byDev[d.Name] = append(byDev[d.Name], m.path+" ("+m.where+")")
		desc[d.Name] = fmt.Sprintf("%s mounted on %s from %s (%s): logical_block_size %d, physical_block_size %d", m.path, mnt.Path, mnt.Device, d.Name, logical, physical)
	}
	var fs []Finding
	for _, n := range sortedStringKeys(byDev) {
		fs = append(fs, Finding{
			Setting:     "redo log BLOCKSIZE on " + n,
			Current:     fmt.Sprintf("%d online redo member(s) on a 512e device; BLOCKSIZE 512 unless the groups were created with 4096", len(byDev[n])),
			Recommended: "redo log groups with BLOCKSIZE 4096 on this device (or redo on a device with 512-byte physical sectors)",
			Evidence:    desc[n] + "; members: " + strings.Join(byDev[n], ", "),
			Why: "004: \"Redolog are always written in 512B block\"; where the storage writes a larger unit, each redo write costs \"1 phys io " +
				"read + 1 phys io write\". (004's log file sync of 28 ms against 2 ms is JFS2's demoted I/O on AIX, a CIO write falling back " +
				"to the file cache: another mechanism, so no figure is claimed here; what a drive's internal read-modify-write costs " +
				"depends on the drive and its cache.) This device accepts 512-byte " +
				"writes but writes 4 KiB sectors, so a 512-byte redo block is read, merged and rewritten by the drive or array. Oracle " +
				"takes the redo block size from the sector size the device reports (512 here) unless the groups were created with " +
				"BLOCKSIZE 4096: check SELECT group#, blocksize FROM v$log.",
			Fix: Fix{Runtime: []string{},
				Persistent: []string{"SELECT group#, thread#, blocksize, bytes FROM v$log;  -- 512: replace the groups",
					"ALTER DATABASE ADD LOGFILE GROUP <n> ('<path on this device>') SIZE <same size> BLOCKSIZE 4096;  -- one per group (Oracle 11.2 on 512e may need _disk_sector_size_override=TRUE)",
					"ALTER SYSTEM SWITCH LOGFILE; ALTER SYSTEM CHECKPOINT;  then ALTER DATABASE DROP LOGFILE GROUP <old n>; for each inactive 512 group"}},
			Pending: PendingManual,
			Risk: "A 4096 block wastes more of the log on small commits (redo wastage rises for many tiny transactions); replacing groups " +
				"is online, one group at a time, but a standby needs its standby logs replaced the same way.",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(ok) > 0:
		return Passed("redo members on devices whose physical sectors match the 512-byte writes or that are 4K native: %s", strings.Join(append(ok, cannot...), "; ")).
			Reading(strings.Join(ok, "; "))
	}
	return CannotCheck("%s", strings.Join(cannot, "; "))
}

// sectorSizes are the logical and physical block sizes of a device, or of
// the devices below it when a dm/md device does not show them (the largest
// physical and the largest logical of its slaves: what the stack exposes).
func sectorSizes(v *blockView, d *snapshot.BlockDevice) (logical, physical int64, why string) {
	var walk func(d *snapshot.BlockDevice, depth int) bool
	walk = func(d *snapshot.BlockDevice, depth int) bool {
		if d == nil || depth > 16 {
			return false
		}
		if d.LogicalBlockSize != nil && d.PhysicalBlockSize != nil {
			logical, physical = max(logical, *d.LogicalBlockSize), max(physical, *d.PhysicalBlockSize)
			return true
		}
		if len(d.Slaves) == 0 {
			return false
		}
		for _, sl := range d.Slaves {
			if !walk(v.byName[baseDevice(sl, v)], depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(d, 0) {
		return 0, 0, "the sector sizes of " + d.Name + " are not in the snapshot"
	}
	return logical, physical, ""
}
