package snapshot

// Libvirt is the KVM/QEMU guests (libvirt domains) defined on a hypervisor
// host, as read by dbhost --libvirt: `virsh dumpxml` of every domain `virsh
// list --all --name` names on the live host, else the domain XML files under
// ROOT/etc/libvirt/qemu (a --root tree, or the live host without a running
// libvirtd), or a sosreport's sos_commands/virsh dumpxml outputs.
type Libvirt struct {
	// Source says how the domains were found: "virsh" (the live libvirtd),
	// "files" (etc/libvirt/qemu/*.xml), "sosreport virsh" (sos_commands/virsh).
	Source string `json:"source"`
	// Note says why a better source was not used ("virsh: not installed;
	// read /etc/libvirt/qemu/*.xml"), empty when none was passed over.
	Note string `json:"note,omitempty"`
	// Domains are sorted by name. A definition that could not be parsed is
	// not here: its file and line are in Errors.
	Domains []Domain `json:"domains"`
	// Errors lists the definitions that could not be read or parsed:
	// "/etc/libvirt/qemu/db2.xml: line 12: ...".
	Errors []string `json:"errors,omitempty"`
	// KSM is the host's kernel samepage merging (/sys/kernel/mm/ksm), read
	// with the guests; nil when the kernel has none (absent: libvirt.ksm).
	KSM *KSM `json:"ksm,omitempty"`
}

// KSM is /sys/kernel/mm/ksm: run (0 stopped, 1 merging, 2 unmerging),
// pages_shared (merged pages kept) and pages_sharing (guest pages mapped to
// them: the memory saved).
type KSM struct {
	Run          *int64 `json:"run"`
	PagesShared  *int64 `json:"pages_shared,omitempty"`
	PagesSharing *int64 `json:"pages_sharing,omitempty"`
}

// Domain is one guest definition. Sizes are in KiB (the unit attributes
// of the XML are applied); CPU and node sets keep libvirt's text ("1-4,^3")
// beside their expansion. A pointer is nil, a string empty, when the XML
// does not say.
type Domain struct {
	// File is where the definition was read: "virsh dumpxml db1",
	// "/etc/libvirt/qemu/db1.xml".
	File string `json:"file"`
	Name string `json:"name"`
	UUID string `json:"uuid,omitempty"`
	// Type is the domain type attribute: kvm, qemu (TCG), xen, lxc.
	Type string `json:"type,omitempty"`
	// ID is the running domain's id (virsh dumpxml of a running guest);
	// nil for a guest that is not running or a definition file.
	ID *int `json:"id,omitempty"`

	MemoryKB        *int64 `json:"memory_kb,omitempty"`         // <memory>: the boot allocation
	CurrentMemoryKB *int64 `json:"current_memory_kb,omitempty"` // <currentMemory>: after the balloon
	MaxMemoryKB     *int64 `json:"max_memory_kb,omitempty"`     // <maxMemory>: hotplug ceiling

	VCPUs int `json:"vcpus"` // <vcpu>: the maximum number of vCPUs
	// VCPUCurrent is <vcpu current='N'>, the vCPUs online at boot (nil: all).
	VCPUCurrent *int `json:"vcpu_current,omitempty"`
	// VCPUPlacement is static or auto (numad decides); empty when not given.
	VCPUPlacement string `json:"vcpu_placement,omitempty"`
	// VCPUCpuset is <vcpu cpuset='...'>: the host CPUs every vCPU (and the
	// emulator, without an emulatorpin) may run on.
	VCPUCpuset *CPUSet `json:"vcpu_cpuset,omitempty"`

	CPUTune       CPUTune        `json:"cputune"`
	NUMATune      *NUMATune      `json:"numatune,omitempty"`
	MemoryBacking *MemoryBacking `json:"memory_backing,omitempty"`
	CPU           *GuestCPU      `json:"cpu,omitempty"`
	IOThreads     int            `json:"iothreads,omitempty"`

	OS          GuestOS           `json:"os"`
	Disks       []GuestDisk       `json:"disks"`
	Controllers []GuestController `json:"controllers,omitempty"`
	Interfaces  []GuestNIC        `json:"interfaces"`
	Hostdevs    []GuestHostdev    `json:"hostdevs,omitempty"`
}

// CPUSet is a CPU or node set as libvirt writes it ("0-7,^3,16") and
// expanded, sorted.
type CPUSet struct {
	Text string `json:"text"`
	IDs  []int  `json:"ids"`
}

// CPUTune is <cputune>: which host CPUs each vCPU, the emulator threads
// and each I/O thread may run on.
type CPUTune struct {
	VCPUPins     []VCPUPin     `json:"vcpupins,omitempty"`
	EmulatorPin  *CPUSet       `json:"emulatorpin,omitempty"`
	IOThreadPins []IOThreadPin `json:"iothreadpins,omitempty"`
}

// VCPUPin is <vcpupin vcpu='N' cpuset='...'/>.
type VCPUPin struct {
	VCPU   int    `json:"vcpu"`
	CPUSet CPUSet `json:"cpuset"`
}

// IOThreadPin is <iothreadpin iothread='N' cpuset='...'/>.
type IOThreadPin struct {
	IOThread int    `json:"iothread"`
	CPUSet   CPUSet `json:"cpuset"`
}

// NUMATune is <numatune>: the host nodes guest memory comes from.
type NUMATune struct {
	// Mode is strict (the default), interleave, preferred or restrictive.
	Mode string `json:"mode,omitempty"`
	// Placement is static or auto (numad); Nodeset is nil with auto.
	Placement string    `json:"placement,omitempty"`
	Nodeset   *CPUSet   `json:"nodeset,omitempty"`
	MemNodes  []MemNode `json:"memnodes,omitempty"`
}

// MemNode is <memnode cellid='N' mode='...' nodeset='...'/>: one guest
// NUMA cell's memory bound to host nodes.
type MemNode struct {
	CellID  int    `json:"cellid"`
	Mode    string `json:"mode,omitempty"`
	Nodeset CPUSet `json:"nodeset"`
}

// MemoryBacking is <memoryBacking>.
type MemoryBacking struct {
	// Hugepages is true with <hugepages/>; Pages lists its <page> elements
	// (none: the host's default hugepage size for all guest memory).
	Hugepages    bool       `json:"hugepages"`
	Pages        []HugePage `json:"pages,omitempty"`
	NoSharePages bool       `json:"nosharepages"`          // KSM may not merge this guest's pages
	Locked       bool       `json:"locked"`                // guest memory locked in host RAM
	SourceType   string     `json:"source_type,omitempty"` // file, anonymous, memfd
	AccessMode   string     `json:"access_mode,omitempty"` // shared, private
}

// HugePage is <page size='1' unit='G' nodeset='0'/>; Nodeset (guest NUMA
// cells) is nil when the page size is for every cell.
type HugePage struct {
	SizeKB  int64   `json:"size_kb"`
	Nodeset *CPUSet `json:"nodeset,omitempty"`
}

// GuestCPU is <cpu>: the CPU model and topology the guest sees.
type GuestCPU struct {
	// Mode is host-passthrough, host-model, maximum or custom (the default).
	Mode  string `json:"mode"`
	Match string `json:"match,omitempty"`
	Model string `json:"model,omitempty"`
	// Topology is <topology sockets= dies= clusters= cores= threads=>; nil when absent.
	Topology *GuestTopology `json:"topology,omitempty"`
	// Cells are the guest NUMA nodes (<numa><cell .../></numa>).
	Cells []GuestCell `json:"cells,omitempty"`
}

// GuestTopology is the guest's sockets × dies × cores × threads.
type GuestTopology struct {
	Sockets int `json:"sockets"`
	Dies    int `json:"dies,omitempty"`
	Cores   int `json:"cores"`
	Threads int `json:"threads"`
}

// GuestCell is one guest NUMA cell.
type GuestCell struct {
	ID        int    `json:"id"` // the id attribute, else its position (libvirt before 1.2.7 had none)
	CPUs      CPUSet `json:"cpus"`
	MemoryKB  int64  `json:"memory_kb"`
	MemAccess string `json:"memaccess,omitempty"` // shared, private
}

// GuestOS is <os><type arch= machine=>hvm</type>.
type GuestOS struct {
	Type    string `json:"type,omitempty"`    // hvm
	Arch    string `json:"arch,omitempty"`    // x86_64
	Machine string `json:"machine,omitempty"` // pc-q35-rhel9.2.0, pc-i440fx-2.12, q35, pc
}

// GuestDisk is one <disk>.
type GuestDisk struct {
	Type   string `json:"type"`   // file, block, network, volume, dir, nvme
	Device string `json:"device"` // disk (the default), lun, cdrom, floppy
	// Driver attributes: name (qemu), type (raw, qcow2), cache (none,
	// writethrough, writeback, directsync, unsafe, or "" for the
	// hypervisor's default), io (native, threads, io_uring), iothread.
	DriverName string `json:"driver_name,omitempty"`
	DriverType string `json:"driver_type,omitempty"`
	Cache      string `json:"cache,omitempty"`
	IO         string `json:"io,omitempty"`
	IOThread   *int   `json:"iothread,omitempty"`
	// Source is the file, device, directory, or protocol:name (rbd:pool/img,
	// iscsi:iqn.../1) the disk reads; Protocol the network protocol.
	Source    string `json:"source,omitempty"`
	Protocol  string `json:"protocol,omitempty"`
	Target    string `json:"target,omitempty"` // dev: vda, sdb, hdc
	Bus       string `json:"bus,omitempty"`    // virtio, scsi, sata, ide, usb, fdc
	ReadOnly  bool   `json:"readonly,omitempty"`
	Shareable bool   `json:"shareable,omitempty"`
	// Line is where the <disk> element starts in its file.
	Line int `json:"line"`
}

// GuestController is one <controller> (type scsi model virtio-scsi, ...).
type GuestController struct {
	Type     string `json:"type"`
	Index    int    `json:"index"`
	Model    string `json:"model,omitempty"`
	IOThread *int   `json:"iothread,omitempty"`
	Queues   int    `json:"queues,omitempty"`
}

// GuestNIC is one <interface>.
type GuestNIC struct {
	Type       string `json:"type"` // bridge, network, direct, hostdev, ethernet, user, vhostuser
	MAC        string `json:"mac,omitempty"`
	Source     string `json:"source,omitempty"`      // bridge, network, dev or PCI address
	Model      string `json:"model,omitempty"`       // virtio, e1000, e1000e, rtl8139; "" for hostdev
	DriverName string `json:"driver_name,omitempty"` // vhost, qemu
	Queues     int    `json:"queues,omitempty"`
	Line       int    `json:"line"`
}

// GuestHostdev is one <hostdev> (PCI pass-through; an SR-IOV virtual
// function is a PCI device too).
type GuestHostdev struct {
	Mode    string `json:"mode"` // subsystem, capabilities
	Type    string `json:"type"` // pci, usb, scsi, mdev
	Managed bool   `json:"managed"`
	Address string `json:"address,omitempty"` // PCI 0000:03:10.1
}
