package facts

import (
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func parseDomainFile(t *testing.T, name string) *snapshot.Domain {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "libvirt", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := ParseDomain(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

func TestParseDomainRHEL9Pinned(t *testing.T) {
	d := parseDomainFile(t, "db1-rhel9-q35-pinned.xml")
	if d.Name != "db1" || d.Type != "kvm" || d.ID == nil || *d.ID != 7 || d.UUID != "5c0f4f2e-8d1b-4bb4-9a43-0f3c2de5a1e7" {
		t.Errorf("identity %q %q %v %q", d.Name, d.Type, d.ID, d.UUID)
	}
	if *d.MemoryKB != 64<<20 || *d.CurrentMemoryKB != 64<<20 || d.MaxMemoryKB != nil {
		t.Errorf("memory %d %d %v", *d.MemoryKB, *d.CurrentMemoryKB, d.MaxMemoryKB)
	}
	if d.VCPUs != 16 || d.VCPUPlacement != "static" || d.VCPUCpuset != nil || d.VCPUCurrent != nil || d.IOThreads != 2 {
		t.Errorf("vcpu %d %q %v %v %d", d.VCPUs, d.VCPUPlacement, d.VCPUCpuset, d.VCPUCurrent, d.IOThreads)
	}
	if len(d.CPUTune.VCPUPins) != 16 || d.CPUTune.VCPUPins[15].VCPU != 15 || !reflect.DeepEqual(d.CPUTune.VCPUPins[15].CPUSet.IDs, []int{41}) {
		t.Errorf("vcpupins %+v", d.CPUTune.VCPUPins)
	}
	if e := d.CPUTune.EmulatorPin; e == nil || e.Text != "0-1,32-33" || !reflect.DeepEqual(e.IDs, []int{0, 1, 32, 33}) {
		t.Errorf("emulatorpin %+v", e)
	}
	if len(d.CPUTune.IOThreadPins) != 2 || d.CPUTune.IOThreadPins[1].IOThread != 2 {
		t.Errorf("iothreadpins %+v", d.CPUTune.IOThreadPins)
	}
	nt := d.NUMATune
	if nt == nil || nt.Mode != "strict" || !reflect.DeepEqual(nt.Nodeset.IDs, []int{0}) || len(nt.MemNodes) != 2 || nt.MemNodes[1].CellID != 1 {
		t.Errorf("numatune %+v", nt)
	}
	mb := d.MemoryBacking
	if mb == nil || !mb.Hugepages || len(mb.Pages) != 1 || mb.Pages[0].SizeKB != 1<<20 || mb.Pages[0].Nodeset.Text != "0-1" || !mb.NoSharePages || !mb.Locked {
		t.Errorf("memoryBacking %+v", mb)
	}
	c := d.CPU
	if c == nil || c.Mode != "host-passthrough" || *c.Topology != (snapshot.GuestTopology{Sockets: 1, Dies: 1, Cores: 8, Threads: 2}) || len(c.Cells) != 2 ||
		c.Cells[1].ID != 1 || c.Cells[1].MemoryKB != 32<<20 || c.Cells[1].CPUs.Text != "8-15" || len(c.Cells[1].CPUs.IDs) != 8 {
		t.Errorf("cpu %+v", c)
	}
	if d.OS != (snapshot.GuestOS{Type: "hvm", Arch: "x86_64", Machine: "pc-q35-rhel9.2.0"}) {
		t.Errorf("os %+v", d.OS)
	}
	one := 1
	wantDisks := []snapshot.GuestDisk{
		{Type: "block", Device: "disk", DriverName: "qemu", DriverType: "raw", Cache: "none", IO: "native", IOThread: &one, Source: "/dev/mapper/vg_db1-root", Target: "vda", Bus: "virtio", Line: 74},
		{Type: "block", Device: "lun", DriverName: "qemu", DriverType: "raw", Cache: "none", IO: "native", Source: "/dev/disk/by-id/dm-uuid-mpath-36000d31000a6b6000000000000000012", Target: "sda", Bus: "scsi", Line: 82},
		{Type: "file", Device: "cdrom", DriverName: "qemu", DriverType: "raw", Target: "sdb", Bus: "sata", ReadOnly: true, Line: 90},
	}
	if !reflect.DeepEqual(d.Disks, wantDisks) {
		t.Errorf("disks:\n got %+v\nwant %+v", d.Disks, wantDisks)
	}
	if len(d.Controllers) != 3 || d.Controllers[0].Model != "virtio-scsi" || d.Controllers[0].Queues != 8 || *d.Controllers[0].IOThread != 2 {
		t.Errorf("controllers %+v", d.Controllers)
	}
	wantNICs := []snapshot.GuestNIC{
		{Type: "bridge", MAC: "52:54:00:6b:3c:58", Source: "br-db", Model: "virtio", DriverName: "vhost", Queues: 8, Line: 109},
		{Type: "hostdev", MAC: "52:54:00:6b:3c:59", Source: "0000:3b:02.1", DriverName: "vfio", Line: 118},
	}
	if !reflect.DeepEqual(d.Interfaces, wantNICs) {
		t.Errorf("interfaces:\n got %+v\nwant %+v", d.Interfaces, wantNICs)
	}
	if len(d.Hostdevs) != 1 || d.Hostdevs[0] != (snapshot.GuestHostdev{Mode: "subsystem", Type: "pci", Managed: true, Address: "0000:5e:00.0"}) {
		t.Errorf("hostdevs %+v", d.Hostdevs)
	}
}

func TestParseDomainRHEL7Defaults(t *testing.T) {
	d := parseDomainFile(t, "db2-rhel7-i440fx-defaults.xml")
	if d.ID != nil || *d.MemoryKB != 96<<20 || *d.CurrentMemoryKB != 96<<20 {
		t.Errorf("id %v memory %d %d", d.ID, *d.MemoryKB, *d.CurrentMemoryKB)
	}
	if d.NUMATune != nil || d.MemoryBacking != nil || len(d.CPUTune.VCPUPins) != 0 || d.CPUTune.EmulatorPin != nil {
		t.Errorf("unpinned guest has %+v %+v %+v", d.NUMATune, d.MemoryBacking, d.CPUTune)
	}
	if d.CPU.Mode != "custom" || d.CPU.Model != "Haswell-noTSX" || d.CPU.Match != "exact" || d.CPU.Topology != nil {
		t.Errorf("cpu %+v", d.CPU)
	}
	if d.OS.Machine != "pc-i440fx-rhel7.0.0" || len(d.Disks) != 3 || d.Disks[0].Cache != "" || d.Disks[0].DriverType != "qcow2" ||
		d.Disks[1].Cache != "writethrough" || d.Disks[1].Bus != "ide" || d.Disks[1].Source != "/data/oradata/db2-data.img" {
		t.Errorf("os %+v disks %+v", d.OS, d.Disks)
	}
	if len(d.Interfaces) != 2 || d.Interfaces[0].Model != "e1000" || d.Interfaces[0].Source != "default" || d.Interfaces[0].DriverName != "" ||
		d.Interfaces[1].Type != "direct" || d.Interfaces[1].Source != "ens2f0" || d.Interfaces[1].DriverName != "qemu" {
		t.Errorf("interfaces %+v", d.Interfaces)
	}
}

// libvirt 0.10 (RHEL 6): <memory> without a unit, <vcpu cpuset> as the
// only pinning, <cpu> without a mode, numa cells without ids, <hugepages/>
// without a page size, a network (rbd) disk.
func TestParseDomainOldLayout(t *testing.T) {
	d := parseDomainFile(t, "db3-rhel6-libvirt0.10.xml")
	if *d.MemoryKB != 32<<20 || d.VCPUs != 8 || d.VCPUCpuset.Text != "0-15,^4" || len(d.VCPUCpuset.IDs) != 15 || d.VCPUCpuset.IDs[4] != 5 {
		t.Errorf("memory %d vcpus %d cpuset %+v", *d.MemoryKB, d.VCPUs, d.VCPUCpuset)
	}
	if d.CPU.Mode != "custom" || len(d.CPU.Cells) != 2 || d.CPU.Cells[1].ID != 1 || d.CPU.Cells[1].MemoryKB != 16<<20 || d.CPU.Topology.Sockets != 2 {
		t.Errorf("cpu %+v", d.CPU)
	}
	if !d.MemoryBacking.Hugepages || len(d.MemoryBacking.Pages) != 0 {
		t.Errorf("memoryBacking %+v", d.MemoryBacking)
	}
	if n := d.Disks[1]; n.Type != "network" || n.Protocol != "rbd" || n.Source != "rbd:rbd/db3-redo" || n.Cache != "writeback" {
		t.Errorf("rbd disk %+v", n)
	}
	if d.Interfaces[0].Model != "rtl8139" || d.Hostdevs[0].Address != "0000:06:10.2" {
		t.Errorf("nic %+v hostdev %+v", d.Interfaces[0], d.Hostdevs[0])
	}
}

func TestParseDomainUbuntu(t *testing.T) {
	d := parseDomainFile(t, "db4-ubuntu-iscsi-spread.xml")
	if *d.MemoryKB != 48<<20 || d.VCPUs != 12 || *d.VCPUCurrent != 8 || d.CPU.Mode != "host-model" {
		t.Errorf("%d %d %v %+v", *d.MemoryKB, d.VCPUs, d.VCPUCurrent, d.CPU)
	}
	if d.NUMATune.Mode != "interleave" || d.NUMATune.Nodeset.Text != "0-1" || d.CPUTune.VCPUPins[0].CPUSet.Text != "0-3,16-19" {
		t.Errorf("numatune %+v pins %+v", d.NUMATune, d.CPUTune.VCPUPins)
	}
	if d.Disks[0].Source != "iscsi:iqn.2013-06.com.example:storage/1" || d.Disks[0].Bus != "sata" || d.Disks[1].Source != "fastpool/db4-wal" || d.Disks[1].IO != "io_uring" {
		t.Errorf("disks %+v", d.Disks)
	}
	if d.Interfaces[0].Queues != 4 || d.Interfaces[0].DriverName != "qemu" {
		t.Errorf("nic %+v", d.Interfaces[0])
	}
}

// Every unit of formatdomain.html's "Memory Allocation", in KiB.
func TestParseDomainUnits(t *testing.T) {
	for _, c := range []struct {
		v, unit string
		kb      int64
	}{
		{"1024", "", 1024}, {"1024", "KiB", 1024}, {"1024", "k", 1024}, {"1024", "K", 1024},
		{"2048", "b", 2}, {"2049", "bytes", 3}, {"1000", "KB", 977}, {"1", "MB", 977}, {"1", "M", 1024}, {"1", "MiB", 1024},
		{"1", "GB", 976563}, {"1", "G", 1 << 20}, {"1", "GiB", 1 << 20}, {"1", "gib", 1 << 20}, {"1", "TB", 976562500}, {"1", "T", 1 << 30}, {"2", "TiB", 2 << 30},
	} {
		d, err := ParseDomain(strings.NewReader(fmt.Sprintf("<domain><name>x</name><memory unit='%s'>%s</memory></domain>", c.unit, c.v)))
		if err != nil || *d.MemoryKB != c.kb {
			t.Errorf("%s %s: %v %v, want %d KiB", c.v, c.unit, d, err, c.kb)
		}
	}
}

func TestParseDomainErrors(t *testing.T) {
	for _, c := range []struct {
		in   string
		line int
		msg  string
	}{
		{"<domain type='kvm'>\n  <name>db1</name>\n  <memory unit='KiB'>16777216</memory\n</domain>\n", 4, "malformed XML"},
		{"<domain>\n<name>db1</name>\n<devices>\n<disk type='file'>\n</devices>\n</domain>\n", 5, "malformed XML"},
		{"<network>\n<name>default</name>\n</network>\n", 1, "expected a libvirt <domain> definition, got <network>"},
		{"<domain>\n<uuid>x</uuid>\n</domain>", 1, "without a <name>"},
		{"<domain>\n<name>a</name>\n<memory unit='KiB'>lots</memory>\n</domain>", 3, "<memory> \"lots\": expected a number"},
		{"<domain>\n<name>a</name>\n<memory unit='kilo'>4</memory>\n</domain>", 3, "unit \"kilo\""},
		{"<domain>\n<name>a</name>\n<cputune>\n<vcpupin vcpu='0' cpuset='3-1'/>\n</cputune>\n</domain>", 4, "range 3-1 goes down"},
		{"<domain>\n<name>a</name>\n<cputune>\n<vcpupin vcpu='0'/>\n</cputune>\n</domain>", 4, "empty set"},
		{"<domain>\n<name>a</name>\n<vcpu cpuset='0-4000000000'>2</vcpu>\n</domain>", 3, "above the largest"},
		{"<domain>\n<name>a</name>\n<vcpu>0</vcpu>\n</domain>", 3, "expected a positive number"},
		{"<domain><name>a</name></domain>\n<domain><name>b</name></domain>", 2, "a second top-level element"},
		{"", 0, "no XML element"},
		{"garbage", 1, "text outside"},
		{strings.Repeat("<a>", 100), 1, "nested more than 64"},
	} {
		_, err := ParseDomain(strings.NewReader(c.in))
		pe, ok := err.(*ParseError)
		if !ok || pe.Line != c.line || !strings.Contains(pe.Msg, c.msg) {
			t.Errorf("%q: %v (line %v), want line %d %q", trunc(c.in, 40), err, pe, c.line, c.msg)
		}
	}
	big := "<domain><name>a</name><description>" + strings.Repeat("x", maxDomainXMLBytes) + "</description></domain>"
	if _, err := ParseDomain(strings.NewReader(big)); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized: %v", err)
	}
}

// A <domstatus> (/run/libvirt/qemu/NAME.xml) holds the running domain.
func TestParseDomainStatus(t *testing.T) {
	d, err := ParseDomain(strings.NewReader("<domstatus state='running' pid='4242'>\n<monitor path='/x' type='unix'/>\n<domain type='kvm' id='3'><name>db9</name><vcpu>2</vcpu></domain>\n</domstatus>"))
	if err != nil || d.Name != "db9" || *d.ID != 3 {
		t.Errorf("%+v %v", d, err)
	}
}

func TestParseLibvirtSet(t *testing.T) {
	for in, want := range map[string][]int{
		"0": {0}, "0-3": {0, 1, 2, 3}, "1-4,^3,6": {1, 2, 4, 6}, " 8 , 2-3 ": {2, 3, 8}, "0-7,^2-5": {0, 1, 6, 7}, "3,3,1": {1, 3},
	} {
		got, err := ParseLibvirtSet(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %v %v, want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "a", "1-", "-1", "^1", "3-1", "1,,2", "+1", "70000"} {
		if got, err := ParseLibvirtSet(in); err == nil {
			t.Errorf("%q: %v, want an error", in, got)
		}
	}
}

// FuzzParseDomain: never a panic; a definition that parses has its sets
// sorted and non-empty and keeps every disk and interface the XML has
// (counted a second way, by their start tags at the top of <devices>).
func FuzzParseDomain(f *testing.F) {
	ents, _ := os.ReadDir(filepath.Join("testdata", "libvirt"))
	for _, e := range ents {
		b, _ := os.ReadFile(filepath.Join("testdata", "libvirt", e.Name()))
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := ParseDomain(strings.NewReader(string(b)))
		if err != nil {
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		check := func(s snapshot.CPUSet) {
			if s.Text == "" || len(s.IDs) == 0 || !sort.IntsAreSorted(s.IDs) {
				t.Fatalf("set %+v", s)
			}
		}
		for _, p := range d.CPUTune.VCPUPins {
			check(p.CPUSet)
		}
		if d.VCPUCpuset != nil {
			check(*d.VCPUCpuset)
		}
		if d.Name == "" {
			t.Fatal("a domain without a name parsed")
		}
	})
}

// FuzzParseDomainMemory: a size with any unit libvirt accepts comes back in
// KiB as an independent big-number computation says (rounded up).
func FuzzParseDomainMemory(f *testing.F) {
	for _, u := range []string{"", "b", "bytes", "KB", "k", "KiB", "MB", "M", "MiB", "GB", "G", "GiB", "TB", "T", "TiB", "PiB", "eb"} {
		f.Add(uint64(12345), u)
	}
	f.Fuzz(func(t *testing.T, n uint64, unit string) {
		if strings.ContainsAny(unit, "<>&'\"") || !utf8.ValidString(unit) || strings.IndexFunc(unit, func(r rune) bool { return r < 0x20 || r >= 0x7f }) >= 0 {
			return // not an attribute value a file could hold
		}
		d, err := ParseDomain(strings.NewReader(fmt.Sprintf("<domain><name>x</name><memory unit='%s'>%d</memory></domain>", unit, n)))
		mult := refUnit(unit)
		if mult == nil {
			if err == nil {
				t.Fatalf("unit %q accepted: %d KiB", unit, *d.MemoryKB)
			}
			return
		}
		bytes := new(big.Int).Mul(new(big.Int).SetUint64(n), mult)
		kb := new(big.Int).Div(new(big.Int).Add(bytes, big.NewInt(1023)), big.NewInt(1024))
		if !bytes.IsUint64() || !kb.IsInt64() {
			if err == nil {
				t.Fatalf("%d %s: %d KiB, want too large", n, unit, *d.MemoryKB)
			}
			return
		}
		if err != nil || *d.MemoryKB != kb.Int64() {
			t.Fatalf("%d %q: %v %v, want %s KiB", n, unit, d, err, kb)
		}
	})
}

// refUnit is libvirt's unit table written out (nil: not a unit).
func refUnit(u string) *big.Int {
	u = strings.TrimSpace(u)
	table := map[string][2]int64{"": {1024, 1}, "b": {1, 1}, "bytes": {1, 1}}
	for i, l := range []string{"k", "m", "g", "t", "p", "e"} {
		table[l] = [2]int64{1024, int64(i + 1)}
		table[l+"ib"] = [2]int64{1024, int64(i + 1)}
		table[l+"b"] = [2]int64{1000, int64(i + 1)}
	}
	e, ok := table[strings.ToLower(u)]
	if !ok {
		return nil
	}
	return new(big.Int).Exp(big.NewInt(e[0]), big.NewInt(e[1]), nil)
}
