package facts

import (
	"bytes"
	"math"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("block", StageSources, readBlock, "storage.devices", "storage.multipath_conf") }

const sysBlock = "/sys/block"

// blockKind classifies a /sys/block entry from its name, the target of its
// /sys/block link and whether it has SCSI device files.
func blockKind(name, target string, scsi bool) string {
	switch {
	case strings.HasPrefix(name, "nvme"):
		return "nvme"
	case strings.HasPrefix(name, "dm-"):
		return "dm"
	case strings.HasPrefix(name, "md"):
		return "md"
	case strings.HasPrefix(name, "loop"):
		return "loop"
	case strings.HasPrefix(name, "zram"):
		return "zram"
	case strings.HasPrefix(name, "ram"):
		return "ram"
	case strings.HasPrefix(name, "sr"), strings.HasPrefix(name, "st"):
		return "other" // optical and tape drives
	case strings.HasPrefix(name, "sd"), strings.HasPrefix(name, "hd"), scsi:
		return "disk" // also virtio-scsi disks: SCSI semantics, queue_depth
	case strings.HasPrefix(name, "vd"), strings.Contains(target, "/virtio"):
		return "virtio"
	}
	return "other"
}

// quietKind: devices whose missing queue files are normal and not worth an
// absence (a loop device has no SCSI files, zram no scheduler).
func quietKind(kind string) bool { return kind == "loop" || kind == "zram" || kind == "ram" }

// parseScheduler parses queue/scheduler: "none [mq-deadline] kyber bfq" →
// ("mq-deadline", all). Some kernels print a lone "none" without brackets
// for queues that cannot have a scheduler; one unbracketed word is taken as
// selected.
func parseScheduler(s string) (selected string, all []string, err error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", nil, parseErr(1, "expected scheduler names, got an empty file")
	}
	n := 0
	all = make([]string, 0, len(f))
	for _, w := range f {
		if strings.HasPrefix(w, "[") || strings.HasSuffix(w, "]") {
			if len(w) < 3 || !strings.HasPrefix(w, "[") || !strings.HasSuffix(w, "]") {
				return "", nil, parseErr(1, "expected [name], got %q", trunc(w, 30))
			}
			w = w[1 : len(w)-1]
			selected = w
			n++
		}
		if strings.ContainsAny(w, "[]") {
			return "", nil, parseErr(1, "unexpected bracket in %q", trunc(w, 30))
		}
		all = append(all, w)
	}
	switch {
	case n > 1:
		return "", nil, parseErr(1, "%d selected schedulers in %q", n, trunc(s, 60))
	case n == 0 && len(f) == 1:
		selected = f[0]
	case n == 0:
		return "", nil, parseErr(1, "no selected [scheduler] in %q", trunc(s, 60))
	}
	return selected, all, nil
}

func readBlock(c *Collector) {
	st := &c.Snap.Storage
	st.Devices = []snapshot.BlockDevice{}
	readMultipathConf(c)
	names, err := c.Root.ReadDirNames(sysBlock)
	if err != nil {
		c.Absent("storage.devices", sysBlock, err)
		return
	}
	devs := make([]snapshot.BlockDevice, len(names))
	// Devices are independent; a few goroutines keep a 64-disk host fast.
	const workers = 4
	var wg sync.WaitGroup
	panicked := false
	for w := 0; w < workers && w < len(names); w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			defer c.recoverWorker("block", &panicked, "storage.devices")
			testPanic("worker:block")
			for i := w; i < len(names); i += workers {
				devs[i] = readBlockDevice(c, names[i])
			}
		}(w)
	}
	wg.Wait()
	if !panicked { // else absent: a device list with unread entries would be wrong
		st.Devices = devs
	}
}

func readBlockDevice(c *Collector, name string) snapshot.BlockDevice {
	dir := sysBlock + "/" + name
	q := dir + "/queue"
	fact := "storage.devices[" + name + "]"
	target, _ := c.Root.Readlink(dir)
	scsi := c.Root.Exists(dir + "/device/scsi_device")
	d := snapshot.BlockDevice{Name: name, Kind: blockKind(name, target, scsi)}
	quiet := quietKind(d.Kind)
	// Bio-based queues (md, most dm targets, zram) have no I/O scheduler and
	// no request pool: no scheduler or nr_requests file is normal there.
	bioBased := quiet || d.Kind == "dm" || d.Kind == "md"
	// important reads a fact a DBA looks at: its absence is recorded unless
	// the device kind never has it.
	important := func(field, p string) *int64 {
		if quiet {
			return attrInt(c, "", p)
		}
		return attrInt(c, fact+"."+field, p)
	}
	if v := important("size_bytes", dir+"/size"); v != nil {
		if *v < 0 || *v > math.MaxInt64/512 {
			c.Absent(fact+".size_bytes", dir+"/size", parseErr(1, "expected a sector count, got %d", *v))
		} else {
			b := *v * 512
			d.SizeBytes = &b
		}
	}
	if v := important("rotational", q+"/rotational"); v != nil {
		r := *v != 0
		d.Rotational = &r
	}
	if s, err := c.Root.ReadAttr(q + "/scheduler"); err != nil {
		if !bioBased {
			c.Absent(fact+".scheduler", q+"/scheduler", err)
		}
	} else if sel, all, err := parseScheduler(s); err != nil {
		c.Absent(fact+".scheduler", q+"/scheduler", err)
	} else {
		d.Scheduler, d.Schedulers = &sel, all
	}
	if bioBased {
		d.NrRequests = attrInt(c, "", q+"/nr_requests")
	} else {
		d.NrRequests = important("nr_requests", q+"/nr_requests")
	}
	d.MaxSectorsKB = important("max_sectors_kb", q+"/max_sectors_kb")
	d.MaxHWSectorsKB = attrInt(c, "", q+"/max_hw_sectors_kb")
	d.Nomerges = important("nomerges", q+"/nomerges")
	d.ReadAheadKB = important("read_ahead_kb", q+"/read_ahead_kb")
	d.LogicalBlockSize = attrInt(c, "", q+"/logical_block_size")
	d.PhysicalBlockSize = attrInt(c, "", q+"/physical_block_size")
	if s, err := c.Root.ReadAttr(q + "/write_cache"); err == nil && s != "" {
		d.WriteCache = &s
	} else if !bioBased {
		if err == nil {
			err = parseErr(1, "empty file")
		}
		c.Absent(fact+".write_cache", q+"/write_cache", err)
	}
	switch d.Kind {
	case "disk":
		if scsi || strings.HasPrefix(name, "sd") {
			d.QueueDepth = attrInt(c, fact+".queue_depth", dir+"/device/queue_depth")
			if h, ok := scsiHostOf(target); ok {
				d.SCSIHost = &h
			}
			d.CacheType = scsiCacheType(c, fact, dir)
			d.Vendor = attrQuiet(c, dir+"/device/vendor")
			d.Model = attrQuiet(c, dir+"/device/model")
		}
	case "nvme":
		d.Model = attrQuiet(c, dir+"/device/model")
	case "virtio":
		if s, err := c.Root.ReadAttr(dir + "/cache_type"); err == nil && s != "" {
			d.CacheType = &s // virtio_blk's own attribute
		}
	case "dm":
		d.DMName = attrQuiet(c, dir+"/dm/name")
		d.DMUUID = attrQuiet(c, dir+"/dm/uuid")
		d.Multipath = strings.HasPrefix(d.DMUUID, "mpath-")
	}
	if !quiet {
		d.NUMANode = deviceNUMANode(c, dir, target)
	}
	d.Slaves = dirNames(c, dir+"/slaves")
	d.Holders = dirNames(c, dir+"/holders")
	return d
}

// scsiCacheType reads device/scsi_disk/<h:c:t:l>/cache_type.
func scsiCacheType(c *Collector, fact, dir string) *string {
	p := dir + "/device/scsi_disk"
	names, err := c.Root.ReadDirNames(p)
	if err != nil || len(names) == 0 {
		if err == nil {
			err = os.ErrNotExist
		}
		c.Absent(fact+".cache_type", p+"/*/cache_type", err)
		return nil
	}
	v, err := c.Root.ReadAttr(p + "/" + names[0] + "/cache_type")
	if err != nil {
		c.Absent(fact+".cache_type", p+"/"+names[0]+"/cache_type", err)
		return nil
	}
	return &v
}

// attrInt reads an attribute holding one integer. On failure it records the
// absence under fact (unless fact is "") and returns nil.
func attrInt(c *Collector, fact, p string) *int64 {
	s, err := c.Root.ReadAttr(p)
	if err == nil {
		v, perr := strconv.ParseInt(s, 10, 64)
		if perr == nil {
			return &v
		}
		err = parseErr(1, "expected an integer, got %q", trunc(s, 40))
	}
	if fact != "" {
		c.Absent(fact, p, err)
	}
	return nil
}

// attrQuiet reads a one-line attribute, "" when it cannot.
func attrQuiet(c *Collector, p string) string {
	s, _ := c.Root.ReadAttr(p)
	return s
}

func trimSpaceString(b []byte) string { return string(bytes.TrimSpace(b)) }

// dirNames lists a directory (slaves/, holders/); nil when empty or missing.
func dirNames(c *Collector, p string) []string {
	names, err := c.Root.ReadDirNames(p)
	if err != nil || len(names) == 0 {
		return nil
	}
	return names
}

// deviceNUMANode finds the NUMA node of the hardware behind a sysfs class
// entry (a /sys/block or /sys/class/net directory): device/numa_node,
// device/device/numa_node (nvme), else the nearest ancestor of the entry's
// real /sys/devices path that has a numa_node (the PCI function behind a
// SCSI host, a virtio device, ...). nil when none says, or it says -1.
func deviceNUMANode(c *Collector, dir, target string) *int {
	try := func(p string) (*int, bool) {
		s, err := c.Root.ReadAttr(p)
		if err != nil {
			return nil, false
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, true
		}
		return &n, true
	}
	for _, p := range []string{dir + "/device/numa_node", dir + "/device/device/numa_node"} {
		if n, ok := try(p); ok {
			return n
		}
	}
	if target == "" {
		return nil
	}
	real := target
	if !path.IsAbs(real) {
		real = path.Join(path.Dir(dir), target)
	}
	for p := path.Dir(real); strings.HasPrefix(p, "/sys/devices/") && p != "/sys/devices"; p = path.Dir(p) {
		if n, ok := try(p + "/numa_node"); ok {
			return n
		}
	}
	return nil
}
