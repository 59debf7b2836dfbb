package facts

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("memory", StageSources, readMemory, "memory") }

const (
	procMeminfo  = "/proc/meminfo"
	procVmstat   = "/proc/vmstat"
	procSysvShm  = "/proc/sysvipc/shm"
	sysHugepages = "/sys/kernel/mm/hugepages"
	sysTHP       = "/sys/kernel/mm/transparent_hugepage"
	// RHEL 6 kernels exposed THP under this name instead.
	sysTHPRedHat = "/sys/kernel/mm/redhat_transparent_hugepage"
)

// readMemory fills Snapshot.Memory: meminfo, the global hugepage pools, THP,
// vmstat and the SysV shared memory segments. Each part that cannot be read
// stays nil and is listed in Absent.
func readMemory(c *Collector) {
	m := &c.Snap.Memory
	var defaultKB int64
	if b, err := c.Root.ReadFile(procMeminfo); err != nil {
		c.Absent("memory.meminfo", procMeminfo, err)
	} else if mi, node, err := parseMeminfo(bytes.NewReader(b)); err != nil {
		c.Absent("memory.meminfo", procMeminfo, err)
	} else if node != -1 {
		c.AbsentReason("memory.meminfo", procMeminfo, fmt.Sprintf("malformed: per-node lines (node %d) in /proc/meminfo", node))
	} else {
		m.Meminfo = mi
		defaultKB = mi["Hugepagesize"]
	}
	m.Hugepages = readHugepages(c, defaultKB)
	m.THP = readTHP(c)
	if b, err := c.Root.ReadFile(procVmstat); err != nil {
		c.Absent("memory.vmstat", procVmstat, err)
	} else if v, err := parseVmstat(bytes.NewReader(b)); err != nil {
		c.Absent("memory.vmstat", procVmstat, err)
	} else {
		m.Vmstat = v
	}
	m.SysVShm = readSysvShm(c)
}

// HugepagePool parses the host path of a hugepage pool's nr_hugepages: a
// node's (/sys/devices/system/node/nodeN/hugepages/hugepages-SIZE/nr_hugepages,
// node N) or the global one (/sys/kernel/mm/hugepages/hugepages-SIZE/nr_hugepages,
// and /proc/sys/vm/nr_hugepages for the 2048kB default size: node -1).
// size is the directory's "2048kB".
func HugepagePool(p string) (node int, size string, ok bool) {
	if p == "/proc/sys/vm/nr_hugepages" {
		return -1, "2048kB", true
	}
	if rest, found := strings.CutPrefix(p, "/sys/kernel/mm/hugepages/hugepages-"); found {
		size, found = strings.CutSuffix(rest, "/nr_hugepages")
		return -1, size, found && validPoolSize(size)
	}
	rest, found := strings.CutPrefix(p, "/sys/devices/system/node/node")
	if !found {
		return 0, "", false
	}
	num, rest, found := strings.Cut(rest, "/hugepages/hugepages-")
	if !found {
		return 0, "", false
	}
	size, found = strings.CutSuffix(rest, "/nr_hugepages")
	n, err := strconv.Atoi(num)
	if !found || !validPoolSize(size) || err != nil || n < 0 || strconv.Itoa(n) != num {
		return 0, "", false
	}
	return n, size, true
}

// validPoolSize: "2048kB" as in a hugepages-SIZE directory name.
func validPoolSize(size string) bool {
	_, ok := hugepageSizeKB("hugepages-" + size)
	return ok
}

// readHugepages reads every hugepages-<size>kB pool. defaultKB is meminfo's
// Hugepagesize (0 when unknown: then no pool is marked Default).
func readHugepages(c *Collector, defaultKB int64) []snapshot.Hugepages {
	names, err := c.Root.ReadDirNames(sysHugepages)
	if err != nil {
		c.Absent("memory.hugepages", sysHugepages, err)
		return nil
	}
	out := []snapshot.Hugepages{}
	files := [...]string{"nr_hugepages", "free_hugepages", "surplus_hugepages", "resv_hugepages", "nr_overcommit_hugepages"}
	for _, name := range names {
		size, ok := hugepageSizeKB(name)
		if !ok {
			continue
		}
		dir := sysHugepages + "/" + name
		var v [len(files)]int64
		bad := false
		for i, f := range files {
			n, err := c.readInt(dir + "/" + f)
			if err == nil && n < 0 {
				err = parseErr(1, "expected a count >= 0, got %d", n)
			}
			if err != nil {
				c.Absent("memory.hugepages["+strconv.FormatInt(size, 10)+"kB]", dir+"/"+f, err)
				bad = true
				break
			}
			v[i] = n
		}
		if bad {
			continue
		}
		out = append(out, snapshot.Hugepages{
			SizeKB: size, Total: v[0], Free: v[1], Surplus: v[2], Reserved: v[3], Overcommit: v[4],
			Default: defaultKB > 0 && size == defaultKB,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].SizeKB < out[j].SizeKB })
	return out
}

// parseTHPChoice parses a THP choice file ("always [madvise] never"): the
// selected (bracketed) word and all words. Exactly one word must be bracketed.
func parseTHPChoice(s string) (selected string, all []string, err error) {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "[") || strings.HasSuffix(f, "]") {
			if len(f) < 3 || f[0] != '[' || f[len(f)-1] != ']' || strings.ContainsAny(f[1:len(f)-1], "[]") {
				return "", nil, parseErr(1, "expected words with one [selected], got %q", trunc(s, 60))
			}
			f = f[1 : len(f)-1]
			selected = f
			n++
		} else if strings.ContainsAny(f, "[]") {
			return "", nil, parseErr(1, "expected words with one [selected], got %q", trunc(s, 60))
		}
		all = append(all, f)
	}
	if n != 1 {
		return "", nil, parseErr(1, "expected exactly one [selected] word, got %q", trunc(s, 60))
	}
	return selected, all, nil
}

// parseTHPFlag parses a THP on/off file such as khugepaged/defrag: "0"/"1"
// on current kernels, "[yes] no" / "yes [no]" on older ones (RHEL 6, 2.6.38+).
func parseTHPFlag(s string) (int64, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "0":
		return 0, nil
	case "1":
		return 1, nil
	}
	sel, all, err := parseTHPChoice(s)
	if err == nil && len(all) == 2 && all[0] == "yes" && all[1] == "no" {
		if sel == "yes" {
			return 1, nil
		}
		return 0, nil
	}
	return 0, parseErr(1, "expected 0, 1, \"[yes] no\" or \"yes [no]\", got %q", trunc(s, 40))
}

func readTHP(c *Collector) snapshot.THP {
	var t snapshot.THP
	dir := sysTHP
	if !c.Root.Exists(sysTHP) && c.Root.Exists(sysTHPRedHat) {
		dir = sysTHPRedHat
	}
	if c.Root.Exists(dir) {
		t.Dir = dir
	}
	choice := func(fact, p string) (*string, []string) {
		s, err := c.Root.ReadString(p)
		if err != nil {
			c.Absent(fact, p, err)
			return nil, nil
		}
		sel, all, err := parseTHPChoice(s)
		if err != nil {
			c.Absent(fact, p, err)
			return nil, nil
		}
		return &sel, all
	}
	t.Enabled, t.EnabledOptions = choice("memory.thp.enabled", dir+"/enabled")
	t.Defrag, t.DefragOptions = choice("memory.thp.defrag", dir+"/defrag")
	t.ShmemEnabled, _ = choice("memory.thp.shmem_enabled", dir+"/shmem_enabled")
	p := dir + "/khugepaged/defrag"
	if s, err := c.Root.ReadString(p); err != nil {
		c.Absent("memory.thp.khugepaged_defrag", p, err)
	} else if v, err := parseTHPFlag(s); err != nil {
		c.Absent("memory.thp.khugepaged_defrag", p, err)
	} else {
		t.KhugepagedDefrag = &v
	}
	return t
}

// parseVmstat parses /proc/vmstat ("name value" lines) into every counter.
func parseVmstat(r io.Reader) (map[string]int64, error) {
	m := make(map[string]int64, 256)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || strings.Contains(f[0], ":") {
			return nil, parseErr(n, "expected \"name value\", got %q", trunc(line, 60))
		}
		name := f[0]
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return nil, parseErr(n, "expected an integer value for %q, got %q", trunc(name, 40), trunc(f[1], 30))
		}
		m[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	if len(m) == 0 {
		return nil, parseErr(0, "no counters")
	}
	return m, nil
}

// parseSysvShm parses /proc/sysvipc/shm: a header line naming the columns
// (key shmid perms size cpid lpid nattch uid gid cuid cgid atime dtime ctime
// [rss swap]; kernels before 4.5 lack rss and swap), then one line per
// segment. Columns are found by their header name, so other layouts work as
// long as the needed ones are there. Segments are returned sorted by shmid;
// User and Huge are left for the caller (Huge cannot be told from this file:
// SHM_HUGETLB is not among the printed perms).
func parseSysvShm(r io.Reader) ([]snapshot.ShmSegment, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	var head []string
	for sc.Scan() {
		n++
		if head = strings.Fields(sc.Text()); len(head) > 0 {
			break
		}
	}
	if len(head) == 0 {
		if err := sc.Err(); err != nil {
			return nil, parseErr(n+1, "%v", err)
		}
		return nil, parseErr(0, "no header line")
	}
	col := map[string]int{}
	for i, h := range head {
		if _, dup := col[h]; dup {
			return nil, parseErr(n, "column %q twice in the header", trunc(h, 20))
		}
		col[h] = i
	}
	need := []string{"key", "shmid", "perms", "size", "cpid", "lpid", "nattch", "uid"}
	for _, h := range need {
		if _, ok := col[h]; !ok {
			return nil, parseErr(n, "header lacks column %q: %q", h, trunc(strings.Join(head, " "), 60))
		}
	}
	_, hasRSS := col["rss"]
	_, hasSwap := col["swap"]
	out := []snapshot.ShmSegment{}
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) != len(head) {
			return nil, parseErr(n, "expected %d columns, got %d", len(head), len(f))
		}
		var seg snapshot.ShmSegment
		var err error
		num := func(name string, bitSize int) int64 {
			if err != nil {
				return 0
			}
			v, e := strconv.ParseInt(f[col[name]], 10, bitSize)
			if e != nil || (name != "key" && v < 0) {
				err = parseErr(n, "expected a number in column %s, got %q", name, trunc(f[col[name]], 30))
			}
			return v
		}
		num("key", 64)
		seg.Key = f[col["key"]]
		seg.ShmID = num("shmid", 64)
		seg.SizeBytes = num("size", 64)
		seg.CPID = num("cpid", 64)
		seg.LPID = num("lpid", 64)
		seg.Nattch = num("nattch", 64)
		seg.UID = num("uid", 64)
		if hasRSS {
			v := num("rss", 64)
			seg.RSSBytes = &v
		}
		if hasSwap {
			v := num("swap", 64)
			seg.SwapBytes = &v
		}
		if err != nil {
			return nil, err
		}
		seg.Perms = f[col["perms"]]
		if _, e := strconv.ParseUint(seg.Perms, 8, 32); e != nil {
			return nil, parseErr(n, "expected octal perms, got %q", trunc(seg.Perms, 20))
		}
		out = append(out, seg)
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ShmID < out[j].ShmID })
	return out, nil
}

func readSysvShm(c *Collector) []snapshot.ShmSegment {
	b, err := c.Root.ReadFile(procSysvShm)
	if err != nil {
		c.Absent("memory.sysv_shm", procSysvShm, err)
		return nil
	}
	segs, err := parseSysvShm(bytes.NewReader(b))
	if err != nil {
		c.Absent("memory.sysv_shm", procSysvShm, err)
		return nil
	}
	if len(segs) == 0 {
		return segs
	}
	_, names := c.readPasswd("memory.sysv_shm.user")
	if names == nil {
		return segs
	}
	for i := range segs {
		segs[i].User = names[int(segs[i].UID)]
	}
	return segs
}
