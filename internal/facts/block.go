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

// multipathKept are the multipath.conf sections kept in the snapshot.
// overrides is kept too: it beats devices{} for the same keys.
var multipathKept = map[string]bool{"defaults": true, "overrides": true}

const maxMultipathDepth = 8

// parseMultipathConf parses multipath.conf(5) into section → key → value for
// defaults{}, overrides{} and each devices{ device{} } (keyed "devices[N]",
// N counting device blocks from 0 in file order). Other sections are checked
// for balanced braces and left out. Comments start with # or ! outside
// quotes; values may be double-quoted ("round-robin 0"); a multi-word
// unquoted value is kept with single spaces. Keys are kept as written; the
// last occurrence of a key in a section wins.
func parseMultipathConf(s string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	var stack []string
	devices := 0
	pending := ""                   // a lone word whose "{" may follow on the next line
	var pendingIn map[string]string // the section it was also stored in as a key
	cur := func() map[string]string {
		switch {
		case len(stack) == 1 && multipathKept[stack[0]]:
			return out[stack[0]]
		case len(stack) == 2 && stack[0] == "devices" && stack[1] == "device":
			return out["devices["+strconv.Itoa(devices-1)+"]"]
		}
		return nil
	}
	open := func(name string, lineNo int) error {
		if len(stack) >= maxMultipathDepth {
			return parseErr(lineNo, "sections nested deeper than %d", maxMultipathDepth)
		}
		stack = append(stack, name)
		switch {
		case len(stack) == 1 && multipathKept[name]:
			if out[name] == nil {
				out[name] = map[string]string{}
			}
		case len(stack) == 2 && stack[0] == "devices" && name == "device":
			out["devices["+strconv.Itoa(devices)+"]"] = map[string]string{}
			devices++
		}
		return nil
	}
	lineNo := 0
	for line := range strings.Lines(s) {
		lineNo++
		line = strings.TrimSuffix(line, "\n")
		toks, err := multipathTokens(line, lineNo)
		if err != nil {
			return nil, err
		}
		if len(toks) == 0 {
			continue
		}
		if pending != "" && toks[0].brace != '{' {
			if len(stack) == 0 {
				return nil, parseErr(lineNo, "expected '{' after %q", trunc(pending, 30))
			}
			pending, pendingIn = "", nil // it was a key without a value
		}
		var words []string
		// flush ends a run of words: before '{' it must be one section name
		// (or none, when the name stood alone on the previous line); else
		// the words are "key value...".
		flush := func(beforeOpen, endOfLine bool) error {
			if beforeOpen {
				switch {
				case len(words) == 1:
					return open(words[0], lineNo)
				case len(words) == 0 && pending != "":
					if pendingIn != nil && pendingIn[pending] == "" {
						delete(pendingIn, pending)
					}
					p := pending
					pending, pendingIn = "", nil
					return open(p, lineNo)
				}
				return parseErr(lineNo, "expected one section name before '{'")
			}
			if len(words) == 0 {
				return nil
			}
			m := cur()
			if len(words) == 1 && endOfLine && len(words) == len(toks) {
				pending, pendingIn = words[0], m // a section whose '{' may follow on the next line
			} else if len(stack) == 0 {
				return parseErr(lineNo, "expected a section (defaults {, devices {, ...), got %q", trunc(strings.Join(words, " "), 40))
			}
			if len(stack) > 0 && m != nil {
				m[words[0]] = strings.Join(words[1:], " ")
			}
			return nil
		}
		for _, t := range toks {
			switch {
			case t.brace == '{':
				if err := flush(true, false); err != nil {
					return nil, err
				}
				words = words[:0]
			case t.brace == '}':
				if err := flush(false, false); err != nil {
					return nil, err
				}
				words = words[:0]
				if len(stack) == 0 {
					return nil, parseErr(lineNo, "'}' without an open section")
				}
				stack = stack[:len(stack)-1]
			default:
				words = append(words, t.text)
			}
		}
		if err := flush(false, true); err != nil {
			return nil, err
		}
	}
	if len(stack) > 0 {
		return nil, parseErr(lineNo, "section %q not closed", strings.Join(stack, " "))
	}
	if pending != "" {
		return nil, parseErr(lineNo, "expected '{' after %q", trunc(pending, 30))
	}
	return out, nil
}

type mpToken struct {
	text  string
	brace byte // '{' or '}' for a brace token
}

// multipathTokens splits one line into words, quoted strings and braces.
func multipathTokens(line string, lineNo int) ([]mpToken, error) {
	var toks []mpToken
	for i := 0; i < len(line); {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\r':
			i++
		case ch == '#' || ch == '!':
			return toks, nil
		case ch == '{' || ch == '}':
			toks = append(toks, mpToken{brace: ch})
			i++
		case ch == '"':
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				return nil, parseErr(lineNo, "unterminated quoted string")
			}
			toks = append(toks, mpToken{text: line[i+1 : i+1+j]})
			i += j + 2
		default:
			j := i
			for j < len(line) && !strings.ContainsRune(" \t\r{}\"", rune(line[j])) {
				j++
			}
			toks = append(toks, mpToken{text: line[i:j]})
			i = j
		}
	}
	return toks, nil
}

// readMultipathConf fills Storage.MultipathConf when /etc/multipath.conf exists.
func readMultipathConf(c *Collector) {
	const p = "/etc/multipath.conf"
	b, err := c.Root.ReadFile(p)
	if err != nil {
		if !os.IsNotExist(err) {
			c.Absent("storage.multipath_conf", p, err)
		}
		return
	}
	m, err := parseMultipathConf(string(b))
	if err != nil {
		c.Absent("storage.multipath_conf", p, err)
		return
	}
	c.Snap.Storage.MultipathConf = m
}
