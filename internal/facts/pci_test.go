package facts

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A tree in the kernel's layout: an FC HBA port (QMH2672, qla2xxx) below a
// root port capable of x8 but trained at x4, an NVMe controller whose link
// is down ("Unknown"), a NIC on a 4.13-era kernel's format, a VGA function
// (not judged) and a conventional PCI function without link files.
func pciTree(t *testing.T) Root {
	t.Helper()
	dir := t.TempDir()
	tr := &liveTree{t: t, dir: dir}
	dev := func(addr, port, class, driver string, node int, msi []int) string {
		real := "/sys/devices/pci0000:00/" + port + "/" + addr
		if port == "" {
			real = "/sys/devices/pci0000:00/" + addr
		}
		tr.Link(sysPCIDevices+"/"+addr, real)
		tr.Line(real+"/class", class)
		tr.Line(real+"/vendor", "0x1077")
		tr.Line(real+"/device", "0x2031")
		tr.Line(real+"/numa_node", node)
		tr.Line(real+"/irq", 16)
		if driver != "" {
			tr.DriverLink(real, "pci", driver)
		}
		for _, q := range msi {
			tr.Line(fmt.Sprintf("%s/msi_irqs/%d", real, q), "msix")
		}
		return real
	}
	fc := dev("0000:11:00.0", "0000:00:03.0", "0x0c0400", "qla2xxx", 1, []int{90, 91, 92})
	tr.Line(fc+"/current_link_speed", "8.0 GT/s PCIe")
	tr.Line(fc+"/max_link_speed", "8.0 GT/s PCIe")
	tr.Line(fc+"/current_link_width", "4")
	tr.Line(fc+"/max_link_width", "8")
	tr.Line("/sys/devices/pci0000:00/0000:00:03.0/max_link_width", "8")
	tr.Line("/sys/devices/pci0000:00/0000:00:03.0/max_link_speed", "8.0 GT/s PCIe")
	tr.Line("/sys/devices/pci0000:00/0000:00:03.0/class", "0x060400")
	tr.Link("/sys/class/fc_host/host3", fc+"/host3/fc_host/host3")
	tr.Link("/sys/class/scsi_host/host3", fc+"/host3/scsi_host/host3")
	nvme := dev("0000:5e:00.0", "0000:5d:00.0", "0x010802", "nvme", -1, []int{40, 41})
	tr.Line(nvme+"/current_link_speed", "Unknown")
	tr.Line(nvme+"/max_link_speed", "16.0 GT/s PCIe")
	tr.Line(nvme+"/current_link_width", "0")
	tr.Line(nvme+"/max_link_width", "4")
	tr.Link("/sys/class/nvme/nvme0", nvme+"/nvme/nvme0")
	nic := dev("0000:3b:00.0", "0000:3a:00.0", "0x020000", "ixgbe", 0, []int{70})
	tr.Line(nic+"/current_link_speed", "5 GT/s")
	tr.Line(nic+"/max_link_speed", "8 GT/s")
	tr.Line(nic+"/current_link_width", "8")
	tr.Line(nic+"/max_link_width", "8")
	tr.Link("/sys/class/net/ens1f0", nic+"/net/ens1f0")
	dev("0000:00:02.0", "", "0x030000", "i915", 0, nil)
	dev("0000:07:01.0", "0000:06:00.0", "0x010400", "", 0, nil) // conventional PCI RAID: no link files, INTx
	return Root{Dir: dir}
}

// liveTree writes a tree with the kernel's own names (':' in PCI
// addresses), which fixture.Tree refuses for committed trees.
type liveTree struct {
	t   *testing.T
	dir string
}

func (l *liveTree) Line(p string, v any) {
	full := filepath.Join(l.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		l.t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(fmt.Sprint(v)+"\n"), 0o644); err != nil {
		l.t.Fatal(err)
	}
}

func (l *liveTree) Link(p, target string) {
	full := filepath.Join(l.dir, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		l.t.Fatal(err)
	}
	rel, err := filepath.Rel(filepath.Dir(p), target)
	if err != nil {
		l.t.Fatal(err)
	}
	if err := os.Symlink(rel, full); err != nil {
		l.t.Fatal(err)
	}
}

func (l *liveTree) DriverLink(dev, bus, name string) {
	d := "/sys/bus/" + bus + "/drivers/" + name
	l.Line(d+"/uevent", "")
	l.Link(dev+"/driver", d)
}

func TestReadPCIDevices(t *testing.T) {
	c := collectorA(pciTree(t))
	readPCIDevices(c)
	d := c.Snap.PCIDevices
	if len(d) != 4 {
		t.Fatalf("want the FC, RAID, NIC and NVMe functions, not the VGA one: %+v", d)
	}
	raid, fc, nic, nvme := d[0], d[1], d[2], d[3] // sorted by address
	if fc.Kind != "fc" || fc.Driver != "qla2xxx" || *fc.NUMANode != 1 || !fc.MSI || fmt.Sprint(fc.IRQs) != "[90 91 92]" ||
		fmt.Sprint(fc.FCHosts) != "[3]" || fmt.Sprint(fc.SCSIHosts) != "[3]" {
		t.Errorf("fc: %+v", fc)
	}
	if l := fc.Link; l == nil || *l.Width != 4 || *l.MaxWidth != 8 || *l.Speed != 8 || l.Port != "0000:00:03.0" || *l.PortMaxWidth != 8 || *l.PortMaxSpeed != 8 {
		t.Errorf("fc link: %+v", fc.Link)
	}
	if nvme.Kind != "nvme" || nvme.NUMANode != nil || fmt.Sprint(nvme.NVMe) != "[nvme0]" || nvme.Link.Speed != nil || *nvme.Link.MaxSpeed != 16 || *nvme.Link.Width != 0 {
		t.Errorf("nvme: %+v %+v", nvme, nvme.Link)
	}
	if nic.Kind != "nic" || fmt.Sprint(nic.Net) != "[ens1f0]" || *nic.Link.Speed != 5 || *nic.Link.MaxSpeed != 8 || nic.Link.PortMaxWidth != nil {
		t.Errorf("nic: %+v %+v", nic, nic.Link)
	}
	if raid.Kind != "storage" || raid.MSI || fmt.Sprint(raid.IRQs) != "[16]" || raid.Link != nil {
		t.Errorf("raid: %+v", raid)
	}
	if len(c.Snap.Absent) != 0 {
		t.Errorf("a conventional PCI function beside PCIe ones has no link files, by the kernel's design: %+v", c.Snap.Absent)
	}
	// A kernel before 4.13: no function has link files: unknown, recorded once.
	old := collectorA(fakeRootA(t, map[string]string{
		sysPCIDevices + "/0000:11:00.0/class":     "0x0c0400\n",
		sysPCIDevices + "/0000:11:00.0/numa_node": "1\n",
	}))
	readPCIDevices(old)
	if len(old.Snap.PCIDevices) != 1 || old.Snap.PCIDevices[0].Link != nil || absenceA(old, "pci_devices.link") == nil {
		t.Errorf("%+v %+v", old.Snap.PCIDevices, old.Snap.Absent)
	}
	// No /sys/bus at all: unknown, recorded.
	none := collectorA(fakeRootA(t, map[string]string{"/sys/class/net/": ""}))
	readPCIDevices(none)
	if none.Snap.PCIDevices != nil || absenceA(none, "pci_devices") == nil {
		t.Fatalf("%+v", none.Snap)
	}
	// /sys/bus without pci (a PowerVM LPAR's virtual I/O): no function, no absence.
	lpar := collectorA(fakeRootA(t, map[string]string{"/sys/bus/vio/devices/": ""}))
	readPCIDevices(lpar)
	if len(lpar.Snap.PCIDevices) != 0 || len(lpar.Snap.Absent) != 0 {
		t.Fatalf("%+v", lpar.Snap)
	}
	// The same in a sosreport, which keeps only what its plugins copied: unknown.
	sosRoot := fakeRootA(t, map[string]string{"/sys/bus/vio/devices/": ""})
	sosRoot.Sos = true
	sos := collectorA(sosRoot)
	readPCIDevices(sos)
	if absenceA(sos, "pci_devices") == nil {
		t.Fatalf("%+v", sos.Snap)
	}
}

func TestIsPCIAddress(t *testing.T) {
	for _, s := range []string{"0000:3b:00.0", "0000-3b-00.0", "10000:00:00.0"[1:], "0000:ff:1f.7"} {
		if !isPCIAddress(s) {
			t.Errorf("%q", s)
		}
	}
	for _, s := range []string{"0000:3b-00.0", "0000:3b:00.8", "0000:3b:20.0", "pci0000:00", "0000:3b:00", "host3", ""} {
		if isPCIAddress(s) {
			t.Errorf("%q", s)
		}
	}
}

func TestPCIKind(t *testing.T) {
	for in, want := range map[string]string{"0x020000": "nic", "0x028000": "nic", "0x0c0400": "fc", "0x010802": "nvme",
		"0x010700": "storage", "0x010400": "storage", "0x030000": "", "0x060400": "", "0x0c0330": ""} {
		if got, err := pciKind(in + "\n"); err != nil || got != want {
			t.Errorf("%s: %q %v", in, got, err)
		}
	}
	for _, in := range []string{"", "020000", "0x02000", "0xzz0000"} {
		if _, err := pciKind(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// The kernel's two formats: Linux 4.13-5.6 ("8 GT/s", "Unknown speed")
// and pci_speed_string() since 5.7 ("8.0 GT/s PCIe", "Unknown").
func TestParsePCIeSpeed(t *testing.T) {
	for in, want := range map[string]float64{"2.5 GT/s": 2.5, "5 GT/s": 5, "8 GT/s\n": 8, "16 GT/s": 16, "2.5 GT/s PCIe": 2.5,
		"5.0 GT/s PCIe": 5, "32.0 GT/s PCIe": 32, "64.0 GT/s PCIe": 64} {
		if v, known, err := parsePCIeSpeed(in); err != nil || !known || v != want {
			t.Errorf("%q: %v %v %v", in, v, known, err)
		}
	}
	for _, in := range []string{"Unknown", "Unknown speed\n"} {
		if _, known, err := parsePCIeSpeed(in); err != nil || known {
			t.Errorf("%q: %v %v", in, known, err)
		}
	}
	for _, in := range []string{"", "8", "GT/s", "8 GT/s PCI", "-8 GT/s", ".5 GT/s", "8. GT/s", "0 GT/s", "1e3 GT/s", "unknown"} {
		if _, _, err := parsePCIeSpeed(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}

// Round trip: a rate the fuzzer picks, printed as either kernel era prints
// it, parses back to itself; and whatever parses is a positive rate whose
// text holds it.
func FuzzParsePCIeSpeed(f *testing.F) {
	f.Add("8.0 GT/s PCIe", uint16(80), true)
	f.Add("5 GT/s", uint16(25), false)
	f.Add("Unknown speed", uint16(0), false)
	f.Fuzz(func(t *testing.T, s string, tenths uint16, newFormat bool) {
		if tenths > 0 {
			v := float64(tenths) / 10
			text := strconv.FormatFloat(v, 'f', -1, 64) + " GT/s"
			if newFormat {
				text = strconv.FormatFloat(v, 'f', 1, 64) + " GT/s PCIe"
			}
			if got, known, err := parsePCIeSpeed(text + "\n"); err != nil || !known || got != v {
				t.Fatalf("%q → %v %v %v", text, got, known, err)
			}
		}
		v, known, err := parsePCIeSpeed(s)
		if err != nil {
			return
		}
		if known && (v <= 0 || !strings.Contains(s, " GT/s")) {
			t.Fatalf("%q → %v", s, v)
		}
		if !known && v != 0 {
			t.Fatalf("%q unknown but %v", s, v)
		}
	})
}

// Round trip for widths: the kernel prints the lane count with %u.
func FuzzParseLinkWidth(f *testing.F) {
	f.Add("8\n", uint8(8))
	f.Add("x4", uint8(4))
	f.Fuzz(func(t *testing.T, s string, w uint8) {
		if w <= 32 {
			if got, err := parseLinkWidth(fmt.Sprintf("%d\n", w)); err != nil || got != int(w) {
				t.Fatalf("%d → %d %v", w, got, err)
			}
		}
		if v, err := parseLinkWidth(s); err == nil && (v < 0 || v > 32 || strconv.Itoa(v) != strings.TrimSpace(s)) {
			t.Fatalf("%q → %d", s, v)
		}
	})
}

// The class as the kernel prints it ("0x%06x\n", pci-sysfs.c) parses back
// to the kind its base class and subclass say (a second reading of the
// bits); any text accepted is such a class.
func FuzzPCIKind(f *testing.F) {
	f.Add("0x0c0400\n", uint32(0x0c0400))
	f.Add("0x010802", uint32(0x020000))
	f.Add("0x01", uint32(0))
	f.Fuzz(func(t *testing.T, s string, class uint32) {
		class &= 0xffffff
		want := ""
		switch base, sub := class>>16, class>>8&0xff; {
		case base == 2:
			want = "nic"
		case base == 0x0c && sub == 4:
			want = "fc"
		case base == 1 && sub == 8:
			want = "nvme"
		case base == 1:
			want = "storage"
		}
		if got, err := pciKind(fmt.Sprintf("0x%06x\n", class)); err != nil || got != want {
			t.Fatalf("%06x → %q %v, want %q", class, got, err, want)
		}
		if _, err := pciKind(s); err == nil {
			var v uint32
			if n, _ := fmt.Sscanf(strings.TrimSpace(s), "0x%06x", &v); n != 1 || len(strings.TrimSpace(s)) != 8 {
				t.Fatalf("%q accepted", s)
			}
		}
	})
}

// An address printed as the kernel names the entries ("%04x:%02x:%02x.%d",
// pci_name) is one; an accepted name has the shape.
func FuzzIsPCIAddress(f *testing.F) {
	f.Add("0000:3b:00.0", uint16(0), uint8(0x3b), uint8(0), uint8(0))
	f.Add("0000-3b-00.0", uint16(1), uint8(0xff), uint8(31), uint8(7))
	f.Fuzz(func(t *testing.T, s string, dom uint16, bus, dev, fn uint8) {
		a := fmt.Sprintf("%04x:%02x:%02x.%d", dom, bus, dev&31, fn&7)
		if !isPCIAddress(a) || !isPCIAddress(strings.ReplaceAll(a, ":", "-")) {
			t.Fatalf("%q refused", a)
		}
		if isPCIAddress(s) {
			var d, b, v, fu uint
			norm := strings.ReplaceAll(s, "-", ":")
			if n, err := fmt.Sscanf(norm, "%4x:%2x:%2x.%1d", &d, &b, &v, &fu); err != nil || n != 4 || v > 31 || fu > 7 {
				t.Fatalf("%q accepted: %v", s, err)
			}
		}
	})
}
