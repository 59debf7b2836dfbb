// Package snapshot defines the versioned Snapshot of a host's facts: the one
// thing every later stage (audit, plan, placement, bench, report) reads.
//
// Conventions (see docs/snapshot.md):
//   - A fact that could not be read is never a guessed zero. Scalar facts that
//     may be missing are pointers (JSON null or omitted) and the reason is
//     recorded once in Snapshot.Absent, keyed by the fact's dotted name.
//   - Sizes are in kB ("_kb"), frequencies in kHz, latencies in µs, unless the
//     field name says otherwise.
//   - Lists are sorted (CPUs and nodes by id, devices by name) so that output is
//     deterministic and a saved snapshot round-trips byte for byte.
package snapshot

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// SchemaVersion is bumped on any incompatible change of the JSON form.
// Version 2 made cpuidle states' residency_us and disabled nullable (kernels
// before 3.15 have no residency file, before 3.5 no disable file). Version 3
// added databases[] (settings read from live PostgreSQL and MySQL/MariaDB
// servers): a dbhost that reads version 2 would refuse the new section as an
// unknown field, so the version says it first. Parse still reads versions 1
// and 2, whose every field means the same.
const SchemaVersion = 3

// oldestReadable is the oldest schema version Parse upgrades on reading.
const oldestReadable = 1

// Snapshot is everything dbhost knows about one host at one moment.
type Snapshot struct {
	SchemaVersion int       `json:"schema_version"`
	CollectedAt   time.Time `json:"collected_at"`
	Source        Source    `json:"source"`
	Host          Host      `json:"host"`
	Topology      Topology  `json:"topology"`
	Memory        Memory    `json:"memory"`
	CPUPower      CPUPower  `json:"cpu_power"`
	Storage       Storage   `json:"storage"`
	Network       Network   `json:"network"`
	IRQs          IRQs      `json:"irqs"`
	CPULoad       CPULoad   `json:"cpu_load"`
	Cgroups       Cgroups   `json:"cgroups"`
	Config        Config    `json:"config"`
	Processes     []Process `json:"processes"`
	// Databases are the database servers read over a connection (--pg,
	// --mysql, or the local clusters --db postgres|mysql found as root);
	// omitted when none was asked for.
	Databases []Database `json:"databases,omitempty"`
	// AIX is what an AIX bundle holds (--aix-bundle): nil on Linux. With it
	// the Linux sections are absent with the reason (an AIX host has no
	// /proc/meminfo or /sys), never zero (aix.go, docs/snapshot.md).
	AIX *AIX `json:"aix,omitempty"`
	// Libvirt holds the KVM guests defined on this hypervisor host
	// (--libvirt, libvirt.go); omitted when they were not asked for.
	Libvirt *Libvirt `json:"libvirt,omitempty"`
	// PCIDevices are the PCI functions that carry the host's I/O (pci.go):
	// network controllers, mass-storage controllers (SCSI, SAS, RAID, SATA,
	// NVMe) and Fibre Channel HBAs, from /sys/bus/pci/devices; omitted when
	// there is none (their absence, when unread, is "pci_devices").
	PCIDevices []PCIDevice `json:"pci_devices,omitempty"`
	// Sysctl holds the kernel parameters the sources name, keyed as sysctl(8)
	// spells them ("vm.swappiness"); values are the kernel's text with runs of
	// whitespace collapsed to one space. A key that does not exist on this
	// kernel is absent from the map and listed in Absent as "sysctl.<key>".
	Sysctl map[string]string `json:"sysctl"`
	// Absent lists every fact that could not be read, and why.
	Absent []Absence `json:"absent"`
}

// Source says where the facts came from.
type Source struct {
	Kind      string `json:"kind"` // live | root | sosreport | aix-bundle
	Path      string `json:"path,omitempty"`
	Collector string `json:"collector"` // dbhost version that collected
	User      string `json:"user,omitempty"`
	Root      bool   `json:"root"` // collected with uid 0 (reduced facts otherwise)
}

// Absence explains why a fact is missing.
type Absence struct {
	Fact   string `json:"fact"`           // dotted fact name, e.g. "memory.thp.enabled"
	Path   string `json:"path,omitempty"` // file that was tried, relative to the root
	Reason string `json:"reason"`         // "not present on this host", "permission denied (run as root)", "malformed: line 3: ..."
}

// Host identifies the machine.
type Host struct {
	Hostname    string `json:"hostname"`
	Kernel      string `json:"kernel"` // kernel release (uname -r)
	OS          string `json:"os"`     // PRETTY_NAME from os-release
	OSID        string `json:"os_id,omitempty"`
	OSVersionID string `json:"os_version_id,omitempty"`
	Arch        string `json:"arch,omitempty"`
	// Cmdline is the kernel command line; CmdlineArgs its parsed form (key →
	// value, "" for flags; a repeated key keeps its last value, as the kernel does).
	Cmdline     string            `json:"cmdline"`
	CmdlineArgs map[string]string `json:"cmdline_args"`
	Virt        Virt              `json:"virt"`
}

// Virt describes virtualization as seen from inside.
type Virt struct {
	Hypervisor bool   `json:"hypervisor"`            // "hypervisor" flag in /proc/cpuinfo
	Guest      bool   `json:"guest"`                 // any evidence this is a guest
	Type       string `json:"type,omitempty"`        // kvm, vmware, hyperv, xen, powervm, ... when known
	DMIVendor  string `json:"dmi_vendor,omitempty"`  // /sys/class/dmi/id/sys_vendor
	DMIProduct string `json:"dmi_product,omitempty"` // /sys/class/dmi/id/product_name
	Evidence   string `json:"evidence,omitempty"`
	// KVMGuests counts the QEMU/KVM guest processes running here (qemu-kvm,
	// qemu-system-*): this host is a hypervisor when it is above 0; nil when
	// the processes were not scanned.
	KVMGuests *int `json:"kvm_guests,omitempty"`
}

// Topology is the NUMA and CPU layout. Field names here are a contract.
type Topology struct {
	Nodes   []Node `json:"nodes"`
	Sockets int    `json:"sockets"`
	Cores   int    `json:"cores"`   // physical cores (distinct socket/core pairs)
	Threads int    `json:"threads"` // online logical CPUs
	CPUs    []CPU  `json:"cpus"`
	// CPUsOnline, CPUsPossible, CPUsPresent as read from /sys/devices/system/cpu.
	CPUsOnline   []int `json:"cpus_online"`
	CPUsPossible []int `json:"cpus_possible,omitempty"`
	// NUMAEnabled is false when the kernel shows no NUMA information at all
	// (no /sys/devices/system/node), e.g. CONFIG_NUMA=n.
	NUMAEnabled bool `json:"numa_enabled"`
	// NUMADisabled lists evidence that NUMA is turned off or hidden although the
	// hardware has several sockets: "cmdline numa=off", "1 node for 2 sockets".
	NUMADisabled []string `json:"numa_disabled,omitempty"`
	// SMTActive is /sys/devices/system/cpu/smt/active when present.
	SMTActive *bool `json:"smt_active,omitempty"`
	// Sources records each fallback the reader took: the fact and the file
	// it came from when the file read first was not there (nodeN/cpumap for
	// nodeN/cpulist, thread_siblings for thread_siblings_list, ...).
	Sources []TopologySource `json:"sources,omitempty"`
	// Contradictions lists kernel files that disagree, which one dbhost
	// believed, and why; the facts above hold the believed values.
	Contradictions []Contradiction `json:"contradictions,omitempty"`
	// CoreTypes is the kind of core each CPU is (hybrid CPUs: Intel's
	// cpu_core/cpu_atom PMUs, ARM's cpu_capacity); nil in a snapshot of a
	// dbhost that did not read it, which is "unknown".
	CoreTypes *CoreTypes `json:"core_types,omitempty"`
}

// Core type kinds and classes (CoreTypes.Kind, CoreType.Class).
const (
	CoreKindHybrid  = "hybrid"  // CPUs of two or more core types
	CoreKindUniform = "uniform" // one core type, by the evidence named
	CoreKindUnknown = "unknown" // no file tells

	CoreClassPerformance  = "performance"  // Intel cpu_core, the highest cpu_capacity
	CoreClassIntermediate = "intermediate" // a cpu_capacity between the highest and the lowest (DynamIQ's middle cores)
	CoreClassEfficiency   = "efficiency"   // Intel cpu_atom and cpu_lowpower, the lowest cpu_capacity
)

// CoreTypes says which CPUs are performance and which efficiency cores.
type CoreTypes struct {
	Kind string `json:"kind"` // hybrid | uniform | unknown
	// Evidence names the files that decided Kind (or why none could).
	Evidence string `json:"evidence"`
	// Types are the core types, fastest first (empty unless hybrid or
	// one hybrid PMU lists every CPU).
	Types []CoreType `json:"types,omitempty"`
	// Unlisted are online CPUs no type's file names (left unclassified).
	Unlisted []int `json:"unlisted,omitempty"`
	// Contradiction: CPUs two type files both name (left unclassified).
	Contradiction string `json:"contradiction,omitempty"`
}

// CoreType is one core type and its CPUs.
type CoreType struct {
	Class string `json:"class"` // performance | intermediate | efficiency
	// Name is the kernel's: the PMU ("cpu_core", "cpu_atom",
	// "cpu_lowpower") or "capacity N".
	Name     string `json:"name"`
	Source   string `json:"source"`             // the file(s) read: /sys/devices/cpu_core/cpus, /sys/devices/system/cpu/cpuN/cpu_capacity
	Capacity int    `json:"capacity,omitempty"` // cpu_capacity (1..1024), ARM
	CPUs     []int  `json:"cpus"`
}

// CoreClass is a CPU's core class ("performance", "intermediate",
// "efficiency"); ok is false when the snapshot does not know it.
func (t *Topology) CoreClass(cpu int) (class string, ok bool) {
	if t.CoreTypes == nil || t.CoreTypes.Kind != CoreKindHybrid {
		return "", false
	}
	for _, ty := range t.CoreTypes.Types {
		if slices.Contains(ty.CPUs, cpu) {
			return ty.Class, true
		}
	}
	return "", false
}

// NodeSpanningPackages is the positive evidence of one NUMA node for
// several packages (numa=off, or firmware interleaving memory): the first
// node whose CPUs belong to more than one package, and those packages. ok
// is false when there is none or the facts cannot show it: a node's CPU
// list or a CPU's package unknown, or a contradiction about either.
func (t *Topology) NodeSpanningPackages() (n Node, packages []int, ok bool) {
	for _, x := range t.Contradictions {
		if x.Fact == "nodes.cpus" || x.Fact == "cpus.socket" {
			return Node{}, nil, false
		}
	}
	socket := make(map[int]int, len(t.CPUs))
	for _, cp := range t.CPUs {
		socket[cp.ID] = cp.Socket
	}
	for _, node := range t.Nodes {
		var pk []int
		for _, id := range node.CPUs {
			s, known := socket[id]
			if !known || s < 0 {
				pk = nil
				break
			}
			if !slices.Contains(pk, s) {
				pk = append(pk, s)
			}
		}
		if len(pk) > 1 {
			slices.Sort(pk)
			return node, pk, true
		}
	}
	return Node{}, nil, false
}

// TopologySource is one fallback of the topology reader.
type TopologySource struct {
	Fact  string `json:"fact"`  // "nodes.cpus", "cpus.online", "cpus.siblings", "cpus.socket"
	File  string `json:"file"`  // the file the fact came from: "nodeN/cpumap"
	Why   string `json:"why"`   // "no nodeN/cpulist"
	Items []int  `json:"items"` // the nodes or CPUs it concerns
}

// Contradiction is two kernel sources that disagree about one fact.
type Contradiction struct {
	Fact     string   `json:"fact"`     // "nodes.has_cpu", "nodes.cpus", "cpus.socket"
	Files    []string `json:"files"`    // the files that disagree
	Detail   string   `json:"detail"`   // what each says
	Believed string   `json:"believed"` // the file whose value the snapshot holds, or "" when neither
	Kind     string   `json:"kind"`     // "kernel" (the files disagree), "firmware" (the firmware's tables are wrong)
}

// Node is one NUMA node.
type Node struct {
	ID         int    `json:"id"`
	Online     bool   `json:"online"`
	HasCPU     bool   `json:"has_cpu"`
	HasMemory  bool   `json:"has_memory"`
	CPUs       []int  `json:"cpus"`      // sorted
	Distances  []int  `json:"distances"` // SLIT row, ordered by node id (same order as Topology.Nodes)
	MemTotalKB *int64 `json:"mem_total_kb"`
	MemFreeKB  *int64 `json:"mem_free_kb"`
	MemUsedKB  *int64 `json:"mem_used_kb,omitempty"`
	// Meminfo is the node's full meminfo (Node N X: values), kB or pages as the kernel prints.
	Meminfo   map[string]int64 `json:"meminfo,omitempty"`
	Hugepages []NodeHugepages  `json:"hugepages"`
	// Kind is what the node's memory is (NodeKind* in memkind.go), named
	// from the files KindEvidence quotes; "unknown" when none tells.
	Kind         string         `json:"kind,omitempty"`
	KindEvidence []string       `json:"kind_evidence,omitempty"`
	MemDetail    *NodeMemDetail `json:"mem_detail,omitempty"`
}

// NodeHugepages is one hugepage size's pool on one node.
type NodeHugepages struct {
	SizeKB  int64 `json:"size_kb"`
	Total   int64 `json:"total"`
	Free    int64 `json:"free"`
	Surplus int64 `json:"surplus"`
}

// CPU is one logical CPU.
type CPU struct {
	ID       int   `json:"id"`
	Online   bool  `json:"online"`
	Node     int   `json:"node"`   // -1 when the kernel shows no node for it
	Socket   int   `json:"socket"` // physical_package_id; -1 when unknown
	Core     int   `json:"core"`   // core_id (unique only within a socket); -1 when unknown
	Die      int   `json:"die,omitempty"`
	Siblings []int `json:"siblings"` // SMT siblings incl. itself (thread_siblings_list)
}

// Memory holds system-wide memory facts.
type Memory struct {
	// Meminfo is /proc/meminfo: values in kB for sized fields, plain counts for HugePages_*.
	Meminfo   map[string]int64 `json:"meminfo"`
	Hugepages []Hugepages      `json:"hugepages"` // one per supported size, from /sys/kernel/mm/hugepages
	THP       THP              `json:"thp"`
	// Vmstat is /proc/vmstat (all counters; the NUMA ones are numa_hit, numa_miss,
	// numa_foreign, numa_interleave, numa_local, numa_other, numa_pages_migrated,
	// pgmigrate_success, pgmigrate_fail, numa_hint_faults, numa_hint_faults_local, ...).
	Vmstat map[string]int64 `json:"vmstat"`
	// SysVShm lists System V shared memory segments (/proc/sysvipc/shm).
	SysVShm []ShmSegment `json:"sysv_shm"`
}

// Hugepages is one hugepage size's global pool.
type Hugepages struct {
	SizeKB     int64 `json:"size_kb"`
	Total      int64 `json:"total"`      // nr_hugepages
	Free       int64 `json:"free"`       // free_hugepages
	Surplus    int64 `json:"surplus"`    // surplus_hugepages
	Reserved   int64 `json:"reserved"`   // resv_hugepages
	Overcommit int64 `json:"overcommit"` // nr_overcommit_hugepages
	Default    bool  `json:"default"`    // the size of Hugepagesize in meminfo
}

// THP is transparent hugepage configuration. Selected values are the bracketed choices.
type THP struct {
	// Dir is the directory the values were read from:
	// /sys/kernel/mm/transparent_hugepage, or RHEL 6's
	// /sys/kernel/mm/redhat_transparent_hugepage; "" when neither exists.
	Dir              string   `json:"dir,omitempty"`
	Enabled          *string  `json:"enabled"`
	EnabledOptions   []string `json:"enabled_options,omitempty"`
	Defrag           *string  `json:"defrag"`
	DefragOptions    []string `json:"defrag_options,omitempty"`
	ShmemEnabled     *string  `json:"shmem_enabled,omitempty"`
	KhugepagedDefrag *int64   `json:"khugepaged_defrag,omitempty"`
}

// ShmSegment is one SysV shared memory segment.
type ShmSegment struct {
	Key       string `json:"key"` // as printed (decimal)
	ShmID     int64  `json:"shmid"`
	Perms     string `json:"perms"`
	SizeBytes int64  `json:"size_bytes"`
	CPID      int64  `json:"cpid"`
	LPID      int64  `json:"lpid"`
	Nattch    int64  `json:"nattch"`
	UID       int64  `json:"uid"`
	User      string `json:"user,omitempty"` // resolved from the root's /etc/passwd when possible
	// Huge is true when the segment is backed by hugepages (SHM_HUGETLB),
	// from the numa_maps of the processes mapping it; nil when unknown
	// (/proc/sysvipc/shm does not say).
	Huge *bool `json:"huge,omitempty"`
	// RSSBytes and SwapBytes are the resident and swapped-out bytes of the
	// segment (the rss/swap columns, Linux 4.5+); nil on kernels without them.
	RSSBytes  *int64 `json:"rss_bytes,omitempty"`
	SwapBytes *int64 `json:"swap_bytes,omitempty"`
}

// CPUPower holds frequency and idle-state facts.
type CPUPower struct {
	Cpufreq         []CPUFreq    `json:"cpufreq"` // one per CPU that has a cpufreq directory
	IntelPstate     *IntelPstate `json:"intel_pstate,omitempty"`
	CpuidleDriver   *string      `json:"cpuidle_driver"`
	CpuidleGovernor *string      `json:"cpuidle_governor,omitempty"`
	Cpuidle         []CPUIdle    `json:"cpuidle"` // one per CPU that has a cpuidle directory
	// CmdlineLimits are kernel arguments that limit C-/P-states, as found on the
	// command line: intel_idle.max_cstate, intel_idle.states_off, processor.max_cstate, processor_idle.max_cstate,
	// idle, cpuidle.off, cpuidle.governor, intel_pstate, amd_pstate, processor.ignore_ppc,
	// cpufreq.off, cpufreq.default_governor.
	CmdlineLimits map[string]string `json:"cmdline_limits,omitempty"`
	// EnergyPerfBias is cpuN/power/energy_perf_bias (x86, 0 = performance ..
	// 15 = powersave): the value when all online CPUs agree, else a summary
	// such as "mixed: 6 on CPUs 0-3; 0 on CPUs 4-7".
	EnergyPerfBias *string `json:"energy_perf_bias,omitempty"`
	// LatencyHolders are the processes holding /dev/cpu_dma_latency open,
	// from every process's /proc/PID/fd links: each holds a PM QoS CPU
	// latency request, and while it does the idle governor enters no state
	// whose exit latency exceeds the lowest request (on every kernel, also
	// those without per-state disable). [] when none; null when /proc was
	// not scanned. The latency asked for is not in /proc.
	LatencyHolders []LatencyHolder `json:"dma_latency_holders"`
}

// LatencyHolder is a process holding /dev/cpu_dma_latency open.
type LatencyHolder struct {
	PID     int    `json:"pid"`
	Comm    string `json:"comm"`
	Cmdline string `json:"cmdline,omitempty"` // truncated to 256 bytes
}

// CPUFreq is one CPU's cpufreq policy.
type CPUFreq struct {
	CPU       int      `json:"cpu"`
	Driver    string   `json:"driver"`
	Governor  string   `json:"governor"`
	Governors []string `json:"available_governors,omitempty"`
	MinKHz    *int64   `json:"min_khz"`              // scaling_min_freq
	MaxKHz    *int64   `json:"max_khz"`              // scaling_max_freq
	HWMinKHz  *int64   `json:"hw_min_khz,omitempty"` // cpuinfo_min_freq
	HWMaxKHz  *int64   `json:"hw_max_khz,omitempty"` // cpuinfo_max_freq
	EPP       string   `json:"energy_performance_preference,omitempty"`
}

// IntelPstate is /sys/devices/system/cpu/intel_pstate.
type IntelPstate struct {
	Status     string `json:"status,omitempty"`
	MinPerfPct *int64 `json:"min_perf_pct"`
	MaxPerfPct *int64 `json:"max_perf_pct"`
	NoTurbo    *bool  `json:"no_turbo"`
}

// CPUIdle is one CPU's idle states.
type CPUIdle struct {
	CPU    int         `json:"cpu"`
	States []IdleState `json:"states"`
}

// IdleState is one C-state of one CPU. A state is kept with whatever of it
// the kernel shows: name and latency exist on every kernel with cpuidle
// (2.6.24+); desc came in 2.6.25, disable in 3.5, residency in 3.15. A file
// the kernel lacks leaves its field empty (Desc "") or null, with an absence
// under the field's name ("cpu_power.cpuidle.states.residency_us").
type IdleState struct {
	Index       int    `json:"index"` // stateN
	Name        string `json:"name"`
	Desc        string `json:"desc,omitempty"`
	LatencyUS   int64  `json:"latency_us"`   // exit latency
	ResidencyUS *int64 `json:"residency_us"` // target residency; null before Linux 3.15 (RHEL 7's 3.10 has none)
	Disabled    *bool  `json:"disabled"`     // stateN/disable != 0; null when the kernel has no per-state disable (before 3.5: RHEL 6)
	// DefaultDisabled is stateN/default_status == "disabled": the driver
	// disables the state from boot (intel_idle.states_off, or its table's
	// CPUIDLE_FLAG_OFF); null before Linux 5.6. Disabled with a false
	// default was disabled at run time (cpupower idle-set, tuned, a script).
	DefaultDisabled *bool `json:"default_disabled"`
}

// Off reports whether the state is known to be disabled (false when enabled or unknown).
func (st IdleState) Off() bool { return st.Disabled != nil && *st.Disabled }

// OffAtRunTime reports a state known to be disabled although the driver
// enables it by default: a reboot enables it again unless whatever disabled
// it runs at boot.
func (st IdleState) OffAtRunTime() bool {
	return st.Off() && st.DefaultDisabled != nil && !*st.DefaultDisabled
}

// Storage holds block devices and mounts.
type Storage struct {
	Devices []BlockDevice `json:"devices"`
	Mounts  []Mount       `json:"mounts"`
	// MultipathConf is /etc/multipath.conf parsed into section → key → value,
	// when present: "defaults", "overrides", and one "devices[N]" per
	// devices { device { ... } } block in file order (N from 0). Quotes are
	// removed; the last occurrence of a key in a block wins.
	MultipathConf map[string]map[string]string `json:"multipath_conf,omitempty"`
	// SCSIHosts are the SCSI host adapters (/sys/class/scsi_host): an HBA
	// port, a SAS/RAID controller, an AHCI port.
	SCSIHosts []SCSIHost `json:"scsi_hosts,omitempty"`
}

// SCSIHost is one SCSI host adapter. CanQueue is how many commands it
// takes in flight over all its devices (004's AIX num_cmd_elems); CmdPerLun
// its default queue depth per device.
type SCSIHost struct {
	Host      int    `json:"host"`                  // N of hostN
	Driver    string `json:"driver,omitempty"`      // proc_name: qla2xxx, lpfc, megaraid_sas, ahci, virtio_scsi
	CanQueue  *int64 `json:"can_queue"`             // can_queue
	CmdPerLun *int64 `json:"cmd_per_lun,omitempty"` // cmd_per_lun
}

// BlockDevice is one entry of /sys/block.
type BlockDevice struct {
	Name             string   `json:"name"`
	Kind             string   `json:"kind"` // disk | nvme | dm | md | loop | zram | ram | virtio | other
	SizeBytes        *int64   `json:"size_bytes"`
	Rotational       *bool    `json:"rotational"`
	Scheduler        *string  `json:"scheduler"`            // the bracketed one
	Schedulers       []string `json:"schedulers_available"` // all listed
	NrRequests       *int64   `json:"nr_requests"`
	MaxSectorsKB     *int64   `json:"max_sectors_kb"`
	MaxHWSectorsKB   *int64   `json:"max_hw_sectors_kb,omitempty"`
	Nomerges         *int64   `json:"nomerges"`
	ReadAheadKB      *int64   `json:"read_ahead_kb"`
	WriteCache       *string  `json:"write_cache"` // "write back" | "write through"
	LogicalBlockSize *int64   `json:"logical_block_size,omitempty"`
	// PhysicalBlockSize is queue/physical_block_size: 4096 with a logical
	// 512 is a 512e device (a 512-byte write is a read-modify-write).
	PhysicalBlockSize *int64   `json:"physical_block_size,omitempty"`
	QueueDepth        *int64   `json:"queue_depth"`          // SCSI device/queue_depth
	SCSIHost          *int     `json:"scsi_host,omitempty"`  // SCSI only: N of the hostN adapter it hangs off
	CacheType         *string  `json:"cache_type,omitempty"` // SCSI scsi_disk/*/cache_type
	Vendor            string   `json:"vendor,omitempty"`
	Model             string   `json:"model,omitempty"`
	NUMANode          *int     `json:"numa_node,omitempty"` // of the controller, when the kernel says
	DMName            string   `json:"dm_name,omitempty"`
	DMUUID            string   `json:"dm_uuid,omitempty"`
	Multipath         bool     `json:"multipath"` // dm device whose uuid starts with mpath-
	Slaves            []string `json:"slaves,omitempty"`
	Holders           []string `json:"holders,omitempty"`
}

// Mount is one line of /proc/mounts (pseudo filesystems left out).
type Mount struct {
	Device  string   `json:"device"`
	Path    string   `json:"path"`
	FSType  string   `json:"fstype"`
	Options []string `json:"options"`
}

// Network holds interfaces and their IRQs.
type Network struct {
	Interfaces []Interface `json:"interfaces"`
}

// Interface is one network interface.
type Interface struct {
	Name      string    `json:"name"`
	Kind      string    `json:"kind"` // physical | bond | bridge | vlan | veth | loopback | virtual
	MTU       *int64    `json:"mtu"`
	SpeedMbps *int64    `json:"speed_mbps"` // nil when down/unknown (kernel prints -1 or errors)
	Duplex    string    `json:"duplex,omitempty"`
	Driver    string    `json:"driver,omitempty"`
	OperState string    `json:"operstate,omitempty"`
	NUMANode  *int      `json:"numa_node"` // device/numa_node; nil when absent or -1
	Address   string    `json:"address,omitempty"`
	IPv4      []string  `json:"ipv4,omitempty"` // CIDR addresses (live only)
	Master    string    `json:"master,omitempty"`
	Bond      *Bond     `json:"bond,omitempty"`
	RxQueues  int       `json:"rx_queues,omitempty"`
	TxQueues  int       `json:"tx_queues,omitempty"`
	IRQs      []int     `json:"irqs,omitempty"` // IRQ numbers of this NIC (msi_irqs, or /proc/interrupts names)
	Coalesce  *Coalesce `json:"coalesce,omitempty"`
	ArpFilter *int64    `json:"arp_filter,omitempty"` // net.ipv4.conf.<if>.arp_filter
	RpFilter  *int64    `json:"rp_filter,omitempty"`
}

// Bond is the bonding configuration of a bond master.
type Bond struct {
	Mode           string   `json:"mode"`             // e.g. "802.3ad 4"
	XmitHashPolicy string   `json:"xmit_hash_policy"` // e.g. "layer3+4 1"
	Slaves         []string `json:"slaves"`
	Miimon         *int64   `json:"miimon,omitempty"`
}

// Coalesce is interrupt coalescing read with ethtool (live only).
type Coalesce struct {
	RxUsecs    int64 `json:"rx_usecs"`
	RxFrames   int64 `json:"rx_frames"`
	TxUsecs    int64 `json:"tx_usecs"`
	AdaptiveRx bool  `json:"adaptive_rx"`
	AdaptiveTx bool  `json:"adaptive_tx"`
}

// IRQs holds /proc/interrupts and IRQ affinity.
type IRQs struct {
	// CPUs is the CPU id of each count column of /proc/interrupts (online
	// CPUs; offline ones leave gaps): IRQs[i].Counts[k] was served by CPUs[k].
	// Named rows with fewer counts cover the first columns.
	CPUs              []int `json:"cpus"`
	IRQs              []IRQ `json:"irqs"`
	IrqbalanceRunning *bool `json:"irqbalance_running"`
	// DefaultAffinity is /proc/irq/default_smp_affinity as a CPU list.
	DefaultAffinity []int `json:"default_affinity,omitempty"`
}

// IRQ is one interrupt line.
type IRQ struct {
	IRQ               string   `json:"irq"` // number, or name such as "NMI", "LOC"
	Chip              string   `json:"chip,omitempty"`
	Actions           string   `json:"actions,omitempty"` // device names, e.g. "eth0-TxRx-0"
	Desc              string   `json:"desc,omitempty"`    // named rows (NMI, LOC, ...): the kernel's description
	Counts            []uint64 `json:"counts"`            // per CPU, in the column order of CPUs
	Total             uint64   `json:"total"`
	Affinity          []int    `json:"affinity,omitempty"` // smp_affinity_list
	EffectiveAffinity []int    `json:"effective_affinity,omitempty"`
	Node              *int     `json:"node,omitempty"` // /proc/irq/N/node
}

// CPULoad is cumulative CPU time per CPU from /proc/stat (USER_HZ ticks).
type CPULoad struct {
	ClockTicks int       `json:"clock_ticks"` // USER_HZ assumed by the parser (100)
	PerCPU     []CPUTime `json:"per_cpu"`
	Total      *CPUTime  `json:"total"`
	BootTime   int64     `json:"boot_time,omitempty"` // btime, seconds since epoch
}

// CPUTime is one cpu line of /proc/stat.
type CPUTime struct {
	CPU     int    `json:"cpu"` // -1 for the aggregate line
	User    uint64 `json:"user"`
	Nice    uint64 `json:"nice"`
	System  uint64 `json:"system"`
	Idle    uint64 `json:"idle"`
	IOWait  uint64 `json:"iowait"`
	IRQ     uint64 `json:"irq"`
	SoftIRQ uint64 `json:"softirq"`
	Steal   uint64 `json:"steal"`
}

// Cgroups holds cgroup v1/v2 facts.
type Cgroups struct {
	Version string        `json:"version"` // v1 | v2 | hybrid | none
	Mounts  []CgroupMount `json:"mounts"`
	Groups  []CgroupGroup `json:"groups"` // groups with a non-default cpuset or cpu limit, or with DB processes
}

// CgroupMount is one mounted hierarchy.
type CgroupMount struct {
	Path        string   `json:"path"`
	Version     int      `json:"version"`
	Controllers []string `json:"controllers"`
}

// CgroupGroup is one cgroup with the cpuset/cpu settings that matter.
type CgroupGroup struct {
	Path          string  `json:"path"`                     // relative to its hierarchy root, "/" for the root
	Version       int     `json:"version"`                  // 1 or 2
	Mount         string  `json:"mount"`                    // hierarchy mount point
	CPUs          *string `json:"cpus,omitempty"`           // cpuset.cpus as written
	Mems          *string `json:"mems,omitempty"`           // cpuset.mems as written
	EffectiveCPUs *string `json:"effective_cpus,omitempty"` // v1 cpuset.effective_cpus / v2 cpuset.cpus.effective
	EffectiveMems *string `json:"effective_mems,omitempty"`
	MemoryMigrate *bool   `json:"memory_migrate,omitempty"` // v1 only
	CPUExclusive  *bool   `json:"cpu_exclusive,omitempty"`
	Partition     *string `json:"partition,omitempty"`    // v2 cpuset.cpus.partition
	CPUQuotaUS    *int64  `json:"cpu_quota_us,omitempty"` // -1 = no limit
	CPUPeriodUS   *int64  `json:"cpu_period_us,omitempty"`
	CPUShares     *int64  `json:"cpu_shares,omitempty"` // v1 cpu.shares
	CPUWeight     *int64  `json:"cpu_weight,omitempty"` // v2 cpu.weight
	// PIDs are the group's member processes (cgroup.procs); left out for a
	// hierarchy's root, which holds every process not placed elsewhere.
	PIDs []int `json:"pids,omitempty"`
	// DBPIDs are the members that are database processes (Snapshot.Processes).
	DBPIDs []int `json:"db_pids,omitempty"`
}

// Config holds configuration files that set or override tuning.
type Config struct {
	Limits      []LimitEntry    `json:"limits"`
	SysctlFiles []SysctlEntry   `json:"sysctl_files"`
	Tuned       Tuned           `json:"tuned"`
	Cgconfig    []CgconfigEntry `json:"cgconfig,omitempty"`
	Users       map[string]int  `json:"users,omitempty"` // user name → uid from /etc/passwd (DB users only)
}

// LimitEntry is one line of limits.conf or limits.d/*.conf.
type LimitEntry struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Domain string `json:"domain"`
	Type   string `json:"type"` // soft | hard | -
	Item   string `json:"item"` // memlock, nofile, nproc, stack, ...
	Value  string `json:"value"`
}

// SysctlEntry is one key = value line of sysctl.conf or sysctl.d.
type SysctlEntry struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Key   string `json:"key"`
	Value string `json:"value"`
	// Effective is true for the entry that wins (systemd-sysctl order: files
	// sorted by name across directories, later wins).
	Effective bool `json:"effective"`
}

// Tuned is the tuned daemon's configuration.
type Tuned struct {
	Installed     bool    `json:"installed"`
	ActiveProfile *string `json:"active_profile"`
	ProfileMode   string  `json:"profile_mode,omitempty"`
	Running       *bool   `json:"running,omitempty"`
	// V02 is true for RHEL 6's tuned 0.2, read from its layout
	// (/etc/tune-profiles, neither /etc/tuned nor /usr/lib/tuned): its
	// profiles are ktune scripts, not tuned.conf files; its tuned-adm has no
	// verify; it ships no network-latency profile.
	V02 bool `json:"tuned_0_2,omitempty"`
	// Profile is what the active profile(s) set once tuned has merged them
	// with the profiles they include (included first, the including profile
	// overrides; replace= and drop= honoured), sorted by unit and option.
	// ProfileFiles are the tuned.conf files read, in the order tuned loads them.
	Profile      []TunedSetting `json:"profile,omitempty"`
	ProfileFiles []string       `json:"profile_files,omitempty"`
}

// TunedSetting is one option of a tuned profile unit ("cpu" force_latency =
// "cstate.id_no_zero:1|3"; "sysctl" vm.dirty_ratio = "10"), as written
// (variables not expanded), with the file and line that set it.
type TunedSetting struct {
	Unit   string `json:"unit"`
	Option string `json:"option"`
	Value  string `json:"value"`
	File   string `json:"file"`
	Line   int    `json:"line"`
}

// CgconfigEntry is one controller setting from /etc/cgconfig.conf.
type CgconfigEntry struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Group string `json:"group"`
	Key   string `json:"key"` // e.g. cpuset.cpus
	Value string `json:"value"`
}

// Process is one database process. UID and PPID are -1 when unknown (a
// sosreport whose ps output does not show them); Threads is 0 when unknown,
// with an absence recorded ("processes.threads").
type Process struct {
	PID         int    `json:"pid"`
	Comm        string `json:"comm"`
	Cmdline     string `json:"cmdline,omitempty"` // truncated to 256 bytes
	User        string `json:"user,omitempty"`
	UID         int    `json:"uid"`
	Engine      string `json:"engine"`             // oracle | postgres | mysql | mariadb
	Role        string `json:"role"`               // pmon, background, shadow, postmaster, backend, server, ...
	Instance    string `json:"instance,omitempty"` // ORACLE_SID, PG data dir, ...
	PPID        int    `json:"ppid"`
	Threads     int    `json:"threads"`
	RSSKB       int64  `json:"rss_kb"`
	CPUsAllowed []int  `json:"cpus_allowed"`
	MemsAllowed []int  `json:"mems_allowed"`
	LastCPU     *int   `json:"last_cpu,omitempty"`
	Cgroup      string `json:"cgroup,omitempty"` // cpuset path from /proc/PID/cgroup
	// NUMA is memory per node from numa_maps (nil when not read: permission, or
	// skipped because numa_maps are only read for the main process of each instance).
	NUMA []NodeMem `json:"numa,omitempty"`
}

// NodeMem is a process's memory on one node, by kind, in kB.
type NodeMem struct {
	Node    int   `json:"node"`
	AnonKB  int64 `json:"anon_kb"`
	FileKB  int64 `json:"file_kb"`
	HugeKB  int64 `json:"huge_kb"` // hugetlbfs / SysV SHM_HUGETLB
	ShmKB   int64 `json:"shm_kb"`  // shared memory not in hugepages (SYSV, /dev/shm)
	TotalKB int64 `json:"total_kb"`
}

// Database is one database server read over a connection, read-only (SHOW,
// SELECT from pg_settings). Nothing secret is kept: Connection is rebuilt
// from the parsed connection string without its password.
type Database struct {
	Engine string `json:"engine"` // postgres | mysql | mariadb
	// Connection is how dbhost reached the server, without a password:
	// "postgres://monitor@db1:5432/postgres", "monitor@unix(/run/mysqld/mysqld.sock)/".
	Connection string `json:"connection"`
	// Local is true when the connection went to this host (a unix socket,
	// localhost or a loopback address): only then do the server's paths
	// (data directory, WAL) name this host's files and devices.
	Local bool `json:"local"`
	// Discovered is set for a local cluster found from its processes.
	Discovered *DBDiscovery `json:"discovered,omitempty"`
	// Error is why no setting could be read (connection refused, timeout,
	// authentication); the server's other fields are then empty.
	Error string `json:"error,omitempty"`
	// User is the database role the settings were read as.
	User string `json:"user,omitempty"`
	// Version is the server's own version string (server_version,
	// @@version); VersionNum its number (PostgreSQL server_version_num
	// 150004; MySQL/MariaDB major*10000+minor*100+patch: 101106).
	Version    string `json:"version,omitempty"`
	VersionNum int    `json:"version_num,omitempty"`
	// DataDirectory is data_directory (PostgreSQL) or datadir (MySQL), as
	// the server reports it; empty when the role may not see it (the
	// setting's reason says so).
	DataDirectory string `json:"data_directory,omitempty"`
	// DataDirectoryReal is DataDirectory with symlinks resolved on this
	// host (a local server only): the path the device rules map to a disk.
	DataDirectoryReal string `json:"data_directory_real,omitempty"`
	// WALDirectory is where the write-ahead log (PostgreSQL pg_wal, or
	// pg_xlog before 10) or the InnoDB redo log (innodb_log_group_home_dir)
	// really is, symlinks resolved; WALResolved says how it was found, or
	// why it could not be.
	WALDirectory string `json:"wal_directory,omitempty"`
	WALResolved  string `json:"wal_resolved,omitempty"`
	// Settings are the server's settings dbhost reads, sorted by name.
	Settings []DBSetting `json:"settings"`
	// Checkpoints are a PostgreSQL server's checkpoint counters since their
	// reset (pg_stat_checkpointer on 17+, pg_stat_bgwriter before); nil
	// when not read, CheckpointsReason then says why.
	Checkpoints       *DBCheckpoints `json:"checkpoints,omitempty"`
	CheckpointsReason string         `json:"checkpoints_reason,omitempty"`
}

// DBCheckpoints counts a PostgreSQL server's checkpoints: started because
// checkpoint_timeout passed (timed) or because they were asked for (requested:
// max_wal_size about to be exceeded, a CHECKPOINT command, a backup).
type DBCheckpoints struct {
	View       string `json:"view"` // pg_stat_checkpointer | pg_stat_bgwriter
	Timed      int64  `json:"timed"`
	Requested  int64  `json:"requested"`
	StatsReset string `json:"stats_reset,omitempty"` // when the counters were last reset (RFC 3339)
	// Seconds is the time the counters cover: from stats_reset to the read.
	Seconds float64 `json:"seconds,omitempty"`
}

// DBDiscovery is how a local server was found (dbhost --db postgres|mysql as root).
type DBDiscovery struct {
	PID     int    `json:"pid"`               // postmaster or mysqld/mariadbd
	DataDir string `json:"data_dir"`          // from its command line or postmaster.pid
	Socket  string `json:"socket,omitempty"`  // the unix socket dbhost connected to
	OSUser  string `json:"os_user,omitempty"` // the server's OS user (peer authentication)
}

// DBSetting is one server setting. Value is the server's own text
// (pg_settings.setting, in Unit; a MySQL variable's value in bytes or as
// spelled); nil when it could not be read, and Reason says why: "could not
// check (permission): ..." or "not present on this server (...)".
type DBSetting struct {
	Name   string  `json:"name"`
	Value  *string `json:"value"`
	Unit   string  `json:"unit,omitempty"`   // pg_settings.unit: "8kB", "kB", "MB", "ms", "s"
	Source string  `json:"source,omitempty"` // pg_settings.source: default, configuration file, command line, ...
	Reason string  `json:"reason,omitempty"`
}

// Setting returns the named setting (nil when the server was not asked for it).
func (d *Database) Setting(name string) *DBSetting {
	for i := range d.Settings {
		if d.Settings[i].Name == name {
			return &d.Settings[i]
		}
	}
	return nil
}

// Describe names the server in one line, for reports: "postgres 15.4,
// user=postgres host=/run/postgresql port=5432 dbname=postgres, read as
// postgres", or what kept dbhost from reading it.
func (d *Database) Describe() string {
	s := d.Engine
	if d.Version != "" {
		s += " " + d.Version
	}
	s += ", " + d.Connection
	if d.Error != "" {
		return s + ": not read: " + d.Error
	}
	unread := 0
	for _, st := range d.Settings {
		if st.Value == nil && !strings.HasPrefix(st.Reason, "not present") {
			unread++
		}
	}
	s += ", read as " + d.User
	if unread > 0 {
		s += fmt.Sprintf(" (%d setting(s) could not be read: see the snapshot's reasons)", unread)
	}
	return s
}
