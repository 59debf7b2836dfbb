package facts

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

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
