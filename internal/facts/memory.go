package facts

import (
	"bytes"
	"fmt"
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
