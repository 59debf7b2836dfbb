// Package drift compares two snapshots of one host: what changed in its
// settings, its topology and its database processes between them. Counters
// and gauges that move on their own (free memory, CPU time, interrupt
// counts, vmstat) are not drift and are left out.
package drift

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// SchemaVersion is the version of `dbhost diff --format json`.
const SchemaVersion = 1

// Sections of a diff.
const (
	Settings  = "settings"
	Topology  = "topology"
	Processes = "processes"
)

// Side is one of the two snapshots.
type Side struct {
	File        string `json:"file"`
	Host        string `json:"host"`
	CollectedAt string `json:"collected_at,omitempty"`
	Kernel      string `json:"kernel,omitempty"`
}

// Change is one difference. A and B are nil where the value is absent on
// that side (added, removed).
type Change struct {
	Section string  `json:"section"`
	Path    string  `json:"path"` // dotted, arrays by their key: storage.devices[sda].scheduler
	A       *string `json:"a"`
	B       *string `json:"b"`
	Kind    string  `json:"kind"` // changed | added | removed
}

// Diff is the drift from A to B.
type Diff struct {
	SchemaVersion int      `json:"schema_version"`
	A             Side     `json:"a"`
	B             Side     `json:"b"`
	SameHost      bool     `json:"same_host"`
	Changes       []Change `json:"changes"`
}

// Count is the number of changes in a section ("" for all).
func (d *Diff) Count(section string) int {
	n := 0
	for _, c := range d.Changes {
		if section == "" || c.Section == section {
			n++
		}
	}
	return n
}

// Compare is the drift from a (read from fileA) to b.
func Compare(a *snapshot.Snapshot, fileA string, b *snapshot.Snapshot, fileB string) (*Diff, error) {
	d := &Diff{SchemaVersion: SchemaVersion, A: side(a, fileA), B: side(b, fileB), SameHost: a.Host.Hostname == b.Host.Hostname}
	fa, err := flatten(a)
	if err != nil {
		return nil, err
	}
	fb, err := flatten(b)
	if err != nil {
		return nil, err
	}
	d.Changes = append(d.Changes, groupCPUs(compareMaps(fa, fb))...)
	d.Changes = append(d.Changes, compareProcesses(a, b)...)
	sort.SliceStable(d.Changes, func(i, j int) bool {
		return sectionRank(d.Changes[i].Section) < sectionRank(d.Changes[j].Section)
	})
	if d.Changes == nil {
		d.Changes = []Change{}
	}
	return d, nil
}

func sectionRank(s string) int {
	switch s {
	case Settings:
		return 0
	case Topology:
		return 1
	}
	return 2
}

func side(s *snapshot.Snapshot, file string) Side {
	out := Side{File: file, Host: s.Host.Hostname, Kernel: s.Host.Kernel}
	if !s.CollectedAt.IsZero() {
		out.CollectedAt = s.CollectedAt.UTC().Format(time.RFC3339)
	}
	return out
}

// skipped are the parts of a snapshot that are not drift: where and when it
// was read, what moves by itself, and what compareProcesses handles. A path
// is matched with its array keys written as [].
var skipped = []string{
	"schema_version", "collected_at", "source", "absent", "processes",
	"memory.vmstat", "memory.sysv_shm", "cpu_load",
	"memory.hugepages[].free", "memory.hugepages[].surplus", "memory.hugepages[].reserved",
	"topology.nodes[].mem_free_kb", "topology.nodes[].mem_used_kb", "topology.nodes[].meminfo",
	"topology.nodes[].hugepages[].free", "topology.nodes[].hugepages[].surplus",
	"irqs.irqs[].counts", "irqs.irqs[].total",
	"cgroups.groups[].pids", "cgroups.groups[].db_pids",
	"config.limits[].line", "config.sysctl_files[].line",
}

// meminfoKept are the /proc/meminfo lines that are configuration or
// hardware, not load.
var meminfoKept = map[string]bool{"MemTotal": true, "HugePages_Total": true, "Hugepagesize": true, "Hugetlb": true, "SwapTotal": true, "CommitLimit": true}

// topologyPaths are the paths (by prefix) that belong to the topology
// section; every other kept path is a setting.
var topologyPaths = []string{"topology", "host.kernel", "host.os", "host.arch", "host.virt", "host.kvm_guests",
	"memory.meminfo.MemTotal", "memory.meminfo.SwapTotal", "storage.devices[].size_bytes", "storage.scsi_hosts",
	"network.interfaces[].speed_mbps", "network.interfaces[].driver", "network.interfaces[].address"}

// arrayKeys name the field that identifies an element of an array of
// objects, by the array's path (with [] for keys above it); other arrays
// use the first of genericKeys every element has (unique), else the index.
var arrayKeys = map[string][]string{
	"config.limits":              {"domain", "type", "item"},
	"config.sysctl_files":        {"file", "key"},
	"storage.mounts":             {"path"},
	"cgroups.groups":             {"mount", "path"},
	"config.cgconfig":            {"group"},
	"storage.devices":            {"name"},
	"network.interfaces":         {"name"},
	"topology.cpus":              {"id"},
	"topology.nodes":             {"id"},
	"cpu_power.cpufreq":          {"cpu"},
	"cpu_power.cpuidle":          {"cpu"},
	"memory.hugepages":           {"size_kb"},
	"topology.nodes[].hugepages": {"size_kb"},
}

var genericKeys = []string{"name", "id", "cpu", "irq", "size_kb", "path", "index", "host", "key", "file"}

type leaf struct {
	section string
	value   string
}

// flat is a snapshot as path → value for what is not skipped; elements
// holds each keyed array element's path with a one-line summary, so that
// an element only one side has is one change, not one per field.
type flat struct {
	leaves   map[string]leaf
	elements map[string]leaf
}

// flatten turns a snapshot into its leaves.
func flatten(s *snapshot.Snapshot) (flat, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return flat{}, err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return flat{}, err
	}
	out := flat{leaves: map[string]leaf{}, elements: map[string]leaf{}}
	out.walk(v, "", "")
	return out, nil
}

// summary is an array element's scalar fields in one line (pattern is
// the element's: its skipped fields are left out).
func summary(m map[string]any, pattern string) string {
	var keys []string
	for k, v := range m {
		switch v.(type) {
		case map[string]any, nil:
			continue
		}
		if isSkipped(pattern + "." + k) {
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v := m[k]
		if l, ok := v.([]any); ok {
			s, ok := scalarList(l)
			if !ok {
				continue
			}
			parts = append(parts, k+"="+s)
			continue
		}
		parts = append(parts, k+"="+scalar(v))
	}
	return strings.Join(parts, " ")
}

func isSkipped(pattern string) bool {
	for _, p := range skipped {
		if pattern == p || strings.HasPrefix(pattern, p+".") || strings.HasPrefix(pattern, p+"[") {
			return true
		}
	}
	if strings.HasPrefix(pattern, "memory.meminfo.") && !meminfoKept[strings.TrimPrefix(pattern, "memory.meminfo.")] {
		return true
	}
	return false
}

func sectionOf(pattern string) string {
	for _, p := range topologyPaths {
		if pattern == p || strings.HasPrefix(pattern, p+".") || strings.HasPrefix(pattern, p+"[") {
			return Topology
		}
	}
	return Settings
}

// walk records v's leaves under path; pattern is path with array keys as [].
func (out flat) walk(v any, path, pattern string) {
	if pattern != "" && isSkipped(pattern) {
		return
	}
	join := func(p, k string) string {
		if p == "" {
			return k
		}
		return p + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			out.walk(e, join(path, k), join(pattern, k))
		}
	case []any:
		if len(x) == 0 {
			out.leaves[path] = leaf{sectionOf(pattern), ""} // an empty list: compared as ""
			return
		}
		if s, ok := scalarList(x); ok {
			out.leaves[path] = leaf{sectionOf(pattern), s}
			return
		}
		keys := elementKeys(x, pattern)
		for i, e := range x {
			if m, ok := e.(map[string]any); ok {
				out.elements[path+"["+keys[i]+"]"] = leaf{sectionOf(pattern + "[]"), summary(m, pattern+"[]")}
			}
			out.walk(e, path+"["+keys[i]+"]", pattern+"[]")
		}
	case nil:
		// null: not read on that side; a value on the other is added/removed
	default:
		out.leaves[path] = leaf{sectionOf(pattern), scalar(x)}
	}
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// scalarList renders a list of scalars as one value: integers as a CPU
// list ("0-3,8"), anything else joined with commas.
func scalarList(x []any) (string, bool) {
	ints := make([]int, 0, len(x))
	strs := make([]string, 0, len(x))
	allInts := true
	for _, e := range x {
		switch v := e.(type) {
		case map[string]any, []any:
			return "", false
		case float64:
			if v == float64(int(v)) && v >= 0 {
				ints = append(ints, int(v))
			} else {
				allInts = false
			}
		default:
			allInts = false
		}
		strs = append(strs, scalar(e))
	}
	if allInts && sort.IntsAreSorted(ints) {
		return cpulist.Format(ints), true
	}
	return strings.Join(strs, ","), true
}

// elementKeys names each element of an array of objects.
func elementKeys(x []any, pattern string) []string {
	try := func(fields []string) []string {
		out := make([]string, len(x))
		seen := map[string]bool{}
		for i, e := range x {
			m, ok := e.(map[string]any)
			if !ok {
				return nil
			}
			var parts []string
			for _, f := range fields {
				v, ok := m[f]
				if !ok || v == nil {
					return nil
				}
				parts = append(parts, scalar(v))
			}
			k := strings.Join(parts, " ")
			if seen[k] {
				return nil
			}
			seen[k] = true
			out[i] = k
		}
		return out
	}
	if f, ok := arrayKeys[pattern]; ok {
		if k := try(f); k != nil {
			return k
		}
	}
	for _, f := range genericKeys {
		if k := try([]string{f}); k != nil {
			return k
		}
	}
	out := make([]string, len(x))
	for i := range x {
		out[i] = strconv.Itoa(i)
	}
	return out
}

func compareMaps(a, b flat) []Change {
	var out []Change
	// Elements only one side has: one change each; their fields are covered.
	gone, come := map[string]bool{}, map[string]bool{}
	for p, e := range a.elements {
		if _, ok := b.elements[p]; !ok && !within(p, gone) {
			gone[p] = true
			out = append(out, Change{Section: e.section, Path: p, A: ptr(e.value), Kind: "removed"})
		}
	}
	for p, e := range b.elements {
		if _, ok := a.elements[p]; !ok && !within(p, come) {
			come[p] = true
			out = append(out, Change{Section: e.section, Path: p, B: ptr(e.value), Kind: "added"})
		}
	}
	for p, la := range a.leaves {
		lb, ok := b.leaves[p]
		switch {
		case within(p, gone):
		case !ok && la.value == "": // an empty list, whose elements (if any now) are changes of their own
		case !ok:
			out = append(out, Change{Section: la.section, Path: p, A: ptr(la.value), Kind: "removed"})
		case la.value != lb.value:
			out = append(out, Change{Section: la.section, Path: p, A: ptr(la.value), B: ptr(lb.value), Kind: "changed"})
		}
	}
	for p, lb := range b.leaves {
		if _, ok := a.leaves[p]; !ok && !within(p, come) && lb.value != "" {
			out = append(out, Change{Section: lb.section, Path: p, B: ptr(lb.value), Kind: "added"})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// within reports whether p is, or lies under, an element of set: a prefix
// of p ending at one of its "]".
func within(p string, set map[string]bool) bool {
	if len(set) == 0 {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == ']' && set[p[:i+1]] {
			return true
		}
	}
	return false
}

func ptr(s string) *string { return &s }

// groupCPUs folds the same change on many CPUs (a governor on 240 CPUs)
// into one, its CPUs as a list: cpu_power.cpufreq[0-239].governor.
func groupCPUs(cs []Change) []Change {
	type key struct{ section, pattern, a, b, kind string }
	groups := map[key][]int{}
	var order []key
	var out []Change
	for _, c := range cs {
		pre, cpu, post, ok := cpuPath(c.Path)
		if !ok {
			out = append(out, c)
			continue
		}
		k := key{c.Section, pre + "\x00" + post, deref(c.A, "\x00"), deref(c.B, "\x00"), c.Kind}
		if _, seen := groups[k]; !seen {
			order = append(order, k)
		}
		groups[k] = append(groups[k], cpu)
	}
	for _, k := range order {
		cpus := groups[k]
		sort.Ints(cpus)
		pre, post, _ := strings.Cut(k.pattern, "\x00")
		c := Change{Section: k.section, Path: pre + "[" + cpulist.Format(cpus) + "]" + post, Kind: k.kind}
		if k.a != "\x00" {
			c.A = ptr(k.a)
		}
		if k.b != "\x00" {
			c.B = ptr(k.b)
		}
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func deref(p *string, none string) string {
	if p == nil {
		return none
	}
	return *p
}

// cpuArrays are the arrays whose elements are one CPU each.
var cpuArrays = []string{"topology.cpus", "cpu_power.cpufreq", "cpu_power.cpuidle"}

func cpuPath(p string) (pre string, cpu int, post string, ok bool) {
	for _, a := range cpuArrays {
		if !strings.HasPrefix(p, a+"[") {
			continue
		}
		rest := p[len(a)+1:]
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return "", 0, "", false
		}
		n, err := strconv.Atoi(rest[:end])
		if err != nil {
			return "", 0, "", false
		}
		return a, n, rest[end+1:], true
	}
	return "", 0, "", false
}

// instance is one database instance's processes, summed.
type instance struct {
	procs      int
	mainPID    int
	mainRole   string
	cpus, mems []int
	cgroups    []string
	rssKB      int64
}

func instances(s *snapshot.Snapshot) map[string]*instance {
	out := map[string]*instance{}
	for _, p := range s.Processes {
		name := p.Engine + " " + p.Instance
		if p.Instance == "" {
			name = p.Engine + " (pid " + strconv.Itoa(p.PID) + ")"
			if p.PPID != 1 && p.PPID != 0 {
				continue // a child of an instance dbhost could not name
			}
		}
		in := out[name]
		if in == nil {
			in = &instance{}
			out[name] = in
		}
		in.procs++
		in.rssKB += p.RSSKB
		if isMain(p.Role) && (in.mainPID == 0 || p.PID < in.mainPID) {
			in.mainPID, in.mainRole = p.PID, p.Role
		}
		in.cpus = union(in.cpus, p.CPUsAllowed)
		in.mems = union(in.mems, p.MemsAllowed)
		if p.Cgroup != "" && !contains(in.cgroups, p.Cgroup) {
			in.cgroups = append(in.cgroups, p.Cgroup)
			sort.Strings(in.cgroups)
		}
	}
	return out
}

func isMain(role string) bool {
	switch role {
	case "postmaster", "pmon", "server", "mysqld", "mariadbd":
		return true
	}
	return false
}

func union(a, b []int) []int {
	set := map[int]bool{}
	for _, x := range a {
		set[x] = true
	}
	for _, x := range b {
		set[x] = true
	}
	out := make([]int, 0, len(set))
	for x := range set {
		out = append(out, x)
	}
	sort.Ints(out)
	return out
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// compareProcesses compares the database instances: started, stopped,
// restarted (another main process), and where they may run and allocate.
// Backends coming and going, and memory use, are not drift.
func compareProcesses(a, b *snapshot.Snapshot) []Change {
	ia, ib := instances(a), instances(b)
	var names []string
	for n := range ia {
		names = append(names, n)
	}
	for n := range ib {
		if _, ok := ia[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []Change
	add := func(path string, x, y *string, kind string) {
		out = append(out, Change{Section: Processes, Path: path, A: x, B: y, Kind: kind})
	}
	desc := func(in *instance) string {
		s := fmt.Sprintf("%d process(es), %s RSS", in.procs, kib(in.rssKB))
		if in.mainPID != 0 {
			s = fmt.Sprintf("%s pid %d, ", in.mainRole, in.mainPID) + s
		}
		return s
	}
	for _, n := range names {
		x, y := ia[n], ib[n]
		switch {
		case y == nil:
			add(n, ptr(desc(x)), nil, "removed")
			continue
		case x == nil:
			add(n, nil, ptr(desc(y)), "added")
			continue
		}
		if x.mainPID != y.mainPID {
			add(n+" main process (restarted)", ptr(fmt.Sprintf("%s pid %d", x.mainRole, x.mainPID)), ptr(fmt.Sprintf("%s pid %d", y.mainRole, y.mainPID)), "changed")
		}
		if cx, cy := cpulist.Format(x.cpus), cpulist.Format(y.cpus); cx != cy {
			add(n+" cpus_allowed", ptr(cx), ptr(cy), "changed")
		}
		if mx, my := cpulist.Format(x.mems), cpulist.Format(y.mems); mx != my {
			add(n+" mems_allowed", ptr(mx), ptr(my), "changed")
		}
		if gx, gy := strings.Join(x.cgroups, ","), strings.Join(y.cgroups, ","); gx != gy {
			add(n+" cgroup", ptr(gx), ptr(gy), "changed")
		}
	}
	return out
}

func kib(kb int64) string {
	switch {
	case kb >= 1<<20:
		return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	case kb >= 1<<10:
		return fmt.Sprintf("%.1f MiB", float64(kb)/(1<<10))
	}
	return fmt.Sprintf("%d KiB", kb)
}
