package facts

import (
	"bufio"
	"bytes"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

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
