package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers that rule files share. Each returns the fact and "" or, when the
// fact is absent, a zero value and the reason to pass to CannotCheck.

// SysctlDropIn is the file dbhost's fixes write persistent sysctls to.
const SysctlDropIn = "/etc/sysctl.d/90-dbhost.conf"

// Sysctl returns a kernel parameter as the kernel prints it, or the reason it is absent.
func (in *Input) Sysctl(key string) (string, string) {
	if v, ok := in.Snap.Sysctl[key]; ok {
		return v, ""
	}
	return "", in.Reason("sysctl."+key, "not in the snapshot")
}

// SysctlInt returns an integer kernel parameter, or the reason it is absent or not an integer.
func (in *Input) SysctlInt(key string) (int64, string) {
	v, why := in.Sysctl(key)
	if why != "" {
		return 0, why
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Sprintf("sysctl.%s: not an integer: %q", key, v)
	}
	return n, ""
}

// SysctlSetIn says where a sysctl key is set persistently ("" when in no file):
// "/etc/sysctl.d/99-x.conf:3".
func (in *Input) SysctlSetIn(key string) string {
	for _, e := range in.Snap.Config.SysctlFiles {
		if e.Key == key && e.Effective {
			return fmt.Sprintf("%s:%d (%s = %s)", e.File, e.Line, e.Key, e.Value)
		}
	}
	return ""
}

// SysctlEvidence is the standard evidence text for a sysctl.
func (in *Input) SysctlEvidence(key, value string) string {
	ev := fmt.Sprintf("%s = %s (/proc/sys/%s)", key, value, strings.ReplaceAll(key, ".", "/"))
	if f := in.SysctlSetIn(key); f != "" {
		ev += "; set persistently in " + f
	}
	return ev
}

// sh quotes a value from the host or a user's file (a device, interface,
// cgroup, path, value) for a fix command: change.Quote, dbhost's one quoter.
// Every value a rule puts into a command goes through it (or echoTo).
func sh(s string) string { return change.Quote(s) }

// echoTo is the fix that writes v to path: "echo V > PATH", both quoted.
func echoTo(v, path string) string { return change.Echo(v, path) }

// sqlStr is s as an SQL string literal ('...' with ' doubled): an instance
// or service name from an artifact in an ALTER SYSTEM a DBA pastes.
func sqlStr(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// SysctlFix is the standard fix for a sysctl: sysctl -w now, and the line
// in dbhost's sysctl.d file (an edit, not a command).
func SysctlFix(key, value string) Fix {
	return Fix{
		Runtime:    []string{fmt.Sprintf("sysctl -w %s=%s", change.Quote(key), change.Quote(value))},
		Persistent: []string{},
		Edits:      []FileEdit{SysctlEdit(key, value)},
	}
}

// SysctlEdit is the line "key = value" added to dbhost's sysctl.d file.
func SysctlEdit(key, value string) FileEdit {
	return FileEdit{File: SysctlDropIn, Edit: fmt.Sprintf("add %s = %s", key, value)}
}

// NodeOfCPU maps each CPU id to its NUMA node (CPUs with node -1 left out).
func NodeOfCPU(s *snapshot.Snapshot) map[int]int {
	m := make(map[int]int, len(s.Topology.CPUs))
	for _, n := range s.Topology.Nodes {
		for _, c := range n.CPUs {
			m[c] = n.ID
		}
	}
	for _, c := range s.Topology.CPUs {
		if _, ok := m[c.ID]; !ok && c.Node >= 0 {
			m[c.ID] = c.Node
		}
	}
	return m
}

// NodesOfCPUs returns the sorted nodes the CPUs belong to, and the CPUs whose node is unknown.
func NodesOfCPUs(s *snapshot.Snapshot, cpus []int) (nodes, unknown []int) {
	m := NodeOfCPU(s)
	seen := map[int]bool{}
	for _, c := range cpus {
		n, ok := m[c]
		if !ok {
			unknown = append(unknown, c)
			continue
		}
		if !seen[n] {
			seen[n] = true
			nodes = append(nodes, n)
		}
	}
	sort.Ints(nodes)
	return nodes, unknown
}

// Distance returns the SLIT distance from node a to node b.
func Distance(s *snapshot.Snapshot, a, b int) (int, bool) {
	idx := -1
	for i, n := range s.Topology.Nodes {
		if n.ID == b {
			idx = i
		}
	}
	if idx < 0 {
		return 0, false
	}
	for _, n := range s.Topology.Nodes {
		if n.ID == a && idx < len(n.Distances) {
			return n.Distances[idx], true
		}
	}
	return 0, false
}

// DatabaseLocalNodes keeps the nodes whose memory counts as a database's
// local memory (snapshot.Node.DatabaseLocal: DRAM of a node with CPUs; any
// node in a snapshot without node kinds); ids the snapshot does not know
// are kept. When none is left it returns ids unchanged: no file then says
// which nodes are DRAM, and the caller's old reading stands.
func DatabaseLocalNodes(s *snapshot.Snapshot, ids []int) []int {
	var out []int
	for _, id := range ids {
		keep := true
		for _, n := range s.Topology.Nodes {
			if n.ID == id {
				keep = n.DatabaseLocal()
			}
		}
		if keep {
			out = append(out, id)
		}
	}
	if len(out) == 0 {
		return ids
	}
	return out
}

// NodeCount is the number of NUMA nodes that have CPUs or memory.
func NodeCount(s *snapshot.Snapshot) int {
	n := 0
	for _, nd := range s.Topology.Nodes {
		if nd.HasCPU || nd.HasMemory {
			n++
		}
	}
	return n
}

// List prints ids in the kernel's list format ("0-3,8").
func List(ids []int) string { return cpulist.Format(ids) }

// KB prints a size in kB in the largest fitting unit ("1.5 GiB").
func KB(kb int64) string {
	switch {
	case kb >= 1<<30:
		return fmt.Sprintf("%.1f TiB", float64(kb)/(1<<30))
	case kb >= 1<<20:
		return fmt.Sprintf("%.1f GiB", float64(kb)/(1<<20))
	case kb >= 1<<10:
		return fmt.Sprintf("%.1f MiB", float64(kb)/(1<<10))
	}
	return fmt.Sprintf("%d kB", kb)
}

// Kernel parses the leading "major.minor" of a kernel release; ok false when it cannot.
func Kernel(release string) (major, minor int, ok bool) {
	a, rest, _ := strings.Cut(release, ".")
	b := rest
	if i := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' }); i >= 0 {
		b = rest[:i]
	}
	if !allDigits(a) || !allDigits(b) {
		return 0, 0, false
	}
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	return x, y, true
}

// DBProcesses returns the snapshot's processes of the audited database.
func (in *Input) DBProcesses() []snapshot.Process {
	var out []snapshot.Process
	for _, p := range in.Snap.Processes {
		if in.DB == DBNone || engineDB(p.Engine) == in.DB {
			out = append(out, p)
		}
	}
	return out
}

// RemoveKernelArgFix is the persistent fix that drops a boot argument on
// host s's boot loader (KernelArgFixFor).
func RemoveKernelArgFix(s *snapshot.Snapshot, arg string) Fix {
	return kernelArgFix(s, arg, true)
}

// AddKernelArgFix is the persistent fix that adds a boot argument
// ("intel_idle.max_cstate=1") on host s's boot loader (KernelArgFixFor).
func AddKernelArgFix(s *snapshot.Snapshot, arg string) Fix {
	return kernelArgFix(s, arg, false)
}

// DBShm is the System V shared memory the audited database holds.
type DBShm struct {
	TotalKB    int64 // all its segments
	NotHugeKB  int64 // segments known not to be in hugepages (Huge == false)
	UnknownKB  int64 // segments whose backing is unknown (Huge == nil)
	Segments   int
	Attributed string // how segments were attributed: "uid 54321 (oracle)", "all segments"
	Segs       []snapshot.ShmSegment
}

// DBSharedMemory sums the SysV segments of the audited database: segments
// owned by the uids of its processes (or of the known DB users when no
// process is running); all segments when nothing identifies the database.
// ok is false (with the reason) when the SysV shm list is absent.
func (in *Input) DBSharedMemory() (DBShm, string) {
	s := in.Snap
	if why := AbsentReason(s, "memory.sysv_shm"); why != "" {
		return DBShm{}, why
	}
	uids := map[int64]bool{}
	pids := map[int64]bool{}
	for _, p := range in.DBProcesses() {
		uids[int64(p.UID)] = true
		pids[int64(p.PID)] = true
	}
	attributed := "uids of the database processes"
	if len(uids) == 0 {
		for _, uid := range s.Config.Users {
			uids[int64(uid)] = true
		}
		attributed = "uids of the database users in /etc/passwd"
	}
	if len(uids) == 0 {
		attributed = "all segments (no database process or user to attribute them to)"
	}
	var d DBShm
	d.Attributed = attributed
	for _, seg := range s.Memory.SysVShm {
		if len(uids) > 0 && !uids[seg.UID] && !pids[seg.CPID] {
			continue
		}
		kb := seg.SizeBytes / 1024
		d.TotalKB += kb
		d.Segments++
		d.Segs = append(d.Segs, seg)
		switch {
		case seg.Huge == nil:
			d.UnknownKB += kb
		case !*seg.Huge:
			d.NotHugeKB += kb
		}
	}
	return d, ""
}

// HugepagesCommittedKB is the hugepage memory in use or reserved, all sizes
// (from /sys/kernel/mm/hugepages); ok false with the reason when absent.
func (in *Input) HugepagesCommittedKB() (int64, string) {
	if why := AbsentReason(in.Snap, "memory.hugepages"); why != "" {
		return 0, why
	}
	var kb int64
	for _, h := range in.Snap.Memory.Hugepages {
		kb += (h.Total - h.Free + h.Reserved) * h.SizeKB
	}
	return kb, ""
}

// DefaultHugepages returns the default-size pool (Hugepagesize); ok false when none is known.
func DefaultHugepages(s *snapshot.Snapshot) (snapshot.Hugepages, bool) {
	for _, h := range s.Memory.Hugepages {
		if h.Default {
			return h, true
		}
	}
	if sz, ok := s.Memory.Meminfo["Hugepagesize"]; ok {
		for _, h := range s.Memory.Hugepages {
			if h.SizeKB == sz {
				return h, true
			}
		}
	}
	return snapshot.Hugepages{}, false
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// NICIRQTally is where the interrupts of the physical NICs were served since boot.
type NICIRQTally struct {
	PerNode map[int]uint64 // interrupts served by the CPUs of each node
	Total   uint64
	NICs    []string // NICs with at least one counted interrupt
	IRQs    []int    // IRQ numbers of those NICs found in /proc/interrupts
}

// NICIRQsPerNode tallies the physical NICs' interrupts per NUMA node.
func NICIRQsPerNode(s *snapshot.Snapshot) NICIRQTally {
	nodeOf := NodeOfCPU(s)
	byNum := make(map[string]*snapshot.IRQ, len(s.IRQs.IRQs))
	for i := range s.IRQs.IRQs {
		byNum[s.IRQs.IRQs[i].IRQ] = &s.IRQs.IRQs[i]
	}
	t := NICIRQTally{PerNode: map[int]uint64{}}
	for _, ifc := range s.Network.Interfaces {
		if ifc.Kind != "physical" || len(ifc.IRQs) == 0 {
			continue
		}
		counted := false
		for _, num := range ifc.IRQs {
			q, ok := byNum[strconv.Itoa(num)]
			if !ok {
				continue
			}
			for k, c := range q.Counts {
				if k >= len(s.IRQs.CPUs) {
					break
				}
				if n, ok := nodeOf[s.IRQs.CPUs[k]]; ok {
					t.PerNode[n] += c
					t.Total += c
					counted = true
				}
			}
			t.IRQs = append(t.IRQs, num)
		}
		if counted {
			t.NICs = append(t.NICs, ifc.Name)
		}
	}
	return t
}
