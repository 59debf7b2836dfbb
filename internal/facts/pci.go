package facts

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// The PCI functions that carry a database host's I/O (NICs, storage
// controllers, NVMe, Fibre Channel HBAs): their NUMA node, interrupt
// vectors and PCIe link, as the kernel's Documentation/ABI/testing/
// sysfs-bus-pci describes /sys/bus/pci/devices/ADDRESS. 000 keeps an I/O
// card's interrupts on its socket; 003 says to check the card's slot
// ("x4, x8").
func init() {
	register("pci-devices", StageSources, readPCIDevices, "pci_devices")
}

const sysPCIDevices = "/sys/bus/pci/devices"

// isPCIAddress reports whether s is a PCI function address,
// "DDDD:BB:DD.F" (domain, bus, device, function in hex), or the dashed
// form the fixture trees use ("0000-3b-00.0").
func isPCIAddress(s string) bool {
	if len(s) != 12 || s[4] != s[7] || (s[4] != ':' && s[4] != '-') || s[10] != '.' {
		return false
	}
	for i, r := range s {
		if i == 4 || i == 7 || i == 10 {
			continue
		}
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return s[11] >= '0' && s[11] <= '7' && s[8] <= '1'
}

// pciKind classifies a class attribute ("0x010802"): "nic" (base class
// 0x02), "fc" (0x0c04), "nvme" (0x0108), "storage" (other 0x01), or "" for
// a class dbhost does not judge.
func pciKind(class string) (string, error) {
	h, ok := strings.CutPrefix(strings.TrimSpace(class), "0x")
	if !ok || len(h) != 6 {
		return "", parseErr(1, "expected a class 0xCCSSPP, got %q", trunc(class, 20))
	}
	v, err := strconv.ParseUint(h, 16, 32)
	if err != nil {
		return "", parseErr(1, "expected a class 0xCCSSPP, got %q", trunc(class, 20))
	}
	switch base, sub := v>>16, v>>8&0xff; {
	case base == 0x02:
		return "nic", nil
	case base == 0x0c && sub == 0x04:
		return "fc", nil
	case base == 0x01 && sub == 0x08:
		return "nvme", nil
	case base == 0x01:
		return "storage", nil
	}
	return "", nil
}

// parsePCIeSpeed parses current_link_speed or max_link_speed. Linux 4.13
// printed "2.5 GT/s", "5 GT/s", "8 GT/s" (16 GT/s from 4.17) or "Unknown
// speed"; since 5.7 pci_speed_string() prints "2.5 GT/s PCIe", "5.0 GT/s
// PCIe", ... "64.0 GT/s PCIe" or "Unknown". known is false for the unknown
// forms (a link that is down, or a rate the kernel does not name).
func parsePCIeSpeed(s string) (gts float64, known bool, err error) {
	s = strings.TrimSpace(s)
	if s == "Unknown" || s == "Unknown speed" {
		return 0, false, nil
	}
	num, rest, ok := strings.Cut(s, " GT/s")
	if !ok || (rest != "" && rest != " PCIe") || num == "" || len(num) > 6 {
		return 0, false, parseErr(1, "expected \"N GT/s\" or \"N GT/s PCIe\", got %q", trunc(s, 40))
	}
	for _, r := range num {
		if !(r >= '0' && r <= '9' || r == '.') {
			return 0, false, parseErr(1, "expected a rate in GT/s, got %q", trunc(s, 40))
		}
	}
	v, perr := strconv.ParseFloat(num, 64)
	if perr != nil || v <= 0 || num[0] == '.' || num[len(num)-1] == '.' {
		return 0, false, parseErr(1, "expected a rate in GT/s, got %q", trunc(s, 40))
	}
	return v, true, nil
}

// parseLinkWidth parses current_link_width or max_link_width ("8"): the
// Negotiated or Maximum Link Width field, 0 to 32 lanes.
func parseLinkWidth(s string) (int, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || v > 32 || strconv.Itoa(v) != s {
		return 0, parseErr(1, "expected a lane count 0-32, got %q", trunc(s, 20))
	}
	return v, nil
}

func readPCIDevices(c *Collector) {
	names, err := c.Root.ReadDirNames(sysPCIDevices)
	if errors.Is(err, fs.ErrNotExist) && !c.Root.Sos && c.Root.Exists("/sys/bus") {
		// /sys/bus without a pci bus: a kernel without PCI or a partition
		// with virtual I/O only (a PowerVM LPAR, s390x). No function. (A
		// sosreport keeps only what its plugins copied: there it is unknown.)
		return
	}
	if err != nil {
		// No /sys/bus at all: a capture that did not keep it. Unknown, not
		// "no devices".
		c.Absent("pci_devices", sysPCIDevices, err)
		return
	}
	out := []snapshot.PCIDevice{}
	byAddr := map[string]*snapshot.PCIDevice{}
	real := map[string]string{} // address → the function's /sys/devices path
	anyLink := false
	var firstMissing error
	var missingAt string
	for _, n := range names {
		if !isPCIAddress(n) {
			continue
		}
		dir := sysPCIDevices + "/" + n
		fact := "pci_devices[" + n + "]"
		classText, err := c.Root.ReadAttr(dir + "/class")
		if err != nil {
			c.Absent(fact+".class", dir+"/class", err)
			continue
		}
		kind, err := pciKind(classText)
		if err != nil {
			c.Absent(fact+".class", dir+"/class", err)
			continue
		}
		if kind == "" {
			continue
		}
		d := snapshot.PCIDevice{Address: n, Class: strings.TrimSpace(classText), Kind: kind,
			Vendor: attrQuiet(c, dir+"/vendor"), Device: attrQuiet(c, dir+"/device")}
		d.Driver, _ = c.Root.LinkBase(dir + "/driver")
		if s, err := c.Root.ReadAttr(dir + "/numa_node"); err != nil {
			c.Absent(fact+".numa_node", dir+"/numa_node", err)
		} else if v, err := strconv.Atoi(s); err != nil {
			c.Absent(fact+".numa_node", dir+"/numa_node", parseErr(1, "expected a node number, got %q", trunc(s, 20)))
		} else if v >= 0 {
			d.NUMANode = &v
		}
		if irqs, err := c.Root.ReadDirNames(dir + "/msi_irqs"); err == nil {
			for _, q := range irqs {
				if v, err := strconv.Atoi(q); err == nil && v >= 0 {
					d.IRQs = append(d.IRQs, v)
				}
			}
			d.MSI = len(d.IRQs) > 0
		}
		if !d.MSI {
			if v := attrInt(c, "", dir+"/irq"); v != nil && *v > 0 {
				d.IRQs = []int{int(*v)}
			}
		}
		sort.Ints(d.IRQs)
		if t, err := c.Root.Readlink(dir); err == nil {
			if !path.IsAbs(t) {
				t = path.Join(sysPCIDevices, t)
			}
			real[n] = t
		}
		var missing error
		d.Link, missing = readPCIeLink(c, fact, dir, real[n])
		if d.Link != nil {
			anyLink = true
		} else if firstMissing == nil {
			firstMissing, missingAt = missing, dir+"/current_link_width"
		}
		out = append(out, d)
	}
	// The kernel shows the link files only for PCIe functions
	// (pcie_dev_attrs_are_visible): one function without them beside
	// others that have them is a conventional PCI or chipset function, not
	// an unread fact. None at all is a kernel before 4.13 (or a capture
	// without them): the links are unknown.
	if !anyLink && firstMissing != nil {
		c.Absent("pci_devices.link", missingAt, firstMissing)
	}
	for i := range out {
		byAddr[out[i].Address] = &out[i]
	}
	// What each function hosts, from the class directories' links.
	attach := func(class string, add func(d *snapshot.PCIDevice, name string)) {
		entries, err := c.Root.ReadDirNames(class)
		if err != nil {
			return // no such class on this host (no FC, no NVMe): nothing hosted
		}
		for _, e := range entries {
			t, err := c.Root.Readlink(class + "/" + e)
			if err != nil {
				continue
			}
			if a := pciAddressIn(t); a != "" && byAddr[a] != nil {
				add(byAddr[a], e)
			}
		}
	}
	attach("/sys/class/fc_host", func(d *snapshot.PCIDevice, name string) {
		if h, err := parseSCSIHostName(name); err == nil {
			d.FCHosts = append(d.FCHosts, h)
		}
	})
	attach("/sys/class/scsi_host", func(d *snapshot.PCIDevice, name string) {
		if h, err := parseSCSIHostName(name); err == nil {
			d.SCSIHosts = append(d.SCSIHosts, h)
		}
	})
	attach("/sys/class/nvme", func(d *snapshot.PCIDevice, name string) { d.NVMe = append(d.NVMe, name) })
	attach("/sys/class/net", func(d *snapshot.PCIDevice, name string) { d.Net = append(d.Net, name) })
	for i := range out {
		sort.Ints(out[i].FCHosts)
		sort.Ints(out[i].SCSIHosts)
		sort.Strings(out[i].NVMe)
		sort.Strings(out[i].Net)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	c.Snap.PCIDevices = out
}

// pciAddressIn returns the last PCI function address among a sysfs path's
// elements ("../../devices/pci0000:00/0000:00:03.0/0000:05:00.0/host3/fc_host/host3"
// → "0000:05:00.0"), or "".
func pciAddressIn(p string) string {
	parts := strings.Split(p, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		if isPCIAddress(parts[i]) {
			return parts[i]
		}
	}
	return ""
}

// readPCIeLink reads a function's link files and, when the function sits
// right below another PCI function (its upstream port), that port's
// capability. nil and the read error when the function has none of the
// link files (a kernel before 4.13, a conventional PCI function); a file
// missing beside the others, or one that does not parse, is recorded.
func readPCIeLink(c *Collector, fact, dir, realDir string) (*snapshot.PCIeLink, error) {
	var l snapshot.PCIeLink
	var missing error
	speed := func(name string) *float64 {
		s, err := c.Root.ReadAttr(dir + "/" + name)
		if err != nil {
			if missing == nil {
				missing = err
			}
			return nil
		}
		v, known, err := parsePCIeSpeed(s)
		if err != nil {
			c.Absent(fact+".link."+name, dir+"/"+name, err)
			return nil
		}
		if !known {
			return nil
		}
		return &v
	}
	width := func(name string) *int {
		s, err := c.Root.ReadAttr(dir + "/" + name)
		if err != nil {
			if missing == nil {
				missing = err
			}
			return nil
		}
		v, err := parseLinkWidth(s)
		if err != nil {
			c.Absent(fact+".link."+name, dir+"/"+name, err)
			return nil
		}
		return &v
	}
	l.Speed, l.MaxSpeed = speed("current_link_speed"), speed("max_link_speed")
	l.Width, l.MaxWidth = width("current_link_width"), width("max_link_width")
	if missing != nil && l.Speed == nil && l.MaxSpeed == nil && l.Width == nil && l.MaxWidth == nil {
		return nil, missing
	}
	if missing != nil {
		c.Absent(fact+".link", dir, missing)
	}
	if realDir != "" {
		if up := path.Dir(realDir); isPCIAddress(path.Base(up)) {
			l.Port = path.Base(up)
			if s, err := c.Root.ReadAttr(up + "/max_link_speed"); err == nil {
				if v, known, err := parsePCIeSpeed(s); err == nil && known {
					l.PortMaxSpeed = &v
				}
			}
			if s, err := c.Root.ReadAttr(up + "/max_link_width"); err == nil {
				if v, err := parseLinkWidth(s); err == nil {
					l.PortMaxWidth = &v
				}
			}
		}
	}
	return &l, nil
}
