package facts

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// lscpuInfo is what lscpu's summary says about the topology. Pointers are nil
// when lscpu did not say (or said "-", or said two different things, as it
// does per core type on heterogeneous CPUs).
type lscpuInfo struct {
	CPUs           *int
	Online         []int // nil when not printed
	Offline        []int
	Sockets        *int
	CoresPerSocket *int
	ThreadsPerCore *int
	NUMANodes      *int
	NodeCPUs       map[int][]int // "NUMA node0 CPU(s):"
	Arch           string
}

// parseLscpu parses lscpu's summary ("Key: value" lines, possibly indented
// under section headings such as "Caches (sum of all):").
func parseLscpu(r io.Reader) (*lscpuInfo, error) {
	info := &lscpuInfo{NodeCPUs: map[int][]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 8192), 1<<20)
	conflict := map[string]bool{}
	seen := map[string]string{}
	setInt := func(n int, key, val string, dst **int) error {
		if prev, ok := seen[key]; ok {
			if prev != val {
				conflict[key] = true
			}
			return nil
		}
		seen[key] = val
		if val == "-" || val == "" {
			return nil
		}
		v, err := strconv.Atoi(val)
		if err != nil || v < 0 || v > 1<<16 {
			return parseErr(n, "%s: expected a count, got %q", key, trunc(val, 20))
		}
		*dst = &v
		return nil
	}
	setList := func(n int, key, val string) ([]int, error) {
		l, err := cpulist.Parse(val)
		if err != nil {
			return nil, parseErr(n, "%s: %v", key, err)
		}
		return l, nil
	}
	n, pairs := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			return nil, parseErr(n, "expected \"Key: value\", got %q", trunc(line, 60))
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		pairs++
		var err error
		switch {
		case key == "Architecture":
			info.Arch = val
		case key == "CPU(s)":
			err = setInt(n, key, val, &info.CPUs)
		case key == "On-line CPU(s) list":
			info.Online, err = setList(n, key, val)
		case key == "Off-line CPU(s) list":
			info.Offline, err = setList(n, key, val)
		case key == "Socket(s)":
			err = setInt(n, key, val, &info.Sockets)
		case key == "Core(s) per socket":
			err = setInt(n, key, val, &info.CoresPerSocket)
		case key == "Thread(s) per core":
			err = setInt(n, key, val, &info.ThreadsPerCore)
		case key == "NUMA node(s)":
			err = setInt(n, key, val, &info.NUMANodes)
		case strings.HasPrefix(key, "NUMA node") && strings.HasSuffix(key, " CPU(s)"):
			id, e := nodeID(strings.TrimSuffix(strings.TrimPrefix(key, "NUMA node"), " CPU(s)"))
			if e != nil {
				return nil, parseErr(n, "expected \"NUMA nodeN CPU(s):\", got %q", trunc(key, 40))
			}
			if _, dup := info.NodeCPUs[id]; dup {
				return nil, parseErr(n, "second %q line", key)
			}
			info.NodeCPUs[id], err = setList(n, key, val)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	if pairs == 0 {
		return nil, parseErr(0, "no \"Key: value\" lines")
	}
	for key := range conflict {
		switch key {
		case "CPU(s)":
			info.CPUs = nil
		case "Socket(s)":
			info.Sockets = nil
		case "Core(s) per socket":
			info.CoresPerSocket = nil
		case "Thread(s) per core":
			info.ThreadsPerCore = nil
		case "NUMA node(s)":
			info.NUMANodes = nil
		}
	}
	// Every CPU in at most one node.
	owner := map[int]int{}
	for id, cpus := range info.NodeCPUs {
		for _, cpu := range cpus {
			if o, dup := owner[cpu]; dup {
				return nil, parseErr(0, "CPU %d listed in NUMA node%d and node%d", cpu, min(o, id), max(o, id))
			}
			owner[cpu] = id
		}
	}
	return info, nil
}

// lscpuCPU is one row of `lscpu -ae`; -1 for a column that is missing or "-".
type lscpuCPU struct {
	ID, Node, Socket, Core int
	Online                 *bool // nil when there is no ONLINE column
}

// parseLscpuExtended parses `lscpu -ae` ("CPU NODE SOCKET CORE
// L1d:L1i:L2:L3 ONLINE MAXMHZ MINMHZ" and one row per CPU). Columns are found
// by the header, which differs between machines (no NODE without NUMA, BOOK
// and DRAWER on s390x). Rows are returned sorted by CPU id.
func parseLscpuExtended(r io.Reader) ([]lscpuCPU, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	col := map[string]int{}
	var header []string
	var out []lscpuCPU
	seen := map[int]bool{}
	n := 0
	for sc.Scan() {
		n++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if header == nil {
			for i, h := range f {
				if _, dup := col[h]; dup {
					return nil, parseErr(n, "column %q twice in the header", trunc(h, 20))
				}
				col[h] = i
			}
			if _, ok := col["CPU"]; !ok {
				return nil, parseErr(n, "expected a header with a CPU column (lscpu -e), got %q", trunc(sc.Text(), 60))
			}
			header = f
			continue
		}
		if len(f) != len(header) {
			return nil, parseErr(n, "%d fields for %d columns", len(f), len(header))
		}
		num := func(name string) (int, error) {
			i, ok := col[name]
			if !ok || f[i] == "-" {
				return -1, nil
			}
			v, err := strconv.Atoi(f[i])
			if err != nil || v < 0 || v > 1<<16 {
				return 0, parseErr(n, "%s: expected a number, got %q", name, trunc(f[i], 20))
			}
			return v, nil
		}
		var cp lscpuCPU
		var err error
		if cp.ID, err = num("CPU"); err != nil {
			return nil, err
		}
		if cp.ID < 0 || seen[cp.ID] {
			return nil, parseErr(n, "expected a new CPU id, got %q", trunc(f[col["CPU"]], 20))
		}
		seen[cp.ID] = true
		for name, dst := range map[string]*int{"NODE": &cp.Node, "SOCKET": &cp.Socket, "CORE": &cp.Core} {
			if *dst, err = num(name); err != nil {
				return nil, err
			}
		}
		if i, ok := col["ONLINE"]; ok {
			switch f[i] {
			case "yes":
				cp.Online = new(bool)
				*cp.Online = true
			case "no":
				cp.Online = new(bool)
			default:
				return nil, parseErr(n, "ONLINE: expected yes or no, got %q", trunc(f[i], 20))
			}
		}
		out = append(out, cp)
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	if len(out) == 0 {
		return nil, parseErr(0, "no CPU rows")
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

// cpusFromLscpuExtended fills per-CPU node, socket, core and SMT siblings from
// `lscpu -ae` rows: it creates the CPUs when there are none, and otherwise
// completes those whose socket is unknown. It reports whether every online
// CPU now has a socket and core.
func cpusFromLscpuExtended(t *snapshot.Topology, rows []lscpuCPU) bool {
	if len(t.CPUs) == 0 {
		t.CPUs = make([]snapshot.CPU, 0, len(rows))
		for _, r := range rows {
			online := r.Online != nil && *r.Online
			if r.Online == nil {
				online = contains(t.CPUsOnline, r.ID)
			}
			t.CPUs = append(t.CPUs, snapshot.CPU{ID: r.ID, Online: online, Node: -1, Socket: -1, Core: -1, Siblings: []int{}})
		}
	}
	byID := map[int]lscpuCPU{}
	for _, r := range rows {
		byID[r.ID] = r
	}
	siblings := map[[2]int][]int{}
	for _, r := range rows {
		if r.Socket >= 0 && r.Core >= 0 {
			k := [2]int{r.Socket, r.Core}
			siblings[k] = append(siblings[k], r.ID) // rows are sorted by id
		}
	}
	complete := true
	for i := range t.CPUs {
		cp := &t.CPUs[i]
		r, ok := byID[cp.ID]
		if cp.Socket < 0 && ok && r.Socket >= 0 && r.Core >= 0 {
			cp.Socket, cp.Core = r.Socket, r.Core
			cp.Siblings = append([]int{}, siblings[[2]int{r.Socket, r.Core}]...)
		}
		if cp.Node < 0 && ok && r.Node >= 0 {
			cp.Node = r.Node
		}
		if cp.Online && cp.Socket < 0 {
			complete = false
		}
	}
	return complete
}

// cpusFromLscpu makes CPU entries from lscpu's summary: ids and online state
// only (socket and core stay unknown).
func cpusFromLscpu(c *Collector, t *snapshot.Topology, l *lscpuInfo) {
	ids := append(append([]int{}, l.Online...), l.Offline...)
	if len(ids) == 0 && l.CPUs != nil {
		for i := 0; i < *l.CPUs; i++ {
			ids = append(ids, i)
		}
	}
	sort.Ints(ids)
	ids = dedupInts(ids)
	if len(ids) == 0 {
		c.AbsentReason("topology.cpus", sosLscpu, "no CPU list or count")
		return
	}
	online := l.Online
	if online == nil {
		online = t.CPUsOnline
	}
	t.CPUs = make([]snapshot.CPU, 0, len(ids))
	t.Threads = 0
	for _, id := range ids {
		cp := snapshot.CPU{ID: id, Node: -1, Socket: -1, Core: -1, Siblings: []int{}}
		cp.Online = contains(online, id)
		if cp.Online {
			t.Threads++
		}
		t.CPUs = append(t.CPUs, cp)
	}
	c.Resolve("topology.cpus")
}

// nodesFromLscpu makes nodes from lscpu's "NUMA nodeN CPU(s):" lines: CPUs
// only; memory and distances stay absent.
func nodesFromLscpu(c *Collector, l *lscpuInfo) []snapshot.Node {
	ids := make([]int, 0, len(l.NodeCPUs))
	for id := range l.NodeCPUs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]snapshot.Node, 0, len(ids))
	for _, id := range ids {
		n := snapshot.Node{ID: id, Online: true, CPUs: l.NodeCPUs[id], Hugepages: []snapshot.NodeHugepages{}}
		n.HasCPU = len(n.CPUs) > 0
		fact := fmt.Sprintf("topology.nodes[%d]", id)
		const why = "not in the sosreport (only lscpu's node CPU lists)"
		for _, f := range []string{".distances", ".mem_total_kb", ".meminfo", ".hugepages", ".has_memory"} {
			c.AbsentReason(fact+f, sosLscpu, why)
		}
		out = append(out, n)
	}
	return out
}
