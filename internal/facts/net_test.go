package facts

import (
	"reflect"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// netIf creates /sys/class/net/<name> as a link to its /sys/devices path
// with the given attribute files, and returns that path.
func (b *bTree) netIf(name, devPath string, attrs map[string]string) string {
	b.t.Helper()
	real := "/sys/devices/" + devPath + "/net/" + name
	b.link(sysNet+"/"+name, "../../devices/"+devPath+"/net/"+name)
	b.files(real, attrs)
	return real
}

func bNetAttrs(typ, ifindex, iflink, mtu, speed, oper string) map[string]string {
	m := map[string]string{"type": typ + "\n", "ifindex": ifindex + "\n", "iflink": iflink + "\n",
		"mtu": mtu + "\n", "operstate": oper + "\n", "address": "3c:fd:fe:00:00:" + ifindex + "\n",
		"uevent": "INTERFACE=x\nIFINDEX=" + ifindex + "\n"}
	if speed != "" {
		m["speed"] = speed + "\n"
		m["duplex"] = "full\n"
	}
	return m
}

func bNetTree(t *testing.T) *bTree {
	b := newBTree(t)
	// eth0: ixgbe on node 1 with MSI-X vectors, enslaved to bond0, 4 queues.
	pci0 := "pci0000:3a/0000:3a:00.0/0000:3b:00.0"
	e0 := b.netIf("eth0", pci0, bNetAttrs("1", "2", "2", "9000", "10000", "up"))
	b.link(e0+"/device", "../../../0000:3b:00.0")
	b.link("/sys/devices/"+pci0+"/driver", "../../../../bus/pci/drivers/ixgbe")
	b.file("/sys/devices/"+pci0+"/numa_node", "1\n")
	for _, n := range []string{"90", "91", "100", "92"} {
		b.file("/sys/devices/"+pci0+"/msi_irqs/"+n, "msix\n")
	}
	for _, q := range []string{"rx-0", "rx-1", "rx-2", "rx-3", "tx-0", "tx-1", "tx-2", "tx-3"} {
		b.mkdir(e0 + "/queues/" + q)
	}
	b.link(e0+"/master", "../../../../../virtual/net/bond0")
	// eth1: link down (speed -1), numa_node -1, no msi_irqs: IRQs come from
	// /proc/interrupts names.
	pci1 := "pci0000:00/0000:00:1c.0"
	e1 := b.netIf("eth1", pci1, bNetAttrs("1", "3", "3", "1500", "-1", "down"))
	b.link(e1+"/device", "../../../0000:00:1c.0")
	b.link("/sys/devices/"+pci1+"/driver", "../../../bus/pci/drivers/e1000e")
	b.file("/sys/devices/"+pci1+"/numa_node", "-1\n")
	b.link(e1+"/master", "../../../../virtual/net/bond0")
	// bond0.
	bd := b.netIf("bond0", "virtual", bNetAttrs("1", "4", "4", "9000", "20000", "up"))
	b.files(bd+"/bonding", map[string]string{"mode": "802.3ad 4\n", "xmit_hash_policy": "layer3+4 1\n",
		"slaves": "eth1 eth0\n", "miimon": "100\n"})
	b.file(sysNet+"/bonding_masters", "bond0\n")
	// A bridge, two VLANs (one known from /proc/net/vlan, one from uevent),
	// a veth, a dummy and the loopback.
	br := b.netIf("br0", "virtual", bNetAttrs("1", "5", "5", "1500", "", "up"))
	b.mkdir(br + "/bridge")
	b.netIf("eth0.100", "virtual", bNetAttrs("1", "6", "2", "9000", "", "up"))
	b.file("/proc/net/vlan/config", "VLAN Dev name\t | VLAN ID\nName-Type: VLAN_NAME_TYPE_RAW_PLUS_VID_NO_PAD\neth0.100       | 100  | eth0\n")
	v2 := b.netIf("bond0.200", "virtual", bNetAttrs("1", "7", "4", "9000", "", "up"))
	b.file(v2+"/uevent", "DEVTYPE=vlan\nINTERFACE=bond0.200\nIFINDEX=7\n")
	b.netIf("veth1a2b", "virtual", bNetAttrs("1", "8", "9", "1500", "10000", "up"))
	// A copied tree whose device link dangles is still hardware.
	e2 := b.netIf("eth2", "pci0000:00/0000:00:1d.0", bNetAttrs("1", "11", "11", "1500", "1000", "up"))
	b.link(e2+"/device", "../../../0000:00:1e.0") // not copied
	b.netIf("dummy0", "virtual", bNetAttrs("1", "10", "10", "1500", "", "unknown"))
	b.netIf("lo", "virtual", bNetAttrs("772", "1", "1", "65536", "", "unknown"))
	b.files(procIPv4Conf+"/eth0", map[string]string{"arp_filter": "1\n", "rp_filter": "2\n"})
	b.files(procIPv4Conf+"/eth1", map[string]string{"arp_filter": "0\n", "rp_filter": "1\n"})
	b.file("/proc/interrupts", `            CPU0       CPU1
  90:          1          0  IR-PCI-MSI 524288-edge      eth0-TxRx-0
  40:          5          0  IR-PCI-MSI 524289-edge      eth1-rx-0
  41:          0          5  IR-PCI-MSI 524290-edge      eth1-tx-0
  42:          0          5  IR-PCI-MSI 524291-edge      eth10-tx-0
  43:          0          5  IR-PCI-MSI 524292-edge      e1000e-eth1, other
`)
	return b
}

func TestReadNet(t *testing.T) {
	s := bNetTree(t).collect(func(c *Collector) {
		readInterrupts(c)
		readNet(c)
		deriveNetIRQs(c)
	})
	byName := map[string]snapshot.Interface{}
	names := []string{}
	for _, it := range s.Network.Interfaces {
		byName[it.Name] = it
		names = append(names, it.Name)
	}
	if want := []string{"bond0", "bond0.200", "br0", "dummy0", "eth0", "eth0.100", "eth1", "eth2", "lo", "veth1a2b"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("interfaces %v, want %v", names, want)
	}
	kinds := map[string]string{}
	for n, it := range byName {
		kinds[n] = it.Kind
	}
	wantKinds := map[string]string{"bond0": "bond", "bond0.200": "vlan", "br0": "bridge", "dummy0": "virtual",
		"eth0": "physical", "eth0.100": "vlan", "eth1": "physical", "eth2": "physical", "lo": "loopback", "veth1a2b": "veth"}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("kinds %v\nwant  %v", kinds, wantKinds)
	}
	e0 := byName["eth0"]
	want := snapshot.Interface{
		Name: "eth0", Kind: "physical", MTU: bI64(9000), SpeedMbps: bI64(10000), Duplex: "full", Driver: "ixgbe",
		OperState: "up", NUMANode: bIntP(1), Address: "3c:fd:fe:00:00:2", Master: "bond0", RxQueues: 4, TxQueues: 4,
		IRQs: []int{90, 91, 92, 100}, ArpFilter: bI64(1), RpFilter: bI64(2),
	}
	if !reflect.DeepEqual(e0, want) {
		t.Errorf("eth0:\n got %s\nwant %s", bDump(e0), bDump(want))
	}
	e1 := byName["eth1"]
	if e1.SpeedMbps != nil || e1.NUMANode != nil || e1.Driver != "e1000e" || !reflect.DeepEqual(e1.IRQs, []int{40, 41, 43}) || *e1.RpFilter != 1 {
		t.Errorf("eth1: %s", bDump(e1))
	}
	bond := byName["bond0"]
	if bond.Bond == nil || !reflect.DeepEqual(*bond.Bond, snapshot.Bond{Mode: "802.3ad 4", XmitHashPolicy: "layer3+4 1",
		Slaves: []string{"eth0", "eth1"}, Miimon: bI64(100)}) || bond.IRQs != nil || bond.ArpFilter != nil {
		t.Errorf("bond0: %s %+v", bDump(bond), bond.Bond)
	}
	if lo := byName["lo"]; lo.Address != "" || *lo.MTU != 65536 || lo.SpeedMbps != nil || lo.Duplex != "" {
		t.Errorf("lo: %s", bDump(lo))
	}
	if v := byName["veth1a2b"]; *v.SpeedMbps != 10000 || v.Driver != "" || v.NUMANode != nil {
		t.Errorf("veth: %s", bDump(v))
	}
	for _, a := range s.Absent {
		if a.Fact[:4] == "netw" {
			t.Errorf("unexpected absence %+v", a)
		}
	}
}

func TestReadNetAbsent(t *testing.T) {
	s := newBTree(t).collect(readNet)
	if s.Network.Interfaces == nil || len(s.Network.Interfaces) != 0 || !hasAbsent(s, "network.interfaces", "not present") {
		t.Errorf("no /sys/class/net: %+v %v", s.Network, s.Absent)
	}
	// A bare directory with nothing readable; a bond without bonding files; a broken vlan config.
	b := newBTree(t).mkdir(sysNet+"/eth9").mkdir(sysNet+"/bond1/bonding").file(procVlan, "garbage line\n")
	s = b.collect(readNet)
	if len(s.Network.Interfaces) != 2 || s.Network.Interfaces[1].MTU != nil || s.Network.Interfaces[1].Kind != "virtual" {
		t.Fatalf("interfaces: %+v", s.Network.Interfaces)
	}
	for _, f := range []string{"network.interfaces[eth9].mtu", "network.interfaces[bond1].mtu", "network.interfaces[bond1].bond.mode",
		"network.interfaces[bond1].bond.slaves", "network.vlans", "network.interfaces.arp_filter"} {
		if !hasAbsent(s, f, "") {
			t.Errorf("missing absence %s in %v", f, absentFacts(s))
		}
	}
	if bd := s.Network.Interfaces[0].Bond; bd == nil || bd.Slaves == nil || bd.Miimon != nil {
		t.Errorf("bond1: %+v", bd)
	}
}

func TestNetKind(t *testing.T) {
	one, two := bI64(1), bI64(2)
	for _, c := range []struct {
		name               string
		typ                *int64
		bond, br, vlan, hw bool
		devtype            string
		idx, link          *int64
		want               string
	}{
		{"lo", nil, false, false, false, false, "", nil, nil, "loopback"},
		{"weird", bI64(772), false, false, false, true, "", nil, nil, "loopback"},
		{"team0", nil, false, false, false, false, "bond", nil, nil, "bond"},
		{"virbr0", nil, false, false, false, false, "bridge", nil, nil, "bridge"},
		{"em1.5", nil, false, false, false, false, "vlan", one, two, "vlan"},
		{"macv0", nil, false, false, false, false, "macvlan", one, two, "virtual"},
		{"veth0", nil, false, false, false, false, "", one, two, "veth"},
		{"tun0", nil, false, false, false, false, "", one, one, "virtual"},
		{"ens3", bI64(1), false, false, false, true, "", one, one, "physical"},
		{"wlan0", bI64(1), false, false, false, true, "wlan", one, one, "physical"},
	} {
		if got := netKind(c.name, c.typ, c.bond, c.br, c.vlan, c.hw, c.devtype, c.idx, c.link); got != c.want {
			t.Errorf("netKind(%s) = %s, want %s", c.name, got, c.want)
		}
	}
}

func TestIRQNamesInterface(t *testing.T) {
	for _, c := range []struct {
		actions, name string
		want          bool
	}{
		{"eth0-TxRx-0", "eth0", true},
		{"eth0", "eth0", true},
		{"i40e-eth0-TxRx-3", "eth0", true},
		{"eth01-rx", "eth0", false},
		{"veth0-rx", "eth0", false},
		{"eth01-rx, eth0-tx", "eth0", true},
		{"mlx5_comp0@pci:0000:3b:00.0", "eth0", false},
		{"ens1f0np0-0", "ens1f0", false},
	} {
		if got := irqNamesInterface(c.actions, c.name); got != c.want {
			t.Errorf("irqNamesInterface(%q, %q) = %v", c.actions, c.name, got)
		}
	}
}

func TestUeventValue(t *testing.T) {
	if v := ueventValue("INTERFACE=bond0.200\nDEVTYPE=vlan\n", "DEVTYPE"); v != "vlan" {
		t.Errorf("got %q", v)
	}
	if v := ueventValue("INTERFACE=x\n", "DEVTYPE"); v != "" {
		t.Errorf("got %q", v)
	}
}

func FuzzIRQNamesInterface(f *testing.F) {
	f.Add("i40e-eth0-TxRx-3", "eth0")
	f.Fuzz(func(t *testing.T, actions, name string) {
		if name == "" {
			return
		}
		if irqNamesInterface(actions, name) && !bContains(actions, name) {
			t.Fatalf("matched %q in %q", name, actions)
		}
	})
}

func bContains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestSosNetConf(t *testing.T) {
	b := newBTree(t)
	b.netIf("eth0", "virtual", bNetAttrs("1", "2", "2", "1500", "", "up"))
	b.netIf("eth0.7", "virtual", bNetAttrs("1", "3", "2", "1500", "", "up"))
	b.file("/sos_commands/kernel/sysctl_-a", "net.ipv4.conf.eth0.arp_filter = 1\nnet.ipv4.conf.eth0.rp_filter = 2\nnet.ipv4.conf.eth0/7.rp_filter = 1\n")
	s := &snapshot.Snapshot{Sysctl: map[string]string{}}
	c := &Collector{Root: Root{Dir: b.dir, Sos: true}, Snap: s}
	readNet(c)
	if !c.IsAbsent("network.interfaces.arp_filter") {
		t.Fatalf("expected the file reader to record the absence: %v", s.Absent)
	}
	sosNetConf(c)
	ifs := s.Network.Interfaces
	if *ifs[0].ArpFilter != 1 || *ifs[0].RpFilter != 2 || ifs[1].ArpFilter != nil || *ifs[1].RpFilter != 1 {
		t.Errorf("interfaces %s", bDump(ifs))
	}
	if c.IsAbsent("network.interfaces.arp_filter") {
		t.Errorf("absence not resolved: %v", s.Absent)
	}
	// Not a sosreport: nothing happens.
	s2 := &snapshot.Snapshot{}
	c2 := &Collector{Root: Root{Dir: b.dir}, Snap: s2}
	readNet(c2)
	sosNetConf(c2)
	if s2.Network.Interfaces[0].ArpFilter != nil {
		t.Errorf("sysctl -a used outside a sosreport")
	}
}

func FuzzUeventValue(f *testing.F) {
	f.Add("DEVTYPE=vlan\nINTERFACE=bond0.200\nIFINDEX=7\n", "DEVTYPE")
	f.Fuzz(func(t *testing.T, uevent, key string) {
		v := ueventValue(uevent, key)
		if v != "" && !bContains(uevent, key+"="+v) {
			t.Fatalf("value %q for %q not in %q", v, key, uevent)
		}
	})
}

// TestReadNetLive reads this machine's interfaces (read-only): the loopback
// is always there and has no coalescing to read.
func TestReadNetLive(t *testing.T) {
	if _, err := (Root{Dir: "/"}).ReadAttr(sysNet + "/lo/type"); err != nil {
		t.Skip("no /sys/class/net/lo here")
	}
	s := &snapshot.Snapshot{}
	c := &Collector{Root: Root{Dir: "/", Live: true}, Snap: s}
	readNet(c)
	var lo *snapshot.Interface
	for i := range s.Network.Interfaces {
		if s.Network.Interfaces[i].Name == "lo" {
			lo = &s.Network.Interfaces[i]
		}
	}
	if lo == nil || lo.Kind != "loopback" || lo.MTU == nil || lo.Coalesce != nil {
		t.Fatalf("lo = %+v", lo)
	}
	for _, a := range lo.IPv4 {
		if a != "127.0.0.1/8" && !bContains(a, "/") {
			t.Errorf("lo IPv4 %q is not CIDR", a)
		}
	}
	r := newCoalesceReader()
	defer r.close()
	if cs, err := r.read("lo"); err == nil {
		t.Errorf("coalescing read on lo: %+v (the loopback has none)", cs)
	}
	if _, err := r.read("dbhost-none0"); err == nil {
		t.Errorf("coalescing read on a missing interface succeeded")
	}
	if _, err := r.read("a-name-longer-than-15"); err == nil {
		t.Errorf("over-long interface name accepted")
	}
}
