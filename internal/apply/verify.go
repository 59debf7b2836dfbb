package apply

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Check is one setting's live value against the applied (or planned) one.
type Check struct {
	Kind    string `json:"kind"`
	Setting string `json:"setting"`
	Path    string `json:"path,omitempty"`
	Want    string `json:"want"`
	Live    string `json:"live"`
	Status  string `json:"status"` // ok | drift | absent | failed | interrupted | unverified | pending-reboot | manual | refused
	Cause   string `json:"cause,omitempty"`
	Rule    string `json:"rule,omitempty"`
}

// VerifyOptions are what Verify reads.
type VerifyOptions struct {
	Root facts.Root
	Sys  Sys
	// Snap is a snapshot of the host now (for sysctl.d files, tuned's
	// profile and boot time); nil reads only what Verify needs itself.
	Snap *snapshot.Snapshot
}

func (o VerifyOptions) sys() Sys { return (&Options{Root: o.Root, Sys: o.Sys}).sys() }

// VerifyJournal checks every write of an apply run that is not rolled back.
func VerifyJournal(j *Journal, opt VerifyOptions) []Check {
	sys := opt.sys()
	h := readCpusetHierarchies(opt.Root)
	var out []Check
	for _, w := range j.Writes {
		b := w.Begin
		c := Check{Kind: b.Kind, Setting: b.Key, Path: b.Path, Rule: b.Rule}
		if err := checkEntry(b, h); err != nil {
			c.Want, c.Live, c.Status = Value(b.New), "(not read)", "refused"
			c.Cause = fmt.Sprintf("the journal entry names a path dbhost never writes (%v): not read", err)
			out = append(out, c)
			continue
		}
		if b.Kind == kindFile {
			c.Want = fmt.Sprintf("%d bytes", len(b.New))
			cur, err := readManaged(opt.Root, b.Path)
			switch {
			case err != nil:
				c.Live, c.Status, c.Cause = "(absent)", "drift", "the file was removed: "+facts.Reason(err)
			case cur != b.New:
				c.Live, c.Status, c.Cause = fmt.Sprintf("%d bytes", len(cur)), "drift", "the file was edited since the apply"
			default:
				c.Live, c.Status = c.Want, "ok"
			}
			out = append(out, c)
			continue
		}
		c.Want = Value(b.New)
		switch w.State {
		case StateFailed:
			c.Status, c.Cause = "failed", "at apply: "+w.Outcome.Error
		case StateBegin:
			c.Status, c.Cause = "interrupted", "the apply stopped during this write (crash or kill): run 'dbhost rollback' or apply again"
			if j.Damaged() {
				c.Status, c.Cause = "unverified", "the journal is damaged: the outcome of this write is not in what can be read of it"
			}
		}
		if change.Kind(b.Kind).Cgroup() {
			out = append(out, verifyCgroup(sys, b, c))
			continue
		}
		live, err := sys.Read(b.Path)
		if err != nil {
			c.Live, c.Status, c.Cause = "(unreadable)", "absent", facts.Reason(err)
			out = append(out, c)
			continue
		}
		c.Live = Value(live)
		if c.Status == "" {
			if Same(b.Path, live, b.New) {
				c.Status = "ok"
			} else {
				c.Status = "drift"
				c.Cause = driftCause(change.Kind(b.Kind), b.Key, b.Path, c.Want, j.Time(), opt)
			}
		}
		out = append(out, c)
	}
	return out
}

// verifyCgroup checks a cgroup step of dbhost place --apply with the same
// read-back apply used: the group exists, cpuset is enabled, the value and
// the effective list are as written, the PID is still in the group.
func verifyCgroup(sys Sys, b Entry, c Check) Check {
	live, err := cgroupCheck(sys, b.Kind, b.Path, b.New)
	c.Live = live
	if c.Status != "" {
		return c // failed or interrupted at apply: say that, not a drift
	}
	switch {
	case err == nil:
		c.Status = "ok"
	case change.Kind(b.Kind) == change.CgroupProcs && live == "":
		c.Live, c.Status, c.Cause = "(gone)", "absent", "process "+b.New+" has exited (a restarted instance must be moved again: dbhost place --apply)"
	default:
		c.Status, c.Cause = "drift", err.Error()+" (changed by another agent, systemd or a restart since the apply)"
	}
	return c
}

// VerifyChanges checks the live values against a plan's changes.
func VerifyChanges(cs []change.Change, opt VerifyOptions) []Check {
	sys := opt.sys()
	var out []Check
	for _, ch := range cs {
		c := Check{Kind: string(ch.Kind), Setting: ch.Key, Want: ch.Value, Rule: ch.Rule}
		switch ch.Kind {
		case change.Sysctl, change.Sysfs:
			c.Path = ch.Path()
			if strings.Contains(c.Path, "*") {
				if rp, err := resolveWildcard(sys, c.Path); err == nil {
					c.Path = rp
				}
			}
			live, err := sys.Read(c.Path)
			if err != nil {
				c.Live, c.Status, c.Cause = "(unreadable)", "absent", facts.Reason(err)
				break
			}
			c.Live, c.Want = Value(live), Value(ch.Value)
			if Same(c.Path, live, ch.Value) {
				c.Status = "ok"
			} else {
				c.Status = "drift"
				c.Cause = driftCause(ch.Kind, ch.Key, c.Path, c.Want, time.Time{}, opt)
			}
		case change.BootArg:
			it := Item{}
			prepareBootArg(ch, opt.Root, &it)
			c.Live, c.Want = it.Current, it.New
			c.Status = "ok"
			if it.Status == StatusPending {
				c.Status, c.Cause = StatusPending, it.Command
			}
		case change.Limit:
			c.Path = LimitsFile
			b, _ := readManaged(opt.Root, LimitsFile)
			c.Live = LimitsValues(b)[strings.Join(strings.Fields(ch.Key), " ")]
			c.Status = "ok"
			if c.Live != ch.Value {
				c.Status, c.Cause = "drift", LimitsFile+" does not hold it"
			}
		default:
			c.Status = StatusManual
		}
		out = append(out, c)
	}
	return out
}

// driftCause names the likely reason a setting no longer has its applied
// value: a sysctl.d file, tuned's active profile, a udev rule, a reboot
// after the apply, else another agent.
func driftCause(kind change.Kind, key, p, want string, applied time.Time, opt VerifyOptions) string {
	var causes []string
	if kind == change.Sysctl && opt.Snap != nil {
		norm := strings.ReplaceAll(key, "/", ".")
		for _, e := range opt.Snap.Config.SysctlFiles {
			if e.Effective && strings.ReplaceAll(e.Key, "/", ".") == norm && Value(e.Value) != want {
				causes = append(causes, fmt.Sprintf("%s line %d sets %s = %s (applied at boot and by 'sysctl --system')", e.File, e.Line, e.Key, e.Value))
			}
		}
	}
	if c := tunedCause(kind, key, p, want, opt); c != "" {
		causes = append(causes, c)
	}
	if kind == change.Sysfs {
		if c := udevCause(p, want, opt.Root); c != "" {
			causes = append(causes, c)
		}
	}
	if !applied.IsZero() {
		bt := int64(0)
		if opt.Snap != nil {
			bt = opt.Snap.CPULoad.BootTime
		}
		if bt == 0 {
			bt = readBtime(opt.Root)
		}
		if bt > 0 && time.Unix(bt, 0).After(applied) {
			causes = append(causes, fmt.Sprintf("the host rebooted at %s, after the apply at %s: runtime values do not survive a reboot (persist them with the plan's sysctl.d, udev and tuned artifacts)",
				time.Unix(bt, 0).UTC().Format(time.RFC3339), applied.UTC().Format(time.RFC3339)))
		}
	}
	if len(causes) == 0 {
		return "changed by another agent (no sysctl.d file, tuned profile or udev rule sets it)"
	}
	return strings.Join(causes, "; ")
}

func readBtime(root facts.Root) int64 {
	b, err := root.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	return ParseBtime(string(b))
}

// ParseBtime returns /proc/stat's btime (0 when absent or malformed).
func ParseBtime(stat string) int64 {
	for _, line := range strings.Split(stat, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "btime" {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil && v > 0 {
				return v
			}
		}
	}
	return 0
}

// tunedDirs are where tuned looks for profiles, in its order.
var tunedDirs = []string{"/etc/tuned", "/usr/lib/tuned", "/usr/lib/tuned/profiles"}

// tunedCause reports the active tuned profile (or a profile it includes)
// setting the value to something else.
func tunedCause(kind change.Kind, key, p, want string, opt VerifyOptions) string {
	active := ""
	if opt.Snap != nil && opt.Snap.Config.Tuned.ActiveProfile != nil {
		active = *opt.Snap.Config.Tuned.ActiveProfile
	} else if s, err := opt.Root.ReadString("/etc/tuned/active_profile"); err == nil {
		active = s
	}
	seen := map[string]bool{}
	var walk func(name string, depth int) string
	walk = func(name string, depth int) string {
		if name == "" || seen[name] || depth > 8 || strings.ContainsAny(name, "/\\") {
			return ""
		}
		seen[name] = true
		for _, d := range tunedDirs {
			file := d + "/" + name + "/tuned.conf"
			b, err := opt.Root.ReadFile(file)
			if err != nil {
				continue
			}
			conf := ParseTunedConf(string(b))
			if sec, opt, v, ok := tunedSets(conf, kind, key, p); ok && Value(v) != want {
				return fmt.Sprintf("tuned profile %s (%s) sets [%s] %s = %s", name, file, sec, opt, v)
			}
			// Included profiles are applied first: the including one wins, so look at them after.
			for _, inc := range strings.Split(conf["main"]["include"], ",") {
				if c := walk(strings.TrimSpace(inc), depth+1); c != "" {
					return c
				}
			}
			return ""
		}
		return ""
	}
	for _, name := range strings.Fields(active) { // tuned allows several active profiles
		if c := walk(name, 0); c != "" {
			return c
		}
	}
	return ""
}

// tunedSets finds the tuned option that sets a change's setting.
func tunedSets(conf map[string]map[string]string, kind change.Kind, key, p string) (sec, opt, v string, ok bool) {
	look := func(s, o string) bool {
		if x, found := conf[s][o]; found {
			sec, opt, v, ok = s, o, x, true
		}
		return ok
	}
	switch {
	case kind == change.Sysctl:
		if look("sysctl", key) || look("sysctl", strings.ReplaceAll(key, "/", ".")) {
			return
		}
	case p == "/sys/kernel/mm/transparent_hugepage/enabled":
		if look("vm", "transparent_hugepages") || look("vm", "transparent_hugepage") {
			return
		}
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/scheduler"):
		if look("disk", "elevator") {
			return
		}
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/read_ahead_kb"):
		if look("disk", "readahead") {
			return
		}
	case strings.HasSuffix(p, "/cpufreq/scaling_governor"):
		if look("cpu", "governor") {
			return
		}
	}
	if kind == change.Sysfs {
		for o, x := range conf["sysfs"] {
			if m, _ := path.Match(o, p); m || o == p {
				return "sysfs", o, x, true
			}
		}
	}
	return "", "", "", false
}

// ParseTunedConf parses a tuned.conf (INI: [section], key = value, # and ;
// comments) into section → key → value; the last occurrence wins.
func ParseTunedConf(text string) map[string]map[string]string {
	out := map[string]map[string]string{}
	sec := ""
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			sec = strings.TrimSpace(line[1 : len(line)-1])
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k = strings.TrimSpace(k)
		if k == "" {
			continue
		}
		if out[sec] == nil {
			out[sec] = map[string]string{}
		}
		out[sec][k] = strings.TrimSpace(v)
	}
	return out
}

// udevDirs are where udev rules live; a file in /etc overrides one of the same name in /usr/lib or /lib.
var udevDirs = []string{"/etc/udev/rules.d", "/run/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d"}

// udevCause reports a udev rule that assigns the sysfs attribute.
func udevCause(p, want string, root facts.Root) string {
	attr := path.Base(p)
	if i := strings.Index(p, "/queue/"); i >= 0 && strings.HasPrefix(p, "/sys/block/") {
		attr = p[i+1:]
	}
	seen := map[string]bool{}
	var files []string
	for _, d := range udevDirs {
		names, err := root.ReadDirNames(d)
		if err != nil {
			continue
		}
		for _, n := range names {
			if strings.HasSuffix(n, ".rules") && !seen[n] {
				seen[n] = true
				files = append(files, d+"/"+n)
			}
		}
	}
	sort.Slice(files, func(a, b int) bool { return filepath.Base(files[a]) < filepath.Base(files[b]) })
	for _, f := range files {
		b, err := root.ReadFile(f)
		if err != nil {
			continue
		}
		for _, a := range UdevAssigns(string(b), attr) {
			if Value(a.Value) != want {
				return fmt.Sprintf("udev rule %s line %d sets ATTR{%s}=\"%s\"", f, a.Line, attr, a.Value)
			}
		}
	}
	return ""
}

// UdevAssign is one assignment of an attribute in a udev rules file.
type UdevAssign struct {
	Line  int
	Value string
}

// UdevAssigns finds the assignments ATTR{attr}="value" (not the == matches)
// in a rules file's text; continuation lines are joined.
func UdevAssigns(text, attr string) []UdevAssign {
	var out []UdevAssign
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		start := i + 1
		line := lines[i]
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + lines[i]
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		needle := "ATTR{" + attr + "}"
		rest := line
		for {
			k := strings.Index(rest, needle)
			if k < 0 {
				break
			}
			rest = strings.TrimLeft(rest[k+len(needle):], " \t")
			if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") {
				v := strings.TrimLeft(rest[1:], " \t")
				if strings.HasPrefix(v, `"`) {
					if e := strings.IndexByte(v[1:], '"'); e >= 0 {
						out = append(out, UdevAssign{Line: start, Value: v[1 : 1+e]})
					}
				}
			}
		}
	}
	return out
}
