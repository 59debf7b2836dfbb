package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers for the rules that judge a live PostgreSQL server's own settings
// (db.pg-durability-off, db.pg-autovacuum-off, db.pg-shared-buffers,
// db.pg-connection-memory, db.pg-checkpoints, db.pg-wal-buffers), citing
// the PostgreSQL 15 documentation (DocPostgreSQL15).

// pgDoc cites a paragraph of the PostgreSQL 15 documentation kept in
// vendordocs/postgresql-15.md: section is "PAGE.html — PARAMETER (type)".
func pgDoc(section, quote string) Source {
	return Source{Doc: DocPostgreSQL15, Section: section, Quote: quote}
}

// pgAlterSystem is the fix of a postgresql.conf setting: ALTER SYSTEM
// (postgresql.auto.conf, kept over restarts) and a reload, or a restart for
// a setting read only at start.
func pgAlterSystem(name, value string, restart bool) Fix {
	set := fmt.Sprintf("psql -c \"ALTER SYSTEM SET %s = '%s'\"", name, value)
	apply := "psql -c 'SELECT pg_reload_conf()'"
	if restart {
		apply = "restart the server (" + name + " is read only at start)"
	}
	return Fix{Runtime: []string{set, apply},
		Persistent: []string{set + " (written to postgresql.auto.conf, which overrides postgresql.conf)"}}
}

// pgMemory is the memory a local server may use: the RAM of the NUMA
// nodes its postmaster is bound to (Mems_allowed a subset of the nodes),
// else the host's MemTotal; how says which, why is set when neither is
// known. A cgroup memory limit is not among dbhost's facts: how says so.
func (in *Input) pgMemory(d *snapshot.Database) (kb int64, how, why string) {
	if !d.Local {
		return 0, "", "the server is not on this host (" + d.Connection + "): its memory is another machine's"
	}
	total, ok := in.Snap.Memory.Meminfo["MemTotal"]
	if !ok || total <= 0 {
		return 0, "", in.Reason("memory.meminfo", "MemTotal not in the snapshot")
	}
	if p := in.serverProcess(d); p != nil && len(p.MemsAllowed) > 0 && len(p.MemsAllowed) < len(in.Snap.Topology.Nodes) {
		var sum int64
		known := true
		for _, id := range p.MemsAllowed {
			found := false
			for _, n := range in.Snap.Topology.Nodes {
				if n.ID == id && n.MemTotalKB != nil {
					sum += *n.MemTotalKB
					found = true
				}
			}
			known = known && found
		}
		if known && sum > 0 {
			return sum, fmt.Sprintf("%s on the node(s) %s the postmaster (pid %d) is bound to (Mems_allowed)", KB(sum), cpulist.Format(p.MemsAllowed), p.PID), ""
		}
	}
	return total, KB(total) + " of RAM (MemTotal; a cgroup memory limit is not among the facts dbhost reads)", ""
}

// pgSize prints a setting read in bytes.
func pgSize(b int64) string { return KB(b >> 10) }

// pgSettingText is "name = value unit (source)" for evidence.
func pgSettingText(d *snapshot.Database, name string) string {
	s := d.Setting(name)
	if s == nil || s.Value == nil {
		return name + " unknown"
	}
	t := name + " = " + *s.Value
	if s.Unit != "" {
		t += " × " + s.Unit
	}
	if s.Source != "" {
		t += " (" + s.Source + ")"
	}
	return t
}

// pgBool reads an on/off setting.
func pgBool(d *snapshot.Database, name string) (on bool, why string) {
	v, why := dbSetting(d, name)
	if why != "" {
		return false, why
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, ""
	case "off", "false", "no", "0":
		return false, ""
	}
	return false, fmt.Sprintf("%s: not on or off: %q", name, v)
}
