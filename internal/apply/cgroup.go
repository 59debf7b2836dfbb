package apply

// The cgroup kinds (dbhost place --apply): create a group, enable the
// cpuset controller in a v2 parent, write cpuset.cpus/mems/memory_migrate,
// move a PID into the group. Every step is journaled like a sysctl: a begin
// entry with the old state (did the group exist, the old list, the PID's old
// cgroup) fsync'ed before the step, a read-back after it, and Rollback undoes
// it (PIDs back to their old cgroups, old values, groups apply created
// removed), idempotently. A group always sits directly under its hierarchy's
// mount, so the mount is the group's parent directory.

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// CgroupFS is the part of a Sys that changes cgroup hierarchies: groups
// created and removed, their files written, processes moved. LiveSys and
// TreeSys implement it (TreeSys playing what the kernel does); a Sys that
// wraps one (the fault tests' faultSys) implements it too.
type CgroupFS interface {
	Mkdir(dir string) error
	Rmdir(dir string) error
	// WriteCgroup writes value to a group's file p as the kernel takes it
	// ("+cpuset"/"-cpuset" edit cgroup.subtree_control; an empty list
	// empties cpuset.cpus/mems).
	WriteCgroup(p, value string) error
	// MovePID moves pid into the group dir of the hierarchy mounted at
	// mount (dir/cgroup.procs); ESRCH when the process does not run.
	MovePID(mount, dir, pid string) error
}

// WriteCgroup implements CgroupFS.
func (s LiveSys) WriteCgroup(p, value string) error {
	if value == "" {
		value = "\n"
	}
	return s.Write(p, value)
}

// MovePID implements CgroupFS.
func (s LiveSys) MovePID(mount, dir, pid string) error { return s.Write(dir+"/cgroup.procs", pid) }

// cgroupFS is sys's CgroupFS; an error when it has none.
func cgroupFS(sys Sys) (CgroupFS, error) {
	if c, ok := sys.(CgroupFS); ok {
		return c, nil
	}
	return nil, errors.New("this host access cannot change cgroups")
}

// Mkdir implements CgroupFS: the kernel fills the new group's files. Only
// under a cgroup mount of /proc/mounts.
func (LiveSys) Mkdir(dir string) error {
	d, rel, err := liveDir(dir, true)
	if err != nil {
		return err
	}
	defer d.Close()
	return withPath(d.Mkdir(rel, 0o755), dir)
}

// Rmdir implements CgroupFS (EBUSY while the group has processes). Only
// under a cgroup mount of /proc/mounts.
func (LiveSys) Rmdir(dir string) error {
	d, rel, err := liveDir(dir, true)
	if err != nil {
		return err
	}
	defer d.Close()
	return withPath(d.Remove(rel), dir)
}

// Mkdir implements CgroupFS: creates the directory with the files the
// kernel shows in a new group (v2 when the mount has cgroup.controllers):
// empty cpuset.cpus/mems, effective lists inherited from the parent (v2) or
// empty (v1), no processes. A v1 group gets the optional files its parent
// has (the kernel's own set: RHEL 6's 2.6.32 has no cpuset.effective_*).
func (t TreeSys) Mkdir(dir string) error {
	d, done, err := t.Root.Tree()
	if err != nil {
		return err
	}
	defer done()
	if err := d.Mkdir(dir, 0o755); err != nil {
		return err
	}
	parent := path.Dir(dir)
	files := map[string]string{"cgroup.procs": "", "cpuset.cpus": "\n", "cpuset.mems": "\n"}
	if cgroupV2(t, parent) {
		sub, _ := t.Read(parent + "/cgroup.subtree_control")
		files["cgroup.controllers"] = sub
		files["cgroup.subtree_control"] = "\n"
		files["cgroup.type"] = "domain\n"
		for _, x := range []string{"cpuset.cpus.effective", "cpuset.mems.effective"} {
			v, _ := t.Read(parent + "/" + x)
			files[x] = v
		}
	} else {
		files["tasks"] = ""
		for k, v := range map[string]string{"cpuset.effective_cpus": "\n", "cpuset.effective_mems": "\n",
			"cpuset.memory_migrate": "0\n", "cpuset.cpu_exclusive": "0\n", "cpuset.mem_exclusive": "0\n"} {
			if _, err := t.Read(parent + "/" + k); err == nil {
				files[k] = v
			}
		}
	}
	for name, content := range files {
		f, err := d.OpenFile(dir+"/"+name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.WriteString(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// treeGroupFiles are the files TreeSys.Mkdir creates in a group (v1 and v2).
var treeGroupFiles = []string{"cgroup.procs", "cpuset.cpus", "cpuset.mems", "cgroup.controllers", "cgroup.subtree_control",
	"cgroup.type", "cpuset.cpus.effective", "cpuset.mems.effective", "tasks", "cpuset.effective_cpus", "cpuset.effective_mems",
	"cpuset.memory_migrate", "cpuset.cpu_exclusive", "cpuset.mem_exclusive"}

// Rmdir implements CgroupFS: EBUSY while cgroup.procs lists a process. Only
// the files Mkdir creates are removed with the directory: anything else in
// it (not dbhost's) makes the removal fail with ENOTEMPTY.
func (t TreeSys) Rmdir(dir string) error {
	procs, err := t.Read(dir + "/cgroup.procs")
	if err != nil {
		return err
	}
	if strings.TrimSpace(procs) != "" {
		return &os.PathError{Op: "rmdir", Path: dir, Err: syscall.EBUSY}
	}
	d, done, err := t.Root.Tree()
	if err != nil {
		return err
	}
	defer done()
	names, err := d.ReadDirNames(dir)
	if err != nil {
		return err
	}
	for _, n := range names {
		if !slices.Contains(treeGroupFiles, n) {
			return &os.PathError{Op: "rmdir", Path: dir, Err: syscall.ENOTEMPTY}
		}
	}
	for _, n := range names {
		if err := d.Remove(dir + "/" + n); err != nil {
			return err
		}
	}
	return d.Remove(dir)
}

// cgroupV2 reports whether the hierarchy mounted at mount is cgroup v2.
func cgroupV2(sys Sys, mount string) bool {
	v2, _ := cgroupVersion(sys, mount)
	return v2
}

// cgroupVersion reports whether the hierarchy mounted at mount is cgroup v2
// (it has cgroup.controllers); an error when that file cannot be read for
// another reason than its absence (a v1 hierarchy).
func cgroupVersion(sys Sys, mount string) (v2 bool, err error) {
	_, err = sys.Read(mount + "/cgroup.controllers")
	if err == nil || isNotExist(err) {
		return err == nil, nil
	}
	return false, err
}

func dirExists(sys Sys, dir string) bool {
	ok, _ := groupExists(sys, dir)
	return ok
}

// groupExists reports whether dir exists; an error when it cannot be
// listed for another reason than its absence (a group that may well be
// there is never taken as gone).
func groupExists(sys Sys, dir string) (bool, error) {
	_, err := sys.List(dir)
	if err == nil || isNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
		return err == nil, nil
	}
	return false, err
}

// cpusetHierarchies are the hierarchies a group of dbhost place may be
// created in, from the host's /proc/mounts (facts.CgroupMounts; in a tree,
// the tree's): every v1 mount carrying the cpuset controller, and every
// cgroup2 mount — systemd's /sys/fs/cgroup/cpuset or /sys/fs/cgroup,
// cgconfig's /cgroup/cpuset (RHEL 6), a hybrid's v1 cpuset beside
// /sys/fs/cgroup/unified, a custom /dev/cpuset alike. Unreadable mounts
// give none: every cgroup change is then refused, saying why.
type cpusetHierarchies struct {
	mounts []snapshot.CgroupMount
	err    error
}

func readCpusetHierarchies(root facts.Root) cpusetHierarchies {
	ms, err := facts.CgroupMounts(root)
	var h cpusetHierarchies
	h.err = err
	for _, m := range ms {
		if m.Version == 2 || slices.Contains(m.Controllers, "cpuset") {
			h.mounts = append(h.mounts, m)
		}
	}
	return h
}

// at returns the hierarchy mounted at dir.
func (h cpusetHierarchies) at(dir string) (snapshot.CgroupMount, bool) {
	for _, m := range h.mounts {
		if m.Path == dir {
			return m, true
		}
	}
	return snapshot.CgroupMount{}, false
}

func (h cpusetHierarchies) String() string {
	if h.err != nil {
		return "the cgroup mounts cannot be read from /proc/mounts: " + facts.Reason(h.err)
	}
	if len(h.mounts) == 0 {
		return "/proc/mounts has no cgroup hierarchy with the cpuset controller"
	}
	var s []string
	for _, m := range h.mounts {
		s = append(s, fmt.Sprintf("v%d %s", m.Version, m.Path))
	}
	return "this host's cpuset hierarchies (/proc/mounts): " + strings.Join(s, ", ")
}

// checkCgroupPath refuses a cgroup change that is not of the expected
// shape, or whose group does not sit directly under one of the host's
// cpuset hierarchies (a v2 controller file: at a cgroup2 mount).
func checkCgroupPath(k change.Kind, p string, h cpusetHierarchies) error {
	if path.Clean(p) != p || strings.Contains(p, "..") || !path.IsAbs(p) {
		return fmt.Errorf("refusing %s %q: not a clean absolute path", k, p)
	}
	base := path.Base(p)
	ok := true
	switch k {
	case change.CgroupController:
		ok = base == "cgroup.subtree_control"
	case change.CgroupFile:
		ok = base == "cpuset.cpus" || base == "cpuset.mems" || base == "cpuset.memory_migrate"
	case change.CgroupProcs:
		ok = base == "cgroup.procs"
	case change.CgroupDir:
		ok = !strings.HasPrefix(base, "cgroup.") && !strings.HasPrefix(base, "cpuset.")
	}
	if !ok {
		return fmt.Errorf("refusing %s %q: not a file of that kind", k, p)
	}
	group := p
	if k != change.CgroupDir {
		group = path.Dir(p)
	}
	if k == change.CgroupController {
		if m, found := h.at(group); !found || m.Version != 2 {
			return fmt.Errorf("refusing %s %q: %s is not a cgroup2 mount (%s)", k, p, group, h)
		}
		return nil
	}
	if _, found := h.at(path.Dir(group)); !found {
		return fmt.Errorf("refusing %s %q: %s is not a group directly under a cpuset hierarchy (%s)", k, p, group, h)
	}
	return nil
}

// processGroup returns a process's group (relative to its hierarchy, "/"
// for the root) from /proc/PID/cgroup (facts.ParsePIDCgroup): the v2 line
// "0::/path", or, for v1, the line of the hierarchy holding the cpuset
// controller.
func processGroup(text string, v2 bool) (string, error) {
	cg, err := facts.ParsePIDCgroup(strings.NewReader(text))
	if err != nil {
		return "", err
	}
	if v2 {
		if !cg.HasV2 {
			return "", errors.New(`no "0::/path" line (cgroup v2)`)
		}
		return cg.V2, nil
	}
	if g, ok := cg.V1["cpuset"]; ok {
		return g, nil
	}
	return "", errors.New(`no line for the cpuset hierarchy (cgroup v1)`)
}

// setProcCgroup returns /proc/PID/cgroup text with the hierarchy's line
// pointing at rel (the tree's simulation of a move).
func setProcCgroup(text string, v2 bool, rel string) string {
	lines := strings.Split(text, "\n")
	for i, line := range lines {
		id, rest, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		ctrls, _, ok := strings.Cut(rest, ":")
		if !ok {
			continue
		}
		if (v2 && id == "0" && ctrls == "") || (!v2 && strings.Contains(","+ctrls+",", ",cpuset,")) {
			lines[i] = id + ":" + ctrls + ":" + rel
		}
	}
	return strings.Join(lines, "\n")
}

// pidCgroup returns the directory of the cgroup a PID is in, in the
// hierarchy mounted at mount.
func pidCgroup(sys Sys, mount, pid string) (string, error) {
	raw, err := sys.Read("/proc/" + pid + "/cgroup")
	if err != nil {
		return "", err
	}
	v2, err := cgroupVersion(sys, mount)
	if err != nil {
		return "", err
	}
	rel, err := processGroup(raw, v2)
	if err != nil {
		return "", err
	}
	if rel == "/" {
		return mount, nil
	}
	return mount + rel, nil
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

func validPID(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 0 && strconv.Itoa(n) == s
}

// prepareCgroup reads a cgroup change's current state; nil when there is
// nothing to do (it.Status says why). creating holds the groups this run
// creates: their files are read when the run reaches them.
func prepareCgroup(c change.Change, sys Sys, it *Item, creating map[string]bool, h cpusetHierarchies) *todo {
	p := c.Key
	it.Path = p
	if err := checkCgroupPath(c.Kind, p, h); err != nil {
		it.Status, it.Message = StatusFailed, err.Error()
		return nil
	}
	t := &todo{kind: string(c.Kind), key: c.Key, path: p, value: c.Value, rule: c.Rule}
	switch c.Kind {
	case change.CgroupDir:
		it.New = "present"
		exists, err := groupExists(sys, p)
		if err != nil {
			it.Status, it.Message = StatusFailed, "cannot read: "+facts.Reason(err)
			return nil
		}
		if exists {
			it.Current, it.Status = "present", StatusUnchanged
			return nil
		}
		if exists, err := groupExists(sys, path.Dir(p)); err != nil {
			it.Status, it.Message = StatusFailed, "cannot read: "+facts.Reason(err)
			return nil
		} else if !exists {
			it.Status, it.Message = StatusAbsent, "no cgroup hierarchy mounted at "+path.Dir(p)
			return nil
		}
		it.Current = "(absent)"
		t.absent, t.value = true, "present"
		creating[p] = true
	case change.CgroupController:
		raw, err := sys.Read(p)
		if err != nil {
			it.Status, it.Message = StatusAbsent, "cannot read: "+facts.Reason(err)
			return nil
		}
		it.Current = Value(raw)
		if it.Current == "" {
			it.Current = "(none)"
		}
		if hasWord(raw, "cpuset") {
			it.Status = StatusUnchanged
			return nil
		}
		t.old, t.value = raw, "+cpuset"
	case change.CgroupFile:
		if creating[path.Dir(p)] {
			it.Current = "(new group)"
			break
		}
		raw, err := sys.Read(p)
		if err != nil {
			it.Status, it.Message = StatusAbsent, "not present on this host: "+facts.Reason(err)
			return nil
		}
		it.Current = Value(raw)
		if Same(p, raw, c.Value) {
			it.Status = StatusUnchanged
			return nil
		}
		t.old = raw
	case change.CgroupProcs:
		pid := strings.TrimSpace(c.Value)
		it.New = "pid " + pid
		if !validPID(pid) {
			it.Status, it.Message = StatusFailed, fmt.Sprintf("not a PID: %q", c.Value)
			return nil
		}
		t.value = pid
		dir := path.Dir(p)
		old, err := pidCgroup(sys, path.Dir(dir), pid)
		if err != nil {
			if isNotExist(err) {
				it.Status, it.Message = StatusAbsent, "process "+pid+" is not running: nothing to move"
			} else {
				it.Status, it.Message = StatusFailed, "cannot read /proc/"+pid+"/cgroup: "+facts.Reason(err)
			}
			return nil
		}
		it.Current = old
		if old == dir {
			it.Status = StatusUnchanged
			return nil
		}
		t.old = old
	}
	return t
}

// runCgroup makes one journaled cgroup step.
func runCgroup(seq int, t *todo, sys Sys, opt Options, jf *journalFile, step func(), res *Result) error {
	if t.kind == string(change.CgroupFile) && t.old == "" {
		t.old, _ = sys.Read(t.path) // a group this run created: its value now
	}
	if t.kind == string(change.CgroupProcs) {
		// The PID's cgroup right before the move, not at planning time.
		if old, err := pidCgroup(sys, path.Dir(path.Dir(t.path)), t.value); err == nil {
			t.old = old
		}
	}
	begin := Entry{Seq: seq, State: StateBegin, Time: stamp(opt.now()), Kind: t.kind, Key: t.key, Path: t.path,
		Old: t.old, OldAbsent: t.absent, New: t.value, Rule: t.rule}
	if err := jf.append(begin); err != nil {
		return err
	}
	out := Entry{Seq: seq, State: StateDone}
	werr := cgroupDo(sys, t.kind, t.path, t.value)
	step()
	if werr != nil {
		out.State, out.Error = StateFailed, fmt.Sprintf("%s %q: %s", cgroupVerb(t.kind), t.value, writeReason(werr))
	} else if back, err := cgroupCheck(sys, t.kind, t.path, t.value); err != nil {
		out.State, out.Error, out.Readback = StateFailed, err.Error(), back
	} else {
		out.Readback = back
	}
	out.Time = stamp(opt.now())
	return t.outcome(jf, res, out)
}

func cgroupVerb(kind string) string {
	switch change.Kind(kind) {
	case change.CgroupDir:
		return "mkdir"
	case change.CgroupProcs:
		return "move pid"
	}
	return "write"
}

// cgroupWrite writes a group's file through sys's CgroupFS.
func cgroupWrite(sys Sys, p, value string) error {
	fsys, err := cgroupFS(sys)
	if err != nil {
		return err
	}
	return fsys.WriteCgroup(p, value)
}

// cgroupDo carries out one cgroup step.
func cgroupDo(sys Sys, kind, p, value string) error {
	fsys, err := cgroupFS(sys)
	if err != nil {
		return err
	}
	switch change.Kind(kind) {
	case change.CgroupDir:
		err := fsys.Mkdir(p)
		if errors.Is(err, os.ErrExist) {
			return nil // created before a crash: the begin entry says it was absent
		}
		return err
	case change.CgroupController, change.CgroupFile:
		return fsys.WriteCgroup(p, value)
	case change.CgroupProcs:
		return fsys.MovePID(path.Dir(path.Dir(p)), path.Dir(p), value)
	}
	return fmt.Errorf("unknown cgroup kind %q", kind)
}

// cgroupCheck reads a step back: the group exists, cpuset is enabled, the
// value and the effective list equal what was written, the PID is in the
// group. It returns the value read.
func cgroupCheck(sys Sys, kind, p, value string) (string, error) {
	switch change.Kind(kind) {
	case change.CgroupDir:
		exists, err := groupExists(sys, p)
		if err != nil {
			return "", errors.New("read back: " + facts.Reason(err))
		}
		if !exists {
			return "", errors.New("read back: the group does not exist")
		}
		return "present", nil
	case change.CgroupController:
		back, err := sys.Read(p)
		if err != nil {
			return "", errors.New("read back: " + facts.Reason(err))
		}
		if !hasWord(back, strings.TrimPrefix(value, "+")) {
			return Value(back), fmt.Errorf("the kernel accepted %q but shows %q", value, Value(back))
		}
		return Value(back), nil
	case change.CgroupFile:
		back, err := sys.Read(p)
		if err != nil {
			return "", errors.New("read back: " + facts.Reason(err))
		}
		if !Same(p, back, value) {
			return Value(back), fmt.Errorf("the kernel accepted %q but kept %q", Value(value), Value(back))
		}
		for _, e := range effectivePaths(p) {
			if eff, err := sys.Read(e); err == nil {
				if !Same(e, eff, value) {
					return Value(back), fmt.Errorf("the kernel kept %q but uses %q (%s)", Value(value), Value(eff), path.Base(e))
				}
				break
			}
		}
		return Value(back), nil
	case change.CgroupProcs:
		dir := path.Dir(p)
		cur, err := pidCgroup(sys, path.Dir(dir), value)
		if err != nil {
			return "", errors.New("read back /proc/" + value + "/cgroup: " + facts.Reason(err))
		}
		if cur != dir {
			return cur, fmt.Errorf("pid %s is in %s, not in %s", value, cur, dir)
		}
		return cur, nil
	}
	return "", fmt.Errorf("unknown cgroup kind %q", kind)
}

// editControllers applies "+ctrl"/"-ctrl" words to a subtree_control text.
func editControllers(cur, edit string) string {
	words := strings.Fields(cur)
	for _, e := range strings.Fields(edit) {
		name := strings.TrimLeft(e, "+-")
		var kept []string
		for _, w := range words {
			if w != name {
				kept = append(kept, w)
			}
		}
		if strings.HasPrefix(e, "+") {
			kept = append(kept, name)
		}
		words = kept
	}
	return strings.Join(words, " ") + "\n"
}

// WriteCgroup implements CgroupFS in a tree, playing the kernel for the
// cpuset files: v1 refuses
// a list outside the parent's (its cpuset.effective_X, or cpuset.X on
// kernels without effective lists, before 3.19) with EINVAL and uses it as
// written; v2 uses the list's intersection with the parent's effective
// list, falling back to the parent's when it is empty.
// A cgroup.subtree_control edit ("+cpuset") changes the listed words.
func (ts TreeSys) WriteCgroup(p, value string) error {
	base := path.Base(p)
	if base == "cgroup.subtree_control" {
		cur, err := ts.Read(p)
		if err != nil {
			return err
		}
		return ts.put(p, editControllers(cur, value))
	}
	if base != "cpuset.cpus" && base != "cpuset.mems" {
		if value == "" {
			value = "\n"
		}
		return ts.Write(p, value)
	}
	dir := path.Dir(p)
	mount := path.Dir(dir)
	what := strings.TrimPrefix(base, "cpuset.")
	want, err := cpulist.Parse(strings.TrimSpace(value))
	if err != nil {
		return &os.PathError{Op: "write", Path: p, Err: syscall.EINVAL}
	}
	if cgroupV2(ts, mount) {
		peff, _ := ts.Read(mount + "/cpuset." + what + ".effective")
		par, _ := cpulist.Parse(strings.TrimSpace(peff))
		eff := intersect(want, par)
		if len(want) == 0 || len(eff) == 0 {
			eff = par
		}
		if err := ts.Write(p, value); err != nil {
			return err
		}
		cur, _ := ts.Read(p + ".effective")
		c, _ := TreeContent(cur, cpulist.Format(eff))
		return ts.put(p+".effective", c)
	}
	peff, err := ts.Read(mount + "/cpuset.effective_" + what)
	if isNotExist(err) {
		peff, _ = ts.Read(mount + "/" + base)
	}
	par, _ := cpulist.Parse(strings.TrimSpace(peff))
	if len(intersect(want, par)) != len(want) {
		return &os.PathError{Op: "write", Path: p, Err: syscall.EINVAL}
	}
	if err := ts.Write(p, value); err != nil {
		return err
	}
	cur, err := ts.Read(dir + "/cpuset.effective_" + what)
	if isNotExist(err) {
		return nil
	}
	c, _ := TreeContent(cur, cpulist.Format(want))
	return ts.put(dir+"/cpuset.effective_"+what, c)
}

func intersect(a, b []int) []int {
	in := map[int]bool{}
	for _, x := range b {
		in[x] = true
	}
	var out []int
	for _, x := range a {
		if in[x] {
			out = append(out, x)
		}
	}
	return out
}

// MovePID implements CgroupFS in a tree: the PID leaves its old group's
// cgroup.procs (and v1 tasks), joins the new one, and its /proc/PID/cgroup
// line points at the new group. ESRCH when it does not run.
func (ts TreeSys) MovePID(mount, dir, pid string) error {
	procs := dir + "/cgroup.procs"
	v2 := cgroupV2(ts, mount)
	raw, err := ts.Read("/proc/" + pid + "/cgroup")
	if err != nil {
		return &os.PathError{Op: "write", Path: procs, Err: syscall.ESRCH}
	}
	old, err := pidCgroup(ts, mount, pid)
	if err != nil {
		return err
	}
	if !dirExists(ts, dir) {
		return &os.PathError{Op: "write", Path: procs, Err: syscall.ENOENT}
	}
	if !v2 && dir != mount {
		// v1 refuses a task in a cpuset without CPUs or memory nodes
		// (cpuset_can_attach: ENOSPC).
		for _, f := range []string{"/cpuset.cpus", "/cpuset.mems"} {
			if v, err := ts.Read(dir + f); err == nil && strings.TrimSpace(v) == "" {
				return &os.PathError{Op: "write", Path: procs, Err: syscall.ENOSPC}
			}
		}
	}
	files := []string{"cgroup.procs"}
	if !v2 {
		files = append(files, "tasks")
	}
	for _, f := range files {
		if cur, err := ts.Read(old + "/" + f); err == nil {
			_ = ts.put(old+"/"+f, withoutPID(cur, pid))
		}
		if cur, err := ts.Read(dir + "/" + f); err == nil {
			_ = ts.put(dir+"/"+f, withPID(cur, pid))
		}
	}
	rel := strings.TrimPrefix(dir, mount)
	if rel == "" {
		rel = "/"
	}
	return ts.put("/proc/"+pid+"/cgroup", setProcCgroup(raw, v2, rel))
}

// withPID adds pid to a tree's PID list, kept in numeric order.
func withPID(list, pid string) string {
	var ids []int
	for _, f := range strings.Fields(withoutPID(list, pid) + pid) {
		if n, err := strconv.Atoi(f); err == nil {
			ids = append(ids, n)
		}
	}
	sort.Ints(ids)
	var b strings.Builder
	for _, n := range ids {
		b.WriteString(strconv.Itoa(n) + "\n")
	}
	return b.String()
}

func withoutPID(list, pid string) string {
	var b strings.Builder
	for _, f := range strings.Fields(list) {
		if f != pid {
			b.WriteString(f + "\n")
		}
	}
	return b.String()
}

// restoreCgroup undoes one cgroup step of journal j (Rollback runs them in
// reverse: PIDs back, values restored, then the groups apply created
// removed and the controller it enabled disabled).
func restoreCgroup(j *Journal, w *Write, sys Sys, step func()) []Restore {
	b := w.Begin
	r := Restore{Path: b.Path, Setting: b.Key}
	switch change.Kind(b.Kind) {
	case change.CgroupDir:
		r.Old = "present"
		if b.OldAbsent {
			r.Old = "(absent)"
		}
		exists, err := groupExists(sys, b.Path)
		if err != nil {
			r.Status, r.Message = RestoreFailed, "cannot read: "+writeReason(err)
			return []Restore{r}
		}
		if !exists {
			r.Live, r.Status = "(absent)", RestoreUnchanged
			return []Restore{r}
		}
		r.Live = "present"
		if !b.OldAbsent {
			r.Status = RestoreUnchanged
			return []Restore{r}
		}
		// Processes started in the group since (children of moved PIDs) go
		// to the hierarchy's root, so that the group can be removed. A PID
		// this journal moved in has its own entry, restored before this one:
		// still here, its move back failed (and said so), and it stays for
		// the next rollback to put back where it was, not in the root.
		var out []Restore
		if procs, err := sys.Read(b.Path + "/cgroup.procs"); err == nil {
			for _, pid := range strings.Fields(procs) {
				if !movedIn(j, b.Path, pid) {
					out = append(out, movePID(sys, path.Dir(b.Path), pid, path.Dir(b.Path), step))
				}
			}
		}
		fsys, err := cgroupFS(sys)
		if err != nil {
			r.Status, r.Message = RestoreFailed, err.Error()
			return append(out, r)
		}
		err = fsys.Rmdir(b.Path)
		step()
		if err != nil && !isNotExist(err) {
			r.Status, r.Message = RestoreFailed, "rmdir: "+writeReason(err)
		} else {
			r.Status = RestoreRemoved
		}
		return append(out, r)
	case change.CgroupController:
		r.Old = Value(b.Old)
		live, err := sys.Read(b.Path)
		if err != nil {
			r.Status, r.Message = RestoreFailed, "cannot read: "+writeReason(err)
			return []Restore{r}
		}
		r.Live = Value(live)
		if hasWord(b.Old, "cpuset") || !hasWord(live, "cpuset") {
			r.Status = RestoreUnchanged
			return []Restore{r}
		}
		err = cgroupWrite(sys, b.Path, "-cpuset")
		step()
		if err != nil {
			r.Status, r.Message = RestoreFailed, "write \"-cpuset\": "+writeReason(err)
		} else {
			r.Status = RestoreDone
		}
		return []Restore{r}
	case change.CgroupFile:
		r.Old = Value(b.Old)
		dir := path.Dir(b.Path)
		exists, err := groupExists(sys, dir)
		if err != nil {
			r.Status, r.Message = RestoreFailed, "cannot read: "+writeReason(err)
			return []Restore{r}
		}
		if !exists {
			r.Live, r.Status, r.Message = "(absent)", RestoreUnchanged, "the group is gone"
			return []Restore{r}
		}
		if createdBy(j, dir) {
			r.Live, r.Status, r.Message = "(new group)", RestoreUnchanged, "the group apply created is removed"
			return []Restore{r}
		}
		live, err := sys.Read(b.Path)
		if err != nil {
			r.Status, r.Message = RestoreFailed, "cannot read: "+writeReason(err)
			return []Restore{r}
		}
		r.Live = Value(live)
		if Same(b.Path, live, b.Old) {
			r.Status = RestoreUnchanged
			return []Restore{r}
		}
		err = cgroupWrite(sys, b.Path, restoreValue(b.Old))
		step()
		back, rerr := sys.Read(b.Path)
		switch {
		case err != nil:
			r.Status, r.Message = RestoreFailed, "write: "+writeReason(err)
		case rerr != nil || !Same(b.Path, back, b.Old):
			r.Status, r.Message = RestoreFailed, fmt.Sprintf("the kernel did not keep %q", r.Old)
		default:
			r.Status = RestoreDone
		}
		return []Restore{r}
	case change.CgroupProcs:
		pid := b.New
		dir := path.Dir(b.Path)
		r.Setting = "pid " + pid
		r.Old = b.Old
		cur, err := pidCgroup(sys, path.Dir(dir), pid)
		if isNotExist(err) || errors.Is(err, syscall.ESRCH) {
			r.Live, r.Status, r.Message = "(gone)", RestoreUnchanged, "process "+pid+" is not running"
			return []Restore{r}
		}
		if err != nil {
			r.Status, r.Message = RestoreFailed, "cannot read /proc/"+pid+"/cgroup: "+writeReason(err)
			return []Restore{r}
		}
		r.Live = cur
		if cur == b.Old {
			r.Status = RestoreUnchanged
			return []Restore{r}
		}
		if cur != dir {
			r.Status, r.Message = RestoreUnchanged, "moved to "+cur+" by something else since: left there"
			return []Restore{r}
		}
		to, note := b.Old, ""
		exists, err := groupExists(sys, to)
		if err != nil {
			r.Status, r.Message = RestoreFailed, "cannot read "+to+": "+writeReason(err)
			return []Restore{r}
		}
		if !exists {
			// Its old group was removed since (a stopped service's cgroup):
			// the hierarchy's root, so that ours can be removed.
			to, note = path.Dir(dir), b.Old+" no longer exists: moved to the hierarchy's root"
		}
		m := movePID(sys, path.Dir(dir), pid, to, step)
		m.Path, m.Setting, m.Live = b.Path, r.Setting, cur
		if note != "" {
			m.Message = strings.TrimPrefix(m.Message+"; "+note, "; ")
		}
		return []Restore{m}
	}
	r.Status, r.Message = RestoreFailed, "unknown cgroup kind "+b.Kind
	return []Restore{r}
}

// movePID moves pid to the group at to (hierarchy mounted at mount), and
// reads it back.
func movePID(sys Sys, mount, pid, to string, step func()) Restore {
	r := Restore{Path: to + "/cgroup.procs", Setting: "pid " + pid, Old: to}
	fsys, err := cgroupFS(sys)
	if err == nil {
		err = fsys.MovePID(mount, to, pid)
	}
	step()
	if err != nil {
		if errors.Is(err, syscall.ESRCH) {
			r.Status, r.Message = RestoreUnchanged, "process "+pid+" exited"
			return r
		}
		r.Status, r.Message = RestoreFailed, "move back: "+writeReason(err)
		return r
	}
	if cur, err := pidCgroup(sys, mount, pid); err == nil && cur != to {
		r.Status, r.Message = RestoreFailed, "pid "+pid+" is in "+cur+" after the move"
		return r
	}
	r.Status = RestoreDone
	return r
}

// movedIn reports whether journal j moved pid into the group dir.
func movedIn(j *Journal, dir, pid string) bool {
	for _, w := range j.Writes {
		if w.Begin.Kind == string(change.CgroupProcs) && path.Dir(w.Begin.Path) == dir && w.Begin.New == pid {
			return true
		}
	}
	return false
}

// createdBy reports whether journal j created the group dir.
func createdBy(j *Journal, dir string) bool {
	for _, w := range j.Writes {
		if w.Begin.Kind == string(change.CgroupDir) && w.Begin.Path == dir && w.Begin.OldAbsent {
			return true
		}
	}
	return false
}
