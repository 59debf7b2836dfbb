package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// memory.hugepages-too-few: the database's shared memory (SysV segments of
// its processes, or the SGA an Oracle alert log says it expected) is not
// (all) in hugepages because the pool is absent or too small. The page count
// is computed for the pool and per NUMA node the database may use.
func init() {
	Register(Rule{
		ID:       "memory.hugepages-too-few",
		Area:     AreaMemory,
		Severity: SevWarning,
		Title:    "Hugepages are absent or too few for the database's shared memory",
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "With the Oracle instance configured to use HugePages, the resulting TPM numbers increased by an average of 13%"},
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "The page table size decreased from 5.5GB to 175MB by enabling HugePages"},
			{Doc: Seed000, Section: "Scenario 2: HugePages — Confirming Oracle’s use of HugePages",
				Quote: "PAGESIZE  AVAILABLE_PAGES  EXPECTED_PAGES  ALLOCATED_PAGES  ERROR(s)"},
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages",
				Quote: "echo 8192 > /proc/sys/vm/nr_hugepages"},
			{Doc: Seed003, Section: "Memory Tuning – huge pages on Bare Metal",
				Quote: "The effect of hugepages are more pronounced with multiple databases"},
			{Doc: Seed001, Section: "processor_group_name and SGA distribution across NUMA nodes — Summary",
				Quote: "With large pages in place and processor_group_name linked to more than one NUMA node, then the SGA is not evenly distributed across the NUMA nodes defined in the cgroup."},
		},
		Scope: Scope{
			Kernels:    "all (hugetlbfs / SHM_HUGETLB); per-node pools in /sys/devices/system/node/nodeN/hugepages",
			DBVersions: "Oracle 11.2+ (use_large_pages), PostgreSQL 9.4+ (huge_pages), MySQL large-pages; 000: Oracle 12c",
			Note:       "the SysV segments of the database's processes, or its alert log's SGA dump, give the size; the pool must hold it on the nodes the database uses",
		},
		Pending: PendingRestart,
		Check:   checkHugepagesTooFew,
	})
}

func checkHugepagesTooFew(in *Input) Outcome {
	s := in.Snap
	if why := AbsentReason(s, "memory.hugepages"); why != "" && len(s.Memory.Hugepages) == 0 {
		return CannotCheck("%s", why)
	}
	pool, ok := DefaultHugepages(s)
	if !ok {
		if len(s.Memory.Hugepages) == 0 {
			return CannotCheck("%s", in.Reason("memory.hugepages", "no hugepage sizes in the snapshot (hugetlbfs not in this kernel?)"))
		}
		pool = s.Memory.Hugepages[0]
	}
	if pool.SizeKB <= 0 {
		return CannotCheck("memory.hugepages: page size unknown")
	}
	// Pages the database needs and pages already backing it: the most any
	// source says it needs (the alert logs' EXPECTED_PAGES summed over the
	// instances, the SysV segments each rounded up to whole pages, PostgreSQL's
	// shared_buffers), minus what holds it now (the segments in hugepages; else
	// ALLOCATED_PAGES of the last startups; for PostgreSQL its hugepage memory).
	size := pool.SizeKB
	need, backing, ev := int64(0), int64(0), []string{}
	memlockKB := int64(0) // the largest instance's lock: what memory.memlock-below-sga asks for
	oraNeed, oraBack, oraBackKnown := in.oraHugeNeeds(size, &ev, &memlockKB)
	need = oraNeed
	committed, _ := in.HugepagesCommittedKB()
	if pg := pgSharedBuffers(in, committed); pg != nil {
		need = max(need, ceilDiv(pg.needKB, size))
		backing = max(backing, (pg.needKB-pg.missingKB)/size)
		ev = append(ev, pg.evidence)
	}
	shm, shmWhy := in.DBSharedMemory()
	if shmWhy == "" && shm.TotalKB > 0 {
		pages, huge := shmPages(shm, size, committed >= shm.TotalKB)
		need = max(need, pages)
		backing = max(backing, huge)
		if memlockKB == 0 {
			memlockKB = pages * size
		}
		ev = append(ev, fmt.Sprintf("/proc/sysvipc/shm: database shared memory %s in %d segment(s) (%s): %d pages of %s, each segment rounded up; "+
			"%s known not in hugepages, %s of unknown backing", KB(shm.TotalKB), shm.Segments, shm.Attributed, pages, KB(size), KB(shm.NotHugeKB), KB(shm.UnknownKB)))
	} else if oraBackKnown {
		backing = max(backing, oraBack)
	}
	if need == 0 {
		if shmWhy != "" {
			return CannotCheck("%s", shmWhy)
		}
		return NotApplicable("no database shared memory found (no SysV segment of the database, no alert log SGA dump, no postgresql.conf shared_buffers)")
	}
	missingPages := max(need-backing, 0)
	needKB, missingKB := need*size, missingPages*size
	if missingPages == 0 {
		msg := fmt.Sprintf("database shared memory %s (%d pages) is in hugepages (pool %d x %s, %d free; %s)", KB(needKB), need, pool.Total,
			KB(pool.SizeKB), pool.Free, strings.Join(ev, "; "))
		if need > pool.Total {
			msg += "; note: the pool is smaller than that: the alert log may predate a pool change or come from another host"
		}
		return Passed("%s", msg).Wanting(poolWants(in, "memory.hugepages-too-few", pool)...).
			Reading(fmt.Sprintf("/proc/meminfo: HugePages_Total %d, HugePages_Free %d, Hugepagesize %s", pool.Total, pool.Free, KB(pool.SizeKB)), strings.Join(ev, "; "))
	}
	avail := pool.Free - pool.Reserved
	if avail < 0 {
		avail = 0
	}
	ev = append(ev, fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB: nr_hugepages %d, free %d, reserved %d, surplus %d",
		pool.SizeKB, pool.Total, pool.Free, pool.Reserved, pool.Surplus))
	nodes := dbNodes(in)
	ev = append(ev, perNodePools(s, nodes, pool.SizeKB))
	// A database bound to some nodes can use only those nodes' free pages (001:
	// a cgroup's SGA exhausted one node's pool while others had pages free).
	if free, ok := freeOnNodes(s, nodes, pool.SizeKB); ok && len(nodes) < NodeCount(s) && free < avail {
		ev = append(ev, fmt.Sprintf("the database may allocate only on node(s) %s: %d free pages there", List(nodes), free))
		avail = free
	}
	f := Finding{
		Evidence: strings.Join(ev, "; "),
		Why: "000: with the SGA in 2 MB hugepages Oracle TPM rose 13 %, system time fell 7 % and the page tables shrank from " +
			"5.5 GB to 175 MB (200 users; more connections, more gain); hugepages are also locked in memory, never swapped.",
		Risk: "Hugepages are reserved: that memory is no longer available to anything else. A pool grown at run time may fall " +
			"short on fragmented memory (check nr_hugepages after the write, or reserve at boot with hugepages=N). The database " +
			"uses the pool only after a restart.",
	}
	if avail >= missingPages {
		// The pool has room: the database is not asking for hugepages.
		f.Setting, f.Current, f.Recommended = dbHugeSetting(in.DB)
		f.Current = fmt.Sprintf("%s (%s of its shared memory not in hugepages although %d pages are free)", f.Current, KB(missingKB), avail)
		f.Fix = Fix{Runtime: []string{}, Persistent: []string{dbHugeFix(in.DB)}}
		return Found(f)
	}
	extra := missingPages - avail
	target := pool.Total + extra
	f.Setting = "vm.nr_hugepages"
	f.Current = fmt.Sprintf("%d pages of %s (%d free); the database needs %d pages (%s), %d of them already in hugepages",
		pool.Total, KB(pool.SizeKB), pool.Free, need, KB(needKB), need-missingPages)
	f.Recommended = fmt.Sprintf("vm.nr_hugepages ≥ %d (%d more)", target, extra)
	f.Fix = SysctlFix("vm.nr_hugepages", fmt.Sprint(target))
	const hpWhy = "the database's shared memory does not fit in the free hugepages"
	if def, ok := DefaultHugepages(s); ok && def.SizeKB == pool.SizeKB {
		f.Changes = []change.Change{in.SysctlChange("memory.hugepages-too-few", "vm.nr_hugepages", fmt.Sprint(target), hpWhy)}
	} else {
		f.Changes = []change.Change{SysfsChange("memory.hugepages-too-few", fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages", pool.SizeKB),
			fmt.Sprint(target), fmt.Sprint(pool.Total), hpWhy)}
	}
	if NodeCount(s) > 1 {
		// Per node: each of the database's nodes gets an even share of the
		// extra pages on top of what it has (the kernel spreads a global
		// nr_hugepages over every node, which misses a node-bound database).
		share := ceilDiv(extra, int64(len(nodes)))
		var per, echo, bootArg []string
		var nodeChanges []change.Change
		for _, n := range nodes {
			total, ok := nodeTotal(s, n, pool.SizeKB)
			if !ok {
				per, echo, nodeChanges = nil, nil, nil
				break
			}
			per = append(per, fmt.Sprintf("node%d %d", n, total+share))
			echo = append(echo, echoTo(fmt.Sprint(total+share), fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", n, pool.SizeKB)))
			nodeChanges = append(nodeChanges, SysfsChange("memory.hugepages-too-few",
				fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", n, pool.SizeKB),
				fmt.Sprint(total+share), fmt.Sprint(total), hpWhy+" (node "+fmt.Sprint(n)+"'s share)"))
			bootArg = append(bootArg, fmt.Sprintf("%d:%d", n, total+share))
		}
		if per != nil {
			f.Recommended += "; per node: " + strings.Join(per, ", ")
			f.Fix.Runtime = echo
			f.Changes = nodeChanges
			f.Fix.Persistent = append(f.Fix.Persistent, fmt.Sprintf("per-node pools at boot: kernel arguments hugepagesz=%dK hugepages=%s (node format, Linux 5.16+), or the echo lines above in a boot unit",
				pool.SizeKB, strings.Join(bootArg, ",")))
		}
	}
	// The memlock line only raises: a limit already at or above the lock
	// (or unlimited) is kept, never lowered to it.
	if limKB, unlimited, _ := memlockLimit(in.Snap.Config.Limits, "oracle"); unlimited || limKB >= memlockKB {
		memlockKB = 0
	}
	if in.DB == DBOracle && memlockKB > 0 {
		f.Fix.Edits = append(f.Fix.Edits, FileEdit{File: "/etc/security/limits.d/99-oracle.conf", Edit: fmt.Sprintf("add oracle soft memlock %d and oracle hard memlock %d "+
			"(kB: the largest instance's hugepages, as memory.memlock-below-sga asks)", memlockKB, memlockKB)})
	}
	return Found(f)
}

// oraHugeNeeds sums the Oracle instances' EXPECTED_PAGES of size sizeKB
// (and ALLOCATED_PAGES, when every instance printed it), appending the
// evidence and raising memlockKB to the largest instance's lock.
func (in *Input) oraHugeNeeds(sizeKB int64, ev *[]string, memlockKB *int64) (need, allocated int64, allocKnown bool) {
	if in.DB != DBOracle && in.DB != DBNone {
		return 0, 0, false
	}
	allocKnown = true
	n := 0
	for _, i := range in.oraInstances() {
		h, ok := i.hugeNeed(sizeKB)
		if !ok || h.sizeKB != sizeKB {
			continue
		}
		n++
		need += h.pages
		if h.allocated < 0 {
			allocKnown = false
		}
		allocated += max(h.allocated, 0)
		*memlockKB = max(*memlockKB, h.kb())
		*ev = append(*ev, h.ev)
	}
	return need, allocated, allocKnown && n > 0
}

// shmPages is the database's SysV shared memory in pages of sizeKB, each
// segment rounded up as the kernel backs it, and how many of those pages are
// known to be hugepages (segments of unknown backing count as huge when the
// hugepages in use cover the whole shared memory).
func shmPages(shm DBShm, sizeKB int64, unknownIsHuge bool) (pages, huge int64) {
	for _, seg := range shm.Segs {
		p := ceilDiv(ceilDiv(seg.SizeBytes, 1024), sizeKB)
		pages += p
		if seg.Huge != nil && *seg.Huge || seg.Huge == nil && unknownIsHuge {
			huge += p
		}
	}
	return pages, huge
}

// dbNodes are the NUMA nodes the database may allocate on: the union of its
// processes' Mems_allowed, else every node with memory.
func dbNodes(in *Input) []int {
	seen := map[int]bool{}
	var out []int
	for _, p := range in.DBProcesses() {
		for _, m := range p.MemsAllowed {
			if !seen[m] {
				seen[m] = true
				out = append(out, m)
			}
		}
	}
	all := []int{}
	for _, n := range in.Snap.Topology.Nodes {
		if n.HasMemory {
			all = append(all, n.ID)
		}
	}
	// Hugepages of a database go on its DRAM nodes only: GPU, NVM, HBM or
	// far-tier memory is never sized for an SGA or a buffer pool.
	out, all = DatabaseLocalNodes(in.Snap, out), DatabaseLocalNodes(in.Snap, all)
	if len(out) == 0 || len(out) > len(all) {
		if len(all) == 0 {
			return []int{0}
		}
		return all
	}
	return sortedInts(out)
}

func perNodePools(s *snapshot.Snapshot, nodes []int, sizeKB int64) string {
	var parts []string
	for _, id := range nodes {
		for _, n := range s.Topology.Nodes {
			if n.ID != id {
				continue
			}
			for _, h := range n.Hugepages {
				if h.SizeKB == sizeKB {
					parts = append(parts, fmt.Sprintf("node%d %d total/%d free", id, h.Total, h.Free))
				}
			}
		}
	}
	if len(parts) == 0 {
		return "per-node pools unknown"
	}
	return "per node: " + strings.Join(parts, ", ")
}

func dbHugeSetting(db string) (setting, current, recommended string) {
	switch db {
	case DBOracle:
		return "oracle:use_large_pages", "SGA not in hugepages", "ONLY"
	case DBPostgres:
		return "postgres:huge_pages", "shared memory not in hugepages", "on"
	case DBMySQL:
		return "mysql:large-pages", "shared memory not in hugepages", "ON"
	}
	return "database large pages setting", "shared memory not in hugepages", "use hugepages"
}

func dbHugeFix(db string) string {
	switch db {
	case DBOracle:
		return "spfile: ALTER SYSTEM SET use_large_pages=ONLY SCOPE=SPFILE; (no memory_target: AMM cannot use hugepages), then restart"
	case DBPostgres:
		return "postgresql.conf: huge_pages = on (and shared_memory_type = sysv or mmap), then restart"
	case DBMySQL:
		return "my.cnf [mysqld]: large-pages, then restart"
	}
	return "configure the database to use hugepages, then restart it"
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

func sortedInts(a []int) []int {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
	return a
}

// freeOnNodes sums the free pages of one size on the given nodes; ok false
// when a node's pool is unknown.
func freeOnNodes(s *snapshot.Snapshot, nodes []int, sizeKB int64) (int64, bool) {
	var free int64
	for _, id := range nodes {
		found := false
		for _, n := range s.Topology.Nodes {
			if n.ID != id {
				continue
			}
			for _, h := range n.Hugepages {
				if h.SizeKB == sizeKB {
					free += h.Free
					found = true
				}
			}
		}
		if !found {
			return 0, false
		}
	}
	return free, true
}

type pgNeed struct {
	needKB, missingKB int64
	evidence          string
}

// pgSharedBuffers is PostgreSQL's shared memory need from the last
// postgresql.conf given (pgSharedMemoryKB: exact with
// shared_memory_size_in_huge_pages, else estimated from shared_buffers,
// wal_buffers and max_connections), and how
// much of it is not in hugepages: the postmaster's hugepage memory from
// numa_maps when read, else the hugepages in use on the host.
func pgSharedBuffers(in *Input, committedKB int64) *pgNeed {
	if in.Artifacts == nil || in.DB != DBPostgres && in.DB != DBNone || len(in.Artifacts.PGConfs) == 0 {
		return nil
	}
	c := in.Artifacts.PGConfs[len(in.Artifacts.PGConfs)-1]
	b, ok, err := c.SharedBuffersBytes()
	if !ok || err != nil || b <= 0 {
		return nil
	}
	pageKB := int64(2048)
	if d, ok := DefaultHugepages(in.Snap); ok && d.SizeKB > 0 {
		pageKB = d.SizeKB
	}
	if hb, ok, err := c.HugePageSizeBytes(); ok && err == nil && hb > 0 {
		pageKB = hb / 1024
	}
	need, how := pgSharedMemoryKB(c, b, pageKB)
	set, _ := c.Setting("shared_buffers")
	ev := fmt.Sprintf("%s:%d: shared_buffers = %s (%s); PostgreSQL's shared memory %s", set.File, set.Line, set.Value, KB(b/1024), how)
	if hp, ok := c.HugePages(); ok {
		ev += "; huge_pages = " + hp
	}
	inHuge, read := int64(0), false
	for _, p := range in.Snap.Processes {
		if engineDB(p.Engine) != DBPostgres || len(p.NUMA) == 0 {
			continue
		}
		var h int64
		for _, m := range p.NUMA {
			h += m.HugeKB
		}
		if h > inHuge {
			inHuge, read = h, true
		}
	}
	if !read {
		inHuge = committedKB
	}
	var missing int64
	if inHuge < need {
		missing = need - inHuge
	}
	return &pgNeed{needKB: need, missingKB: missing, evidence: ev}
}

// nodeTotal is one node's pool size (pages of sizeKB).
// poolWants are the hugepage pool that holds the database's shared memory,
// at its current size (it is sized: the desired state keeps it): per node
// on a multi-node host (the nodes the database may use), else the pool.
func poolWants(in *Input, rule string, pool snapshot.Hugepages) []change.Change {
	const why = "the hugepage pool holds the database's shared memory"
	s := in.Snap
	if pool.Total <= 0 {
		return nil
	}
	if NodeCount(s) > 1 {
		var cs []change.Change
		for _, n := range dbNodes(in) {
			t, ok := nodeTotal(s, n, pool.SizeKB)
			if !ok {
				cs = nil
				break
			}
			cs = append(cs, SysfsChange(rule, fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-%dkB/nr_hugepages", n, pool.SizeKB),
				fmt.Sprint(t), fmt.Sprint(t), why+" (node "+fmt.Sprint(n)+"'s share)"))
		}
		if cs != nil {
			return cs
		}
	}
	if def, ok := DefaultHugepages(s); ok && def.SizeKB == pool.SizeKB {
		return []change.Change{in.SysctlChange(rule, "vm.nr_hugepages", fmt.Sprint(pool.Total), why)}
	}
	return []change.Change{SysfsChange(rule, fmt.Sprintf("/sys/kernel/mm/hugepages/hugepages-%dkB/nr_hugepages", pool.SizeKB),
		fmt.Sprint(pool.Total), fmt.Sprint(pool.Total), why)}
}

func nodeTotal(s *snapshot.Snapshot, node int, sizeKB int64) (int64, bool) {
	for _, n := range s.Topology.Nodes {
		if n.ID != node {
			continue
		}
		for _, h := range n.Hugepages {
			if h.SizeKB == sizeKB {
				return h.Total, true
			}
		}
	}
	return 0, false
}
