package facts

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("config", StageSources, readConfig) }

// dbUsers are the accounts whose uid is recorded in Config.Users.
var dbUsers = []string{"oracle", "grid", "postgres", "mysql"}

// maxConfigFileBytes bounds how much of one configuration file is read.
const maxConfigFileBytes = 4 << 20

// limitItems are the items pam_limits(8) knows (limits.conf(5)).
var limitItems = map[string]bool{
	"core": true, "data": true, "fsize": true, "memlock": true, "nofile": true, "rss": true,
	"stack": true, "cpu": true, "nproc": true, "as": true, "maxlogins": true, "maxsyslogins": true,
	"nonewprivs": true, "priority": true, "locks": true, "sigpending": true, "msgqueue": true,
	"nice": true, "rtprio": true, "chroot": true,
}

// parseLimits parses limits.conf(5): "<domain> <type> <item> <value>" per
// line; '#' starts a comment anywhere on a line. Entries come back with Line
// set and File empty. Each line pam_limits would reject is returned as a
// *ParseError and left out; the other lines are kept.
func parseLimits(r io.Reader) ([]snapshot.LimitEntry, []error) {
	var out []snapshot.LimitEntry
	var errs []error
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 4 {
			errs = append(errs, parseErr(n, "expected \"domain type item value\", got %d words", len(f)))
			continue
		}
		typ, item := strings.ToLower(f[1]), strings.ToLower(f[2])
		if typ != "soft" && typ != "hard" && typ != "-" {
			errs = append(errs, parseErr(n, "expected type soft, hard or -, got %q", trunc(f[1], 20)))
			continue
		}
		if !limitItems[item] {
			errs = append(errs, parseErr(n, "unknown limit item %q", trunc(f[2], 20)))
			continue
		}
		if !validLimitValue(item, f[3]) {
			errs = append(errs, parseErr(n, "expected a number, unlimited or infinity for %s, got %q", item, trunc(f[3], 20)))
			continue
		}
		out = append(out, snapshot.LimitEntry{Line: n, Domain: f[0], Type: typ, Item: item, Value: f[3]})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, parseErr(n+1, "%v", err))
	}
	return out, errs
}

func validLimitValue(item, v string) bool {
	switch strings.ToLower(v) {
	case "unlimited", "infinity", "-1":
		return true
	}
	if item == "chroot" {
		return v != ""
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return true
	}
	return false
}

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

// ParseCgconfig parses libcgroup's cgconfig.conf(5):
//
//	mount { cpuset = /cgroup/cpuset; }
//	group db/oracle { perm { ... } cpuset { cpuset.cpus = "0-3"; cpuset.mems = "0"; } cpu { cpu.shares = 512; } }
//	template users/%u { cpuset { ... } }
//	default { perm { ... } }
//
// '#' starts a comment. It returns one entry per controller setting (File is
// left empty, Line is the setting's line; a template's group name is
// prefixed "template:"). mount, perm and default blocks hold no controller
// settings and are checked for syntax only. Like cgconfigparser, which
// rejects the whole file, any syntax error returns nil and a *ParseError.
func ParseCgconfig(r io.Reader) ([]snapshot.CgconfigEntry, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxConfigFileBytes+1))
	if err != nil {
		return nil, parseErr(0, "%v", err)
	}
	if len(b) > maxConfigFileBytes {
		return nil, parseErr(0, "file larger than %d bytes", maxConfigFileBytes)
	}
	p := &cgParser{toks: cgTokenize(b)}
	var out []snapshot.CgconfigEntry
	for !p.done() {
		t := p.next()
		if t.kind != cgWord {
			return nil, parseErr(t.line, "expected group, template, mount or default, got %q", trunc(t.text, 30))
		}
		switch t.text {
		case "group", "template":
			name := p.next()
			if name.kind != cgWord && name.kind != cgString {
				return nil, parseErr(name.line, "expected a %s name, got %q", t.text, trunc(name.text, 30))
			}
			group := name.text
			if t.text == "template" {
				group = "template:" + group
			}
			if err := p.expect(cgOpen); err != nil {
				return nil, err
			}
			for {
				c := p.next()
				if c.kind == cgClose {
					break
				}
				if c.kind != cgWord {
					return nil, parseErr(c.line, "expected a controller name or }, got %q", trunc(c.text, 30))
				}
				if err := p.expect(cgOpen); err != nil {
					return nil, err
				}
				if c.text == "perm" {
					if err := p.skipBlock(); err != nil {
						return nil, err
					}
					continue
				}
				kvs, err := p.assignments()
				if err != nil {
					return nil, err
				}
				for _, kv := range kvs {
					out = append(out, snapshot.CgconfigEntry{Line: kv.line, Group: group, Key: kv.key, Value: kv.value})
				}
			}
		case "mount", "namespace": // namespace: libcgroup before 0.42
			if err := p.expect(cgOpen); err != nil {
				return nil, err
			}
			if _, err := p.assignments(); err != nil {
				return nil, err
			}
		case "default":
			if err := p.expect(cgOpen); err != nil {
				return nil, err
			}
			if err := p.skipBlock(); err != nil {
				return nil, err
			}
		default:
			return nil, parseErr(t.line, "expected group, template, mount or default, got %q", trunc(t.text, 30))
		}
	}
	return out, nil
}

const (
	cgEOF = iota
	cgWord
	cgString
	cgOpen
	cgClose
	cgEquals
	cgSemi
	cgBad
)

type cgToken struct {
	kind int
	text string
	line int
}

func cgTokenize(b []byte) []cgToken {
	var toks []cgToken
	line := 1
	for i := 0; i < len(b); {
		ch := b[i]
		switch {
		case ch == '\n':
			line++
			i++
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '#':
			for i < len(b) && b[i] != '\n' {
				i++
			}
		case ch == '{':
			toks = append(toks, cgToken{cgOpen, "{", line})
			i++
		case ch == '}':
			toks = append(toks, cgToken{cgClose, "}", line})
			i++
		case ch == '=':
			toks = append(toks, cgToken{cgEquals, "=", line})
			i++
		case ch == ';':
			toks = append(toks, cgToken{cgSemi, ";", line})
			i++
		case ch == '"':
			j := bytes.IndexByte(b[i+1:], '"')
			if j < 0 {
				return append(toks, cgToken{cgBad, "unterminated string", line})
			}
			s := string(b[i+1 : i+1+j])
			toks = append(toks, cgToken{cgString, s, line})
			line += strings.Count(s, "\n")
			i += j + 2
		default:
			j := i
			for j < len(b) && !strings.ContainsRune(" \t\r\n#{}=;\"", rune(b[j])) {
				j++
			}
			toks = append(toks, cgToken{cgWord, string(b[i:j]), line})
			i = j
		}
	}
	return toks
}

type cgParser struct {
	toks []cgToken
	pos  int
}

func (p *cgParser) done() bool { return p.pos >= len(p.toks) }

func (p *cgParser) next() cgToken {
	if p.done() {
		line := 1
		if len(p.toks) > 0 {
			line = p.toks[len(p.toks)-1].line
		}
		return cgToken{cgEOF, "end of file", line}
	}
	t := p.toks[p.pos]
	p.pos++
	return t
}

func (p *cgParser) expect(kind int) error {
	t := p.next()
	if t.kind != kind {
		want := map[int]string{cgOpen: "{", cgClose: "}", cgEquals: "=", cgSemi: ";"}[kind]
		return parseErr(t.line, "expected %s, got %q", want, trunc(t.text, 30))
	}
	return nil
}

// skipBlock consumes a balanced block whose '{' was already read.
func (p *cgParser) skipBlock() error {
	depth := 1
	for depth > 0 {
		t := p.next()
		switch t.kind {
		case cgOpen:
			depth++
		case cgClose:
			depth--
		case cgEOF, cgBad:
			return parseErr(t.line, "expected }, got %s", t.text)
		}
	}
	return nil
}

type cgKV struct {
	key, value string
	line       int
}

// assignments reads "key = value;" pairs up to the closing '}'.
func (p *cgParser) assignments() ([]cgKV, error) {
	var out []cgKV
	for {
		k := p.next()
		if k.kind == cgClose {
			return out, nil
		}
		if k.kind != cgWord {
			return nil, parseErr(k.line, "expected a setting name or }, got %q", trunc(k.text, 30))
		}
		if err := p.expect(cgEquals); err != nil {
			return nil, err
		}
		v := p.next()
		if v.kind != cgWord && v.kind != cgString {
			return nil, parseErr(v.line, "expected a value for %s, got %q", trunc(k.text, 30), trunc(v.text, 30))
		}
		if err := p.expect(cgSemi); err != nil {
			return nil, err
		}
		out = append(out, cgKV{k.text, v.text, k.line})
	}
}

// parsePasswd parses passwd(5) lines into name → uid and uid → name (the
// first name listed for a uid, as getpwuid returns). Lines that are not
// "name:pw:uid:..." with a numeric uid (NIS "+" entries, garbage) are
// skipped; bad counts them.
func parsePasswd(r io.Reader) (users map[string]int, names map[int]string, bad int) {
	users, names = map[string]int{}, map[int]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) < 4 || f[0] == "" || strings.HasPrefix(f[0], "+") || strings.HasPrefix(f[0], "-") {
			bad++
			continue
		}
		uid, err := strconv.Atoi(f[2])
		if err != nil || uid < 0 {
			bad++
			continue
		}
		if _, dup := users[f[0]]; !dup {
			users[f[0]] = uid
		}
		if _, dup := names[uid]; !dup {
			names[uid] = f[0]
		}
	}
	return users, names, bad
}

// readPasswd reads the root's /etc/passwd; nils and an absence under fact when it cannot.
func (c *Collector) readPasswd(fact string) (map[string]int, map[int]string) {
	b, err := c.readConfigFile("/etc/passwd")
	if err != nil {
		c.Absent(fact, "/etc/passwd", err)
		return nil, nil
	}
	u, n, _ := parsePasswd(bytes.NewReader(b))
	return u, n
}

func readConfig(c *Collector) {
	cf := &c.Snap.Config
	cf.Limits = readLimits(c)
	cf.SysctlFiles = readSysctlFiles(c)
	readTuned(c)
	cf.Cgconfig = readCgconfig(c)
	if users, _ := c.readPasswd("config.users"); users != nil {
		cf.Users = map[string]int{}
		for _, n := range dbUsers {
			if uid, ok := users[n]; ok {
				cf.Users[n] = uid
			}
		}
	}
}

// readConfigFile reads a configuration file, bounded in size.
func (c *Collector) readConfigFile(p string) ([]byte, error) {
	f, err := os.Open(c.Root.Path(p))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigFileBytes {
		return nil, parseErr(0, "file larger than %d bytes", maxConfigFileBytes)
	}
	return b, nil
}

// lineAbsent records a bad line of a file as fact's absence, path "file:line".
func (c *Collector) lineAbsent(fact, file string, err error) {
	p := file
	if pe, ok := err.(*ParseError); ok && pe.Line > 0 {
		p = fmt.Sprintf("%s:%d", file, pe.Line)
	}
	c.Absent(fact, p, err)
}

func readLimits(c *Collector) []snapshot.LimitEntry {
	out := []snapshot.LimitEntry{}
	files := []string{"/etc/security/limits.conf"}
	const dir = "/etc/security/limits.d"
	if names, err := c.Root.ReadDirNames(dir); err == nil {
		for _, n := range names {
			if strings.HasSuffix(n, ".conf") && !strings.HasPrefix(n, ".") {
				files = append(files, dir+"/"+n)
			}
		}
	}
	for _, f := range files {
		b, err := c.readConfigFile(f)
		if err != nil {
			if f == files[0] || !os.IsNotExist(err) {
				c.Absent("config.limits", f, err)
			}
			continue
		}
		ents, errs := parseLimits(bytes.NewReader(b))
		for _, e := range errs {
			c.lineAbsent("config.limits", f, e)
		}
		for _, e := range ents {
			e.File = f
			out = append(out, e)
		}
	}
	return out
}

// sysctlFile is one file in systemd-sysctl's list, in application order.
type sysctlFile struct {
	path    string // host path
	real    string // path to read (a symlink's target, resolved inside the root)
	shadow  bool   // hidden by a file of the same name in a directory of higher precedence
	masked  bool   // symlink to /dev/null
	dirRank int
}

// resolveLink follows one symlink level of a host path inside the root.
func (c *Collector) resolveLink(p string) (string, bool) {
	t, err := os.Readlink(c.Root.Path(p))
	if err != nil {
		return p, false
	}
	if !path.IsAbs(t) {
		t = path.Join(path.Dir(p), t)
	}
	return path.Clean(t), true
}

func sysctlFileList(c *Collector) []sysctlFile {
	byName := map[string][]sysctlFile{}
	var dirInfos []os.FileInfo
	for rank, d := range sysctlDirs {
		// Skip a directory that is another one seen through a symlink
		// (/lib → /usr/lib on merged-/usr systems).
		fi, err := os.Stat(c.Root.Path(d))
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

func readTuned(c *Collector) {
	t := &c.Snap.Config.Tuned
	t.Installed = c.Root.Exists("/etc/tuned") || c.Root.Exists("/usr/lib/tuned")
	if !t.Installed {
		c.AbsentReason("config.tuned.active_profile", "/etc/tuned/active_profile", "tuned is not installed")
		return
	}
	b, err := c.Root.ReadFile("/etc/tuned/active_profile")
	if err != nil {
		c.Absent("config.tuned.active_profile", "/etc/tuned/active_profile", err)
	} else {
		s := strings.TrimSpace(string(b))
		t.ActiveProfile = &s
	}
	t.ProfileMode = c.StringQuiet("/etc/tuned/profile_mode")
}

func readCgconfig(c *Collector) []snapshot.CgconfigEntry {
	files := []string{"/etc/cgconfig.conf"}
	const dir = "/etc/cgconfig.d"
	if names, err := c.Root.ReadDirNames(dir); err == nil {
		for _, n := range names {
			if strings.HasSuffix(n, ".conf") && !strings.HasPrefix(n, ".") {
				files = append(files, dir+"/"+n)
			}
		}
	}
	var out []snapshot.CgconfigEntry
	for _, p := range files {
		b, err := c.readConfigFile(p)
		if err != nil {
			if !os.IsNotExist(err) {
				c.Absent("config.cgconfig", p, err)
			}
			continue
		}
		ents, err := ParseCgconfig(bytes.NewReader(b))
		if err != nil {
			c.lineAbsent("config.cgconfig", p, err)
			continue
		}
		for _, e := range ents {
			e.File = p
			out = append(out, e)
		}
	}
	return out
}
