package rules

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/lazyre"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Oracle's file systems on an AIX host, each with the roles of 004's "FS
// mount options advices" table: data files, redo logs, archived logs,
// control files, binaries.
const (
	aixRoleData    = "data files"
	aixRoleRedo    = "redo logs"
	aixRoleArch    = "archived logs"
	aixRoleBinary  = "Oracle binaries"
	aixRoleControl = "control files"
)

// aixOraFS is one mounted file system holding Oracle files.
type aixOraFS struct {
	Mount *snapshot.AIXMount
	FS    *snapshot.AIXFilesystem // lsfs -q's entry, nil when absent
	Roles map[string][]string     // role → how it was found ("alert_ORCL.log:12 redo member /oraredo/redo01.log")
}

func (f *aixOraFS) has(role string) bool { return len(f.Roles[role]) > 0 }

// roleList names the roles, in the table's order.
func (f *aixOraFS) roleList() string {
	var rs []string
	for _, r := range []string{aixRoleData, aixRoleRedo, aixRoleControl, aixRoleArch, aixRoleBinary} {
		if f.has(r) {
			rs = append(rs, r)
		}
	}
	return strings.Join(rs, ", ")
}

// evidence says how each role was found.
func (f *aixOraFS) evidence() string {
	var ev []string
	for _, r := range []string{aixRoleData, aixRoleRedo, aixRoleControl, aixRoleArch, aixRoleBinary} {
		for _, e := range f.Roles[r] {
			ev = append(ev, r+": "+e)
		}
	}
	return strings.Join(ev, "; ")
}

// Names Oracle installations give their file systems, used when no
// artifact names the files: /oradata, /u02/oradata, SAP's sapdata1,
// origlogA, mirrlogB, oraarch.
var (
	reAIXDataName = lazyre.New(`(?i)(oradata|sapdata\d*|/data\d*$|datafile|dbf)`)
	reAIXRedoName = lazyre.New(`(?i)(redo|origlog|mirrlog|onlinelog)`)
	reAIXArchName = lazyre.New(`(?i)(oraarch|archlog|/arch\w*$|archive)`)
)

// aixOracleFS maps Oracle's files to the mounted file systems: from the
// artifacts (the alert log's redo members, db_create_file_dest or the
// first control file's directory, log_archive_dest_N and
// db_recovery_file_dest), the ORACLE_HOME of the running processes, and,
// for what no artifact names, the usual mount names (oradata, redo, arch).
// ASM paths (+DG) are not file systems and are left out. Sorted by mount.
func (in *Input) aixOracleFS() []*aixOraFS {
	a := in.Snap.AIX
	by := map[string]*aixOraFS{}
	add := func(role, p, how string) {
		p = strings.TrimSpace(oraUnquote(p))
		if p == "" || strings.HasPrefix(p, "+") || !strings.HasPrefix(p, "/") {
			return
		}
		m := aixMountOf(a.Mounts, p)
		if m == nil || m.Path == "/" || m.VFS != "jfs2" && m.VFS != "jfs" {
			return
		}
		f := by[m.Path]
		if f == nil {
			f = &aixOraFS{Mount: m, FS: aixFilesystem(a, m.Path), Roles: map[string][]string{}}
			by[m.Path] = f
		}
		for _, e := range f.Roles[role] {
			if e == how {
				return
			}
		}
		if len(f.Roles[role]) < 4 {
			f.Roles[role] = append(f.Roles[role], how)
		}
	}
	named := map[string]bool{}
	for _, inst := range in.oraInstances() {
		if inst.Start != nil {
			for _, r := range inst.Start.RedoLogs {
				add(aixRoleRedo, r.Path, fmt.Sprintf("%s:%d redo member %s", inst.Alert.File, r.Line, r.Path))
				named[aixRoleRedo] = true
			}
		}
		if val, where, set := inst.Param("db_create_file_dest"); set {
			add(aixRoleData, val, where+" db_create_file_dest "+oraUnquote(val))
			named[aixRoleData] = true
		}
		if val, where, set := inst.Param("control_files"); set {
			for i, cf := range strings.Split(val, ",") {
				cf = oraUnquote(cf)
				add(aixRoleControl, cf, where+" control_files "+cf)
				if i == 0 && !named[aixRoleData] {
					add(aixRoleData, path.Dir(cf)+"/", where+" beside the first control file "+cf)
					named[aixRoleData] = true
				}
			}
		}
		for i := 1; i <= 31; i++ {
			val, where, set := inst.Param(fmt.Sprintf("log_archive_dest_%d", i))
			if m := reArchLocation().FindStringSubmatch(val); set && m != nil && !strings.EqualFold(m[1], "USE_DB_RECOVERY_FILE_DEST") {
				add(aixRoleArch, m[1], fmt.Sprintf("%s log_archive_dest_%d %s", where, i, m[1]))
				named[aixRoleArch] = true
			}
		}
		if val, where, set := inst.Param("db_recovery_file_dest"); set {
			add(aixRoleArch, val, where+" db_recovery_file_dest "+oraUnquote(val))
			named[aixRoleArch] = true
		}
	}
	for _, p := range a.Processes {
		if engineDB(p.Engine) != DBOracle {
			continue
		}
		exe, _, _ := strings.Cut(strings.TrimSpace(p.Cmd), " ")
		if i := strings.LastIndex(exe, "/bin/"); i > 0 && strings.HasPrefix(exe, "/") {
			add(aixRoleBinary, exe[:i]+"/", fmt.Sprintf("ps -ef: pid %d runs %s", p.PID, exe))
		}
	}
	for i := range a.Mounts {
		m := &a.Mounts[i]
		for _, c := range []struct {
			role string
			re   func() *regexp.Regexp
		}{{aixRoleData, reAIXDataName}, {aixRoleRedo, reAIXRedoName}, {aixRoleArch, reAIXArchName}} {
			if !named[c.role] && (c.re().MatchString(m.Path) || c.re().MatchString(m.Device)) {
				add(c.role, m.Path+"/", fmt.Sprintf("mount %s (%s): named like Oracle %s (no artifact names them)", m.Path, m.Device, c.role))
			}
		}
	}
	out := make([]*aixOraFS, 0, len(by))
	for _, f := range by {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Mount.Path < out[j].Mount.Path })
	return out
}
