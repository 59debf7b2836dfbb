package facts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// The cgroup reader runs in the derived stage: it records the groups that
// hold database processes, which the process reader finds in the sources stage.
func init() { register("cgroups", StageDerived, readCgroups, "cgroups") }

// maxCgroupDirs bounds the directories walked in one hierarchy (a host with
// thousands of containers or systemd units); an absence says when it is hit.
var maxCgroupDirs = 5000

// cgroupV1Controllers are the v1 controllers a "cgroup" mount's options can name.
var cgroupV1Controllers = map[string]bool{
	"cpu": true, "cpuacct": true, "cpuset": true, "memory": true, "devices": true, "freezer": true,
	"net_cls": true, "net_prio": true, "blkio": true, "perf_event": true, "hugetlb": true, "pids": true,
	"rdma": true, "misc": true, "debug": true,
}

// parseCgroupMounts picks the cgroup (v1) and cgroup2 mounts out of
// /proc/mounts. A v1 mount's controllers are its options that name a
// controller, plus named hierarchies ("name=systemd"); a cgroup2 mount's
// controllers are left empty (they are in its cgroup.controllers file).
// Other lines are skipped; a cgroup line with too few fields is an error.
// Mount paths are decoded with unescapeMount (mounts.go).
func parseCgroupMounts(r io.Reader) ([]snapshot.CgroupMount, error) {
	out := []snapshot.CgroupMount{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) < 3 || (f[2] != "cgroup" && f[2] != "cgroup2") {
			continue
		}
		if len(f) < 4 {
			return nil, parseErr(n, "expected \"device path fstype options\" for a %s mount", f[2])
		}
		m := snapshot.CgroupMount{Path: unescapeMount(f[1]), Version: 2, Controllers: []string{}}
		if f[2] == "cgroup" {
			m.Version = 1
			for _, o := range strings.Split(f[3], ",") {
				if cgroupV1Controllers[o] || (strings.HasPrefix(o, "name=") && len(o) > 5) {
					m.Controllers = append(m.Controllers, o)
				}
			}
			sort.Strings(m.Controllers)
		}
		if !strings.HasPrefix(m.Path, "/") {
			return nil, parseErr(n, "expected an absolute mount path, got %q", trunc(m.Path, 60))
		}
		out = append(out, m)
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// CgroupMounts returns the cgroup v1 and v2 mounts of a host's /proc/mounts
// (cgconfig's /cgroup/*, systemd's /sys/fs/cgroup/*, custom ones), sorted by
// path.
func CgroupMounts(root Root) ([]snapshot.CgroupMount, error) {
	b, err := root.ReadFile("/proc/mounts")
	if err != nil {
		return nil, err
	}
	return parseCgroupMounts(bytes.NewReader(b))
}

// cgroupVersion names the layout: v1, v2, hybrid (v1 controllers and a
// cgroup2 mount, systemd's hybrid mode) or none.
func cgroupVersion(ms []snapshot.CgroupMount) string {
	v1ctl, v1, v2 := false, false, false
	for _, m := range ms {
		if m.Version == 2 {
			v2 = true
			continue
		}
		v1 = true
		for _, ctl := range m.Controllers {
			if !strings.HasPrefix(ctl, "name=") {
				v1ctl = true
			}
		}
	}
	switch {
	case v1ctl && v2:
		return "hybrid"
	case v2:
		return "v2"
	case v1:
		return "v1"
	}
	return "none"
}

// parseCPUMax parses cgroup v2 cpu.max ("max 100000", "50000 100000"):
// quota -1 for "max".
func parseCPUMax(s string) (quota, period int64, err error) {
	f := strings.Fields(s)
	if len(f) == 0 || len(f) > 2 {
		return 0, 0, parseErr(1, "expected \"quota period\", got %q", trunc(s, 40))
	}
	if f[0] == "max" {
		quota = -1
	} else if quota, err = strconv.ParseInt(f[0], 10, 64); err != nil || quota < 0 {
		return 0, 0, parseErr(1, "expected max or a quota in µs, got %q", trunc(f[0], 20))
	}
	period = 100000 // the kernel's default when only the quota is given
	if len(f) == 2 {
		if period, err = strconv.ParseInt(f[1], 10, 64); err != nil || period <= 0 {
			return 0, 0, parseErr(1, "expected a period in µs, got %q", trunc(f[1], 20))
		}
	}
	return quota, period, nil
}

// parseCgroupProcs parses cgroup.procs: one PID per line.
func parseCgroupProcs(r io.Reader) ([]int, error) {
	var out []int
	sc := bufio.NewScanner(r)
	n := 0
	for sc.Scan() {
		n++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		pid, err := strconv.Atoi(s)
		if err != nil || pid <= 0 {
			return nil, parseErr(n, "expected a PID, got %q", trunc(s, 20))
		}
		out = append(out, pid)
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	sort.Ints(out)
	return out, nil
}

func readCgroups(c *Collector) {
	cg := &c.Snap.Cgroups
	cg.Groups = []snapshot.CgroupGroup{}
	b, err := c.Root.ReadFile("/proc/mounts")
	if err != nil {
		c.Absent("cgroups", "/proc/mounts", err)
		return
	}
	mounts, err := parseCgroupMounts(bytes.NewReader(b))
	if err != nil {
		c.Absent("cgroups", "/proc/mounts", err)
		return
	}
	for i := range mounts {
		if mounts[i].Version != 2 {
			continue
		}
		if s, err := c.Root.ReadString(mounts[i].Path + "/cgroup.controllers"); err == nil {
			mounts[i].Controllers = strings.Fields(s)
			sort.Strings(mounts[i].Controllers)
		} else {
			c.Absent("cgroups.mounts.controllers", mounts[i].Path+"/cgroup.controllers", err)
		}
	}
	cg.Mounts = mounts
	cg.Version = cgroupVersion(mounts)

	db := map[int]bool{}
	for _, p := range c.Snap.Processes {
		db[p.PID] = true
	}
	// One walk per hierarchy: the v1 cpuset and cpu hierarchies (once if
	// co-mounted), the unified tree when it carries cpuset or cpu, or is
	// the only hierarchy.
	walked := map[string]bool{}
	for _, want := range []string{"cpuset", "cpu"} {
		for _, m := range mounts {
			if m.Version == 1 && slicesContains(m.Controllers, want) {
				if !walked[m.Path] {
					walked[m.Path] = true
					w := &cgWalker{c: c, mount: m, db: db,
						cpuset: slicesContains(m.Controllers, "cpuset"), cpu: slicesContains(m.Controllers, "cpu")}
					cg.Groups = append(cg.Groups, w.walk()...)
				}
				break
			}
		}
	}
	for _, m := range mounts {
		if m.Version == 2 {
			if cg.Version == "v2" || slicesContains(m.Controllers, "cpuset") || slicesContains(m.Controllers, "cpu") {
				w := &cgWalker{c: c, mount: m, db: db}
				cg.Groups = append(cg.Groups, w.walk()...)
			}
			break
		}
	}
	sort.SliceStable(cg.Groups, func(i, j int) bool {
		if cg.Groups[i].Mount != cg.Groups[j].Mount {
			return cg.Groups[i].Mount < cg.Groups[j].Mount
		}
		return cg.Groups[i].Path < cg.Groups[j].Path
	})
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// cgWalker walks one hierarchy breadth first.
type cgWalker struct {
	c           *Collector
	mount       snapshot.CgroupMount
	db          map[int]bool
	cpuset, cpu bool // v1: controllers of this hierarchy (v2 reads each group's cgroup.controllers)
	denied      int
	malformed   []string
}

// cgNode is what a child needs of its parent to tell a non-default cpuset.
type cgNode struct {
	rel        string
	cpus, mems string // v1 cpuset.cpus/mems; v2 effective values
}

func (w *cgWalker) walk() []snapshot.CgroupGroup {
	var out []snapshot.CgroupGroup
	root := w.mount.Path
	if _, err := w.c.Root.Stat(root); err != nil {
		w.c.Absent("cgroups.groups", root, err)
		return nil
	}
	type item struct {
		rel    string
		parent *cgNode
	}
	queue := []item{{"/", nil}}
	seen := 0
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		if seen >= maxCgroupDirs {
			w.c.AbsentReason("cgroups.groups", root,
				fmt.Sprintf("walk stopped after %d directories; %d or more groups not read", maxCgroupDirs, len(queue)+1))
			break
		}
		seen++
		g, node, record := w.group(it.rel, it.parent)
		if record {
			out = append(out, g)
		}
		ents, err := w.c.Root.ReadDir(path.Join(root, it.rel))
		if err != nil {
			w.note(it.rel, err)
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				queue = append(queue, item{path.Join(it.rel, e.Name()), node})
			}
		}
	}
	if w.denied > 0 {
		w.c.AbsentReason("cgroups.groups", root, deniedReason(fmt.Sprintf("permission denied for %d cgroup files", w.denied), "them", runningAsRoot()))
	}
	if len(w.malformed) > 0 {
		w.c.AbsentReason("cgroups.groups", root, fmt.Sprintf("%d cgroup files unreadable, first: %s", len(w.malformed), w.malformed[0]))
	}
	return out
}

func (w *cgWalker) note(rel string, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		// A group removed during the walk, or a file this kernel lacks.
	case errors.Is(err, fs.ErrPermission):
		w.denied++
	default:
		w.malformed = append(w.malformed, path.Join(w.mount.Path, rel)+": "+Reason(err))
	}
}

// str reads one value file of a group; nil when it is missing.
func (w *cgWalker) str(rel, name string) *string {
	b, err := w.c.readProcFile(path.Join(w.mount.Path, rel, name), false)
	if err != nil {
		w.note(path.Join(rel, name), err)
		return nil
	}
	s := strings.TrimSpace(string(b))
	return &s
}

func (w *cgWalker) int(rel, name string) *int64 {
	s := w.str(rel, name)
	if s == nil {
		return nil
	}
	v, err := strconv.ParseInt(*s, 10, 64)
	if err != nil {
		w.note(path.Join(rel, name), parseErr(1, "expected an integer, got %q", trunc(*s, 30)))
		return nil
	}
	return &v
}

func (w *cgWalker) bool(rel, name string) *bool {
	v := w.int(rel, name)
	if v == nil {
		return nil
	}
	b := *v != 0
	return &b
}

// sameList compares two kernel lists by value ("0-3" = "0,1,2,3").
func sameList(a, b string) bool {
	la, errA := cpulist.Parse(a)
	lb, errB := cpulist.Parse(b)
	if errA != nil || errB != nil {
		return strings.TrimSpace(a) == strings.TrimSpace(b)
	}
	return reflect.DeepEqual(la, lb)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// group reads one group and says whether it is recorded. The files that
// decide are read for every group; the rest only for recorded groups, since
// a walk may cover thousands of groups and each read is a system call or three.
func (w *cgWalker) group(rel string, parent *cgNode) (snapshot.CgroupGroup, *cgNode, bool) {
	g := snapshot.CgroupGroup{Path: rel, Version: w.mount.Version, Mount: w.mount.Path}
	node := &cgNode{rel: rel}
	interesting := false
	cpuset, cpu := w.cpuset, w.cpu
	v1 := w.mount.Version == 1
	if !v1 {
		ctl := w.str(rel, "cgroup.controllers")
		fs := strings.Fields(deref(ctl))
		cpuset, cpu = slicesContains(fs, "cpuset"), slicesContains(fs, "cpu")
	}
	if cpuset {
		if v1 {
			g.CPUs, g.Mems = w.str(rel, "cpuset.cpus"), w.str(rel, "cpuset.mems")
			node.cpus, node.mems = deref(g.CPUs), deref(g.Mems)
			if parent != nil && (!sameList(node.cpus, parent.cpus) || !sameList(node.mems, parent.mems)) {
				interesting = true
			}
		} else {
			if rel != "/" {
				g.CPUs, g.Mems = w.str(rel, "cpuset.cpus"), w.str(rel, "cpuset.mems")
				g.Partition = w.str(rel, "cpuset.cpus.partition")
			}
			g.EffectiveCPUs, g.EffectiveMems = w.str(rel, "cpuset.cpus.effective"), w.str(rel, "cpuset.mems.effective")
			node.cpus, node.mems = deref(g.EffectiveCPUs), deref(g.EffectiveMems)
			if parent != nil {
				// An empty cpuset.cpus/mems in v2 means "the parent's".
				switch {
				case !sameList(node.cpus, parent.cpus), !sameList(node.mems, parent.mems),
					deref(g.CPUs) != "" && !sameList(deref(g.CPUs), parent.cpus),
					deref(g.Mems) != "" && !sameList(deref(g.Mems), parent.mems),
					g.Partition != nil && *g.Partition != "member":
					interesting = true
				}
			}
		}
	} else if parent != nil {
		node.cpus, node.mems = parent.cpus, parent.mems
	}
	if cpu && rel != "/" {
		if v1 {
			g.CPUQuotaUS, g.CPUShares = w.int(rel, "cpu.cfs_quota_us"), w.int(rel, "cpu.shares")
		} else {
			if s := w.str(rel, "cpu.max"); s != nil {
				if q, p, err := parseCPUMax(*s); err == nil {
					g.CPUQuotaUS, g.CPUPeriodUS = &q, &p
				} else {
					w.note(path.Join(rel, "cpu.max"), err)
				}
			}
			g.CPUWeight = w.int(rel, "cpu.weight")
		}
		if (g.CPUQuotaUS != nil && *g.CPUQuotaUS != -1) || (g.CPUShares != nil && *g.CPUShares != 1024) ||
			(g.CPUWeight != nil && *g.CPUWeight != 100) {
			interesting = true
		}
	}
	if !interesting && len(w.db) == 0 {
		return g, node, false
	}
	var pids []int
	if s, err := w.c.readProcFile(path.Join(w.mount.Path, rel, "cgroup.procs"), false); err != nil {
		w.note(path.Join(rel, "cgroup.procs"), err)
	} else if p, err := parseCgroupProcs(bytes.NewReader(s)); err != nil {
		w.note(path.Join(rel, "cgroup.procs"), err)
	} else {
		pids = p
	}
	for _, pid := range pids {
		if w.db[pid] {
			g.DBPIDs = append(g.DBPIDs, pid)
		}
	}
	if !interesting && len(g.DBPIDs) == 0 {
		return g, node, false
	}
	if rel != "/" {
		// The root holds every unconfined process: only its DB PIDs are kept.
		g.PIDs = pids
	}
	if cpuset && v1 {
		g.EffectiveCPUs, g.EffectiveMems = w.str(rel, "cpuset.effective_cpus"), w.str(rel, "cpuset.effective_mems")
		g.MemoryMigrate = w.bool(rel, "cpuset.memory_migrate")
		g.CPUExclusive = w.bool(rel, "cpuset.cpu_exclusive")
	}
	if cpu && v1 && rel != "/" {
		g.CPUPeriodUS = w.int(rel, "cpu.cfs_period_us")
	}
	return g, node, true
}
