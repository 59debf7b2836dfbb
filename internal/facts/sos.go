package facts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Sosreport fallbacks. A sosreport keeps copies of /proc, /sys and /etc files
// plus command outputs under sos_commands/. When a file copy is missing, the
// command output stands in for it: each fallback fills a fact only if the
// file reader recorded it absent, and then resolves that absence. If the
// fallback cannot help either, what it tried is added to the fact's absences.

func init() { register("sos", StageSos, readSos) }

// Paths of the command outputs inside a sosreport (root-relative).
const (
	sosSysctlA  = "/sos_commands/kernel/sysctl_-a"
	sosNumactl  = "/sos_commands/numa/numactl_--hardware"
	sosLscpu    = "/sos_commands/processor/lscpu"
	sosLscpuAE  = "/sos_commands/processor/lscpu_-ae"
	sosHostname = "/hostname"
	sosUname    = "/uname"
	sosUnameA   = "/sos_commands/kernel/uname_-a"
)

func readSos(c *Collector) {
	if !c.Root.Sos {
		return
	}
	sysctlA := sosSysctl(c)
	sosHost(c, sysctlA)
	sosTopology(c)
}

// sosSysctl fills curated sysctl keys from sysctl -a output; it returns the
// parsed output (nil when unreadable) for the other fallbacks.
func sosSysctl(c *Collector) map[string]string {
	var missing []string
	for _, key := range SysctlKeys {
		if _, ok := c.Snap.Sysctl[key]; !ok && c.IsAbsent("sysctl."+key) {
			missing = append(missing, key)
		}
	}
	b, err := c.Root.ReadFile(sosSysctlA)
	var m map[string]string
	if err == nil {
		m, err = ParseSysctlA(bytes.NewReader(b))
	}
	if err != nil {
		for _, key := range missing {
			c.Absent("sysctl."+key, sosSysctlA, err)
		}
		return nil
	}
	if c.Snap.Sysctl == nil {
		c.Snap.Sysctl = map[string]string{}
	}
	for _, key := range missing {
		if v, ok := m[key]; ok {
			c.Snap.Sysctl[key] = v
			c.Resolve("sysctl." + key)
		} else {
			c.AbsentReason("sysctl."+key, sosSysctlA, "not in the sysctl -a output either")
		}
	}
	return m
}

// parseUname parses `uname -a` output ("Linux db1 5.14.0-362.el9.x86_64 #1
// SMP PREEMPT_DYNAMIC ... x86_64 x86_64 x86_64 GNU/Linux") into the node
// name, the kernel release and, when recognisable, the machine.
func parseUname(s string) (node, release, machine string, err error) {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	f := strings.Fields(line)
	if len(f) < 3 {
		return "", "", "", parseErr(1, "expected \"KERNEL-NAME NODENAME RELEASE ...\" (uname -a), got %q", trunc(line, 60))
	}
	node, release = f[1], f[2]
	if len(f) >= 5 && f[len(f)-1] == "GNU/Linux" {
		if m := f[len(f)-2]; unameMachines[m] {
			machine = m
		}
	}
	return node, release, machine, nil
}

var unameMachines = map[string]bool{"x86_64": true, "aarch64": true, "ppc64le": true, "ppc64": true, "s390x": true, "i686": true, "i386": true, "armv7l": true, "riscv64": true}

// validHostname accepts one word without control characters.
func validHostname(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// sosHost fills host name and kernel release from the top-level hostname
// and uname files (or sysctl -a) when /proc/sys copies were missing.
func sosHost(c *Collector, sysctlA map[string]string) {
	h := &c.Snap.Host
	var uname struct{ node, release, machine, path string }
	var unameErr error
	for _, p := range []string{sosUname, sosUnameA} {
		s, err := c.Root.ReadString(p)
		if err != nil {
			if unameErr == nil {
				unameErr = err
			}
			continue
		}
		uname.node, uname.release, uname.machine, err = parseUname(s)
		if err != nil {
			unameErr = err
			continue
		}
		uname.path = p
		break
	}
	if h.Arch == "" && uname.machine != "" {
		h.Arch = uname.machine
	}
	if c.IsAbsent("host.hostname") {
		switch s, err := c.Root.ReadString(sosHostname); {
		case err == nil && validHostname(s):
			h.Hostname = s
			c.Resolve("host.hostname")
		case validHostname(sysctlA["kernel.hostname"]):
			h.Hostname = sysctlA["kernel.hostname"]
			c.Resolve("host.hostname")
		case uname.path != "" && validHostname(uname.node):
			h.Hostname = uname.node
			c.Resolve("host.hostname")
		case err != nil:
			c.Absent("host.hostname", sosHostname, err)
		default:
			c.AbsentReason("host.hostname", sosHostname, fmt.Sprintf("malformed: expected one host name, got %q", trunc(s, 40)))
		}
	}
	if c.IsAbsent("host.kernel") {
		switch {
		case uname.path != "":
			h.Kernel = uname.release
			c.Resolve("host.kernel")
		case sysctlA["kernel.osrelease"] != "":
			h.Kernel = sysctlA["kernel.osrelease"]
			c.Resolve("host.kernel")
		default:
			c.Absent("host.kernel", sosUname, unameErr)
		}
	}
}

// numactlNode is one node of `numactl --hardware`. Sizes are in MB as numactl
// prints them; nil when the line is missing.
type numactlNode struct {
	ID        int
	CPUs      []int
	SizeMB    *int64
	FreeMB    *int64
	Distances []int // ordered by node id, like the nodes
}

// errNoNUMA is numactl's "No NUMA available on this system".
var errNoNUMA = &ParseError{Msg: "numactl says: No NUMA available on this system"}

// parseNumactlHardware parses `numactl --hardware` output:
//
//	available: 2 nodes (0-1)
//	node 0 cpus: 0 1 2 3
//	node 0 size: 32156 MB
//	node 0 free: 1234 MB
//	...
//	node distances:
//	node   0   1
//	  0:  10  21
//	  1:  21  10
//
// Nodes are returned sorted by id, each distance row ordered by node id.
func parseNumactlHardware(r io.Reader) ([]numactlNode, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	nodes := map[int]*numactlNode{}
	get := func(id int) *numactlNode {
		n := nodes[id]
		if n == nil {
			n = &numactlNode{ID: id, CPUs: []int{}}
			nodes[id] = n
		}
		return n
	}
	var (
		avail     []int // from "available:"
		haveAvail bool
		header    []int // node ids of the distance matrix columns
		inDist    bool
		rows      = map[int][]int{}
	)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "No NUMA available") {
			return nil, errNoNUMA
		}
		f := strings.Fields(line)
		switch {
		case f[0] == "available:":
			// "available: 2 nodes (0-1)"
			if haveAvail || len(f) != 4 || (f[2] != "nodes" && f[2] != "node") || !strings.HasPrefix(f[3], "(") || !strings.HasSuffix(f[3], ")") {
				return nil, parseErr(n, "expected \"available: N nodes (LIST)\", got %q", trunc(line, 60))
			}
			cnt, err := strconv.Atoi(f[1])
			ids, err2 := cpulist.Parse(f[3][1 : len(f[3])-1])
			if err != nil || err2 != nil || cnt != len(ids) {
				return nil, parseErr(n, "expected \"available: N nodes (LIST)\" with N ids in LIST, got %q", trunc(line, 60))
			}
			avail, haveAvail = ids, true
		case line == "node distances:":
			if inDist {
				return nil, parseErr(n, "second \"node distances:\"")
			}
			inDist = true
		case inDist && f[0] == "node" && header == nil:
			// "node   0   1"
			seen := map[int]bool{}
			for _, w := range f[1:] {
				id, err := nodeID(w)
				if err != nil || seen[id] {
					return nil, parseErr(n, "expected node ids in the distance header, got %q", trunc(w, 20))
				}
				seen[id] = true
				header = append(header, id)
			}
			if len(header) == 0 {
				return nil, parseErr(n, "empty distance header")
			}
		case inDist && header != nil && strings.HasSuffix(f[0], ":"):
			// "  0:  10  21"
			id, err := nodeID(strings.TrimSuffix(f[0], ":"))
			if err != nil {
				return nil, parseErr(n, "expected \"N: distances\", got %q", trunc(line, 60))
			}
			if _, dup := rows[id]; dup {
				return nil, parseErr(n, "second distance row for node %d", id)
			}
			if len(f)-1 != len(header) {
				return nil, parseErr(n, "node %d: %d distances for %d nodes", id, len(f)-1, len(header))
			}
			d, err := parseDistances(strings.Join(f[1:], " "))
			if err != nil {
				msg := err.Error()
				if pe := (*ParseError)(nil); errors.As(err, &pe) {
					msg = pe.Msg
				}
				return nil, parseErr(n, "node %d: %s", id, msg)
			}
			rows[id] = d
		case !inDist && f[0] == "node" && len(f) >= 3:
			id, err := nodeID(f[1])
			if err != nil {
				return nil, parseErr(n, "expected a node id, got %q", trunc(f[1], 20))
			}
			nd := get(id)
			switch f[2] {
			case "cpus:":
				var cpus []int
				for _, w := range f[3:] {
					v, err := strconv.Atoi(w)
					if err != nil || v < 0 || v > 1<<16 {
						return nil, parseErr(n, "node %d: expected CPU ids, got %q", id, trunc(w, 20))
					}
					cpus = append(cpus, v)
				}
				sort.Ints(cpus)
				nd.CPUs = dedupInts(cpus)
			case "size:", "free:":
				if len(f) != 5 || f[4] != "MB" {
					return nil, parseErr(n, "expected \"node N %s M MB\", got %q", f[2], trunc(line, 60))
				}
				v, err := strconv.ParseInt(f[3], 10, 64)
				if err != nil || v < 0 || v > 1<<40 {
					return nil, parseErr(n, "node %d: expected a size in MB, got %q", id, trunc(f[3], 20))
				}
				if f[2] == "size:" {
					nd.SizeMB = &v
				} else {
					nd.FreeMB = &v
				}
			default:
				return nil, parseErr(n, "unexpected %q", trunc(line, 60))
			}
		default:
			return nil, parseErr(n, "expected numactl --hardware output, got %q", trunc(line, 60))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	if haveAvail {
		for _, id := range avail {
			get(id)
		}
		for id := range nodes {
			if !contains(avail, id) {
				return nil, parseErr(0, "node %d is not in the available list %v", id, avail)
			}
		}
	}
	if len(nodes) == 0 {
		return nil, parseErr(0, "no nodes")
	}
	ids := make([]int, 0, len(nodes))
	for id := range nodes {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	out := make([]numactlNode, 0, len(ids))
	for _, id := range ids {
		out = append(out, *nodes[id])
	}
	if header != nil {
		// Reorder the matrix by node id; it must cover exactly the nodes.
		if len(header) != len(ids) || len(rows) != len(ids) {
			return nil, parseErr(0, "distance matrix is %dx%d for %d nodes", len(rows), len(header), len(ids))
		}
		col := map[int]int{}
		for i, id := range header {
			col[id] = i
		}
		for i := range out {
			row, ok := rows[out[i].ID]
			if !ok {
				return nil, parseErr(0, "no distance row for node %d", out[i].ID)
			}
			d := make([]int, len(ids))
			for j, id := range ids {
				k, ok := col[id]
				if !ok {
					return nil, parseErr(0, "no distance column for node %d", id)
				}
				d[j] = row[k]
			}
			out[i].Distances = d
		}
	}
	return out, nil
}

func nodeID(s string) (int, error) {
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > 1<<16 {
		return 0, fmt.Errorf("bad node id %q", s)
	}
	return v, nil
}

func dedupInts(s []int) []int {
	out := []int{}
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

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

// recountTopology recomputes sockets, cores and threads from the CPUs.
func recountTopology(t *snapshot.Topology) {
	sockets := map[int]bool{}
	cores := map[[3]int]bool{}
	t.Threads = 0
	for _, cp := range t.CPUs {
		if cp.Socket >= 0 {
			sockets[cp.Socket] = true
			if cp.Core >= 0 {
				cores[[3]int{cp.Socket, cp.Die, cp.Core}] = true
			}
		}
		if cp.Online {
			t.Threads++
		}
	}
	t.Sockets, t.Cores = len(sockets), len(cores)
}

// sosTopology fills nodes from numactl --hardware (or lscpu's node lines),
// and CPUs, sockets and cores from lscpu -ae (per CPU) or lscpu's summary,
// when /sys copies were missing.
func sosTopology(c *Collector) {
	t := &c.Snap.Topology
	needNodes := len(t.Nodes) == 0 && c.IsAbsent("topology.nodes")
	needCPUs := len(t.CPUs) == 0 && c.IsAbsent("topology.cpus")
	needOnline := len(t.CPUsOnline) == 0 && c.IsAbsent("topology.cpus_online")
	needSocket := c.IsAbsent("topology.cpus.socket") // CPUs without topology
	needSockets := t.Sockets == 0
	if !needNodes && !needCPUs && !needOnline && !needSocket && !needSockets {
		return
	}

	var lscpu *lscpuInfo
	b, lerr := c.Root.ReadFile(sosLscpu)
	if lerr == nil {
		lscpu, lerr = parseLscpu(bytes.NewReader(b))
	}
	var ae []lscpuCPU
	b, aerr := c.Root.ReadFile(sosLscpuAE)
	if aerr == nil {
		ae, aerr = parseLscpuExtended(bytes.NewReader(b))
	}

	if needNodes {
		b, err := c.Root.ReadFile(sosNumactl)
		var nn []numactlNode
		if err == nil {
			nn, err = parseNumactlHardware(bytes.NewReader(b))
		}
		switch {
		case err == nil:
			c.Resolve("topology.nodes")
			t.NUMAEnabled = true
			t.Nodes = nodesFromNumactl(c, nn)
		case errors.Is(err, errNoNUMA):
			c.AbsentReason("topology.nodes", sosNumactl, "numactl --hardware: No NUMA available on this system")
		case lscpu != nil && len(lscpu.NodeCPUs) > 0:
			c.Resolve("topology.nodes")
			t.NUMAEnabled = true
			t.Nodes = nodesFromLscpu(c, lscpu)
		default:
			c.Absent("topology.nodes", sosNumactl, err)
		}
	}

	if needOnline {
		switch {
		case lscpu != nil && lscpu.Online != nil:
			t.CPUsOnline = lscpu.Online
			c.Resolve("topology.cpus_online")
		case ae != nil && ae[0].Online != nil:
			t.CPUsOnline = []int{}
			for _, r := range ae {
				if *r.Online {
					t.CPUsOnline = append(t.CPUsOnline, r.ID)
				}
			}
			c.Resolve("topology.cpus_online")
		case lscpu != nil:
			c.AbsentReason("topology.cpus_online", sosLscpu, "no \"On-line CPU(s) list\" line")
		default:
			c.Absent("topology.cpus_online", sosLscpu, lerr)
		}
	}

	perCPU, usedAE := false, false // socket and core of every online CPU known
	switch {
	case needCPUs && ae != nil:
		perCPU, usedAE = cpusFromLscpuExtended(t, ae), true
		c.Resolve("topology.cpus")
	case needCPUs && lscpu != nil:
		cpusFromLscpu(c, t, lscpu)
	case needCPUs:
		c.Absent("topology.cpus", sosLscpu, lerr)
	case needSocket && ae != nil:
		perCPU, usedAE = cpusFromLscpuExtended(t, ae), true
	}
	if usedAE {
		if perCPU {
			c.Resolve("topology.cpus.socket")
		} else {
			c.AbsentReason("topology.cpus.socket", sosLscpuAE, "lscpu -ae does not give the socket and core of every online CPU")
		}
		recountTopology(t)
	} else if needCPUs && len(t.CPUs) > 0 {
		if aerr != nil && !errors.Is(aerr, fs.ErrNotExist) {
			c.Absent("topology.cpus.socket", sosLscpuAE, aerr)
		}
		c.AbsentReason("topology.cpus.socket", sosLscpu, "per-CPU socket, core and SMT siblings are not in lscpu's summary (no /sys/devices/system/cpu copy, no lscpu -ae)")
	}
	if t.Sockets == 0 && lscpu != nil && lscpu.Sockets != nil && *lscpu.Sockets > 0 {
		t.Sockets = *lscpu.Sockets
		if t.Cores == 0 && lscpu.CoresPerSocket != nil {
			t.Cores = *lscpu.Sockets * *lscpu.CoresPerSocket
		}
	}
	if t.Threads == 0 && lscpu != nil && lscpu.Online != nil {
		t.Threads = len(lscpu.Online)
	}
	assignNodes(t)
	if len(t.Nodes) == 0 && lscpu != nil {
		// No node list at all: lscpu's node lines still say where each CPU is.
		for i := range t.CPUs {
			for id, cpus := range lscpu.NodeCPUs {
				if t.CPUs[i].Node < 0 && contains(cpus, t.CPUs[i].ID) {
					t.CPUs[i].Node = id
				}
			}
		}
	}
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

// nodesFromNumactl turns numactl's nodes into snapshot nodes. numactl shows
// memory in MB (so kB values are multiples of 1024) and no hugepages.
func nodesFromNumactl(c *Collector, nn []numactlNode) []snapshot.Node {
	out := make([]snapshot.Node, 0, len(nn))
	for _, x := range nn {
		n := snapshot.Node{ID: x.ID, Online: true, CPUs: x.CPUs, Distances: x.Distances, Hugepages: []snapshot.NodeHugepages{}}
		fact := fmt.Sprintf("topology.nodes[%d]", x.ID)
		if x.SizeMB != nil {
			v := *x.SizeMB * 1024
			n.MemTotalKB = &v
		} else {
			c.AbsentReason(fact+".mem_total_kb", sosNumactl, "no \"size:\" line")
		}
		if x.FreeMB != nil {
			v := *x.FreeMB * 1024
			n.MemFreeKB = &v
		} else {
			c.AbsentReason(fact+".mem_free_kb", sosNumactl, "no \"free:\" line")
		}
		if x.Distances == nil {
			c.AbsentReason(fact+".distances", sosNumactl, "no \"node distances:\" matrix")
		}
		n.HasCPU = len(n.CPUs) > 0
		n.HasMemory = n.MemTotalKB != nil && *n.MemTotalKB > 0
		c.AbsentReason(fact+".meminfo", sysNode, "not in the sosreport (numactl --hardware gives only size and free)")
		c.AbsentReason(fact+".hugepages", sysNode, "not in the sosreport (numactl --hardware does not show hugepages)")
		out = append(out, n)
	}
	return out
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

// assignNodes sets the node of CPUs that have none from the nodes' CPU lists.
func assignNodes(t *snapshot.Topology) {
	if len(t.Nodes) == 0 {
		return
	}
	owner := map[int]int{}
	for _, n := range t.Nodes {
		for _, id := range n.CPUs {
			owner[id] = n.ID
		}
	}
	for i := range t.CPUs {
		if t.CPUs[i].Node < 0 {
			if id, ok := owner[t.CPUs[i].ID]; ok {
				t.CPUs[i].Node = id
			}
		}
	}
}
