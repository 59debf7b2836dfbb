package rules

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/lazyre"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.db-file-layout: 003's database layout, "Separate files by I/O (data,
// logs, undo, temp)" (for OLTP data files, undo and logs: every transaction
// writes redo, synchronously at commit), and 004's "if possible separate
// redologs (+archivelogs)" beside the striped data. The files come from the
// Oracle artifacts: the online redo members of the alert log's last
// startup, the data files' location (db_create_file_dest, else where the
// control files are, usually beside them), the archive destinations
// (log_archive_dest_N LOCATION=, db_recovery_file_dest); each is mapped
// through the mounts to the disks, NVMe namespaces or multipath LUNs that
// hold it. Sharing one of them is reported; 003's "low latency devices for
// hot spots" is reported when the redo is on rotational disks while the
// host has flash.
func init() {
	Register(Rule{
		ID:        "io.db-file-layout",
		Area:      AreaIO,
		Severity:  SevInfo,
		Title:     "Online redo logs share a device with the data files or the archived logs",
		DBs:       []string{DBOracle},
		Workloads: []string{WorkloadOLTP, WorkloadMixed, WorkloadLatency},
		Sources: []Source{
			{Doc: Seed003, Section: "I/O Tuning – Database Layout",
				Quote: "Separate files by I/O (data , logs, undo, temp)"},
			{Doc: Seed003, Section: "I/O Tuning – Database Layout",
				Quote: "All transactions generate logs and undo information"},
			{Doc: Seed003, Section: "I/O Tuning – Database Layout",
				Quote: "Use low latency / high bandwidth devices for hot spots"},
			{Doc: Seed004, Section: "IO : Database Layout",
				Quote: "if possible separate redologs (+archivelogs)"},
		},
		Scope: Scope{Kernels: "all", DBVersions: "Oracle (file systems; ASM disk groups are not mapped to disks here)",
			Note: "undo and temp files' locations are not in the artifacts read; DSS (data vs temp) is therefore not judged. " +
				"Devices are compared as disks, NVMe namespaces and multipath LUNs: two LUNs of one array may still share spindles"},
		Pending: PendingManual,
		Check:   checkDBFileLayout,
	})
}

// layoutPlace is one database file location and the storage units under it.
type layoutPlace struct {
	what, path, where string // "online redo", the path, where it was read
	units             []string
	dev               string // the mounted device
	mount             snapshot.Mount
}

var reArchLocation = lazyre.New(`(?i)\blocation\s*=\s*"?([^"\s,)]+)`)

func checkDBFileLayout(in *Input) Outcome {
	insts := in.oraInstances()
	if len(insts) == 0 {
		return NotApplicable("no Oracle init.ora/spfile or alert log given (--artifact)")
	}
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var ok, cannot []string
	for _, inst := range insts {
		place := func(what, p, where string) *layoutPlace {
			p = strings.TrimSpace(oraUnquote(p))
			if p == "" {
				return nil
			}
			if strings.HasPrefix(p, "+") {
				cannot = append(cannot, fmt.Sprintf("%s: %s %s is in ASM disk group %s (not mapped to disks here)", inst.SID, what, p, strings.SplitN(p[1:], "/", 2)[0]))
				return nil
			}
			m, d, why := fileDevice(in.Snap, v, p)
			if d == nil {
				cannot = append(cannot, fmt.Sprintf("%s: %s %s: %s", inst.SID, what, p, why))
				return nil
			}
			return &layoutPlace{what: what, path: p, where: where, units: v.storageUnits(d), dev: d.Name, mount: m}
		}
		var redo, data, arch []*layoutPlace
		if inst.Start != nil {
			for _, r := range inst.Start.RedoLogs {
				if pl := place("online redo member", r.Path, fmt.Sprintf("%s:%d", inst.Alert.File, r.Line)); pl != nil {
					redo = append(redo, pl)
				}
			}
		}
		if val, where, set := inst.Param("db_create_file_dest"); set {
			if pl := place("data files (db_create_file_dest)", val, where); pl != nil {
				data = append(data, pl)
			}
		} else if val, where, set := inst.Param("control_files"); set {
			for _, cf := range strings.Split(val, ",") {
				if cf = oraUnquote(cf); cf != "" && !strings.HasPrefix(cf, "+") {
					if pl := place("data files (beside control file "+cf+")", path.Dir(cf), where); pl != nil {
						data = append(data, pl)
					}
					break // the first control file: the others are its copies, usually elsewhere on purpose
				}
			}
		}
		for i := 1; i <= 31; i++ {
			val, where, set := inst.Param(fmt.Sprintf("log_archive_dest_%d", i))
			if !set {
				continue
			}
			if m := reArchLocation().FindStringSubmatch(val); m != nil && !strings.EqualFold(m[1], "USE_DB_RECOVERY_FILE_DEST") {
				if pl := place("archived logs", m[1], where); pl != nil {
					arch = append(arch, pl)
				}
			}
		}
		if val, where, set := inst.Param("db_recovery_file_dest"); set {
			if pl := place("archived logs (db_recovery_file_dest)", val, where); pl != nil {
				arch = append(arch, pl)
			}
		}
		if len(redo) == 0 {
			cannot = append(cannot, inst.SID+": no online redo member known (an alert log with \"Current log#\" lines)")
			continue
		}
		var issues, evidence []string
		for _, group := range [][]*layoutPlace{data, arch} {
			for _, o := range group {
				for _, r := range redo {
					if shared := sharedUnits(r.units, o.units); len(shared) > 0 {
						issues = append(issues, fmt.Sprintf("the online redo and the %s share %s", o.what, strings.Join(shared, ", ")))
						evidence = append(evidence, layoutEv(r), layoutEv(o))
						break
					}
				}
			}
		}
		// 003: low latency devices for hot spots: redo on spinning disks while the host has flash.
		flash := ""
		for i := range v.devs {
			if c := v.deviceClass(&v.devs[i]); c == "nvme" || c == "ssd" {
				flash = v.devs[i].Name
				break
			}
		}
		for _, r := range redo {
			rot := true
			for _, u := range r.units {
				d := v.byName[u]
				rot = rot && d != nil && d.Rotational != nil && *d.Rotational && v.deviceClass(d) != "multipath"
			}
			if rot && flash != "" && len(r.units) > 0 {
				issues = append(issues, fmt.Sprintf("the online redo is on rotational disks (%s) while this host has flash (%s)", strings.Join(r.units, ", "), flash))
				evidence = append(evidence, layoutEv(r))
				break
			}
		}
		if len(issues) == 0 {
			desc := make([]string, 0, len(redo)+len(data)+len(arch))
			for _, pl := range append(append(redo, data...), arch...) {
				desc = append(desc, pl.what+" on "+strings.Join(pl.units, ","))
			}
			ok = append(ok, inst.SID+": "+strings.Join(dedupe(desc), "; "))
			continue
		}
		fs = append(fs, Finding{
			Setting:     "database file layout (" + inst.SID + ")",
			Current:     strings.Join(dedupe(issues), "; "),
			Recommended: "online redo logs on devices of their own, apart from the data files and the archived logs; the redo on the lowest-latency devices",
			Evidence:    strings.Join(dedupe(evidence), "; ") + " (read from " + inst.Source() + ")",
			Why: "003: \"Separate files by I/O (data, logs, undo, temp)\"; for OLTP \"All transactions generate logs and undo " +
				"information\", and every commit waits for its redo write (log file sync): on a device shared with data file reads " +
				"and DBWR's writes, or with the archiver reading the previous log, that write queues behind them. 004: \"if possible " +
				"separate redologs (+archivelogs)\"; 003: \"Use low latency / high bandwidth devices for hot spots\".",
			Fix: Fix{Runtime: []string{},
				Persistent: []string{"ALTER DATABASE ADD LOGFILE GROUP <n> ('<path on a separate device>') SIZE <same size>;  -- one per group, then switch and drop the old groups when INACTIVE",
					"archived logs: log_archive_dest_1 / db_recovery_file_dest on another device (ALTER SYSTEM SET ... SCOPE=BOTH)"}},
			Risk: "Moving redo groups is online, one group at a time; a separate device only helps if it does not share the array's " +
				"spindles or cache with the data (ask the storage team: two LUNs can sit on the same disks).",
		})
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(ok) > 0:
		return Passed("%s", strings.Join(append(ok, cannot...), "; ")).Reading(strings.Join(ok, "; "))
	}
	return CannotCheck("%s", strings.Join(cannot, "; "))
}

func layoutEv(p *layoutPlace) string {
	return fmt.Sprintf("%s %s (%s) on %s (%s, %s) → %s", p.what, p.path, p.where, p.mount.Path, p.mount.Device, p.dev, strings.Join(p.units, ","))
}

// sharedUnits are the units in both lists.
func sharedUnits(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
			}
		}
	}
	sort.Strings(out)
	return out
}

// dedupe keeps the first of equal strings, in order.
func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
