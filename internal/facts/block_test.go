package facts

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// sysDev creates /sys/block/<name> as the kernel does: a link to its
// /sys/devices path, with size and queue files there. It returns that path.
func (b *bTree) sysDev(name, devPath string, size string, queue map[string]string) string {
	b.t.Helper()
	real := "/sys/devices/" + devPath + "/" + name
	b.link("/sys/block/"+name, "../devices/"+devPath+"/"+name)
	if size != "" {
		b.file(real+"/size", size)
	}
	b.files(real+"/queue", queue)
	b.mkdir(real + "/holders").mkdir(real + "/slaves")
	return real
}

func bSSDQueue(sched string) map[string]string {
	return map[string]string{
		"rotational": "0\n", "scheduler": sched, "nr_requests": "256\n", "max_sectors_kb": "1280\n",
		"max_hw_sectors_kb": "32767\n", "nomerges": "0\n", "read_ahead_kb": "128\n",
		"write_cache": "write back\n", "logical_block_size": "512\n",
	}
}

func bI64(v int64) *int64 { return &v }
func bIntP(v int) *int    { return &v }
func bStrP(s string) *string {
	return &s
}
func bBoolP(v bool) *bool { return &v }

func bStorageTree(t *testing.T) *bTree {
	b := newBTree(t)
	// SATA SSD behind a PCI AHCI controller on node 1.
	pci := "pci0000:00/0000:00:1f.2"
	sda := b.sysDev("sda", pci+"/ata1/host0/target0:0:0/0:0:0:0/block", "1000215216\n", bSSDQueue("none [mq-deadline] kyber bfq\n"))
	b.link(sda+"/device", "../../../0:0:0:0")
	b.file("/sys/devices/"+pci+"/numa_node", "1\n")
	scsi := "/sys/devices/" + pci + "/ata1/host0/target0:0:0/0:0:0:0"
	b.files(scsi, map[string]string{"queue_depth": "32\n", "vendor": "ATA     \n", "model": "Samsung SSD 860 \n"}).
		mkdir(scsi+"/scsi_device/0:0:0:0").
		file(scsi+"/scsi_disk/0:0:0:0/cache_type", "write back\n")
	b.mkdir(sda + "/holders/dm-0")
	// NVMe on node 0.
	nvPCI := "pci0000:00/0000:00:1d.0/0000:3d:00.0"
	nv := b.sysDev("nvme0n1", nvPCI+"/nvme/nvme0", "7501476528\n", bSSDQueue("[none] mq-deadline\n"))
	b.link(nv+"/device", "../../nvme0")
	b.file("/sys/devices/"+nvPCI+"/nvme/nvme0/model", "INTEL SSDPE2KX040T8\n")
	b.link("/sys/devices/"+nvPCI+"/nvme/nvme0/device", "../../../0000:3d:00.0")
	b.file("/sys/devices/"+nvPCI+"/numa_node", "0\n")
	// A multipath dm device: bio-based, lone "none", no write_cache file.
	q := bSSDQueue("none\n")
	delete(q, "write_cache")
	delete(q, "nr_requests")
	dm := b.sysDev("dm-0", "virtual/block", "2097152\n", q)
	b.sysDev("md0", "virtual/block", "4194304\n", map[string]string{"rotational": "0\n", "max_sectors_kb": "512\n", "nomerges": "0\n", "read_ahead_kb": "8192\n"})
	b.files(dm+"/dm", map[string]string{"name": "mpatha\n", "uuid": "mpath-3600508b400105e210000900000490000\n"}).
		mkdir(dm + "/slaves/sda").mkdir(dm + "/slaves/sdb")
	// loop and zram: few queue files, no SCSI files — nothing absent.
	b.sysDev("loop0", "virtual/block", "0\n", map[string]string{"rotational": "0\n", "scheduler": "[none] mq-deadline\n"})
	b.sysDev("zram0", "virtual/block", "16777216\n", map[string]string{"rotational": "0\n"})
	// virtio disk on a PCI function whose numa_node is -1.
	vd := b.sysDev("vda", "pci0000:00/0000:00:02.0/virtio1/block", "83886080\n", bSSDQueue("none [mq-deadline] kyber bfq\n"))
	b.link(vd+"/device", "../../../virtio1")
	b.file("/sys/devices/pci0000:00/0000:00:02.0/numa_node", "-1\n")
	b.file(vd+"/cache_type", "write back\n")
	return b
}

func TestReadBlock(t *testing.T) {
	s := bStorageTree(t).collect(readBlock)
	devs := s.Storage.Devices
	names := []string{}
	for _, d := range devs {
		names = append(names, d.Name)
	}
	if want := []string{"dm-0", "loop0", "md0", "nvme0n1", "sda", "vda", "zram0"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("devices %v, want %v", names, want)
	}
	sda := snapshot.BlockDevice{
		Name: "sda", Kind: "disk", SizeBytes: bI64(1000215216 * 512), Rotational: bBoolP(false),
		Scheduler: bStrP("mq-deadline"), Schedulers: []string{"none", "mq-deadline", "kyber", "bfq"},
		NrRequests: bI64(256), MaxSectorsKB: bI64(1280), MaxHWSectorsKB: bI64(32767), Nomerges: bI64(0),
		ReadAheadKB: bI64(128), WriteCache: bStrP("write back"), LogicalBlockSize: bI64(512),
		QueueDepth: bI64(32), CacheType: bStrP("write back"), Vendor: "ATA", Model: "Samsung SSD 860",
		NUMANode: bIntP(1), Holders: []string{"dm-0"}, SCSIHost: bIntP(0),
	}
	if !reflect.DeepEqual(devs[4], sda) {
		t.Errorf("sda:\n got %s\nwant %s", bDump(devs[4]), bDump(sda))
	}
	nv := devs[3]
	if nv.Kind != "nvme" || *nv.Scheduler != "none" || nv.Model != "INTEL SSDPE2KX040T8" || nv.NUMANode == nil || *nv.NUMANode != 0 || nv.QueueDepth != nil {
		t.Errorf("nvme0n1: %s", bDump(nv))
	}
	dm := devs[0]
	if dm.Kind != "dm" || !dm.Multipath || dm.DMName != "mpatha" || !reflect.DeepEqual(dm.Slaves, []string{"sda", "sdb"}) ||
		*dm.Scheduler != "none" || !reflect.DeepEqual(dm.Schedulers, []string{"none"}) || dm.WriteCache != nil || dm.NUMANode != nil || dm.Holders != nil {
		t.Errorf("dm-0: %s", bDump(dm))
	}
	if md := devs[2]; md.Kind != "md" || md.Scheduler != nil || md.NrRequests != nil || *md.ReadAheadKB != 8192 {
		t.Errorf("md0: %s", bDump(md))
	}
	if l := devs[1]; l.Kind != "loop" || l.SizeBytes == nil || *l.SizeBytes != 0 || l.NrRequests != nil {
		t.Errorf("loop0: %s", bDump(l))
	}
	if z := devs[6]; z.Kind != "zram" || z.Scheduler != nil || *z.SizeBytes != 16777216*512 {
		t.Errorf("zram0: %s", bDump(z))
	}
	if v := devs[5]; v.Kind != "virtio" || v.NUMANode != nil || v.CacheType == nil || *v.CacheType != "write back" || v.QueueDepth != nil {
		t.Errorf("vda: %s", bDump(v))
	}
	if len(s.Absent) != 0 {
		t.Errorf("nothing should be absent, got %+v", s.Absent)
	}
}

func bDump(v any) string { return fmt.Sprintf("%+v", v) }

func TestReadBlockAbsences(t *testing.T) {
	b := newBTree(t)
	// A bare directory (no links, as in some captures), unreadable bits.
	b.files("/sys/block/sdq/queue", map[string]string{"scheduler": "[none] [bfq]\n", "rotational": "x\n", "nr_requests": "64\n"})
	b.file("/sys/block/sdq/size", "100\n")
	s := b.collect(readBlock)
	d := s.Storage.Devices[0]
	if d.Kind != "disk" || d.Scheduler != nil || d.Rotational != nil || *d.NrRequests != 64 || *d.SizeBytes != 51200 {
		t.Errorf("sdq: %s", bDump(d))
	}
	for _, f := range []struct{ fact, reason string }{
		{"storage.devices[sdq].scheduler", "malformed"},
		{"storage.devices[sdq].rotational", "malformed: line 1: expected an integer"},
		{"storage.devices[sdq].queue_depth", "not present"},
		{"storage.devices[sdq].cache_type", "not present"},
		{"storage.devices[sdq].write_cache", "not present"},
		{"storage.devices[sdq].read_ahead_kb", "not present"},
	} {
		if !hasAbsent(s, f.fact, f.reason) {
			t.Errorf("missing absence %s (%s); got %v", f.fact, f.reason, s.Absent)
		}
	}
	if hasAbsent(s, "storage.devices[sdq].max_hw_sectors_kb", "") || hasAbsent(s, "storage.devices[sdq].logical_block_size", "") {
		t.Errorf("optional facts flooded Absent: %v", absentFacts(s))
	}
	// No /sys/block at all.
	s = newBTree(t).collect(readBlock)
	if s.Storage.Devices == nil || len(s.Storage.Devices) != 0 || !hasAbsent(s, "storage.devices", "not present") {
		t.Errorf("no /sys/block: %+v %v", s.Storage, s.Absent)
	}
}

// TestReadBlockPerDeviceAbsences: a fact missing on every disk (an old
// kernel without queue/write_cache) is recorded per device, under the exact
// fact name the rules look up ("storage.devices[sda].write_cache").
func TestReadBlockPerDeviceAbsences(t *testing.T) {
	b := newBTree(t)
	for _, n := range []string{"sdc", "sda", "sdb"} {
		q := bSSDQueue("[mq-deadline] none\n")
		delete(q, "write_cache")
		d := b.sysDev(n, "pci0000:00/0000:00:1f.2/host0/target0:0:0/0:0:0:0/block", "100\n", q)
		b.files(d+"/device", map[string]string{"queue_depth": "32\n", "scsi_disk/0:0:0:0/cache_type": "write back\n"})
	}
	b.file("/sys/devices/pci0000:00/0000:00:1f.2/host0/target0:0:0/0:0:0:0/block/sdb/size", "-5\n")
	s := b.collect(readBlock)
	want := []string{"storage.devices[sda].write_cache", "storage.devices[sdb].size_bytes",
		"storage.devices[sdb].write_cache", "storage.devices[sdc].write_cache"}
	if got := absentFacts(s); !reflect.DeepEqual(got, want) {
		t.Errorf("Absent = %v, want %v", got, want)
	}
	if !hasAbsent(s, "storage.devices[sdb].size_bytes", "malformed: line 1: expected a sector count, got -5") {
		t.Errorf("size reason: %+v", s.Absent)
	}
	if s.Storage.Devices[1].SizeBytes != nil || *s.Storage.Devices[0].SizeBytes != 51200 {
		t.Errorf("sizes: %s", bDump(s.Storage.Devices))
	}
}

func TestBlockKind(t *testing.T) {
	for _, c := range []struct {
		name, target string
		scsi         bool
		want         string
	}{
		{"sda", "", false, "disk"},
		{"nvme0n1", "", false, "nvme"},
		{"dm-3", "", false, "dm"},
		{"md127", "", false, "md"},
		{"loop7", "", false, "loop"},
		{"zram0", "", false, "zram"},
		{"ram0", "", false, "ram"},
		{"vdb", "", false, "virtio"},
		{"sr0", "", true, "other"},
		{"xvda", "../devices/vbd-51712/block/xvda", false, "other"},
		{"foo", "../devices/pci0000:00/0000:00:04.0/virtio3/block/foo", false, "virtio"},
		{"weird", "", true, "disk"},
	} {
		if got := blockKind(c.name, c.target, c.scsi); got != c.want {
			t.Errorf("blockKind(%q,%q,%v) = %q, want %q", c.name, c.target, c.scsi, got, c.want)
		}
	}
}

func TestParseScheduler(t *testing.T) {
	for _, c := range []struct {
		in   string
		sel  string
		all  []string
		fail bool
	}{
		{"none [mq-deadline] kyber bfq\n", "mq-deadline", []string{"none", "mq-deadline", "kyber", "bfq"}, false},
		{"[none] mq-deadline", "none", []string{"none", "mq-deadline"}, false},
		{"none\n", "none", []string{"none"}, false},
		{"noop deadline [cfq]", "cfq", []string{"noop", "deadline", "cfq"}, false},
		{"", "", nil, true},
		{"none mq-deadline", "", nil, true},
		{"[none] [bfq]", "", nil, true},
		{"[]", "", nil, true},
		{"[none", "", nil, true},
		{"a[b]c", "", nil, true},
	} {
		sel, all, err := parseScheduler(c.in)
		if (err != nil) != c.fail || sel != c.sel || !reflect.DeepEqual(all, c.all) {
			t.Errorf("parseScheduler(%q) = %q %v %v", c.in, sel, all, err)
		}
	}
}

// TestReadBlockScales checks that 64 SCSI disks are read, and that reading
// them costs about the same per disk as reading 8 (no quadratic step).
func TestReadBlockScales(t *testing.T) {
	tree := func(n int) *bTree {
		b := newBTree(t)
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("sd%c%c", 'a'+i/26, 'a'+i%26)
			host := fmt.Sprintf("pci0000:00/0000:00:1f.2/host%d/target%d:0:0/%d:0:0:0", i, i, i)
			d := b.sysDev(name, host+"/block", "100\n", bSSDQueue("[mq-deadline] none\n"))
			b.link(d+"/device", fmt.Sprintf("../../../%d:0:0:0", i))
			b.file("/sys/devices/"+host+"/queue_depth", "64\n")
			b.file(fmt.Sprintf("/sys/devices/%s/scsi_disk/%d:0:0:0/cache_type", host, i), "write through\n")
		}
		return b
	}
	big := tree(64)
	s := big.collect(readBlock)
	if len(s.Storage.Devices) != 64 || len(s.Absent) != 0 {
		t.Fatalf("%d devices, absent %v", len(s.Storage.Devices), s.Absent)
	}
	if d := s.Storage.Devices[63]; *d.QueueDepth != 64 || *d.CacheType != "write through" {
		t.Errorf("last device %s", bDump(d))
	}
	if testing.Short() {
		return
	}
	small := tree(8)
	// Fastest of several alternating runs (the least disturbed on a shared
	// machine); a ratio over the bound is measured again before failing:
	// noise passes on a retry, a quadratic step (8x here) never does.
	var pb, ps time.Duration
	for attempt := 0; attempt < 3; attempt++ {
		pb, ps = time.Duration(1<<62), time.Duration(1<<62)
		for r := 0; r < 5; r++ {
			t0 := time.Now()
			big.collect(readBlock)
			pb = min(pb, time.Since(t0)/64)
			t0 = time.Now()
			small.collect(readBlock)
			ps = min(ps, time.Since(t0)/8)
		}
		if pb <= 3*ps {
			return
		}
	}
	t.Errorf("per-disk cost grows with the number of disks: %v per disk at 64, %v at 8", pb, ps)
}

func FuzzParseScheduler(f *testing.F) {
	f.Add("none [mq-deadline] kyber bfq\n")
	f.Add("none")
	f.Fuzz(func(t *testing.T, in string) {
		sel, all, err := parseScheduler(in)
		if err != nil {
			return
		}
		found := false
		for _, a := range all {
			found = found || a == sel
		}
		if !found || sel == "" {
			t.Fatalf("selected %q not among %v", sel, all)
		}
	})
}

// BenchmarkReadStorageNetIRQBig240 runs this file set's readers (block,
// mounts, net, interrupts with /proc/irq, /proc/stat) on the generated
// 240-CPU, 64-disk tree: go test -run '^$' -bench StorageNetIRQ ./internal/facts
func BenchmarkReadStorageNetIRQBig240(b *testing.B) {
	root := filepath.Join(b.TempDir(), "big")
	if err := fixture.Big240().Build().Write(root); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		s := &snapshot.Snapshot{}
		c := &Collector{Root: Root{Dir: root}, Snap: s}
		readBlock(c)
		readMounts(c)
		readNet(c)
		readInterrupts(c)
		readCPUStat(c)
		deriveNetIRQs(c)
		if len(s.Storage.Devices) < 64 || len(s.IRQs.IRQs) == 0 {
			b.Fatalf("%d devices, %d IRQs", len(s.Storage.Devices), len(s.IRQs.IRQs))
		}
	}
}
