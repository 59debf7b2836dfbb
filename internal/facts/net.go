package facts

import (
	"bytes"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() {
	register("net", StageSources, readNet, "network")
	register("net-irqs", StageDerived, deriveNetIRQs, "network.interfaces.irqs")
	register("net-sos", StageSos, sosNetConf, "network.interfaces.arp_filter")
}

const (
	sysNet       = "/sys/class/net"
	procVlan     = "/proc/net/vlan/config"
	procIPv4Conf = "/proc/sys/net/ipv4/conf"
	arphrdLoop   = 772 // ARPHRD_LOOPBACK
)

// ueventValue returns KEY's value from a sysfs uevent file's text.
func ueventValue(s, key string) string {
	for _, line := range strings.Split(s, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
			return v
		}
	}
	return ""
}

// netKind classifies an interface (see Interface.Kind).
func netKind(name string, typ *int64, isBond, isBridge, isVlan, hasDevice bool, devtype string, ifindex, iflink *int64) string {
	switch {
	case name == "lo" || (typ != nil && *typ == arphrdLoop):
		return "loopback"
	case isBond || devtype == "bond":
		return "bond"
	case isBridge || devtype == "bridge":
		return "bridge"
	case isVlan || devtype == "vlan":
		return "vlan"
	case hasDevice:
		return "physical"
	case devtype == "" && ifindex != nil && iflink != nil && *ifindex != *iflink:
		// A veth's iflink is its peer's ifindex; virtual devices without a
		// peer or lower device (dummy, ifb, tun) have iflink == ifindex.
		return "veth"
	}
	return "virtual"
}

func readNet(c *Collector) {
	nw := &c.Snap.Network
	nw.Interfaces = []snapshot.Interface{}
	names, err := c.Root.ReadDirNames(sysNet)
	if err != nil {
		c.Absent("network.interfaces", sysNet, err)
		return
	}
	var vlans map[string]string
	if b, err := c.Root.ReadFile(procVlan); err == nil {
		if vlans, err = parseVlanConfig(string(b)); err != nil {
			c.Absent("network.vlans", procVlan, err)
		}
	}
	ifs := make([]snapshot.Interface, 0, len(names))
	for _, name := range names {
		// bonding_masters and other plain files are not interfaces.
		if st, err := c.Root.Stat(sysNet + "/" + name); err == nil && !st.IsDir() {
			continue
		}
		ifs = append(ifs, snapshot.Interface{Name: name})
	}
	var wg sync.WaitGroup
	const workers = 4
	panicked := false
	for w := 0; w < workers && w < len(ifs); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer c.recoverWorker("net", &panicked, "network.interfaces")
			testPanic("worker:net")
			for i := w; i < len(ifs); i += workers {
				readInterface(c, &ifs[i], vlans)
			}
		}(w)
	}
	wg.Wait()
	if panicked {
		return // network.interfaces absent (recoverWorker), not half-read
	}
	if len(ifs) > 0 && !c.Root.Exists(procIPv4Conf) {
		c.AbsentReason("network.interfaces.arp_filter", procIPv4Conf, "not present on this host")
	}
	if c.Root.Live {
		readLiveNet(c, ifs)
	}
	nw.Interfaces = ifs
}

func readInterface(c *Collector, it *snapshot.Interface, vlans map[string]string) {
	name := it.Name
	dir := sysNet + "/" + name
	fact := "network.interfaces[" + name + "]"
	target, _ := c.Root.Readlink(dir)
	typ := attrInt(c, "", dir+"/type")
	ifindex := attrInt(c, "", dir+"/ifindex")
	iflink := attrInt(c, "", dir+"/iflink")
	devType := ""
	if s, err := c.Root.ReadAttr(dir + "/uevent"); err == nil {
		devType = ueventValue(s, "DEVTYPE")
	}
	_, isVlan := vlans[name]
	// Lstat: in a copied tree (sosreport) the device link may dangle; it
	// still says the interface sits on hardware.
	_, derr := c.Root.Lstat(dir + "/device")
	hasDevice := derr == nil
	it.Kind = netKind(name, typ, c.Root.Exists(dir+"/bonding"), c.Root.Exists(dir+"/bridge"), isVlan, hasDevice, devType, ifindex, iflink)
	it.MTU = attrInt(c, fact+".mtu", dir+"/mtu")
	if v := attrInt(c, "", dir+"/speed"); v != nil && *v >= 0 && *v != 65535 && *v != 0xffffffff {
		it.SpeedMbps = v // not -1 (SPEED_UNKNOWN), 65535 or 2^32-1 (old drivers) nor an error (link down)
	}
	if s, err := c.Root.ReadAttr(dir + "/duplex"); err == nil && s != "unknown" {
		it.Duplex = s
	}
	it.OperState = attrQuiet(c, dir+"/operstate")
	it.Address = attrQuiet(c, dir+"/address")
	if it.Kind == "loopback" {
		it.Address = "" // 00:00:00:00:00:00 says nothing
	}
	if hasDevice {
		it.Driver, _ = c.Root.LinkBase(dir + "/device/driver")
		it.NUMANode = deviceNUMANode(c, dir, target)
		it.IRQs = nicMSIIRQs(c, dir, target)
	}
	it.Master, _ = c.Root.LinkBase(dir + "/master")
	if it.Kind == "bond" {
		it.Bond = readBond(c, fact, dir)
	}
	if qs, err := c.Root.ReadDirNames(dir + "/queues"); err == nil {
		for _, q := range qs {
			switch {
			case strings.HasPrefix(q, "rx-"):
				it.RxQueues++
			case strings.HasPrefix(q, "tx-"):
				it.TxQueues++
			}
		}
	}
	conf := procIPv4Conf + "/" + name
	it.ArpFilter = attrInt(c, "", conf+"/arp_filter")
	it.RpFilter = attrInt(c, "", conf+"/rp_filter")
}

func readBond(c *Collector, fact, dir string) *snapshot.Bond {
	b := &snapshot.Bond{Slaves: []string{}}
	bd := dir + "/bonding"
	if s, err := c.Root.ReadAttr(bd + "/mode"); err != nil {
		c.Absent(fact+".bond.mode", bd+"/mode", err)
	} else {
		b.Mode = s
	}
	if s, err := c.Root.ReadAttr(bd + "/xmit_hash_policy"); err != nil {
		c.Absent(fact+".bond.xmit_hash_policy", bd+"/xmit_hash_policy", err)
	} else {
		b.XmitHashPolicy = s
	}
	if s, err := c.Root.ReadAttr(bd + "/slaves"); err != nil {
		c.Absent(fact+".bond.slaves", bd+"/slaves", err)
	} else {
		b.Slaves = strings.Fields(s)
		sort.Strings(b.Slaves)
	}
	b.Miimon = attrInt(c, "", bd+"/miimon")
	return b
}

// nicMSIIRQs lists a NIC's MSI/MSI-X vectors from device/msi_irqs. A
// virtio NIC's device is the virtio device: its vectors are on the PCI
// function above it.
func nicMSIIRQs(c *Collector, dir, target string) []int {
	names, err := c.Root.ReadDirNames(dir + "/device/msi_irqs")
	if err != nil {
		devTarget, lerr := c.Root.Readlink(dir + "/device")
		if lerr != nil || target == "" || !strings.HasPrefix(path.Base(devTarget), "virtio") {
			return nil
		}
		real := target
		if !path.IsAbs(real) {
			real = path.Join(path.Dir(dir), target)
		}
		dev := devTarget
		if !path.IsAbs(dev) {
			dev = path.Join(real, devTarget)
		}
		if names, err = c.Root.ReadDirNames(path.Dir(dev) + "/msi_irqs"); err != nil {
			return nil
		}
	}
	var irqs []int
	for _, n := range names {
		if v, err := strconv.Atoi(n); err == nil && v >= 0 {
			irqs = append(irqs, v)
		}
	}
	sort.Ints(irqs)
	return irqs
}

// irqNamesInterface reports whether an IRQ's action names the interface:
// "eth0", "eth0-TxRx-3", "i40e-eth0-TxRx-0", but not "eth01-rx".
func irqNamesInterface(actions, name string) bool {
	if name == "" {
		return false
	}
	for off := 0; ; {
		i := strings.Index(actions[off:], name)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(name)
		if (i == 0 || !isNameByte(actions[i-1])) && (end == len(actions) || !isNameByte(actions[end])) {
			return true
		}
		off = i + 1
	}
}

func isNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '_'
}

// deriveNetIRQs fills the IRQs of physical NICs without msi_irqs from the
// /proc/interrupts action names (read by the interrupts reader).
func deriveNetIRQs(c *Collector) {
	ifs := c.Snap.Network.Interfaces
	irqs := c.Snap.IRQs.IRQs
	for i := range ifs {
		it := &ifs[i]
		if it.Kind != "physical" || len(it.IRQs) > 0 {
			continue
		}
		for _, q := range irqs {
			n, err := strconv.Atoi(q.IRQ)
			if err != nil || q.Actions == "" {
				continue
			}
			if irqNamesInterface(q.Actions, it.Name) {
				it.IRQs = append(it.IRQs, n)
			}
		}
		sort.Ints(it.IRQs)
	}
}

// sosNetConf: a sosreport keeps no /proc/sys/net copy, but its
// sos_commands/kernel/sysctl_-a has net.ipv4.conf.<if>.{arp_filter,rp_filter}.
func sosNetConf(c *Collector) {
	const fact, sysctlA = "network.interfaces.arp_filter", "/sos_commands/kernel/sysctl_-a"
	if !c.Root.Sos || !c.IsAbsent(fact) {
		return
	}
	b, err := c.Root.ReadFile(sysctlA)
	if err != nil {
		return
	}
	m, err := ParseSysctlA(bytes.NewReader(b))
	if err != nil {
		c.Absent(fact, sysctlA, err)
		return
	}
	found := false
	ifs := c.Snap.Network.Interfaces
	for i := range ifs {
		// sysctl(8) prints a '.' in an interface name as '/'.
		key := "net.ipv4.conf." + strings.ReplaceAll(ifs[i].Name, ".", "/")
		if v, err := strconv.ParseInt(m[key+".arp_filter"], 10, 64); err == nil {
			ifs[i].ArpFilter, found = &v, true
		}
		if v, err := strconv.ParseInt(m[key+".rp_filter"], 10, 64); err == nil {
			ifs[i].RpFilter, found = &v, true
		}
	}
	if found {
		c.Resolve(fact)
	}
}

// readLiveNet adds what only the running host can say: IPv4 addresses and
// interrupt coalescing (ETHTOOL_GCOALESCE, see net_linux.go).
func readLiveNet(c *Collector, ifs []snapshot.Interface) {
	sys, err := net.Interfaces()
	if err != nil {
		c.AbsentReason("network.interfaces.ipv4", "", "listing interfaces: "+err.Error())
	}
	byName := map[string]net.Interface{}
	for _, s := range sys {
		byName[s.Name] = s
	}
	co := newCoalesceReader()
	defer co.close()
	for i := range ifs {
		it := &ifs[i]
		if s, ok := byName[it.Name]; ok {
			if addrs, err := s.Addrs(); err == nil {
				for _, a := range addrs {
					if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
						it.IPv4 = append(it.IPv4, ipn.String())
					}
				}
			}
		}
		if it.Kind != "physical" {
			continue
		}
		cs, err := co.read(it.Name)
		if err != nil {
			c.Absent("network.interfaces["+it.Name+"].coalesce", "ioctl ETHTOOL_GCOALESCE "+it.Name, err)
			continue
		}
		it.Coalesce = cs
	}
}
