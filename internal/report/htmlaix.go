package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// htmlAIX is the report's picture of an AIX host, in place of Linux's NUMA
// picture: the LPAR, its SRADs, memory and page pools, vmstat -v's
// blocked-I/O counters, hdisks with their queues and paths, Fibre Channel
// adapters, file systems, paging spaces and database processes. Every
// absent fact is said with its reason, never drawn as zero.
type htmlAIX struct {
	LPAR       []kv
	LPARAbsent string

	SRADs                []*htmlSRAD
	SRADAbsent           string
	SRADCPUs             int
	SRADMem              string
	SRADUneven, SRADNote string

	Mem       *htmlAIXMem
	MemAbsent string
	Pools     []htmlPool
	PoolNote  string

	Blocked       []htmlCounter
	BlockedAbsent string

	Disks       []htmlAIXDisk
	DisksAbsent string
	IOStatNote  string
	TimeScale   string // what a full time bar is

	FCs      []htmlFC
	FCAbsent string
	FCNote   string

	FS       []htmlFS
	FSAbsent string

	Paging       []htmlPaging
	PagingAbsent string

	Procs       []htmlAIXInst
	ProcsAbsent string
	ProcCount   string
}

type htmlSRAD struct {
	ID, REF1       int
	CPUs           string
	NCPU           int
	NoCPU          bool
	Mem            string // "31.0 GiB" or ""
	MemShare       string // of the LPAR's SRAD memory
	CPUShare       string
	MemSeg, CPUSeg []barSeg
	Rsets          []string
}

type htmlAIXMem struct {
	Text string
	Segs []barSeg
	Rows []kv
}

type htmlPool struct {
	Size, Pool, PoolBytes, Inuse, Pin, Pgsp, Virtual string
	Text                                             string // the bar's figure
	Segs                                             []barSeg
	Empty                                            bool // a fixed pool of 0 pages
}

type htmlCounter struct {
	Label, Short, Tune, Value string
	Nonzero, Absent           bool
}

type htmlAIXDisk struct {
	Name, Desc, Status      string
	Generic                 bool
	QueueDepth, MaxXfer     string
	Algorithm, Reserve      string
	Paths                   []htmlPath
	NoIOStat                string
	TPS, Act                string
	ReadServ, WriteServ     string
	QueueTime, SQFull       string
	SQFullNonzero           bool
	QueueSlow               bool // wait-queue time above the service time
	ServSegs, WaitSegs      []barSeg
	ServLabel, WaitLabel    string
	HasTimes, FromSinceBoot bool
}

type htmlPath struct {
	Text string
	Bad  bool // not Enabled/Available
}

type htmlFC struct {
	Name, Desc, Status, Speed  string
	CmdElems, MaxXfer, EffXfer string
	Counters                   []htmlCounter // No DMA, No Adapter Elements, No Command Resource
	FcstatAbsent               string
}

type htmlFS struct {
	Mount, Device, VFS, Size, AGBlk, InlineLog string
	Options, Mounted                           string
	NotMounted, NotInLsfs                      bool
	SizeSeg                                    []barSeg
}

type htmlPaging struct {
	Name, PV, VG, Size, Used, Active, Auto, Type string
	UsedSeg                                      []barSeg
}

type htmlAIXInst struct {
	Instance, Engine, Users, Roles string
	Procs                          int
}

// aixAbsence is the reason the snapshot gives for an absent aix fact (the
// first absence whose fact is name or below it), "" when it gives none.
func aixAbsence(s *snapshot.Snapshot, name string) string {
	for _, a := range s.Absent {
		if a.Fact == name || strings.HasPrefix(a.Fact, name+".") {
			if a.Path != "" {
				return a.Reason + " (" + a.Path + ")"
			}
			return a.Reason
		}
	}
	return "not in the snapshot"
}

func absentOr(s *snapshot.Snapshot, fact string, read bool) string {
	if read {
		return ""
	}
	return aixAbsence(s, fact)
}

func pctOf(part, whole float64) string {
	if whole <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*part/whole)
}

func fmtPtr(p *float64, f string) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf(f, *p)
}

func buildAIX(s *snapshot.Snapshot) *htmlAIX {
	a := s.AIX
	h := &htmlAIX{}
	buildAIXLPAR(h, s)
	buildAIXSRADs(h, s)
	buildAIXMemory(h, s)
	buildAIXStorage(h, s)
	buildAIXFS(h, s)
	// Database processes (ps -ef) by instance.
	h.ProcsAbsent = absentOr(s, "aix.processes", a.Processes != nil)
	if a.ProcessCount != nil {
		h.ProcCount = fmt.Sprint(*a.ProcessCount)
	}
	byInst := map[string]*htmlAIXInst{}
	users := map[string]map[string]bool{}
	roles := map[string]map[string]int{}
	var order []string
	for _, p := range a.Processes {
		name := instanceName(p.Instance, p.Engine)
		in := byInst[name]
		if in == nil {
			in = &htmlAIXInst{Instance: name, Engine: p.Engine}
			byInst[name] = in
			users[name], roles[name] = map[string]bool{}, map[string]int{}
			order = append(order, name)
		}
		in.Procs++
		users[name][p.User] = true
		roles[name][p.Role]++
	}
	for _, name := range order {
		in := byInst[name]
		in.Users = strings.Join(slices.Sorted(maps.Keys(users[name])), ", ")
		var rs []string
		for _, r := range slices.Sorted(maps.Keys(roles[name])) {
			rs = append(rs, fmt.Sprintf("%s ×%d", r, roles[name][r]))
		}
		in.Roles = strings.Join(rs, ", ")
		h.Procs = append(h.Procs, *in)
	}
	return h
}

func buildAIXLPAR(h *htmlAIX, s *snapshot.Snapshot) {
	a := s.AIX
	add := func(k, v string) { h.LPAR = append(h.LPAR, kv{k, v}) }
	if a.OSLevel != nil {
		add("AIX level", *a.OSLevel+" (oslevel -s)")
	} else {
		add("AIX level", "absent: "+aixAbsence(s, "aix.oslevel"))
	}
	if p := a.Prtconf; p != nil {
		m := orDash(p.SystemModel) + ", " + orDash(p.ProcessorType)
		if p.ImplementationMode != "" {
			m += ", mode " + p.ImplementationMode
		}
		if p.ClockMHz != nil {
			m += fmt.Sprintf(", %d MHz", *p.ClockMHz)
		}
		add("System (prtconf)", m)
	}
	defer buildAIXPlatform(h, s) // after the LPAR's lines, or in their place
	lp := a.LPAR
	if lp == nil {
		h.LPARAbsent = aixAbsence(s, "aix.lpar")
		return
	}
	name := orDash(lp.Name)
	if lp.Number != nil {
		name += fmt.Sprintf(" (partition %d)", *lp.Number)
	}
	add("LPAR", name)
	add("Type", orDash(lp.Type))
	add("Mode", orDash(lp.Mode))
	smt := "absent"
	if lp.SMT != nil {
		smt = fmt.Sprintf("SMT%d", *lp.SMT)
		if *lp.SMT == 1 {
			smt = "off (1 thread per core)"
		}
	}
	if t := a.SMT; t != nil && t.Enabled != nil {
		state := map[bool]string{true: "enabled", false: "disabled"}[*t.Enabled]
		smt += fmt.Sprintf("; smtctl: %s, up to %s threads, boot mode %s", state, optIntp(t.MaxThreads), orDash(t.BootMode))
	}
	add("SMT", smt)
	ent := optFloat(lp.EntitledCapacity, "%.2f") + " processor units"
	if lp.Shared != nil && *lp.Shared {
		ent += " (shared processor pool"
		if lp.SharedPoolID != nil {
			ent += fmt.Sprintf(" %d", *lp.SharedPoolID)
		}
		if lp.VariableWeight != nil {
			ent += fmt.Sprintf(", weight %d", *lp.VariableWeight)
		}
		ent += ")"
	}
	add("Entitlement", ent)
	add("Virtual CPUs", fmt.Sprintf("%s online, %s maximum", optIntp(lp.OnlineVCPUs), optIntp(lp.MaxVCPUs)))
	if lp.PhysicalCPUsInSystem != nil {
		add("Physical CPUs in the system", fmt.Sprint(*lp.PhysicalCPUsInSystem))
	}
	mem := fmt.Sprintf("%s MB online, %s MB maximum", optInt(lp.OnlineMemoryMB), optInt(lp.MaxMemoryMB))
	if lp.MemoryMode != "" {
		mem += ", memory mode " + lp.MemoryMode
	}
	add("Memory", mem)
}

// buildAIXPlatform adds the hardware prefetch in force (dscrctl -q) and
// whether the node is a PowerHA cluster node (lssrc -ls clstrmgrES).
func buildAIXPlatform(h *htmlAIX, s *snapshot.Snapshot) {
	a := s.AIX
	pf := "absent: " + aixAbsence(s, "aix.dscr")
	if d := a.DSCR; d != nil {
		pf = "depth " + optIntp(d.PrefetchDepth)
		if d.PrefetchOff != nil && *d.PrefetchOff {
			pf = "off (DPFD_NONE)"
		}
		pf += fmt.Sprintf("; platform default %s %s, OS default %s %s", optInt(d.PlatformDefaultPD), d.PlatformDefaultPDName, optInt(d.OSDefaultPD), d.OSDefaultPDName)
		if d.NumberOfStreams != nil {
			pf += fmt.Sprintf("; %d streams", *d.NumberOfStreams)
		}
	}
	h.LPAR = append(h.LPAR, kv{"Hardware prefetch (dscrctl -q)", pf})
	ha := "absent: " + aixAbsence(s, "aix.powerha")
	if p := a.PowerHA; p != nil {
		switch {
		case !p.Installed:
			ha = "not installed (no clstrmgrES subsystem)"
		case p.ClusterNode:
			ha = "cluster node, cluster manager " + orDash(p.State)
		default:
			ha = "installed, no cluster defined (" + orDash(p.State) + ")"
		}
		if p.VRMF != "" {
			ha += ", PowerHA " + p.VRMF
		}
	}
	h.LPAR = append(h.LPAR, kv{"PowerHA (lssrc -ls clstrmgrES)", ha})
}

func buildAIXSRADs(h *htmlAIX, s *snapshot.Snapshot) {
	a := s.AIX
	if a.SRADs == nil {
		h.SRADAbsent = aixAbsence(s, "aix.srads")
		return
	}
	var memTot float64
	memRead := true
	for _, r := range a.SRADs {
		h.SRADCPUs += len(r.CPUs)
		if r.MemMB != nil {
			memTot += *r.MemMB
		} else {
			memRead = false
		}
	}
	if memRead {
		h.SRADMem = gib(int64(memTot * 1024))
	}
	var lo, hi float64
	for i, r := range a.SRADs {
		c := &htmlSRAD{ID: r.SRAD, REF1: r.REF1, CPUs: cpulist.Format(r.CPUs), NCPU: len(r.CPUs), NoCPU: len(r.CPUs) == 0}
		c.CPUShare = pctOf(float64(len(r.CPUs)), float64(h.SRADCPUs))
		c.CPUSeg = []barSeg{{Class: "seg-busy", Width: width(float64(len(r.CPUs)), float64(h.SRADCPUs)), Title: fmt.Sprintf("%d of %d logical CPUs", len(r.CPUs), h.SRADCPUs)}}
		if r.MemMB != nil {
			c.Mem = gib(int64(*r.MemMB * 1024))
			c.MemShare = pctOf(*r.MemMB, memTot)
			c.MemSeg = []barSeg{{Class: "seg-used", Width: width(*r.MemMB, memTot), Title: c.Mem + " of the SRADs' memory"}}
			if i == 0 || *r.MemMB < lo {
				lo = *r.MemMB
			}
			hi = max(hi, *r.MemMB)
		}
		for _, rs := range a.Rsets {
			if strings.HasPrefix(rs.Name, "sys/") || len(rs.CPUs) == 0 {
				continue
			}
			inside := true
			for _, cpu := range rs.CPUs {
				if !slices.Contains(r.CPUs, cpu) {
					inside = false
					break
				}
			}
			if inside {
				c.Rsets = append(c.Rsets, rs.Name)
			}
		}
		h.SRADs = append(h.SRADs, c)
	}
	if len(a.SRADs) > 1 && memRead && hi > 0 && lo < hi*0.75 {
		h.SRADUneven = fmt.Sprintf("The SRADs' memory is uneven: %s to %s. A process's memory is placed on its SRAD first; an SRAD with little memory spills to the others.",
			gib(int64(lo*1024)), gib(int64(hi*1024)))
	}
	if a.Rsets == nil {
		h.SRADNote = "Resource sets (lsrset -av): " + aixAbsence(s, "aix.rsets")
	}
}

func buildAIXMemory(h *htmlAIX, s *snapshot.Snapshot) {
	a := s.AIX
	const frame = 4 // KB: svmon -G's default unit
	if m := a.Memory; m != nil && m.Size != nil && *m.Size > 0 {
		size := float64(*m.Size)
		mem := &htmlAIXMem{}
		mem.Text = "size " + sizeKB(*m.Size*frame)
		if m.Inuse != nil {
			mem.Text += ", in use " + sizeKB(*m.Inuse*frame)
		}
		if m.Free != nil {
			mem.Text += ", free " + sizeKB(*m.Free*frame)
		}
		if m.Pin != nil {
			mem.Text += ", pinned " + sizeKB(*m.Pin*frame)
		}
		// In use, over the memory size: the 64 KB and 16 MB pages in use
		// apart (as Linux's bar shows its hugepage pool), the rest other.
		var inPools int64
		for _, p := range a.PagePools {
			c := map[int64]string{64: "seg-used64", 16384: "seg-huge", 16777216: "seg-huge"}[p.SizeKB]
			if c == "" || p.Inuse == nil || *p.Inuse == 0 {
				continue
			}
			inPools += *p.Inuse
			mem.Segs = append(mem.Segs, barSeg{Class: c, Width: width(float64(*p.Inuse), size), Title: fmt.Sprintf("in use in %s pages: %s", sizeName(p.SizeKB), sizeKB(*p.Inuse*frame))})
		}
		if m.Inuse != nil {
			other := max(0, *m.Inuse-inPools)
			mem.Segs = append(mem.Segs, barSeg{Class: "seg-used", Width: width(float64(other), size), Title: "other in use " + sizeKB(other*frame)})
		}
		if m.Virtual != nil {
			mem.Rows = append(mem.Rows, kv{"virtual (computational)", sizeKB(*m.Virtual * frame)})
		}
		if m.PgspSize != nil {
			ps := sizeKB(*m.PgspSize * frame)
			if m.PgspInuse != nil {
				ps = sizeKB(*m.PgspInuse*frame) + " in use of " + ps
			}
			mem.Rows = append(mem.Rows, kv{"paging space", ps})
		}
		if m.Mmode != "" {
			mem.Rows = append(mem.Rows, kv{"memory mode (svmon)", m.Mmode})
		}
		h.Mem = mem
	} else {
		h.MemAbsent = aixAbsence(s, "aix.memory")
	}
	if a.PagePools == nil {
		h.PoolNote = "Page size pools (svmon -G): " + aixAbsence(s, "aix.page_pools")
	}
	for _, p := range a.PagePools {
		r := htmlPool{Size: sizeName(p.SizeKB), Inuse: "-", Pin: "-", Pgsp: "-", Virtual: "-", Pool: "no fixed pool", PoolBytes: "-"}
		for _, x := range []struct {
			v   *int64
			dst *string
		}{{p.Inuse, &r.Inuse}, {p.Pin, &r.Pin}, {p.Pgsp, &r.Pgsp}, {p.Virtual, &r.Virtual}} {
			if x.v != nil {
				*x.dst = sizeKB(*x.v * frame)
			}
		}
		if p.PoolSize != nil {
			poolKB := *p.PoolSize * p.SizeKB
			r.Pool = fmt.Sprintf("%d page(s)", *p.PoolSize)
			r.PoolBytes = sizeKB(poolKB)
			if *p.PoolSize == 0 {
				r.Empty = true
				r.PoolBytes = "0 (empty)"
				if p.SizeKB == 16384 {
					r.Text = "no 16 MB pages: the pool is empty (vmo lgpg_regions 0)"
				} else {
					r.Text = "the pool is empty"
				}
			} else if p.Inuse != nil {
				used := *p.Inuse * frame
				r.Text = fmt.Sprintf("%s in use of %s (%s)", sizeKB(used), sizeKB(poolKB), pctOf(float64(used), float64(poolKB)))
				r.Segs = []barSeg{{Class: "seg-huge", Width: width(float64(used), float64(poolKB)), Title: r.Text}}
			}
		}
		h.Pools = append(h.Pools, r)
	}
	if a.VmstatV == nil {
		h.BlockedAbsent = aixAbsence(s, "aix.vmstat_v")
	}
	for _, b := range aixBlockedCounters {
		c := htmlCounter{Label: b.Label, Short: b.Short, Tune: b.Tune}
		if a.VmstatV != nil {
			if v, ok := a.VmstatV[b.Label]; ok {
				c.Value = fmt.Sprintf("%.0f", v)
				c.Nonzero = v > 0
			} else {
				c.Absent = true
				c.Value = "absent: vmstat -v does not print this line on this AIX level"
			}
		} else {
			c.Absent = true
			c.Value = "absent"
		}
		h.Blocked = append(h.Blocked, c)
	}
}

func buildAIXStorage(h *htmlAIX, s *snapshot.Snapshot) {
	a := s.AIX
	if a.Disks == nil {
		h.DisksAbsent = aixAbsence(s, "aix.disks")
	}
	ios := make([]aixDiskIO, len(a.Disks))
	has := make([]bool, len(a.Disks))
	var hi float64 // the longest time drawn: every time bar has this scale
	anyIO := false
	for i, d := range a.Disks {
		ios[i], has[i] = aixDiskStats(d)
		anyIO = anyIO || has[i]
		for _, v := range []*float64{ios[i].ReadServMS, ios[i].WriteServMS, ios[i].QueueTimeMS} {
			if v != nil {
				hi = max(hi, *v)
			}
		}
	}
	if !anyIO && len(a.Disks) > 0 {
		h.IOStatNote = "iostat -D: " + aixAbsence(s, "aix.disks.iostat")
	}
	h.TimeScale = fmt.Sprintf("%.1f ms", hi)
	var qdSum int64
	for i, d := range a.Disks {
		r := htmlAIXDisk{Name: d.Name, Desc: orDash(d.Description), Status: orDash(d.Status), Generic: d.Generic,
			QueueDepth: optInt(d.QueueDepth), MaxXfer: optHex(d.MaxTransfer), Algorithm: orDash(d.Algorithm), Reserve: orDash(d.ReservePolicy)}
		if d.Attributes == nil {
			r.QueueDepth, r.MaxXfer = "absent", "absent"
		} else if d.QueueDepth == nil {
			r.QueueDepth = "not an attribute of this driver"
		}
		if d.QueueDepth != nil {
			qdSum += *d.QueueDepth
		}
		for _, p := range d.Paths {
			txt := p.Status + " " + p.Parent
			if p.Connection != "" {
				txt += " " + p.Connection
			}
			r.Paths = append(r.Paths, htmlPath{Text: txt, Bad: p.Status != "Enabled" && p.Status != "Available"})
		}
		if !has[i] {
			r.NoIOStat = "not in iostat -D"
			if !anyIO {
				r.NoIOStat = "absent"
			}
		} else {
			io := ios[i]
			r.FromSinceBoot = io.SinceBoot
			r.TPS, r.Act = fmtPtr(io.TPS, "%.1f"), fmtPtr(io.TmAct, "%.1f%%")
			r.ReadServ, r.WriteServ, r.QueueTime = fmtPtr(io.ReadServMS, "%.1f ms"), fmtPtr(io.WriteServMS, "%.1f ms"), fmtPtr(io.QueueTimeMS, "%.1f ms")
			r.SQFull = fmtPtr(io.SQFull, "%.1f")
			r.SQFullNonzero = io.SQFull != nil && *io.SQFull > 0
			serv := 0.0
			for _, v := range []*float64{io.ReadServMS, io.WriteServMS} {
				if v != nil {
					serv = max(serv, *v)
				}
			}
			if io.QueueTimeMS != nil || io.ReadServMS != nil || io.WriteServMS != nil {
				r.HasTimes = true
				r.ServLabel = fmt.Sprintf("service %.1f ms", serv)
				r.ServSegs = []barSeg{{Class: "seg-used", Width: width(serv, hi), Title: r.ServLabel}}
				if io.QueueTimeMS != nil {
					r.WaitLabel = fmt.Sprintf("wait queue %.1f ms", *io.QueueTimeMS)
					r.WaitSegs = []barSeg{{Class: "seg-irq", Width: width(*io.QueueTimeMS, hi), Title: r.WaitLabel}}
					r.QueueSlow = *io.QueueTimeMS > serv && *io.QueueTimeMS > 0
				} else {
					r.WaitLabel = "wait queue -"
				}
			}
		}
		h.Disks = append(h.Disks, r)
	}
	if a.FCAdapters == nil {
		h.FCAbsent = aixAbsence(s, "aix.fc_adapters")
	}
	for _, f := range a.FCAdapters {
		r := htmlFC{Name: f.Name, Desc: orDash(f.Description), Status: orDash(f.Status), Speed: orDash(f.PortSpeed),
			CmdElems: optInt(f.NumCmdElems), MaxXfer: optHex(f.MaxXferSize), EffXfer: optHex(f.EffectiveMaxTransfer)}
		if f.MaxXferSize != nil {
			r.MaxXfer += " (" + sizeKB(*f.MaxXferSize/1024) + ")"
		}
		if f.EffectiveMaxTransfer == nil {
			r.EffXfer = "-"
		}
		read := 0
		for _, c := range []struct {
			label, fact string
			v           *int64
		}{
			{"No DMA Resource Count", "no_dma_resource_count", f.NoDMAResourceCount},
			{"No Adapter Elements Count", "no_adapter_elements_count", f.NoAdapterElementsCount},
			{"No Command Resource Count", "no_command_resource_count", f.NoCommandResourceCount},
		} {
			hc := htmlCounter{Label: c.label}
			if c.v != nil {
				read++
				hc.Value = fmt.Sprint(*c.v)
				hc.Nonzero = *c.v > 0
			} else {
				hc.Absent = true
				hc.Value = "absent"
			}
			r.Counters = append(r.Counters, hc)
		}
		if read == 0 {
			r.FcstatAbsent = aixFCAbsence(s, f.Name)
		}
		h.FCs = append(h.FCs, r)
	}
	if n := len(a.FCAdapters); n > 0 && qdSum > 0 {
		h.FCNote = fmt.Sprintf("The hdisks' queue_depth add up to %d; over %d FC adapter(s) that is %d commands per adapter, which num_cmd_elems should hold (seed 004).", qdSum, n, (qdSum+int64(n)-1)/int64(n))
	}
}

// aixFCAbsence is why an adapter's fcstat -e counters are absent.
func aixFCAbsence(s *snapshot.Snapshot, name string) string {
	for _, prefix := range []string{"aix.fc_adapters.no_", "aix.fc_adapters"} {
		for _, a := range s.Absent {
			if strings.HasPrefix(a.Fact, prefix) && (strings.HasSuffix(a.Path, "_"+name) || strings.HasPrefix(a.Reason, name+":")) {
				return a.Reason + " (" + a.Path + ")"
			}
		}
	}
	return "fcstat -e " + name + " is not in the bundle"
}

func buildAIXFS(h *htmlAIX, s *snapshot.Snapshot) {
	a := s.AIX
	if a.Filesystems == nil {
		h.FSAbsent = aixAbsence(s, "aix.filesystems")
	}
	mounted := map[string]snapshot.AIXMount{}
	for _, m := range a.Mounts {
		mounted[m.Path] = m
	}
	var hi int64
	for _, f := range a.Filesystems {
		if f.SizeBlocks != nil {
			hi = max(hi, *f.SizeBlocks)
		}
	}
	inLsfs := map[string]bool{}
	for _, f := range a.Filesystems {
		inLsfs[f.Mount] = true
		r := htmlFS{Mount: f.Mount, Device: f.Name, VFS: f.VFS, Size: "-", AGBlk: optInt(f.AGBlkSize), InlineLog: "-",
			Options: orDash(strings.Join(f.Options, ","))}
		if f.AGBlkSize == nil {
			r.AGBlk = "-"
		}
		if f.SizeBlocks != nil {
			r.Size = sizeKB(*f.SizeBlocks / 2)
			r.SizeSeg = []barSeg{{Class: "seg-used", Width: width(float64(*f.SizeBlocks), float64(hi)), Title: r.Size}}
		}
		if f.InlineLog != nil {
			r.InlineLog = map[bool]string{true: "yes", false: "no"}[*f.InlineLog]
		}
		if m, ok := mounted[f.Mount]; ok {
			r.Mounted = orDash(strings.Join(m.Options, ","))
		} else if a.Mounts != nil {
			r.NotMounted = true
			r.Mounted = "not mounted"
		} else {
			r.Mounted = "absent"
		}
		h.FS = append(h.FS, r)
	}
	for _, m := range a.Mounts {
		if inLsfs[m.Path] || m.VFS == "procfs" || m.VFS == "namefs" || m.VFS == "ahafs" {
			continue
		}
		dev := m.Device
		if m.Node != "" {
			dev = m.Node + ":" + m.Device
		}
		h.FS = append(h.FS, htmlFS{Mount: m.Path, Device: dev, VFS: m.VFS, Size: "-", AGBlk: "-", InlineLog: "-", Options: "not listed by lsfs -q",
			Mounted: orDash(strings.Join(m.Options, ",")), NotInLsfs: true})
	}
	if a.Mounts == nil && a.Filesystems != nil {
		h.FSAbsent = "mount: " + aixAbsence(s, "aix.mounts")
	}
	if a.PagingSpaces == nil {
		h.PagingAbsent = aixAbsence(s, "aix.paging_spaces")
	}
	for _, p := range a.PagingSpaces {
		r := htmlPaging{Name: p.Name, PV: orDash(p.PV), VG: orDash(p.VG), Size: "-", Used: "-", Type: orDash(p.Type),
			Active: yesNo(p.Active), Auto: yesNo(p.Auto)}
		if p.SizeMB != nil {
			r.Size = sizeKB(*p.SizeMB * 1024)
		}
		if p.UsedPct != nil {
			r.Used = fmt.Sprintf("%d%%", *p.UsedPct)
			r.UsedSeg = []barSeg{{Class: "seg-used", Width: width(float64(*p.UsedPct), 100), Title: r.Used + " used"}}
		}
		h.Paging = append(h.Paging, r)
	}
}

func yesNo(b *bool) string {
	if b == nil {
		return "-"
	}
	return map[bool]string{true: "yes", false: "no"}[*b]
}
