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

// maxNumaMapsNode bounds node ids ("N<node>=") so garbage cannot allocate much.
const maxNumaMapsNode = 1 << 12

// maxNumaMapsPages bounds one mapping's page count on one node (2^36 pages
// of 4 kB is 256 TiB) and maxNumaMapsPageKB the page size (4 GiB), so that
// pages × page size stays below 2^58 and sums cannot silently wrap.
const (
	maxNumaMapsPages  = 1 << 36
	maxNumaMapsPageKB = 1 << 22
)

// parseNumaMaps sums /proc/PID/numa_maps per node, in kB, by kind. Each line
// is "<address> <policy> <token>...": every "N<node>=<pages>" token counts
// pages of the line's "kernelpagesize_kB=" size. A mapping is
//   - huge: the "huge" token (hugetlbfs, SysV SHM_HUGETLB), or a page size of
//     1 MB or more;
//   - shm: file=/SYSV..., file=/dev/shm/..., a memfd, or file=/dev/zero (a
//     shared anonymous mapping: PostgreSQL's shared buffers), not in hugepages;
//   - anon: an "anon=" token (private pages, also of file mappings), heap,
//     stack, or no backing file at all;
//   - file: any other file= mapping.
//
// Lines with pages but no page size, or with unreadable counts, are errors.
// The result is sorted by node; nodes with no pages are left out.
//
// sysv says how each SysV segment the process maps is backed, by the key in
// its file name (file=/SYSV<key as 8 hex digits>; IPC_PRIVATE segments all
// show key 0): the "huge" token marks a SHM_HUGETLB segment, whether or not
// any of its pages have been touched yet.
func parseNumaMaps(r io.Reader) (nodes []snapshot.NodeMem, sysv map[uint32]shmBacking, err error) {
	byNode := map[int]*snapshot.NodeMem{}
	sysv = map[uint32]shmBacking{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 2 {
			return nil, nil, parseErr(n, "expected \"address policy ...\", got %q", trunc(f[0], 40))
		}
		if _, err := strconv.ParseUint(f[0], 16, 64); err != nil {
			return nil, nil, parseErr(n, "expected a hex address, got %q", trunc(f[0], 40))
		}
		var (
			huge, heapStack, anon bool
			file                  string
			hasFile               bool
			pageKB                int64 = -1
			pages                       = map[int]int64{}
		)
		for _, tok := range f[2:] {
			switch {
			case tok == "huge":
				huge = true
			case tok == "heap" || tok == "stack":
				heapStack = true
			case strings.HasPrefix(tok, "anon="):
				anon = true
			case strings.HasPrefix(tok, "file="):
				file, hasFile = tok[len("file="):], true
			case strings.HasPrefix(tok, "kernelpagesize_kB="):
				v, err := strconv.ParseInt(tok[len("kernelpagesize_kB="):], 10, 64)
				if err != nil || v <= 0 || v > maxNumaMapsPageKB {
					return nil, nil, parseErr(n, "expected a page size in kB, got %q", trunc(tok, 40))
				}
				pageKB = v
			case len(tok) > 1 && tok[0] == 'N' && tok[1] >= '0' && tok[1] <= '9':
				ns, ps, ok := strings.Cut(tok[1:], "=")
				node, err1 := strconv.Atoi(ns)
				cnt, err2 := strconv.ParseInt(ps, 10, 64)
				if !ok || err1 != nil || err2 != nil || node < 0 || node > maxNumaMapsNode || cnt < 0 || cnt > maxNumaMapsPages {
					return nil, nil, parseErr(n, "expected N<node>=<pages>, got %q", trunc(tok, 40))
				}
				pages[node] += cnt
				if pages[node] > maxNumaMapsPages {
					return nil, nil, parseErr(n, "page count too large in %q", trunc(tok, 40))
				}
			}
		}
		if key, ok := sysvKey(file); ok {
			b := sysv[key]
			b.huge = b.huge || huge
			b.small = b.small || !huge
			sysv[key] = b
		}
		if len(pages) == 0 {
			continue
		}
		if pageKB < 0 {
			return nil, nil, parseErr(n, "pages per node without kernelpagesize_kB")
		}
		if pageKB >= 1024 {
			huge = true
		}
		shm := hasFile && (strings.HasPrefix(file, "/SYSV") || strings.HasPrefix(file, "/dev/shm/") || strings.HasPrefix(file, "/memfd:") || strings.HasPrefix(file, "/dev/zero"))
		for node, cnt := range pages {
			if cnt == 0 {
				continue
			}
			m := byNode[node]
			if m == nil {
				m = &snapshot.NodeMem{Node: node}
				byNode[node] = m
			}
			kb := cnt * pageKB
			switch {
			case huge:
				m.HugeKB += kb
			case shm:
				m.ShmKB += kb
			case anon || heapStack || !hasFile:
				m.AnonKB += kb
			default:
				m.FileKB += kb
			}
			m.TotalKB += kb
			if m.TotalKB < 0 {
				return nil, nil, parseErr(n, "sizes overflow")
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, parseErr(n+1, "%v", err)
	}
	out := make([]snapshot.NodeMem, 0, len(byNode))
	for _, m := range byNode {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Node < out[j].Node })
	return out, sysv, nil
}

// shmBacking is how a process maps the SysV segments of one key: with
// hugepages, without, or (IPC_PRIVATE keys shared by several segments) both.
type shmBacking struct{ huge, small bool }

// sysvKey reads the key of a SysV segment's numa_maps file name: the kernel
// names the segment's shm file "SYSV%08x" (ipc/shm.c), printed as
// "/SYSV0052e2c1\040(deleted)" once the key's file is unlinked.
func sysvKey(file string) (uint32, bool) {
	h, ok := strings.CutPrefix(file, "/SYSV")
	if !ok || len(h) < 8 || (len(h) > 8 && h[8] != '\\') {
		return 0, false
	}
	k, err := strconv.ParseUint(h[:8], 16, 32)
	return uint32(k), err == nil
}

func readMainNumaMaps(c *Collector, procs []snapshot.Process, pp *procProblems) (shmMaps map[int]map[uint32]shmBacking) {
	shmMaps = map[int]map[uint32]shmBacking{}
	read, skipped := 0, 0
	for i := range procs {
		p := &procs[i]
		if !mainRole(p.Role) {
			continue
		}
		if read >= maxNumaMapsProcs {
			skipped++
			continue
		}
		read++
		b, err := c.readProcFile("/proc/"+strconv.Itoa(p.PID)+"/numa_maps", false)
		if err != nil {
			pp.add("processes.numa", "/proc/PID/numa_maps", p.PID, err)
			continue
		}
		m, sysv, err := parseNumaMaps(bytes.NewReader(b))
		if err != nil {
			pp.add("processes.numa", "/proc/PID/numa_maps", p.PID, err)
			continue
		}
		p.NUMA = m
		if len(sysv) > 0 {
			shmMaps[p.PID] = sysv
		}
	}
	if skipped > 0 {
		c.AbsentReason("processes.numa", "/proc/PID/numa_maps",
			fmt.Sprintf("numa_maps read for the first %d main processes only; %d more skipped", maxNumaMapsProcs, skipped))
	}
	return shmMaps
}

// shmHuge says whether a SysV segment is backed by hugepages, from the
// numa_maps of the processes read (maps: PID → key → backing): a segment
// with its own key by every mapping of that key; an IPC_PRIVATE one (key 0,
// a name every private segment shares) only by the mappings of its creator
// or last attacher, and only when they are all of one kind. nil when no
// mapping tells.
func shmHuge(seg snapshot.ShmSegment, maps map[int]map[uint32]shmBacking) *bool {
	k, err := strconv.ParseInt(seg.Key, 10, 64)
	if err != nil {
		return nil
	}
	key := uint32(k) // printed as a signed int: -1 is ffffffff
	var b shmBacking
	for pid, m := range maps {
		if key == 0 && int64(pid) != seg.CPID && int64(pid) != seg.LPID {
			continue
		}
		if got, ok := m[key]; ok {
			b.huge, b.small = b.huge || got.huge, b.small || got.small
		}
	}
	if b.huge == b.small { // none, or both
		return nil
	}
	return &b.huge
}
