package bench

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
)

// Node is one online NUMA node of this host.
type Node struct {
	ID        int
	CPUs      []int
	Distances []int // the SLIT row: one per online node, in id order
	MemKB     int64
	// NoNormal: node/has_normal_memory omits the node although it has
	// memory: its memory is in ZONE_MOVABLE only (device memory a driver
	// onlined, such as a GPU's, or hot-plugged).
	NoNormal bool
}

// MemKind labels a memory node for bench numa's rows: "dram" (the node
// has CPUs), "cpu-less" (memory without CPUs: NVM, CXL, HBM or a far
// tier, not a database's local memory), "cpu-less-movable" (and in
// ZONE_MOVABLE only: device memory such as a GPU's, or hot-plugged).
func (n Node) MemKind() string {
	switch {
	case len(n.CPUs) > 0:
		return "dram"
	case n.NoNormal:
		return "cpu-less-movable"
	}
	return "cpu-less"
}

const nodeDir = "/sys/devices/system/node"

// OnlineNodes reads this host's online NUMA nodes; a kernel without NUMA
// (no node directory) is one node 0 holding every online CPU.
func OnlineNodes() ([]Node, error) {
	b, err := os.ReadFile(nodeDir + "/online")
	if os.IsNotExist(err) {
		cpus, err := onlineCPUs()
		if err != nil {
			return nil, err
		}
		return []Node{{ID: 0, CPUs: cpus, Distances: []int{10}}}, nil
	}
	if err != nil {
		return nil, err
	}
	ids, err := cpulist.Parse(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s/online: %v", nodeDir, err)
	}
	var normal []int
	haveNormal := false
	if b, err := os.ReadFile(nodeDir + "/has_normal_memory"); err == nil {
		normal, err = cpulist.Parse(strings.TrimSpace(string(b)))
		haveNormal = err == nil
	}
	var out []Node
	for _, id := range ids {
		n := Node{ID: id}
		d := fmt.Sprintf("%s/node%d", nodeDir, id)
		if b, err := os.ReadFile(d + "/cpulist"); err == nil {
			n.CPUs, _ = cpulist.Parse(strings.TrimSpace(string(b)))
		}
		if b, err := os.ReadFile(d + "/distance"); err == nil {
			n.Distances = parseDistances(string(b))
		}
		if b, err := os.ReadFile(d + "/meminfo"); err == nil {
			n.MemKB = nodeMemTotal(string(b))
		}
		n.NoNormal = haveNormal && n.MemKB > 0 && !slices.Contains(normal, id)
		out = append(out, n)
	}
	return out, nil
}

func onlineCPUs() ([]int, error) {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil, err
	}
	return cpulist.Parse(strings.TrimSpace(string(b)))
}

func parseDistances(s string) []int {
	var out []int
	for _, f := range strings.Fields(s) {
		v, err := strconv.Atoi(f)
		if err != nil {
			return nil
		}
		out = append(out, v)
	}
	return out
}

// nodeMemTotal reads "Node N MemTotal: X kB" from a node's meminfo.
func nodeMemTotal(s string) int64 {
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) >= 4 && f[2] == "MemTotal:" {
			v, _ := strconv.ParseInt(f[3], 10, 64)
			return v
		}
	}
	return 0
}

// Distance is the SLIT distance from node a to node b, 0 when unknown.
func Distance(nodes []Node, a, b int) int {
	pos := -1
	for i, n := range nodes {
		if n.ID == b {
			pos = i
		}
	}
	for _, n := range nodes {
		// The kernel's distance row lists the online nodes in id order.
		if n.ID == a && pos >= 0 && pos < len(n.Distances) {
			return n.Distances[pos]
		}
	}
	return 0
}

// NodeByID finds a node.
func NodeByID(nodes []Node, id int) (Node, bool) {
	for _, n := range nodes {
		if n.ID == id {
			return n, true
		}
	}
	return Node{}, false
}
