package snapshot

// PCIDevice is one PCI function of a class that carries a database host's
// I/O, as /sys/bus/pci/devices/ADDRESS shows it (the kernel's
// Documentation/ABI/testing/sysfs-bus-pci).
type PCIDevice struct {
	Address string `json:"address"` // the entry's name, "0000:3b:00.0"
	Class   string `json:"class"`   // class, "0x0c0400"
	// Kind is what the class says: "nic" (0x02), "fc" (0x0c04: Fibre
	// Channel), "nvme" (0x0108), "storage" (any other 0x01: SCSI, RAID,
	// SATA, SAS).
	Kind     string `json:"kind"`
	Vendor   string `json:"vendor,omitempty"` // "0x1077"
	Device   string `json:"device,omitempty"` // "0x2031"
	Driver   string `json:"driver,omitempty"` // the driver link's name: qla2xxx, lpfc, nvme, ixgbe
	NUMANode *int   `json:"numa_node"`        // numa_node; nil when absent or -1 (absences say which)
	// IRQs are the function's interrupt vectors: the msi_irqs entries, else
	// (no MSI) its legacy irq line; MSI says which.
	IRQs []int `json:"irqs,omitempty"`
	MSI  bool  `json:"msi"`
	// Link is the PCIe link (kernel 4.13+; a conventional PCI function has
	// none): nil when the files are absent, with the absence recorded.
	Link *PCIeLink `json:"link,omitempty"`
	// What the function hosts, from the class directories' links:
	// /sys/class/fc_host/hostN, /sys/class/scsi_host/hostN,
	// /sys/class/nvme/nvmeN and /sys/class/net/NAME.
	FCHosts   []int    `json:"fc_hosts,omitempty"`
	SCSIHosts []int    `json:"scsi_hosts,omitempty"`
	NVMe      []string `json:"nvme,omitempty"`
	Net       []string `json:"net,omitempty"`
}

// PCIeLink is a function's PCIe link: the speed and width it trained at
// (current_link_speed, current_link_width: the Link Status register) and
// the most it is capable of (max_link_speed, max_link_width: Link
// Capabilities). Speeds are in GT/s; nil when the kernel prints "Unknown"
// (link down, or a rate it does not name). Port is the upstream port the
// link ends at (the slot), when the function sits right below one, with
// that port's own capability: a card capable of x8 in a port capable of x4
// trains at x4.
type PCIeLink struct {
	Speed        *float64 `json:"speed_gts"`
	MaxSpeed     *float64 `json:"max_speed_gts"`
	Width        *int     `json:"width"`
	MaxWidth     *int     `json:"max_width"`
	Port         string   `json:"port,omitempty"`
	PortMaxSpeed *float64 `json:"port_max_speed_gts,omitempty"`
	PortMaxWidth *int     `json:"port_max_width,omitempty"`
}
