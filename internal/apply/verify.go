package apply

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
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
	// merged profile and boot time); nil: collected from Root at the first
	// drift, with facts' readers (the one parser of each of those files).
	Snap *snapshot.Snapshot
	// Virsh is the virsh binary for libvirt-domain entries ("": from PATH).
	Virsh string
}

// snapshot returns o.Snap, collecting it from o.Root the first time.
func (o *VerifyOptions) snapshot() *snapshot.Snapshot {
	if o.Snap == nil {
		o.Snap = facts.Collect(o.Root, facts.Options{})
	}
	return o.Snap
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
		if b.Kind == string(change.LibvirtDomain) {
			out = append(out, verifyLibvirt(opt, b, c))
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
				c.Cause = driftCause(change.Kind(b.Kind), b.Key, b.Path, c.Want, j.Time(), &opt)
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
				c.Cause = driftCause(ch.Kind, ch.Key, c.Path, c.Want, time.Time{}, &opt)
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
func driftCause(kind change.Kind, key, p, want string, applied time.Time, opt *VerifyOptions) string {
	var causes []string
	snap := opt.snapshot()
	if kind == change.Sysctl {
		norm := strings.ReplaceAll(key, "/", ".")
		for _, e := range snap.Config.SysctlFiles {
			if e.Effective && strings.ReplaceAll(e.Key, "/", ".") == norm && Value(e.Value) != want {
				causes = append(causes, fmt.Sprintf("%s line %d sets %s = %s (applied at boot and by 'sysctl --system')", e.File, e.Line, e.Key, e.Value))
			}
		}
	}
	if c := tunedCause(kind, key, p, want, snap); c != "" {
		causes = append(causes, c)
	}
	if kind == change.Sysfs {
		if c := udevCause(p, want, opt.Root); c != "" {
			causes = append(causes, c)
		}
	}
	if bt := snap.CPULoad.BootTime; !applied.IsZero() && bt > 0 && time.Unix(bt, 0).After(applied) {
		causes = append(causes, fmt.Sprintf("the host rebooted at %s, after the apply at %s: runtime values do not survive a reboot (persist them with the plan's sysctl.d, udev and tuned artifacts)",
			time.Unix(bt, 0).UTC().Format(time.RFC3339), applied.UTC().Format(time.RFC3339)))
	}
	if len(causes) == 0 {
		return "changed by another agent (no sysctl.d file, tuned profile or udev rule sets it)"
	}
	return strings.Join(causes, "; ")
}

// tunedCause reports the option of the active tuned profile (merged with
// the profiles it includes, as facts reads it: config.tuned.profile) that
// sets the value to something else.
func tunedCause(kind change.Kind, key, p, want string, snap *snapshot.Snapshot) string {
	t := snap.Config.Tuned
	if len(t.Profile) == 0 {
		for _, a := range snap.Absent {
			if a.Fact == "config.tuned.profile" && t.ActiveProfile != nil {
				return fmt.Sprintf("tuned's active profile %s could not be read (%s: %s): whether it sets this is unknown", *t.ActiveProfile, a.Path, a.Reason)
			}
		}
		return ""
	}
	conf := map[string]map[string]snapshot.TunedSetting{}
	for _, s := range t.Profile {
		if conf[s.Unit] == nil {
			conf[s.Unit] = map[string]snapshot.TunedSetting{}
		}
		conf[s.Unit][s.Option] = s
	}
	if s, ok := tunedSets(conf, kind, key, p); ok && Value(s.Value) != want {
		active := ""
		if t.ActiveProfile != nil {
			active = *t.ActiveProfile
		}
		return fmt.Sprintf("tuned profile %s (%s line %d) sets [%s] %s = %s", active, s.File, s.Line, s.Unit, s.Option, s.Value)
	}
	return ""
}

// tunedSets finds the tuned option that sets a change's setting.
func tunedSets(conf map[string]map[string]snapshot.TunedSetting, kind change.Kind, key, p string) (snapshot.TunedSetting, bool) {
	look := func(unit string, opts ...string) (snapshot.TunedSetting, bool) {
		for _, o := range opts {
			if s, found := conf[unit][o]; found {
				return s, true
			}
		}
		return snapshot.TunedSetting{}, false
	}
	var s snapshot.TunedSetting
	ok := false
	switch {
	case kind == change.Sysctl:
		s, ok = look("sysctl", key, strings.ReplaceAll(key, "/", "."))
	case p == "/sys/kernel/mm/transparent_hugepage/enabled":
		s, ok = look("vm", "transparent_hugepages", "transparent_hugepage")
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/scheduler"):
		s, ok = look("disk", "elevator")
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/read_ahead_kb"):
		s, ok = look("disk", "readahead")
	case strings.HasSuffix(p, "/cpufreq/scaling_governor"):
		s, ok = look("cpu", "governor")
	}
	if ok || kind != change.Sysfs {
		return s, ok
	}
	var names []string
	for o := range conf["sysfs"] {
		names = append(names, o)
	}
	sort.Strings(names)
	for _, o := range names {
		if m, _ := path.Match(o, p); m || o == p {
			return conf["sysfs"][o], true
		}
	}
	return snapshot.TunedSetting{}, false
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
		for _, a := range facts.ParseUdevAssigns(string(b), attr) {
			if Value(a.Value) != want {
				return fmt.Sprintf("udev rule %s line %d sets ATTR{%s}=\"%s\"", f, a.Line, attr, a.Value)
			}
		}
	}
	return ""
}
