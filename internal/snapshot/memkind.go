package snapshot

// The kinds of memory a NUMA node holds (Node.Kind). A kind is named only
// from a kernel file that says so; NodeKindUnknown where none does.
const (
	NodeKindDRAM    = "dram"     // the node has CPUs and normal (not only movable) memory: the CPUs' system memory
	NodeKindPMEM    = "pmem"     // persistent memory (NVDIMM) onlined as system RAM: an nd region or a dax device of one targets the node
	NodeKindCXL     = "cxl"      // CXL memory: a dax device of a CXL region targets the node
	NodeKindHBM     = "hbm"      // CPU-less, HMAT gives it more read bandwidth than the CPUs' own node
	NodeKindFar     = "far"      // a slower tier: a higher memory tier than the CPUs' nodes, or HMAT less bandwidth / more latency
	NodeKindMovable = "movable"  // CPU-less, its memory in ZONE_MOVABLE only: device memory (coherent GPU memory) or hot-plugged
	NodeKindCPUOnly = "cpu-only" // CPUs and no memory (a memoryless node)
	NodeKindEmpty   = "empty"    // neither CPUs nor memory
	NodeKindUnknown = "unknown"  // the files do not tell
)

// NodeMemDetail is what the kernel says of a node's memory besides its
// size: the facts its Kind was named from.
type NodeMemDetail struct {
	// NormalMemory: node/has_normal_memory lists the node (memory the
	// kernel may use for itself); nil when that file is unreadable.
	NormalMemory *bool `json:"normal_memory,omitempty"`
	// Zones are the node's zones with present pages, from /proc/zoneinfo.
	Zones []NodeZone `json:"zones,omitempty"`
	// MemoryTier is the memory_tierN whose nodelist holds the node
	// (/sys/devices/virtual/memory_tiering, Linux 6.1+): a higher N is a
	// larger abstract distance, a slower tier.
	MemoryTier *int `json:"memory_tier,omitempty"`
	// Access are the node's HMAT access classes as a target (nodeN/access0:
	// any initiator, access1: CPU initiators only).
	Access []NodeAccess `json:"access,omitempty"`
	// MemorySideCache are the caches in front of the node's memory
	// (nodeN/memory_side_cache/indexN; 2LM: DDR caching Optane).
	MemorySideCache []MemorySideCache `json:"memory_side_cache,omitempty"`
	// Devices are the devices whose memory is onlined to the node:
	// "dax0.0 (kmem, nvdimm)", "region0 (nd)".
	Devices []string `json:"devices,omitempty"`
}

// NodeZone is one zone of a node in /proc/zoneinfo, in pages.
type NodeZone struct {
	Name    string `json:"name"` // DMA, DMA32, Normal, HighMem, Movable, Device
	Present int64  `json:"present"`
	Managed *int64 `json:"managed,omitempty"` // since Linux 3.8
}

// NodeAccess is one HMAT access class of a memory target node.
type NodeAccess struct {
	Class      int   `json:"class"`      // 0: access0, 1: access1
	Initiators []int `json:"initiators"` // the nodes of its best initiators (accessN/initiators/nodeM)
	// Read and write bandwidth (MB/s) and latency (ns) from the best
	// initiator; nil when the attribute is absent.
	ReadBandwidth  *int64 `json:"read_bandwidth,omitempty"`
	WriteBandwidth *int64 `json:"write_bandwidth,omitempty"`
	ReadLatency    *int64 `json:"read_latency,omitempty"`
	WriteLatency   *int64 `json:"write_latency,omitempty"`
}

// MemorySideCache is one level of a memory-side cache
// (nodeN/memory_side_cache/indexN).
type MemorySideCache struct {
	Level       int   `json:"level"`        // N of indexN
	SizeBytes   int64 `json:"size_bytes"`   // size
	LineSize    int64 `json:"line_size"`    // line_size, bytes
	Indexing    int64 `json:"indexing"`     // 0 direct-mapped, else indexed (associative)
	WritePolicy int64 `json:"write_policy"` // 0 write-back, 1 write-through, else other
}

// DatabaseLocal says whether a node's memory counts as a database's local
// memory: DRAM of a node with CPUs. A snapshot from before node kinds
// (Kind "") keeps the old meaning: any node.
func (n Node) DatabaseLocal() bool {
	return n.Kind == "" || n.Kind == NodeKindDRAM
}
