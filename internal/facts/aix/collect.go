package aix

import (
	"fmt"
	"github.com/dbhost/dbhost/internal/lazyre"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// LinuxSections are the parts of the Snapshot an AIX host has no source
// for: absent with LinuxReason, never zero.
var LinuxSections = []string{"topology", "memory", "cpu_power", "storage", "network", "irqs", "cpu_load", "cgroups", "config", "processes", "sysctl", "host.cmdline", "host.kernel"}

// LinuxReason is why the Linux sections of an AIX snapshot are absent.
const LinuxReason = "not collected: an AIX host has no /proc or /sys; its facts are in aix (--aix-bundle)"

// Options says where a bundle came from.
type Options struct {
	Path    string    // the bundle as given (source.path)
	Version string    // this dbhost's version (source.collector)
	Now     time.Time // collected_at when meta has no readable date
	// Unread are the bundle's files that were not read (over a size limit,
	// not a regular file), with the reason: their facts are absent with it.
	Unread map[string]string
}

// collector fills one snapshot from one bundle's files.
type collector struct {
	files  map[string][]byte
	unread map[string]string
	meta   *meta
	snap   *snapshot.Snapshot
	aix    *snapshot.AIX
}

// Collect reads a bundle's files (path below the bundle → content:
// "meta", "commands/lparstat_-i", ...) into a Snapshot with its aix
// section. It never fails: what cannot be read is absent with the reason.
func Collect(files map[string][]byte, opt Options) *snapshot.Snapshot {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	c := &collector{files: files, unread: opt.Unread, aix: &snapshot.AIX{}}
	c.snap = &snapshot.Snapshot{SchemaVersion: snapshot.SchemaVersion, CollectedAt: now.UTC().Truncate(time.Second),
		Source: snapshot.Source{Kind: "aix-bundle", Path: opt.Path, Collector: opt.Version},
		Host:   snapshot.Host{Arch: "ppc64", OS: "AIX", OSID: "aix"}, AIX: c.aix, Absent: []snapshot.Absence{}}
	for _, s := range LinuxSections {
		c.absent(s, "", LinuxReason)
	}
	c.readMeta()
	c.guard("aix.oslevel", func() { c.readOSLevel() })
	c.guard("aix.prtconf", func() {
		parseInto(c, "aix.prtconf", "prtconf", parsePrtconf, func(v *snapshot.AIXPrtconf) { c.aix.Prtconf = v })
	})
	c.guard("aix.lpar", func() { c.readLPAR() })
	c.guard("aix.smt", func() { parseInto(c, "aix.smt", "smtctl", parseSmtctl, func(v *snapshot.AIXSMT) { c.aix.SMT = v }) })
	c.guard("aix.dscr", func() {
		parseInto(c, "aix.dscr", "dscrctl -q", parseDscrctl, func(v *snapshot.AIXDSCR) { c.aix.DSCR = v })
	})
	c.guard("aix.srads", func() {
		parseInto(c, "aix.srads", "lssrad -av", parseLssrad, func(v []snapshot.AIXSRAD) { c.aix.SRADs = v })
	})
	c.guard("aix.disks", func() { c.readDisks() })
	c.guard("aix.fc_adapters", func() { c.readAdapters() })
	for _, t := range []struct {
		name string
		dst  *map[string]snapshot.AIXValue
	}{{"ioo", &c.aix.Tunables.IOO}, {"vmo", &c.aix.Tunables.VMO}, {"no", &c.aix.Tunables.NO}, {"schedo", &c.aix.Tunables.Schedo}} {
		c.guard("aix.tunables."+t.name, func() {
			parseInto(c, "aix.tunables."+t.name, t.name+" -a", parseTunables, func(v map[string]snapshot.AIXValue) { *t.dst = v })
		})
	}
	c.guard("aix.tunables.vmo_restricted", func() {
		parseInto(c, "aix.tunables.vmo_restricted", "vmo -F -a", parseRestricted, func(v map[string]snapshot.AIXValue) { c.aix.Tunables.VMORestricted = v })
	})
	c.guard("aix.tunables.ioo_restricted", func() {
		parseInto(c, "aix.tunables.ioo_restricted", "ioo -F -a", parseRestricted, func(v map[string]snapshot.AIXValue) { c.aix.Tunables.IOORestricted = v })
	})
	c.guard("aix.sys0", func() {
		parseInto(c, "aix.sys0", "lsattr -El sys0", parseLsattr, func(v map[string]snapshot.AIXAttr) { c.aix.Sys0 = v })
	})
	c.guard("aix.aio0", func() { c.readAIO0() })
	c.guard("aix.mounts", func() {
		parseInto(c, "aix.mounts", "mount", parseMount, func(v []snapshot.AIXMount) { c.aix.Mounts = v })
	})
	c.guard("aix.filesystems", func() {
		parseInto(c, "aix.filesystems", "lsfs -q", parseLsfsQ, func(v []snapshot.AIXFilesystem) { c.aix.Filesystems = v })
	})
	c.guard("aix.paging_spaces", func() {
		parseInto(c, "aix.paging_spaces", "lsps -a", parseLsps, func(v []snapshot.AIXPagingSpace) { c.aix.PagingSpaces = v })
	})
	c.guard("aix.memory", func() { c.readSvmon() })
	c.guard("aix.vmstat_v", func() {
		parseInto(c, "aix.vmstat_v", "vmstat -v", parseVmstatV, func(v map[string]float64) { c.aix.VmstatV = v })
	})
	c.guard("aix.users", func() {
		parseInto(c, "aix.users", "lsuser -a capabilities oracle", parseLsuser, func(v []snapshot.AIXUser) { c.aix.Users = v })
	})
	c.guard("aix.rsets", func() {
		parseInto(c, "aix.rsets", "lsrset -av", parseLsrset, func(v []snapshot.AIXRset) { c.aix.Rsets = v })
	})
	c.guard("aix.processes", func() {
		parseInto(c, "aix.processes", "ps -ef", parsePsEf, func(v []psRow) {
			c.aix.Processes = dbProcesses(v)
			c.aix.ProcessCount = ptr(len(v))
		})
	})
	c.guard("aix.powerha", func() {
		parseInto(c, "aix.powerha", "lssrc -ls clstrmgrES", parseClstrmgr, func(v *snapshot.AIXPowerHA) { c.aix.PowerHA = v })
	})
	if c.aix.ProcessCount == nil {
		c.absentAs("aix.process_count", "aix.processes")
	}
	c.readHost()
	sort.SliceStable(c.snap.Absent, func(i, j int) bool {
		a, b := c.snap.Absent[i], c.snap.Absent[j]
		if a.Fact != b.Fact {
			return a.Fact < b.Fact
		}
		return a.Path < b.Path
	})
	return c.snap
}

func (c *collector) absent(fact, path, reason string) {
	c.snap.Absent = append(c.snap.Absent, snapshot.Absence{Fact: fact, Path: path, Reason: reason})
}

// absentAs records fact absent for the reason other is.
func (c *collector) absentAs(fact, other string) {
	for _, a := range c.snap.Absent {
		if a.Fact == other {
			c.absent(fact, a.Path, a.Reason)
			return
		}
	}
}

// guard turns a parser's panic into an absence of fact (a bug, reported
// as one), the other facts still read.
func (c *collector) guard(fact string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			c.absent(fact, "", fmt.Sprintf("internal error in the %s reader: %v (please report it at %s with the bundle)", fact, r, crash.ReportURL))
		}
	}()
	fn()
}

// output is a command's output in the bundle, or why there is none (an
// absence of fact recorded). A failed command's output is returned with
// failed true: it is read for what it holds.
func (c *collector) output(fact, command string) (text string, failed bool, ok bool) {
	file := File(command)
	var st *snapshot.AIXCommand
	if c.meta != nil {
		if s, known := c.meta.byCmd[strings.Join(strings.Fields(command), " ")]; known {
			st = &s
		}
	}
	b, have := c.files[file]
	if r, ok := c.unread[file]; ok && !have {
		c.absent(fact, file, r)
		return "", false, false
	}
	switch {
	case st != nil && st.Status == "missing":
		prog, _, _ := strings.Cut(command, " ")
		c.absent(fact, file, fmt.Sprintf("not present on this host: %s: command not found (exit %d)", prog, st.ExitCode))
		return "", false, false
	case !have && st != nil && st.Status == "failed":
		c.absent(fact, file, fmt.Sprintf("failed: %s exited %d with no output", command, st.ExitCode))
		return "", false, false
	case !have:
		c.absent(fact, file, "not present in the bundle")
		return "", false, false
	}
	return string(b), st != nil && st.Status == "failed", true
}

// failure is the reason for a failed command whose output could not be read.
func (c *collector) failure(command, text string, err error) string {
	code := -1
	if s, ok := c.meta.byCmd[strings.Join(strings.Fields(command), " ")]; ok {
		code = s.ExitCode
	}
	first := ""
	for _, l := range lines(text) {
		if strings.TrimSpace(l) != "" {
			first = ": " + trunc(strings.TrimSpace(l), 120)
			break
		}
	}
	if first == "" {
		first = " (" + err.Error() + ")"
	}
	return fmt.Sprintf("failed: %s exited %d%s", command, code, first)
}

// parseInto reads command's output with parse and gives the result to set;
// an unreadable output is an absence of fact, a skipped line a note.
func parseInto[T any](c *collector, fact, command string, parse func(string) (T, notes, error), set func(T)) bool {
	text, failed, ok := c.output(fact, command)
	if !ok {
		return false
	}
	v, n, err := parse(text)
	if err != nil {
		// A failed command's output is its error message: the failure
		// says it all, its lines are not listed as skipped.
		if failed {
			c.absent(fact, File(command), c.failure(command, text, err))
		} else {
			c.notes(command, n)
			c.absent(fact, File(command), "malformed: "+err.Error())
		}
		return false
	}
	c.notes(command, n)
	set(v)
	return true
}

// notes records the lines a parser skipped under aix.bundle.unread: the
// fact itself was read.
func (c *collector) notes(command string, n notes) {
	for _, e := range n {
		c.absent("aix.bundle.unread", File(command), "malformed: "+e.Error()+" (line skipped)")
	}
}

func (c *collector) readMeta() {
	b, ok := c.files["meta"]
	if r, bad := c.unread["meta"]; bad && !ok {
		c.absent("aix.bundle", "meta", r)
		c.meta = &meta{byCmd: map[string]snapshot.AIXCommand{}}
		return
	}
	if !ok {
		c.absent("aix.bundle", "meta", "not present in the bundle: no meta file (hostname, date, and which commands were missing or failed are unknown)")
		c.meta = &meta{byCmd: map[string]snapshot.AIXCommand{}}
		c.aix.Bundle.Commands = nil
		return
	}
	m, n, err := parseMeta(string(b))
	for _, e := range n {
		c.absent("aix.bundle.unread", "meta", "malformed: "+e.Error()+" (line skipped)")
	}
	if err != nil {
		c.absent("aix.bundle", "meta", "malformed: "+err.Error())
		c.meta = &meta{byCmd: map[string]snapshot.AIXCommand{}}
		return
	}
	c.meta = m
	c.aix.Bundle = m.Bundle
	switch {
	case m.TZ == nil:
		c.absent("aix.tz", "meta", "not present in the bundle: meta has no tz: line")
	case *m.TZ == "":
		c.absent("aix.tz", "meta", "not set: /etc/environment has no TZ line")
	default:
		c.aix.TZ = m.TZ
	}
	if t, err := time.Parse(time.RFC3339, m.Bundle.Date); err == nil {
		c.snap.CollectedAt = t.UTC()
	} else {
		c.absent("collected_at", "meta", fmt.Sprintf("meta's date %q is not RFC 3339: the time of reading the bundle is used", trunc(m.Bundle.Date, 40)))
	}
	c.snap.Source.Root = m.Bundle.User == "root"
}

var levelRe = lazyre.New(`^([0-9])([0-9])00-([0-9]{2})(?:-([0-9]{2}))?`)

func (c *collector) readOSLevel() {
	parseInto(c, "aix.oslevel", "oslevel -s", parseOSLevel, func(v string) { c.aix.OSLevel = &v })
}

// readHost fills host from meta, oslevel and lparstat.
func (c *collector) readHost() {
	h := &c.snap.Host
	h.Hostname = c.aix.Bundle.Hostname
	if h.Hostname == "" && c.aix.LPAR != nil {
		h.Hostname = c.aix.LPAR.NodeName
	}
	if h.Hostname == "" {
		c.absent("host.hostname", "meta", "neither meta nor lparstat -i names the host")
	}
	if c.aix.OSLevel != nil {
		if m := levelRe().FindStringSubmatch(*c.aix.OSLevel); m != nil {
			tl, _ := strconv.Atoi(m[3])
			h.OSVersionID = m[1] + "." + m[2]
			h.OS = fmt.Sprintf("AIX %s.%s TL%d", m[1], m[2], tl)
			if m[4] != "" {
				sp, _ := strconv.Atoi(m[4])
				h.OS += fmt.Sprintf(" SP%d", sp)
			}
		}
	}
	if lp := c.aix.LPAR; lp != nil {
		h.Virt = snapshot.Virt{Guest: true, Type: "powervm", Evidence: fmt.Sprintf("lparstat -i: partition %q, type %s", lp.Name, lp.Type)}
	}
}

func (c *collector) readLPAR() {
	parseInto(c, "aix.lpar", "lparstat -i", parseLparstat, func(v *snapshot.AIXLPAR) { c.aix.LPAR = v })
}

// deviceFiles lists the devices named by the bundle's per-device files
// (commands/lsattr_-El_hdisk3 → hdisk3) with the prefix given.
func (c *collector) deviceFiles(prefix string) []string {
	var out []string
	seen := map[string]bool{}
	for f := range c.files {
		for _, p := range []string{File("lsattr -El " + prefix), File("fcstat -e " + prefix)} {
			if rest, ok := strings.CutPrefix(f, p); ok && rest != "" && devNum(prefix+rest) >= 0 && strings.Trim(rest, "0123456789") == "" && !seen[prefix+rest] {
				seen[prefix+rest] = true
				out = append(out, prefix+rest)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return devLess(out[i], out[j]) })
	return out
}

func (c *collector) readDisks() {
	var devs []snapshot.AIXDevice
	if !parseInto(c, "aix.disks", "lsdev -Cc disk", parseLsdev, func(v []snapshot.AIXDevice) { devs = v }) {
		// Without lsdev the disks are those whose lsattr the bundle holds:
		// their attributes are read, their description is unknown.
		names := c.deviceFiles("hdisk")
		if len(names) == 0 {
			return
		}
		c.absentAs("aix.disks.description", "aix.disks")
		c.snap.Absent = slicesDeleteFact(c.snap.Absent, "aix.disks")
		for _, n := range names {
			devs = append(devs, snapshot.AIXDevice{Name: n})
		}
	}
	var paths map[string][]snapshot.AIXPath
	havePaths := parseInto(c, "aix.disks.paths", "lspath", parseLspath, func(v map[string][]snapshot.AIXPath) { paths = v })
	var io map[string][]snapshot.AIXDiskIOStat
	haveIO := parseInto(c, "aix.disks.iostat", "iostat -D 2 3", parseIostatD, func(v map[string][]snapshot.AIXDiskIOStat) { io = v })
	disks := []snapshot.AIXDisk{}
	for _, d := range devs {
		k := snapshot.AIXDisk{Name: d.Name, Status: d.Status, Location: d.Location, Description: d.Description, Generic: GenericDisk(d.Description)}
		parseInto(c, "aix.disks.attributes", "lsattr -El "+d.Name, parseLsattr, func(v map[string]snapshot.AIXAttr) {
			k.Attributes = v
			k.QueueDepth = attrNum(v, "queue_depth")
			k.MaxTransfer = attrNum(v, "max_transfer")
			k.Algorithm = v["algorithm"].Value
			k.ReservePolicy = v["reserve_policy"].Value
		})
		if havePaths {
			k.Paths = paths[d.Name]
			if k.Paths == nil {
				k.Paths = []snapshot.AIXPath{}
			}
		}
		if haveIO {
			if s, ok := io[d.Name]; ok {
				k.IOStat = s
			} else if d.Status == "Available" {
				c.absent("aix.disks.iostat", File("iostat -D 2 3"), d.Name+" is not in the iostat -D output")
			}
		}
		disks = append(disks, k)
	}
	c.aix.Disks = disks
}

// slicesDeleteFact drops the absences of fact (a fallback read it after all).
func slicesDeleteFact(a []snapshot.Absence, fact string) []snapshot.Absence {
	out := a[:0]
	for _, x := range a {
		if x.Fact != fact {
			out = append(out, x)
		}
	}
	return out
}

// attrNum is a numeric attribute, nil when the device has none or it is text.
func attrNum(a map[string]snapshot.AIXAttr, name string) *int64 {
	if v, ok := a[name]; ok && v.Number != nil {
		x := *v.Number
		return &x
	}
	return nil
}

var fcsRe = lazyre.New(`^fcs[0-9]+$`)

func (c *collector) readAdapters() {
	var devs []snapshot.AIXDevice
	haveLsdev := parseInto(c, "aix.adapters", "lsdev -Cc adapter", parseLsdev, func(v []snapshot.AIXDevice) { devs = v })
	var fcs []snapshot.AIXDevice
	if haveLsdev {
		c.aix.Adapters = devs
		for _, d := range devs {
			if fcsRe().MatchString(d.Name) {
				fcs = append(fcs, d)
			}
		}
	} else {
		names := c.deviceFiles("fcs")
		if len(names) == 0 {
			c.absentAs("aix.fc_adapters", "aix.adapters")
			return
		}
		for _, n := range names {
			fcs = append(fcs, snapshot.AIXDevice{Name: n})
		}
	}
	out := []snapshot.AIXFCAdapter{}
	for _, d := range fcs {
		a := snapshot.AIXFCAdapter{Name: d.Name, Status: d.Status, Description: d.Description}
		parseInto(c, "aix.fc_adapters.attributes", "lsattr -El "+d.Name, parseLsattr, func(v map[string]snapshot.AIXAttr) {
			a.Attributes = v
			a.NumCmdElems = attrNum(v, "num_cmd_elems")
			a.MaxXferSize = attrNum(v, "max_xfer_size")
		})
		parseInto(c, "aix.fc_adapters.stats", "fcstat -e "+d.Name, parseFcstat, func(v *fcstatInfo) {
			a.Stats = v.Stats
			a.PortSpeed, a.PortSpeedGbit = v.PortSpeed, v.PortSpeedGbit
			a.NoDMAResourceCount, a.NoAdapterElementsCount, a.NoCommandResourceCount = v.NoDMAResourceCount, v.NoAdapterElementsCount, v.NoCommandResourceCount
			a.EffectiveMaxTransfer = v.EffectiveMaxTransfer
			for _, f := range []struct {
				name string
				p    *int64
			}{{"no_command_resource_count", v.NoCommandResourceCount}, {"no_dma_resource_count", v.NoDMAResourceCount},
				{"no_adapter_elements_count", v.NoAdapterElementsCount}} {
				if f.p == nil {
					c.absent("aix.fc_adapters."+f.name, File("fcstat -e "+d.Name), d.Name+": fcstat -e prints no FC SCSI Adapter Driver Information count of it")
				}
			}
			if v.EffectiveMaxTransfer == nil {
				c.absent("aix.fc_adapters.effective_max_transfer", File("fcstat -e "+d.Name), d.Name+": fcstat -e prints no \"Effective max transfer value\" (AIX 7.1 TL2 and later print it)")
			}
		})
		out = append(out, a)
	}
	c.aix.FCAdapters = out
}

// readAIO0 reads lsattr -El aio0; from AIX 6.1 there is no aio0 device.
func (c *collector) readAIO0() {
	ok := parseInto(c, "aix.aio0", "lsattr -El aio0", parseLsattr, func(v map[string]snapshot.AIXAttr) { c.aix.AIO0 = v })
	if ok || c.aix.OSLevel == nil || *c.aix.OSLevel < "6100" {
		return
	}
	for i, a := range c.snap.Absent {
		if a.Fact == "aix.aio0" {
			c.snap.Absent[i].Reason = "not present on this host: AIX 6.1 and later have no aio0 device; the AIO settings are ioo's aio_* tunables (aix.tunables.ioo)"
		}
	}
}

func (c *collector) readSvmon() {
	if !parseInto(c, "aix.memory", "svmon -G", parseSvmonG, func(v *svmon) {
		c.aix.Memory, c.aix.PagePools = v.Memory, v.Pools
		if v.Memory == nil {
			c.absent("aix.memory", File("svmon -G"), "malformed: no \"memory\" line")
		}
		if v.Pools == nil {
			c.absent("aix.page_pools", File("svmon -G"), "not present on this host: svmon -G prints no PageSize table (an AIX level before multiple page size support)")
		}
	}) {
		c.absentAs("aix.page_pools", "aix.memory")
	}
}
