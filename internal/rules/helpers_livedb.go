package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers for the rules that read live database servers (snapshot.Databases,
// docs/livedb.md): db.pg-* and db.mysql-*.

// liveEngine says whether a server is of the --db engine: postgres, or
// mysql (MySQL and MariaDB).
func liveEngine(d *snapshot.Database, db string) bool { return engineDB(d.Engine) == db }

// noLiveServer is the NotApplicable reason when no server of db was read.
func noLiveServer(db string) Outcome {
	flag := map[string]string{DBPostgres: "--pg DSN", DBMySQL: "--mysql DSN"}[db]
	return NotApplicable("no live %s server was read (give %s, or --db %s as root)", db, flag, db)
}

// eachServer runs check on every live server of engine db that was read,
// and merges the outcomes: every finding; else "could not check" when any
// server could not be checked (a server not read is one: its error says
// why); else passed, one sentence per server.
func (in *Input) eachServer(db string, check func(d *snapshot.Database) Outcome) Outcome {
	var fs []Finding
	var passed, cannot, na, evs []string
	n := 0
	for i := range in.Snap.Databases {
		d := &in.Snap.Databases[i]
		if !liveEngine(d, db) {
			continue
		}
		n++
		if d.Error != "" {
			cannot = append(cannot, fmt.Sprintf("%s: not read: %s", d.Connection, d.Error))
			continue
		}
		o := check(d)
		fs = append(fs, o.Findings...)
		switch {
		case len(o.Findings) > 0:
		case o.CannotCheck != "":
			cannot = append(cannot, serverName(d)+": "+o.CannotCheck)
		case o.NotApplicable != "":
			na = append(na, serverName(d)+": "+o.NotApplicable)
		case o.Evidence == "":
			cannot = append(cannot, serverName(d)+": "+NoEvidence)
		default:
			passed = append(passed, serverName(d)+": "+o.Passed)
			evs = append(evs, o.Evidence)
		}
	}
	switch {
	case n == 0:
		return noLiveServer(db)
	case len(fs) > 0:
		return Found(fs...)
	case len(cannot) > 0:
		return CannotCheck("%s", strings.Join(cannot, "; "))
	case len(passed) == 0:
		return NotApplicable("%s", strings.Join(na, "; "))
	}
	return Passed("%s", strings.Join(append(passed, na...), "; ")).Reading(evs...)
}

// serverName names a server in evidence: "postgres 15.4 (user=... host=...)".
func serverName(d *snapshot.Database) string {
	return fmt.Sprintf("%s %s (%s)", d.Engine, d.Version, d.Connection)
}

// dbSetting returns a setting's value, or why it is unknown.
func dbSetting(d *snapshot.Database, name string) (string, string) {
	s := d.Setting(name)
	switch {
	case s == nil:
		return "", name + ": not read from the server"
	case s.Value == nil:
		return "", name + ": " + s.Reason
	}
	return *s.Value, ""
}

// dbInt returns an integer setting, or why it is unknown.
func dbInt(d *snapshot.Database, name string) (int64, string) {
	v, why := dbSetting(d, name)
	if why != "" {
		return 0, why
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("%s: not an integer: %q", name, v)
	}
	return n, ""
}

// dbFloat returns a numeric setting (random_page_cost), or why it is unknown.
func dbFloat(d *snapshot.Database, name string) (float64, string) {
	v, why := dbSetting(d, name)
	if why != "" {
		return 0, why
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Sprintf("%s: not a number: %q", name, v)
	}
	return f, ""
}

// dbBytes returns a size setting in bytes: a PostgreSQL setting times its
// pg_settings unit (shared_buffers 4096 × 8kB), a MySQL variable as is.
func dbBytes(d *snapshot.Database, name string) (int64, string) {
	n, why := dbInt(d, name)
	if why != "" {
		return 0, why
	}
	unit := d.Setting(name).Unit
	mult, err := pgUnitBytes(unit)
	if err != nil {
		return 0, fmt.Sprintf("%s: unit %q: %v", name, unit, err)
	}
	return n * mult, ""
}

// pgUnitBytes is the size of a pg_settings memory unit: "8kB", "kB", "MB",
// "16MB", "B"; "" (a MySQL variable) is bytes.
func pgUnitBytes(unit string) (int64, error) {
	num := strings.TrimRight(unit, "kMGTB")
	suffix := unit[len(num):]
	mult := int64(1)
	if num != "" {
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("expected a memory unit such as 8kB")
		}
		mult = n
	}
	switch suffix {
	case "", "B":
	case "kB":
		mult <<= 10
	case "MB":
		mult <<= 20
	case "GB":
		mult <<= 30
	case "TB":
		mult <<= 40
	default:
		return 0, fmt.Errorf("expected a memory unit such as 8kB")
	}
	return mult, nil
}

// dbOn says whether a boolean setting is on (PostgreSQL on/true/yes/1,
// MySQL ON/1).
func dbOn(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true
	}
	return false
}

// serverProcess finds the server's main process in the snapshot: the
// postmaster (PostgreSQL) or mysqld/mariadbd whose data directory is the
// server's, or the one it was discovered from; nil when none matches.
func (in *Input) serverProcess(d *snapshot.Database) *snapshot.Process {
	if !d.Local {
		return nil
	}
	for i := range in.Snap.Processes {
		p := &in.Snap.Processes[i]
		if engineDB(p.Engine) != engineDB(d.Engine) || !mainRole(p.Role) {
			continue
		}
		if d.Discovered != nil && d.Discovered.PID == p.PID {
			return p
		}
		if d.DataDirectory != "" && strings.TrimSuffix(p.Instance, "/") == strings.TrimSuffix(d.DataDirectory, "/") {
			return p
		}
	}
	return nil
}

// serverChildren are the main process's children (PostgreSQL backends and
// auxiliary processes).
func (in *Input) serverChildren(main *snapshot.Process) []snapshot.Process {
	var out []snapshot.Process
	for _, p := range in.Snap.Processes {
		if p.PPID == main.PID && p.PID != main.PID {
			out = append(out, p)
		}
	}
	return out
}

// dirDevice maps a directory of a local server to the block device that
// holds it: the longest mount point above it, that mount's source device,
// and below a dm (LVM) or md device the devices it is built on. It returns
// the class of the physical devices (blockView.deviceClass: nvme, ssd,
// rotational, multipath, virtio, ... or "mixed"), their names, and how
// the path was mapped ("/srv/pg on /srv (/dev/mapper/vg-data = dm-2 on
// nvme0n1)"); why is set when the path cannot be mapped.
func (in *Input) dirDevice(path string) (class string, phys []string, how, why string) {
	v, why := in.blockDevices()
	if why != "" {
		return "", nil, "", why
	}
	var best *snapshot.Mount
	for i := range in.Snap.Storage.Mounts {
		m := &in.Snap.Storage.Mounts[i]
		if m.Path == path || m.Path == "/" || strings.HasPrefix(path, strings.TrimSuffix(m.Path, "/")+"/") {
			if best == nil || len(m.Path) > len(best.Path) {
				best = m
			}
		}
	}
	if best == nil {
		return "", nil, "", in.Reason("storage.mounts", "no mount point holds "+path)
	}
	byDM := map[string]string{}
	for _, d := range v.devs {
		if d.DMName != "" {
			byDM[d.DMName] = d.Name
		}
	}
	name := mountDeviceName(best.Device, byDM, v)
	top := v.byName[name]
	if top == nil {
		return "", nil, "", fmt.Sprintf("%s is on %s (%s %s), not a block device in the snapshot", path, best.Path, best.FSType, best.Device)
	}
	classes := map[string]bool{}
	var walk func(d *snapshot.BlockDevice, depth int)
	walk = func(d *snapshot.BlockDevice, depth int) {
		c := v.deviceClass(d)
		if (c == "dm" || c == "md") && len(d.Slaves) > 0 && depth < 16 {
			for _, s := range d.Slaves {
				if sd := v.byName[baseDevice(s, v)]; sd != nil {
					walk(sd, depth+1)
				}
			}
			return
		}
		classes[c] = true
		phys = append(phys, d.Name)
	}
	walk(top, 0)
	if len(classes) == 1 {
		for c := range classes {
			class = c
		}
	} else {
		class = "mixed"
	}
	how = fmt.Sprintf("%s is on %s (%s = %s", path, best.Path, best.Device, top.Name)
	if len(phys) != 1 || phys[0] != top.Name {
		how += " on " + strings.Join(phys, ", ")
	}
	how += ", " + class + ")"
	return class, phys, how, ""
}

// dataDevice is the class of the device that holds a local server's data
// directory and how the directory was mapped to it (dirDevice), or why it
// could not be: the first steps of every rule that judges a setting against
// the data's device class.
func (in *Input) dataDevice(d *snapshot.Database) (class, how, why string) {
	dir, why := serverDataDir(d)
	if why != "" {
		return "", "", why
	}
	class, _, how, why = in.dirDevice(dir)
	return class, how, why
}

// serverDir is a local server's directory for device mapping: the real
// path of data_directory (datadir) or of the WAL, or why there is none.
func serverDataDir(d *snapshot.Database) (string, string) {
	switch {
	case !d.Local:
		return "", "the server is not on this host (" + d.Connection + "): its directories are another machine's"
	case d.DataDirectoryReal != "":
		return d.DataDirectoryReal, ""
	case d.DataDirectory != "":
		return d.DataDirectory, ""
	}
	if s := d.Setting("data_directory"); s != nil && s.Reason != "" {
		return "", "data_directory: " + s.Reason
	}
	return "", "the server's data directory is unknown"
}

// flashClass says whether a device class is flash (no seek cost): NVMe,
// an SSD (rotational 0). A multipath LUN reports what the array says.
func flashClass(class string) bool { return class == "nvme" || class == "ssd" }

// mediaUnknown says whether a device class hides whether flash is behind
// it (a multipath LUN, an LVM or md device, a virtio disk, devices of
// several classes): db.pg-random-page-cost, db.pg-effective-io-concurrency
// and db.mysql-io-capacity classify alike and cannot check a value whose
// verdict depends on it (issue 26).
func mediaUnknown(class string) bool {
	switch class {
	case "multipath", "mixed", "other", "virtio", "dm", "md":
		return true
	}
	return false
}
