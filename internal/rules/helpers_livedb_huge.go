package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// hugeNeed is what a live server needs from the hugepage pool.
type hugeNeed struct {
	pages  int64  // pages of sizeKB the server's shared memory takes
	sizeKB int64  // the page size it asks for
	how    string // where the figure comes from ("shared_memory_size_in_huge_pages = 4200 (the server's own figure)")
	inUse  bool   // the server's shared memory is in hugepages now (numa_maps)
	usesKB int64  // hugepage memory its main process maps now (numa_maps), 0 when unknown or none
	// nodes are the NUMA nodes its main process may allocate on
	// (Mems_allowed) when fewer than the host's nodes with memory: the
	// pages must be free there.
	nodes []int
	main  *snapshot.Process
}

// poolOf returns the global pool of a page size.
func poolOf(s *snapshot.Snapshot, sizeKB int64) (snapshot.Hugepages, bool) {
	for _, h := range s.Memory.Hugepages {
		if h.SizeKB == sizeKB {
			return h, true
		}
	}
	return snapshot.Hugepages{}, false
}

// pgHugeNeed is a PostgreSQL server's need: its own
// shared_memory_size_in_huge_pages (15+); else shared_memory_size /
// huge page size; else (before 15) the shared memory its postmaster maps
// (numa_maps); else shared_buffers + wal_buffers + ~3 %, a lower bound.
// Each figure says where it comes from.
func (in *Input) pgHugeNeed(d *snapshot.Database) (hugeNeed, string) {
	var h hugeNeed
	def, haveDef := DefaultHugepages(in.Snap)
	size, why := dbBytes(d, "huge_page_size")
	switch {
	case why == "" && size > 0:
		h.sizeKB = size / 1024
	case haveDef:
		h.sizeKB = def.SizeKB // huge_page_size 0 (or before 14): the kernel's default size
	default:
		return h, in.Reason("memory.hugepages", "the default hugepage size is unknown")
	}
	h.readServer(in, d)
	if n, why := dbInt(d, "shared_memory_size_in_huge_pages"); why == "" && n > 0 {
		h.pages, h.how = n, fmt.Sprintf("shared_memory_size_in_huge_pages = %d (the server's own figure)", n)
		return h, ""
	}
	if b, why := dbBytes(d, "shared_memory_size"); why == "" && b > 0 {
		h.pages = ceilDiv(b, h.sizeKB*1024)
		h.how = fmt.Sprintf("%d pages, computed from shared_memory_size %s / huge page size %s (the server reports no shared_memory_size_in_huge_pages for this size)", h.pages, KB(b/1024), KB(h.sizeKB))
		return h, ""
	}
	if h.main != nil {
		var shm int64
		for _, m := range h.main.NUMA {
			shm += m.HugeKB + m.ShmKB
		}
		if shm > 0 {
			h.pages = ceilDiv(shm, h.sizeKB)
			h.how = fmt.Sprintf("%d pages, computed from the %s of shared memory postmaster %d maps (numa_maps): PostgreSQL %s reports no shared_memory_size (15+)", h.pages, KB(shm), h.main.PID, d.Version)
			return h, ""
		}
	}
	sb, why := dbBytes(d, "shared_buffers")
	if why != "" {
		return h, why
	}
	wb, _ := dbBytes(d, "wal_buffers")
	est := (sb + wb) * 103 / 100
	h.pages = ceilDiv(est, h.sizeKB*1024)
	h.how = fmt.Sprintf("≈ %d pages, estimated from shared_buffers + wal_buffers + ~3 %% (PostgreSQL %s reports no shared_memory_size, 15+; a lower bound: `postgres -C shared_memory_size_in_huge_pages` on 15+ gives the count)", h.pages, d.Version)
	return h, ""
}

// boundNodes returns mems when it is a strict subset of the host's nodes
// with memory (the process is bound), else nil.
func boundNodes(s *snapshot.Snapshot, mems []int) []int {
	if len(mems) == 0 {
		return nil
	}
	withMem := 0
	for _, n := range s.Topology.Nodes {
		if n.HasMemory {
			withMem++
		}
	}
	if len(mems) < withMem {
		return mems
	}
	return nil
}

// hugeRoom is what a pool can give one server after a restart of that
// server: the pool's pages less those held by anything else, globally and
// on the nodes the server is bound to; and the pool size that holds every
// live server's need (target).
type hugeRoom struct {
	pool      snapshot.Hugepages
	others    int64 // pages held or reserved by anything but this server
	available int64 // pool.Total - others
	// perNode: free pages (plus this server's own) on each bound node.
	perNode   map[int]int64
	nodeFree  int64
	nodeTotal map[int]int64
	target    int64 // a pool holding others + this server's need
	evidence  string
}

// room computes a server's room in its page size's pool; the target also
// holds what the other live servers that want hugepages of that size but
// hold none yet need (a PostgreSQL with huge_pages try that fell back, a
// MySQL with large_pages ON that fell back).
func (in *Input) room(d *snapshot.Database, h hugeNeed) (hugeRoom, string) {
	pool, ok := poolOf(in.Snap, h.sizeKB)
	if !ok {
		return hugeRoom{}, in.Reason("memory.hugepages", fmt.Sprintf("no %s hugepage pool in the snapshot", KB(h.sizeKB)))
	}
	r := hugeRoom{pool: pool, perNode: map[int]int64{}, nodeTotal: map[int]int64{}}
	committed := pool.Total - pool.Free + pool.Reserved
	own := int64(0)
	if h.inUse {
		own = h.pages // the server holds (or has reserved) its whole segment
	}
	r.others = committed - own
	if r.others < 0 {
		r.others = 0
	}
	r.available = pool.Total - r.others
	r.target = r.others + h.pages
	r.evidence = fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB: nr_hugepages %d, free %d, reserved %d", pool.SizeKB, pool.Total, pool.Free, pool.Reserved)
	if extra, names := in.otherLiveNeeds(d, h.sizeKB); extra > 0 {
		r.target += extra
		r.evidence += fmt.Sprintf("; other live servers needing %d more pages of %s: %s", extra, KB(h.sizeKB), strings.Join(names, ", "))
	}
	if len(h.nodes) > 0 {
		var parts []string
		for _, n := range h.nodes {
			np, ok := nodePool(in.Snap, n, h.sizeKB)
			if !ok {
				return r, in.Reason("topology.nodes", fmt.Sprintf("node %d's %s hugepage pool is not in the snapshot", n, KB(h.sizeKB)))
			}
			free := np.Free
			if h.main != nil {
				for _, m := range h.main.NUMA {
					if m.Node == n {
						free += m.HugeKB / h.sizeKB
					}
				}
			}
			r.perNode[n] = free
			r.nodeTotal[n] = np.Total
			r.nodeFree += free
			parts = append(parts, fmt.Sprintf("node %d: %d of %d free for it", n, free, np.Total))
		}
		r.evidence += fmt.Sprintf("; bound to node(s) %s (Mems_allowed of PID %d): %s", List(h.nodes), h.main.PID, strings.Join(parts, ", "))
	}
	return r, ""
}

// short says whether the server's need does not fit, and how many pages are missing.
func (r hugeRoom) short(h hugeNeed) (bool, int64) {
	if len(h.nodes) > 0 && r.nodeFree < h.pages {
		return true, h.pages - r.nodeFree
	}
	if r.available < h.pages {
		return true, h.pages - r.available
	}
	return false, 0
}

// poolChanges are the changes that give the server its pages: under
// binding, each bound node's pool grown by an even share of the shortfall
// (the kernel takes a bound process's hugepages from its nodes only);
// otherwise the global pool set to the target (vm.nr_hugepages for the
// default size).
func (in *Input) poolChanges(rule string, h hugeNeed, r hugeRoom, missing int64) ([]change.Change, []string) {
	why := "the hugepage pool must hold the database server's shared memory"
	if len(h.nodes) > 0 {
		var cs []change.Change
		var lines []string
		share := ceilDiv(missing, int64(len(h.nodes)))
		for _, n := range h.nodes {
			path := fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", n, h.sizeKB)
			v := fmt.Sprint(r.nodeTotal[n] + share)
			cs = append(cs, SysfsChange(rule, path, v, fmt.Sprint(r.nodeTotal[n]), why+" on the node(s) it is bound to"))
			lines = append(lines, echoTo(v, path))
		}
		return cs, lines
	}
	if def, ok := DefaultHugepages(in.Snap); ok && def.SizeKB == h.sizeKB {
		return []change.Change{in.SysctlChange(rule, "vm.nr_hugepages", fmt.Sprint(r.target), why)},
			[]string{fmt.Sprintf("sysctl -w vm.nr_hugepages=%d", r.target)}
	}
	path := fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages", h.sizeKB)
	return []change.Change{SysfsChange(rule, path, fmt.Sprint(r.target), fmt.Sprint(r.pool.Total), why)},
		[]string{echoTo(fmt.Sprint(r.target), path)}
}

// persistLine is the fix of a pool size: runtime, the persistent form of
// the pool (a sysctl.d edit, or the per-node boot argument) and more steps.
func persistLine(h hugeNeed, r hugeRoom, runtime []string, more ...string) Fix {
	if len(h.nodes) > 0 {
		return Fix{Runtime: runtime, Persistent: append([]string{fmt.Sprintf("the per-node pool at boot: hugepages=%d on the kernel command line gives %d pages spread over all nodes; or a systemd unit writing the node's nr_hugepages before the database starts", r.target, r.target)}, more...)}
	}
	// The sysctl.d line is a file line: an edit (issue 26 item 10).
	return Fix{Runtime: runtime, Persistent: append([]string{}, more...), Edits: []FileEdit{SysctlEdit("vm.nr_hugepages", fmt.Sprint(r.target))}}
}

// otherLiveNeeds sums the pages of sizeKB that the other live servers want
// and do not hold yet.
func (in *Input) otherLiveNeeds(self *snapshot.Database, sizeKB int64) (int64, []string) {
	var total int64
	var names []string
	for i := range in.Snap.Databases {
		d := &in.Snap.Databases[i]
		if d == self || d.Error != "" {
			continue
		}
		var h hugeNeed
		var why string
		switch engineDB(d.Engine) {
		case DBPostgres:
			if v, _ := dbSetting(d, "huge_pages"); v == "off" {
				continue
			}
			h, why = in.pgHugeNeed(d)
		case DBMySQL:
			if v, _ := dbSetting(d, "large_pages"); !dbOn(v) {
				continue
			}
			h, why = in.myHugeNeed(d)
		default:
			continue
		}
		if why != "" || h.inUse || h.sizeKB != sizeKB {
			continue
		}
		total += h.pages
		names = append(names, fmt.Sprintf("%s (%d)", serverName(d), h.pages))
	}
	return total, names
}

// myHugeNeed is a MySQL/MariaDB server's need: its buffer pool in pages of
// large_page_size (MariaDB) or the default size.
func (in *Input) myHugeNeed(d *snapshot.Database) (hugeNeed, string) {
	var h hugeNeed
	if b, why := dbBytes(d, "large_page_size"); why == "" && b > 0 {
		h.sizeKB = b / 1024
	} else if def, ok := DefaultHugepages(in.Snap); ok {
		h.sizeKB = def.SizeKB
	} else {
		return h, in.Reason("memory.hugepages", "the default hugepage size is unknown")
	}
	bp, why := dbBytes(d, "innodb_buffer_pool_size")
	if why != "" {
		return h, why
	}
	h.pages = ceilDiv(bp, h.sizeKB*1024)
	h.how = fmt.Sprintf("%d pages: innodb_buffer_pool_size %s / %s (the buffer pool; InnoDB's other memory is not counted)", h.pages, KB(bp/1024), KB(h.sizeKB))
	h.readServer(in, d)
	return h, ""
}

// readServer fills what the server's main process shows: the hugepages it
// maps now (numa_maps) and the nodes its memory may use.
func (h *hugeNeed) readServer(in *Input, d *snapshot.Database) {
	h.main = in.serverProcess(d)
	if h.main == nil {
		return
	}
	for _, m := range h.main.NUMA {
		h.usesKB += m.HugeKB
	}
	h.inUse = h.usesKB > 0
	h.nodes = boundNodes(in.Snap, h.main.MemsAllowed)
}
