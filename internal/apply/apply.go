package apply

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
)

// LimitsFile is the only file limit changes are written to.
const LimitsFile = "/etc/security/limits.d/90-dbhost.conf"

// Item statuses.
const (
	StatusChange    = "change"         // dry run: would be written
	StatusApplied   = "applied"        // written and read back
	StatusUnchanged = "unchanged"      // already at the value: nothing written
	StatusFailed    = "failed"         // write refused, or the kernel did not keep the value
	StatusRefused   = "refused"        // risky, and --accept-risk not given
	StatusPending   = "pending-reboot" // boot argument: run the command, then reboot
	StatusManual    = "manual"         // not a runtime change (tuned profile choice)
	StatusAbsent    = "absent"         // the setting does not exist on this host
)

// Options control Apply and Rollback.
type Options struct {
	Root     facts.Root
	StateDir string
	// Sys writes kernel files; nil: LiveSys for a live root, TreeSys otherwise.
	Sys        Sys
	AcceptRisk bool
	DryRun     bool
	Version    string
	Plan       string // the plan's path, recorded in the journal header
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Step, when set, is called after every journal entry and every write
	// with their running number from 1 (tests kill the process there).
	Step func(n int)
	// Locked: the caller holds the state directory's lock (Lock, or
	// LockShared for a dry run), taken before it read the host to plan.
	// Otherwise Apply and Rollback take it themselves, before reading.
	Locked bool

	// LibvirtURI is the libvirt connection libvirt-domain changes define
	// their domains on (recorded in the journal: rollback and verify use
	// the journal's); Virsh the virsh binary ("": virsh from PATH).
	LibvirtURI string
	Virsh      string

	// cgroups are the host's cpuset hierarchies, read by Apply and
	// Rollback when they start (cgroup changes and entries are checked
	// against them).
	cgroups cpusetHierarchies
}

// lock takes the state lock for a run unless the caller holds it: shared
// for a dry run, exclusive otherwise.
func (o *Options) lock() (*StateLock, error) {
	if o.Locked {
		return nil, nil
	}
	if o.DryRun {
		return LockShared(o.StateDir)
	}
	return Lock(o.StateDir)
}

func (o *Options) sys() Sys {
	if o.Sys != nil {
		return o.Sys
	}
	if o.Root.Live || o.Root.Dir == "" || o.Root.Dir == "/" {
		return LiveSys{}
	}
	return TreeSys{Root: o.Root}
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Item is one change's outcome, a line of the dry-run diff.
type Item struct {
	Kind    string    `json:"kind"`
	Setting string    `json:"setting"`
	Path    string    `json:"path,omitempty"`
	Current string    `json:"current"`
	New     string    `json:"new"`
	Status  string    `json:"status"`
	Rule    string    `json:"rule"`
	Why     string    `json:"why,omitempty"`
	Message string    `json:"message,omitempty"`
	Command string    `json:"command,omitempty"`
	Side    []Watched `json:"side_effects,omitempty"`
}

// Result is what Apply did (or would do, in a dry run).
type Result struct {
	JournalID string         `json:"journal_id,omitempty"`
	DryRun    bool           `json:"dry_run"`
	Items     []Item         `json:"items"`
	Counts    map[string]int `json:"counts"`
	Warnings  []string       `json:"warnings,omitempty"`
}

// Count returns the number of items with a status.
func (r *Result) Count(status string) int { return r.Counts[status] }

// todo is one journaled write to make.
type todo struct {
	items   []int // indexes into Result.Items
	kind    string
	key     string
	path    string
	old     string
	absent  bool // file kind: did not exist
	value   string
	rule    string
	watches []string
}

// Apply brings the host to the changes' values. Values already equal are
// not written; risky changes are refused unless AcceptRisk; boot arguments
// are never written (pending, with the distribution's command); limits go to
// LimitsFile only. Every write is journaled (see package doc). The state
// lock is held from before the first current value is read. The error is
// for the journal itself (no state directory, lock held: *LockedError):
// outcomes of the changes are in Result.
func Apply(changes []change.Change, opt Options) (*Result, error) {
	l, err := opt.lock()
	if err != nil {
		return nil, err
	}
	defer l.Unlock()
	sys := opt.sys()
	for _, c := range changes {
		if c.Kind.Cgroup() {
			opt.cgroups = readCpusetHierarchies(opt.Root)
			break
		}
	}
	res := &Result{DryRun: opt.DryRun, Items: []Item{}, Counts: map[string]int{}}
	var todos []*todo
	var limitItems []int
	var limitChanges []change.Change
	creating := map[string]bool{} // cgroups this run creates
	for _, c := range changes {
		it := Item{Kind: string(c.Kind), Setting: c.Key, New: c.Value, Rule: c.Rule, Why: c.Why}
		switch c.Kind {
		case change.Sysctl, change.Sysfs:
			t := prepareRuntime(c, sys, &it)
			if t != nil {
				if c.Risk != "" && !opt.AcceptRisk {
					it.Status = StatusRefused
					it.Message = "risky, refused without --accept-risk: " + c.Risk
				} else {
					t.items = []int{len(res.Items)}
					todos = append(todos, t)
					it.Status = StatusChange
				}
			}
		case change.CgroupDir, change.CgroupController, change.CgroupFile, change.CgroupProcs:
			if t := prepareCgroup(c, sys, &it, creating, opt.cgroups); t != nil {
				t.items = []int{len(res.Items)}
				todos = append(todos, t)
				it.Status = StatusChange
			}
		case change.LibvirtDomain:
			if t := prepareLibvirt(c, opt, &it); t != nil {
				t.items = []int{len(res.Items)}
				todos = append(todos, t)
				it.Status = StatusChange
			}
		case change.BootArg:
			prepareBootArg(c, opt.Root, &it)
		case change.Limit:
			it.Path = LimitsFile
			if c.Risk != "" && !opt.AcceptRisk {
				it.Status = StatusRefused
				it.Message = "risky, refused without --accept-risk: " + c.Risk
				break
			}
			limitItems = append(limitItems, len(res.Items))
			limitChanges = append(limitChanges, c)
		case change.TunedProfile:
			it.Status = StatusManual
			it.Current = "(none)"
			if a, err := opt.Root.ReadString("/etc/tuned/active_profile"); err == nil && a != "" {
				it.Current = "active " + a
			}
			it.Message = "not a runtime change: install the plan's tuned.conf as /etc/tuned/dbhost/tuned.conf, then 'tuned-adm profile dbhost'"
		default:
			it.Status = StatusFailed
			it.Message = fmt.Sprintf("unknown change kind %q", c.Kind)
		}
		res.Items = append(res.Items, it)
	}
	if len(limitChanges) > 0 {
		if t := prepareLimits(limitChanges, limitItems, opt.Root, res); t != nil {
			todos = append(todos, t)
		}
	}
	if opt.DryRun || len(todos) == 0 {
		res.count()
		return res, nil
	}
	// Run order: as planned (limits last).
	sort.SliceStable(todos, func(a, b int) bool { return todos[a].items[0] < todos[b].items[0] })

	ids, err := ListJournals(opt.StateDir)
	if err != nil {
		// A journal directory or file that is not dbhost's (a link out of
		// the state directory): refused before anything is written.
		res.abort(err)
		return res, fmt.Errorf("journal: %w", err)
	}
	if len(ids) > 0 {
		j, err := LoadJournal(opt.StateDir, ids[len(ids)-1])
		var se *StateError
		if errors.As(err, &se) {
			res.abort(err)
			return res, fmt.Errorf("journal: %w", err)
		}
		if err == nil {
			switch {
			case j.Damaged():
				res.Warnings = append(res.Warnings, fmt.Sprintf("the journal of the previous apply %s is damaged (%s): a rollback will stop at it", j.ID, j.Damage[len(j.Damage)-1]))
			case !j.Ended && !j.RolledBack && !j.Empty():
				res.Warnings = append(res.Warnings, fmt.Sprintf("the previous apply %s was interrupted; 'dbhost rollback --to %s' undoes it and this one", j.ID, j.ID))
			}
		}
	}
	jf, id, err := createJournal(opt.StateDir, opt.now())
	if err != nil {
		res.abort(err)
		return res, fmt.Errorf("journal: %w", err)
	}
	defer jf.close()
	res.JournalID = id
	n := 0
	step := func() {
		n++
		if opt.Step != nil {
			opt.Step(n)
		}
	}
	jf.hook = step
	root := opt.Root.Dir
	if root == "" {
		root = "/"
	}
	if err := jf.append(Entry{State: StateStart, Format: Format, Time: stamp(opt.now()), ID: id, Root: root, Version: opt.Version, Plan: opt.Plan}); err != nil {
		res.abort(err)
		return res, fmt.Errorf("journal: %w", err)
	}
	for i, t := range todos {
		if t.kind == string(change.LibvirtDomain) {
			if err := runLibvirt(i+1, t, opt, jf, step, res); err != nil {
				res.abort(err)
				return res, fmt.Errorf("journal: %w", err)
			}
			continue
		}
		if change.Kind(t.kind).Cgroup() {
			if err := runCgroup(i+1, t, sys, opt, jf, step, res); err != nil {
				res.abort(err)
				return res, fmt.Errorf("journal: %w", err)
			}
			continue
		}
		if err := run(i+1, t, sys, opt, jf, step, res); err != nil {
			res.abort(err)
			return res, fmt.Errorf("journal: %w", err)
		}
	}
	if err := jf.append(Entry{State: StateEnd, Time: stamp(opt.now())}); err != nil {
		res.abort(err)
		return res, fmt.Errorf("journal: %w", err)
	}
	res.count()
	return res, nil
}

func (r *Result) count() {
	r.Counts = map[string]int{}
	for _, it := range r.Items {
		r.Counts[it.Status]++
	}
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// prepareRuntime reads a sysctl or sysfs setting's current value; nil when
// there is nothing to write (it.Status says why).
func prepareRuntime(c change.Change, sys Sys, it *Item) *todo {
	p := c.Path()
	it.Path = p
	if err := checkPath(c.Kind, p); err != nil {
		it.Status, it.Message = StatusFailed, err.Error()
		return nil
	}
	if strings.Contains(p, "*") {
		rp, err := resolveWildcard(sys, p)
		switch {
		case isNotExist(err):
			it.Status, it.Message = StatusAbsent, "not present on this host: nothing written"
			return nil
		case err != nil:
			it.Status, it.Message = StatusFailed, err.Error()
			return nil
		}
		p, it.Path = rp, rp
	}
	raw, err := sys.Read(p)
	if err != nil {
		if isNotExist(err) {
			it.Status, it.Message = StatusAbsent, "not present on this host: nothing written"
		} else {
			it.Status, it.Message = StatusFailed, "cannot read: "+facts.Reason(err)
		}
		return nil
	}
	it.Current = Value(raw)
	if Same(p, raw, c.Value) {
		it.Status = StatusUnchanged
		return nil
	}
	watches, err := watchList(p, sys)
	if err != nil {
		// Its old value could not be journaled: rollback could not restore it.
		it.Status, it.Message = StatusFailed, "not written: "+err.Error()
		return nil
	}
	return &todo{kind: string(c.Kind), key: c.Key, path: p, old: raw, value: c.Value, rule: c.Rule, watches: watches}
}

// resolveWildcard resolves the "*" components of a sysfs key to the one
// entry each directory holds ("/sys/block/sdb/device/scsi_disk/*/cache_type":
// the disk's SCSI address, which the snapshot does not keep). Several
// entries are an error: dbhost never writes to more than it was asked to.
func resolveWildcard(sys Sys, p string) (string, error) {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if part != "*" {
			if strings.Contains(part, "*") {
				return "", fmt.Errorf("refusing %q: only a whole path component may be *", p)
			}
			continue
		}
		dir := strings.Join(parts[:i], "/")
		names, err := sys.List(dir)
		if err != nil {
			return "", err
		}
		switch len(names) {
		case 0:
			return "", &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		case 1:
			parts[i] = names[0]
		default:
			return "", fmt.Errorf("refusing %q: %s holds %d entries (%s), expected one", p, dir, len(names), strings.Join(names, ", "))
		}
	}
	return strings.Join(parts, "/"), nil
}

// checkPath refuses writes outside the kernel's tunables.
func checkPath(k change.Kind, p string) error {
	clean := path.Clean(p)
	if clean != p || strings.Contains(p, "..") {
		return fmt.Errorf("refusing to write %q: not a clean absolute path", p)
	}
	switch k {
	case change.Sysctl:
		if !strings.HasPrefix(p, "/proc/sys/") {
			return fmt.Errorf("refusing to write %q: a sysctl lives under /proc/sys", p)
		}
	case change.Sysfs:
		if !strings.HasPrefix(p, "/sys/") {
			return fmt.Errorf("refusing to write %q: a sysfs setting lives under /sys", p)
		}
	}
	return nil
}

// blockQueueWatch are the queue attributes the kernel may reset when a
// device's scheduler changes.
var blockQueueWatch = []string{"nr_requests", "read_ahead_kb", "nomerges", "max_sectors_kb", "rq_affinity", "add_random", "wbt_lat_usec", "iostats"}

// watchList returns the files the kernel may change on its own when p is
// written, that exist: a block queue's other attributes after a scheduler
// change, vm.min_free_kbytes after a THP change, every pool of a hugepage
// size after one of them changes (node pools first, the global pool last).
// A file that exists but cannot be read (or a node directory that cannot be
// listed) is an error: what the kernel changes there could not be journaled.
func watchList(p string, sys Sys) ([]string, error) {
	var cands []string
	switch {
	case strings.HasPrefix(p, "/sys/block/") && strings.HasSuffix(p, "/queue/scheduler"):
		dir := strings.TrimSuffix(p, "scheduler")
		for _, a := range blockQueueWatch {
			cands = append(cands, dir+a)
		}
	case strings.HasPrefix(p, "/sys/kernel/mm/transparent_hugepage/"):
		cands = append(cands, "/proc/sys/vm/min_free_kbytes")
	default:
		size := ""
		if _, s, ok := facts.HugepagePool(p); ok {
			size = s
		}
		if size == "" {
			return nil, nil
		}
		nodes, err := sys.List("/sys/devices/system/node")
		if err != nil && !isNotExist(err) {
			return nil, fmt.Errorf("the kernel may change the other nodes' pools with it, and /sys/devices/system/node cannot be listed (%s)", writeReason(err))
		}
		for _, n := range nodes {
			if strings.HasPrefix(n, "node") {
				cands = append(cands, "/sys/devices/system/node/"+n+"/hugepages/hugepages-"+size+"/nr_hugepages")
			}
		}
		cands = append(cands, "/sys/kernel/mm/hugepages/hugepages-"+size+"/nr_hugepages")
		if size == "2048kB" {
			cands = append(cands, "/proc/sys/vm/nr_hugepages")
		}
	}
	var out []string
	for _, c := range cands {
		if c == p {
			continue
		}
		_, err := sys.Read(c)
		switch {
		case err == nil:
			out = append(out, c)
		case isNotExist(err) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENODEV) || errors.Is(err, syscall.EOPNOTSUPP):
			// Absent, or an attribute that does not apply to this device
			// (wbt_lat_usec without writeback throttling is EINVAL).
		default:
			return nil, fmt.Errorf("the kernel may change %s with it, and it cannot be read (%s)", c, writeReason(err))
		}
	}
	return out, nil
}

// settle gives the todo's items the outcome journaled for it.
func (t *todo) settle(res *Result, out Entry) {
	for _, i := range t.items {
		it := &res.Items[i]
		if out.State == StateDone {
			it.Status = StatusApplied
		} else {
			it.Status, it.Message = StatusFailed, out.Error
		}
	}
}

// run makes one journaled write.
func run(seq int, t *todo, sys Sys, opt Options, jf *journalFile, step func(), res *Result) error {
	begin := Entry{Seq: seq, State: StateBegin, Time: stamp(opt.now()), Kind: t.kind, Key: t.key, Path: t.path,
		Old: t.old, OldAbsent: t.absent, New: t.value, Rule: t.rule}
	for _, w := range t.watches {
		v, err := sys.Read(w)
		if err != nil {
			// Its old value cannot be journaled: nothing is written.
			for _, i := range t.items {
				res.Items[i].Status, res.Items[i].Message = StatusFailed, fmt.Sprintf("not written: the kernel may change %s with it, and it cannot be read (%s)", w, writeReason(err))
			}
			return nil
		}
		begin.Watch = append(begin.Watch, Watched{Path: w, Old: v})
	}
	if err := jf.append(begin); err != nil {
		return err
	}
	out := Entry{Seq: seq, State: StateDone, Time: ""}
	var werr error
	if t.kind == kindFile {
		werr = writeManaged(opt.Root, t.path, t.value)
	} else {
		werr = sys.Write(t.path, t.value)
	}
	step()
	var back string
	var rerr error
	if t.kind == kindFile {
		back, rerr = readManaged(opt.Root, t.path)
	} else {
		back, rerr = sys.Read(t.path)
	}
	switch {
	case werr != nil && t.kind == kindFile:
		out.State, out.Error = StateFailed, fmt.Sprintf("write %s: %s", t.path, writeReason(werr))
	case werr != nil:
		out.State, out.Error = StateFailed, fmt.Sprintf("write %q: %s", t.value, writeReason(werr))
	case rerr != nil:
		out.State, out.Error = StateFailed, "read back: "+facts.Reason(rerr)
	case t.kind == kindFile && back != t.value:
		out.State, out.Error = StateFailed, "the file read back differs from what was written"
	case t.kind != kindFile && !Same(t.path, back, t.value):
		out.State, out.Error = StateFailed, fmt.Sprintf("the kernel accepted %q but kept %q", Value(t.value), Value(back))
	case t.kind != kindFile:
		// A cpuset list the kernel keeps as written but does not use
		// (a node without memory, outside the parent's set).
		for _, e := range effectivePaths(t.path) {
			if eff, err := sys.Read(e); err == nil {
				if !Same(e, eff, t.value) {
					out.State, out.Error = StateFailed, fmt.Sprintf("the kernel kept %q but uses %q (%s)", Value(t.value), Value(eff), path.Base(e))
				}
				break
			}
		}
	}
	if t.kind != kindFile {
		out.Readback = Value(back)
	}
	// Side effects: the watched files the kernel changed with the write.
	var side []Watched
	for _, w := range begin.Watch {
		if v, err := sys.Read(w.Path); err == nil && v != w.Old {
			side = append(side, Watched{Path: w.Path, Old: w.Old, New: v})
		}
	}
	for _, i := range t.items {
		it := &res.Items[i]
		for _, s := range side {
			it.Side = append(it.Side, Watched{Path: s.Path, Old: Value(s.Old), New: Value(s.New)})
		}
	}
	out.Time = stamp(opt.now())
	if len(side) > 0 {
		if err := jf.append(Entry{Seq: seq, State: StateSide, Time: out.Time, Watch: side}); err != nil {
			t.settle(res, out)
			t.unjournaled(res, err)
			return err
		}
	}
	return t.outcome(jf, res, out)
}

// outcome journals a write's outcome and gives its items their status.
// The write was made: when the journal cannot be written the items get
// their status all the same (the summary counts what was applied before
// the failure), with the reason, and the error is returned.
func (t *todo) outcome(jf *journalFile, res *Result, out Entry) error {
	t.settle(res, out)
	if err := jf.append(out); err != nil {
		t.unjournaled(res, err)
		return err
	}
	return nil
}

// unjournaled notes on a write's items that its outcome could not be
// journaled (its begin entry was: rollback restores it).
func (t *todo) unjournaled(res *Result, err error) {
	for _, i := range t.items {
		it := &res.Items[i]
		if it.Message != "" {
			it.Message += "; "
		}
		it.Message += "its outcome could not be journaled (" + writeReason(err) + "); 'dbhost rollback' restores it from its begin entry"
	}
}

// abort ends a run the journal stopped (a full or failing state
// filesystem): the changes not written (still StatusChange) become failed,
// "not written", and the result is counted, so that the summary lists
// and counts what was applied before the failure.
func (r *Result) abort(err error) {
	for i := range r.Items {
		if it := &r.Items[i]; it.Status == StatusChange {
			it.Status = StatusFailed
			it.Message = "not written: the journal could not be written (" + writeReason(err) + ")"
		}
	}
	r.count()
}

func writeReason(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// prepareBootArg reports a boot argument as pending with the distribution's
// command, or unchanged when the running command line already has it.
func prepareBootArg(c change.Change, root facts.Root, it *Item) {
	it.Path = "/proc/cmdline"
	raw, err := root.ReadString("/proc/cmdline")
	args := map[string]string{}
	present := map[string]bool{}
	if err == nil {
		for _, f := range strings.Fields(raw) {
			k, v, _ := strings.Cut(f, "=")
			args[k], present[k] = v, true
		}
	}
	arg := c.Key
	if c.Value != "" {
		arg += "=" + c.Value
	}
	if c.Remove {
		it.New = "(removed)"
		it.Current = "(absent)"
		if present[c.Key] {
			it.Current = c.Key
			if args[c.Key] != "" {
				it.Current += "=" + args[c.Key]
			}
		}
	} else {
		it.New = arg
		it.Current = "(absent)"
		if present[c.Key] {
			it.Current = c.Key
			if args[c.Key] != "" {
				it.Current += "=" + args[c.Key]
			}
		}
	}
	switch {
	case err == nil && c.Remove && !present[c.Key], err == nil && !c.Remove && present[c.Key] && args[c.Key] == c.Value:
		it.Status = StatusUnchanged
		return
	}
	it.Status = StatusPending
	// The distribution's way (issue 26 item 10): grubby on the Red Hat family
	// only; an unreadable /etc/os-release gets every way, labelled.
	family := ""
	if osr, oerr := root.ReadString("/etc/os-release"); oerr == nil {
		family = change.BootArgFamily(change.OSRelease(osr))
	}
	if c.Remove {
		it.Command = change.BootArgCommand(family, c.Key, true)
	} else {
		it.Command = change.BootArgCommand(family, arg, false)
	}
	it.Message = "boot arguments are never changed by apply: run the command, then reboot"
	if err != nil {
		it.Message += " (the running command line could not be read: " + facts.Reason(err) + ")"
	}
}

// prepareLimits computes LimitsFile's new content; nil when it already holds
// every limit.
func prepareLimits(cs []change.Change, items []int, root facts.Root, res *Result) *todo {
	old, err := readManaged(root, LimitsFile)
	absent := false
	if err != nil {
		if !isNotExist(err) {
			for _, i := range items {
				res.Items[i].Status, res.Items[i].Message = StatusFailed, "cannot read "+LimitsFile+": "+facts.Reason(err)
			}
			return nil
		}
		absent = true
	}
	cur := LimitsValues(old)
	var lines []LimitLine
	var okItems []int
	var okChanges []change.Change
	for k, c := range cs {
		if !ValidLimit(c.Key, c.Value) {
			res.Items[items[k]].Status = StatusFailed
			res.Items[items[k]].Message = fmt.Sprintf("not a limits.conf setting: %q %q (expected DOMAIN TYPE ITEM and one value)", c.Key, c.Value)
			continue
		}
		okItems = append(okItems, items[k])
		okChanges = append(okChanges, c)
	}
	cs, items = okChanges, okItems
	if len(cs) == 0 {
		return nil
	}
	for k, c := range cs {
		it := &res.Items[items[k]]
		key := strings.Join(strings.Fields(c.Key), " ")
		if v, ok := cur[key]; ok {
			it.Current = v
		} else if c.Current != "" {
			it.Current = c.Current
		} else {
			it.Current = "(not set)"
		}
		lines = append(lines, LimitLine{Key: key, Value: c.Value})
	}
	content := MergeLimits(old, lines)
	rules := []string{}
	for _, c := range cs {
		rules = append(rules, c.Rule)
	}
	if content == old && !absent {
		for _, i := range items {
			res.Items[i].Status = StatusUnchanged
		}
		return nil
	}
	var changed []int
	for k, i := range items {
		if cur[lines[k].Key] == lines[k].Value {
			res.Items[i].Status = StatusUnchanged
		} else {
			res.Items[i].Status = StatusChange
			changed = append(changed, i)
		}
	}
	if len(changed) == 0 {
		changed = items
	}
	return &todo{items: changed, kind: kindFile, key: "limits", path: LimitsFile, old: old, absent: absent, value: content, rule: strings.Join(uniq(rules), ",")}
}

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// LimitLine is one limits.conf setting: Key "DOMAIN TYPE ITEM", Value.
type LimitLine struct{ Key, Value string }

const limitsHeader = "# Written by dbhost apply (limits for the database users). 'dbhost rollback' restores the previous file.\n"

// ValidLimit reports whether a limit can be written as one limits.conf
// line: three key fields, one value, no comment character.
func ValidLimit(key, value string) bool {
	return len(strings.Fields(key)) == 3 && len(strings.Fields(value)) == 1 && !strings.ContainsAny(key+value, "#\n\r")
}

// LimitsValues parses a limits.conf text into "DOMAIN TYPE ITEM" → value
// (the last line for a key wins, as pam_limits does).
func LimitsValues(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 4 {
			m[f[0]+" "+f[1]+" "+f[2]] = f[3]
		}
	}
	return m
}

// MergeLimits returns text with each line's key set to its value: an
// existing line for the key is replaced in place (the first one; later
// duplicates are dropped), a new key is appended. Comments and other lines
// are kept. An empty text starts with a header comment.
func MergeLimits(text string, lines []LimitLine) string {
	want := map[string]string{}
	var order []string
	for _, l := range lines {
		k := strings.Join(strings.Fields(l.Key), " ")
		if !ValidLimit(l.Key, l.Value) {
			continue
		}
		if _, ok := want[k]; !ok {
			order = append(order, k)
		}
		want[k] = strings.TrimSpace(l.Value)
	}
	if len(want) == 0 {
		return text
	}
	var out []string
	if text == "" {
		out = append(out, strings.TrimSuffix(limitsHeader, "\n"))
	} else {
		out = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	done := map[string]bool{}
	kept := out[:0]
	for _, line := range out {
		body := line
		if i := strings.IndexByte(body, '#'); i >= 0 {
			body = body[:i]
		}
		f := strings.Fields(body)
		if len(f) == 4 {
			k := f[0] + " " + f[1] + " " + f[2]
			if v, ok := want[k]; ok {
				if done[k] {
					continue
				}
				done[k] = true
				if f[3] != v {
					line = k + " " + v
				}
			}
		}
		kept = append(kept, line)
	}
	for _, k := range order {
		if !done[k] {
			kept = append(kept, k+" "+want[k])
		}
	}
	return strings.Join(kept, "\n") + "\n"
}
