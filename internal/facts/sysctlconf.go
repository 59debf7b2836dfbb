package facts

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// sysctlLine is one assignment of a sysctl.d(5) file.
type sysctlLine struct {
	Line        int
	Key         string // dotted form
	Value       string
	IgnoreError bool // "-key = value": a missing key is not an error
}

// parseSysctlConf parses sysctl.d(5) / sysctl.conf(5): "key = value" or
// "key=value", '#' and ';' comment lines, a leading '-' on the key (ignore
// errors), keys with '/' separators turned into sysctl(8)'s dotted form. A
// line that is not an assignment is returned as a *ParseError (systemd-sysctl
// skips it too); the rest are kept.
func parseSysctlConf(r io.Reader) ([]sysctlLine, []error) {
	var out []sysctlLine
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			errs = append(errs, parseErr(n, "expected \"key = value\", got %q", trunc(line, 60)))
			continue
		}
		k = strings.TrimSpace(k)
		ign := false
		if rest, ok := strings.CutPrefix(k, "-"); ok {
			ign, k = true, strings.TrimSpace(rest)
		}
		k = sysctlDotted(k)
		if k == "" || strings.ContainsAny(k, " \t") {
			errs = append(errs, parseErr(n, "expected a key before '=', got %q", trunc(line, 60)))
			continue
		}
		out = append(out, sysctlLine{Line: n, Key: k, Value: strings.TrimSpace(v), IgnoreError: ign})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, parseErr(n+1, "%v", err))
	}
	return out, errs
}

// sysctlDotted returns sysctl(8)'s dotted spelling of a key. As in
// systemd's sysctl_normalize, when the first separator is '/', slashes are
// the separators and any dots belong to a name (a VLAN "eth0.100"), so the
// two swap: "net/ipv4/conf/eth0.100/rp_filter" → "net.ipv4.conf.eth0/100.rp_filter".
func sysctlDotted(k string) string {
	k = strings.TrimLeft(k, "/")
	i := strings.IndexAny(k, "./")
	if i < 0 || k[i] == '.' {
		return k
	}
	b := []byte(k)
	for j, ch := range b {
		switch ch {
		case '/':
			b[j] = '.'
		case '.':
			b[j] = '/'
		}
	}
	return string(b)
}

// sysctlDirs are searched in precedence order: a file name found in an
// earlier directory hides the same name in the later ones (systemd-sysctl).
var sysctlDirs = []string{"/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d", "/lib/sysctl.d"}

// sysctlFile is one file in systemd-sysctl's list, in application order.
type sysctlFile struct {
	path    string // host path
	real    string // path to read (a symlink's target, resolved inside the root)
	shadow  bool   // hidden by a file of the same name in a directory of higher precedence
	masked  bool   // symlink to /dev/null
	dirRank int
}

func sysctlFileList(c *Collector) []sysctlFile {
	byName := map[string][]sysctlFile{}
	var dirInfos []os.FileInfo
	for rank, d := range sysctlDirs {
		// Skip a directory that is another one seen through a symlink
		// (/lib → /usr/lib on merged-/usr systems).
		fi, err := c.Root.Stat(d)
		if err != nil {
			continue
		}
		dup := false
		for _, o := range dirInfos {
			dup = dup || os.SameFile(fi, o)
		}
		if dup {
			continue
		}
		dirInfos = append(dirInfos, fi)
		names, err := c.Root.ReadDirNames(d)
		if err != nil {
			c.Absent("config.sysctl_files", d, err)
			continue
		}
		for _, n := range names {
			if !strings.HasSuffix(n, ".conf") || strings.HasPrefix(n, ".") {
				continue
			}
			p := d + "/" + n
			f := sysctlFile{path: p, real: p, dirRank: rank}
			if t, ok := c.resolveLink(p); ok {
				f.real = t
				f.masked = t == "/dev/null"
			}
			if len(byName[n]) > 0 {
				f.shadow = true
			}
			byName[n] = append(byName[n], f)
		}
	}
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []sysctlFile
	sawSysctlConf := false
	for _, n := range names {
		for _, f := range byName[n] {
			if !f.shadow && !f.masked && f.real == "/etc/sysctl.conf" {
				sawSysctlConf = true
			}
			out = append(out, f)
		}
	}
	// /etc/sysctl.conf is applied last, unless a sysctl.d link (Debian's
	// 99-sysctl.conf) already brings it in.
	if !sawSysctlConf {
		out = append(out, sysctlFile{path: "/etc/sysctl.conf", real: "/etc/sysctl.conf", dirRank: -1})
	}
	return out
}

func readSysctlFiles(c *Collector) []snapshot.SysctlEntry {
	out := []snapshot.SysctlEntry{}
	last := map[string]int{} // key → index in out of the winning entry
	for _, f := range sysctlFileList(c) {
		if f.masked {
			continue
		}
		b, err := c.readConfigFile(f.real)
		if err != nil {
			if f.path != "/etc/sysctl.conf" || !os.IsNotExist(err) {
				c.Absent("config.sysctl_files", f.path, err)
			}
			continue
		}
		lines, errs := parseSysctlConf(bytes.NewReader(b))
		for _, e := range errs {
			c.lineAbsent("config.sysctl_files", f.path, e)
		}
		for _, l := range lines {
			out = append(out, snapshot.SysctlEntry{File: f.path, Line: l.Line, Key: l.Key, Value: l.Value})
			if !f.shadow {
				last[l.Key] = len(out) - 1
			}
		}
	}
	for _, i := range last {
		out[i].Effective = true
	}
	return out
}
