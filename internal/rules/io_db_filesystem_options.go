package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.db-filesystem-options: the filesystems that hold database files. 003
// chooses xfs or ext4 for databases and keeps filesystem barriers enabled in
// every tuned profile; 000 allows barrier=0 only with non-volatile array
// cache ("data loss or data corruption" otherwise).
func init() {
	Register(Rule{
		ID:       "io.db-filesystem-options",
		Area:     AreaIO,
		Severity: SevWarning,
		Title:    "Filesystem type or mount options of database files",
		Sources:  fsSources,
		Scope: Scope{
			Kernels: "all; xfs removed the nobarrier option in 4.19 (mount fails), ext4 still accepts barrier=0/nobarrier",
			Distros: "all",
			Note:    "database mounts are found from the database processes' data directories and the usual locations (/u0N, /oradata, /var/lib/pgsql, /var/lib/postgresql, /var/lib/mysql)",
		},
		Check: checkDBFilesystems,
	})
}

// fsSources: [0] filesystem choice, [1:4] barriers, [4] noatime; each
// finding cites the ones it rests on.
var fsSources = []Source{
	{Doc: Seed003, Section: "I/O Tuning – File Systems",
		Quote: "xfs, ext4"},
	{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
		Quote: "Filesystem Barriers\tBoolean\tEnabled"},
	{Doc: Seed000, Section: "cache_type (Barrier Writes)",
		Quote: "For filesystems, barrier writes can typically be disabled using the barrier=0 mount option"},
	{Doc: Seed000, Section: "WARNING",
		Quote: "Disabling barrier writes on disk devices with volatile cache can result in data loss or data corruption."},
	{Doc: Seed004, Section: "FS mount options advices",
		Quote: "noatime reduce inode modification on read"},
}

var dbMountHints = []string{"/oradata", "/oracle", "/var/lib/pgsql", "/var/lib/postgresql", "/var/lib/mysql", "/pgdata", "/data/db"}

// isDBMountPath says whether a mount point is a usual database location.
func isDBMountPath(p string) bool {
	if len(p) == 4 && strings.HasPrefix(p, "/u0") && p[3] >= '0' && p[3] <= '9' {
		return true
	}
	for _, h := range dbMountHints {
		if p == h || strings.HasPrefix(p, h+"/") {
			return true
		}
	}
	return false
}

// dbMounts returns the mounts holding database files, with why each was chosen.
func dbMounts(in *Input) []snapshot.Mount {
	ms := in.Snap.Storage.Mounts
	chosen := map[int]bool{}
	// Data directories of the audited database's processes (PG data dir, ...).
	for _, p := range in.DBProcesses() {
		if !strings.HasPrefix(p.Instance, "/") {
			continue
		}
		best, bestLen := -1, 0
		for i, m := range ms {
			if (p.Instance == m.Path || strings.HasPrefix(p.Instance, strings.TrimSuffix(m.Path, "/")+"/")) && len(m.Path) > bestLen {
				best, bestLen = i, len(m.Path)
			}
		}
		if best >= 0 && ms[best].Path != "/" {
			chosen[best] = true
		}
	}
	for i, m := range ms {
		if isDBMountPath(m.Path) {
			chosen[i] = true
		}
	}
	idx := make([]int, 0, len(chosen))
	for i := range chosen {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]snapshot.Mount, len(idx))
	for k, i := range idx {
		out[k] = ms[i]
	}
	return out
}

func hasOpt(opts []string, names ...string) string {
	for _, o := range opts {
		for _, n := range names {
			if o == n {
				return o
			}
		}
	}
	return ""
}

func checkDBFilesystems(in *Input) Outcome {
	if why := AbsentReason(in.Snap, "storage.mounts"); why != "" && len(in.Snap.Storage.Mounts) == 0 {
		return CannotCheck("%s", why)
	}
	ms := dbMounts(in)
	if len(ms) == 0 {
		return NotApplicable("no mount holding database files found (no data directory of a database process, no /u0N, /oradata, /var/lib/{pgsql,postgresql,mysql} mount)")
	}
	var fs []Finding
	var ok []string
	for _, m := range ms {
		opts := strings.Join(m.Options, ",")
		ev := fmt.Sprintf("/proc/mounts: %s on %s type %s (%s)", m.Device, m.Path, m.FSType, opts)
		found := false
		if o := hasOpt(m.Options, "nobarrier", "barrier=0"); o != "" {
			found = true
			fs = append(fs, Finding{
				Severity:    SevWarning,
				Setting:     "mount:" + m.Path + " " + o,
				Current:     o,
				Recommended: "barriers on (remove " + o + ") unless every device below has a non-volatile (battery/flash backed) write cache",
				Evidence:    ev,
				Why: "000: barrier=0 avoids SYNCHRONIZE_CACHE only for arrays with non-volatile cache - \"Disabling barrier writes on disk " +
					"devices with volatile cache can result in data loss or data corruption\"; 003's tuned profiles keep filesystem barriers enabled.",
				Fix: Fix{
					Runtime:    []string{fmt.Sprintf("mount -o remount,barrier %s   (ext4; xfs ≥ 4.19 has no nobarrier option at all)", sh(m.Path))},
					Persistent: []string{},
					Edits:      []FileEdit{{File: "/etc/fstab", Edit: "remove " + o + " from the options of " + m.Path}},
				},
				Risk:    "Flushes return: sync-write latency rises on arrays that advertise a write-back cache.",
				Sources: fsSources[1:4],
			})
		}
		switch m.FSType {
		case "xfs", "ext4", "nfs", "nfs4", "acfs", "ocfs2", "":
			// xfs/ext4 per 003; NFS (dNFS), ACFS and OCFS2 are Oracle's own choices; "" is unknown.
		default:
			found = true
			fs = append(fs, Finding{
				Severity:    SevInfo,
				Setting:     "mount:" + m.Path + " fstype",
				Current:     m.FSType,
				Recommended: "xfs or ext4",
				Evidence:    ev,
				Why: "003 \"Choosing the right file system\" compares xfs, ext4 and raw devices for Oracle, Sybase and MongoDB and names " +
					"xfs and ext4 for databases; both support direct and asynchronous I/O (\"avoid double caching ... eliminate synchronous I/O stall\").",
				Fix:     Fix{Runtime: []string{}, Persistent: []string{"move the database files to an xfs or ext4 filesystem (backup/restore or storage migration)"}},
				Risk:    "A migration of the data files: plan downtime.",
				Sources: fsSources[:1],
			})
		}
		if hasOpt(m.Options, "noatime", "relatime", "lazytime") == "" && (m.FSType == "xfs" || m.FSType == "ext4" || m.FSType == "ext3") {
			found = true
			fs = append(fs, Finding{
				Severity:    SevInfo,
				Setting:     "mount:" + m.Path + " atime",
				Current:     "strictatime (every read updates the inode)",
				Recommended: "noatime",
				Evidence:    ev,
				Why: "004's mount-option table mounts every Oracle filesystem (binaries, datafiles, redo logs, archive logs, control files) " +
					"with noatime: \"noatime reduce inode modification on read\". Without it every read of a data file also writes its inode " +
					"(a journal write for nothing a database uses); relatime and lazytime already limit those writes and are accepted.",
				Fix: Fix{
					Runtime:    []string{"mount -o remount,noatime " + sh(m.Path)},
					Persistent: []string{},
					Edits:      []FileEdit{{File: "/etc/fstab", Edit: "add noatime to the options of " + m.Path}},
				},
				Risk:    "Tools that rely on access times (some backup or archiving policies) stop seeing them.",
				Sources: fsSources[4:],
			})
		}
		if !found {
			ok = append(ok, fmt.Sprintf("%s %s (%s)", m.Path, m.FSType, opts))
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("database filesystems: %s", strings.Join(ok, "; ")).Reading("/proc/mounts: " + strings.Join(ok, "; ")) // none read: the engine's could not check
}
