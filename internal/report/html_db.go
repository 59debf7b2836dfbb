package report

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// htmlDB is the report's databases section: the servers read over a
// connection (snapshot.Databases, docs/livedb.md) and the database
// processes with where their CPUs and memory are, node by node.
type htmlDB struct {
	Servers    []htmlServer
	Instances  []htmlInstance
	Nodes      []int // the columns of the per-node tables
	Procs      []htmlProc
	NoProcNote string
}

type htmlServer struct {
	Anchor, Title string
	Facts         []kv
	Error         string
	Key           []kv          // the settings the summary shows for its engine
	Settings      []htmlSetting // every setting read
	Unread        int           // settings that could not be read (not "not present")
}

type htmlSetting struct {
	Name, Value, Source, Reason string
	Raw                         string // the server's value in its unit, when it has one
}

type htmlInstance struct {
	Instance, Engine string
	Procs            int
	RSS              string
	CPUs, Nodes      string
	Mems, Cgroup     string
	PerNode          []instNodeCell // one per htmlDB.Nodes
}

// instNodeCell is where an instance is on one node: the CPUs it may run
// on there, whether its memory may be there, and the pages read there.
type instNodeCell struct {
	CPUs, Mem, Pages string
	Home             bool // CPUs here and memory allowed here
}

type htmlProc struct {
	PID                  int
	Comm, Instance, Role string
	Verdict, Line        string
	Nodes                []procCell
	Total                string
}

type procCell struct {
	Text  string
	Segs  []barSeg
	Local bool
}

func buildDB(s *snapshot.Snapshot, numa *htmlNUMA) *htmlDB {
	db := &htmlDB{}
	for i := range s.Databases {
		db.Servers = append(db.Servers, buildServer(&s.Databases[i], i))
	}
	for _, nd := range s.Topology.Nodes {
		db.Nodes = append(db.Nodes, nd.ID)
	}
	buildInstances(db, numa, s)
	buildProcMemory(db, s)
	return db
}

func buildServer(d *snapshot.Database, i int) htmlServer {
	h := htmlServer{Anchor: fmt.Sprintf("db-%d", i), Title: d.Engine, Error: d.Error}
	if d.Version != "" {
		h.Title += " " + d.Version
	}
	add := func(k, v string) {
		if v != "" {
			h.Facts = append(h.Facts, kv{k, v})
		}
	}
	add("Connection", d.Connection)
	if d.Local {
		add("Where", "this host")
	} else {
		add("Where", "another host (its paths are not this host's files)")
	}
	if x := d.Discovered; x != nil {
		v := fmt.Sprintf("from its process, pid %d, data directory %s", x.PID, x.DataDir)
		if x.Socket != "" {
			v += ", socket " + x.Socket
		}
		if x.OSUser != "" {
			v += ", as OS user " + x.OSUser
		}
		add("Found", v)
	}
	add("Read as", d.User)
	dir := d.DataDirectory
	if d.DataDirectoryReal != "" && d.DataDirectoryReal != d.DataDirectory {
		dir += " → " + d.DataDirectoryReal
	}
	add("Data directory", dir)
	if d.WALDirectory != "" || d.WALResolved != "" {
		wal := orDash(d.WALDirectory)
		if d.WALResolved != "" {
			wal += " (" + d.WALResolved + ")"
		}
		add("WAL / redo log", wal)
	}
	for _, k := range serverKeySettings(d) {
		if st := d.Setting(k); st != nil && st.Value != nil {
			h.Key = append(h.Key, kv{k, settingText(st)})
		}
	}
	for i := range d.Settings {
		st := &d.Settings[i]
		row := htmlSetting{Name: st.Name, Source: st.Source, Reason: st.Reason}
		if st.Value != nil {
			row.Value = settingText(st)
			if st.Unit != "" {
				row.Raw = *st.Value + " × " + st.Unit
			}
		} else if !strings.HasPrefix(st.Reason, "not present") {
			h.Unread++
		}
		h.Settings = append(h.Settings, row)
	}
	return h
}

// buildInstances groups the database processes by instance: where they
// may run (CPUs, their nodes, memory nodes, cpuset) and, node by node, the
// CPUs allowed there, whether memory may be there and the pages read there.
// The node cards of the NUMA picture get a chip per instance confined to
// some of the nodes.
func buildInstances(db *htmlDB, numa *htmlNUMA, s *snapshot.Snapshot) {
	type inst struct {
		engine     string
		procs      int
		rss        int64
		cpus, mems map[int]bool
		cgroups    map[string]bool
		pages      map[int]int64 // node → KiB, from the processes whose numa_maps were read
		pagesRead  bool
	}
	insts := map[string]*inst{}
	var order []string
	for _, p := range s.Processes {
		name := instanceName(p.Instance, p.Engine)
		in := insts[name]
		if in == nil {
			in = &inst{engine: p.Engine, cpus: map[int]bool{}, mems: map[int]bool{}, cgroups: map[string]bool{}, pages: map[int]int64{}}
			insts[name] = in
			order = append(order, name)
		}
		in.procs++
		in.rss += p.RSSKB
		for _, c := range p.CPUsAllowed {
			in.cpus[c] = true
		}
		for _, m := range p.MemsAllowed {
			in.mems[m] = true
		}
		if p.Cgroup != "" {
			in.cgroups[p.Cgroup] = true
		}
		if p.NUMA != nil {
			in.pagesRead = true
			for _, m := range p.NUMA {
				in.pages[m.Node] += m.TotalKB
			}
		}
	}
	nodeOf := map[int]int{}
	nodeCPUs := map[int]int{}
	for _, nd := range s.Topology.Nodes {
		nodeCPUs[nd.ID] = len(nd.CPUs)
		for _, c := range nd.CPUs {
			nodeOf[c] = nd.ID
		}
	}
	for _, name := range order {
		in := insts[name]
		cpus, mems, cgs := slices.Sorted(maps.Keys(in.cpus)), slices.Sorted(maps.Keys(in.mems)), slices.Sorted(maps.Keys(in.cgroups))
		nodes := map[int]bool{}
		perNode := map[int][]int{}
		for _, c := range cpus {
			if nd, ok := nodeOf[c]; ok {
				nodes[nd] = true
				perNode[nd] = append(perNode[nd], c)
			}
		}
		hi := htmlInstance{Instance: name, Engine: in.engine, Procs: in.procs, RSS: sizeKB(in.rss),
			CPUs: orDash(cpulist.Format(cpus)), Nodes: orDash(cpulist.Format(slices.Sorted(maps.Keys(nodes)))), Mems: orDash(cpulist.Format(mems)),
			Cgroup: orDash(strings.Join(cgs, ", "))}
		for _, id := range db.Nodes {
			c := instNodeCell{CPUs: "no CPUs", Mem: "memory: not read", Pages: "pages: not read"}
			if k := perNode[id]; len(k) > 0 {
				c.CPUs = fmt.Sprintf("CPUs %s (%d of %d)", cpulist.Format(k), len(k), nodeCPUs[id])
			} else if len(cpus) == 0 {
				c.CPUs = "CPUs: not read"
			}
			if len(mems) > 0 {
				c.Mem = "memory not allowed"
				if in.mems[id] {
					c.Mem = "memory allowed"
				}
			}
			if in.pagesRead {
				c.Pages = sizeKB(in.pages[id]) + " here"
				if in.pages[id] == 0 {
					c.Pages = "no pages here"
				}
			}
			c.Home = len(perNode[id]) > 0 && in.mems[id]
			hi.PerNode = append(hi.PerNode, c)
		}
		db.Instances = append(db.Instances, hi)
		if numa != nil && len(nodes) > 0 && len(nodes) < len(numa.Nodes) {
			for nd := range nodes {
				if i, ok := numa.pos[nd]; ok {
					numa.Nodes[i].DBs = append(numa.Nodes[i].DBs, name)
				}
			}
		}
	}
}

// buildProcMemory: the processes whose pages per node were read (numa_maps)
// with the verdict of `dbhost numa --pid`.
func buildProcMemory(db *htmlDB, s *snapshot.Snapshot) {
	for _, p := range s.Processes {
		if p.NUMA == nil {
			continue
		}
		pn := &ProcNUMA{PID: p.PID, Comm: p.Comm, Instance: p.Instance, CPUsAllowed: p.CPUsAllowed, MemsAllowed: p.MemsAllowed, LastCPU: p.LastCPU, Pages: p.NUMA}
		pn.Judge(s.Topology, nil)
		var total int64
		per := map[int]snapshot.NodeMem{}
		for _, m := range p.NUMA {
			total += m.TotalKB
			per[m.Node] = m
		}
		ran := map[int]bool{}
		for _, r := range pn.RanOn {
			ran[r] = true
		}
		hp := htmlProc{PID: p.PID, Comm: p.Comm, Instance: p.Instance, Role: p.Role, Verdict: pn.Verdict, Line: pn.Line, Total: sizeKB(total)}
		for _, id := range db.Nodes {
			m := per[id]
			c := procCell{Text: "-", Local: ran[id]}
			if m.TotalKB > 0 {
				c.Text = sizeKB(m.TotalKB)
				c.Segs = []barSeg{
					{Class: "seg-huge", Width: width(float64(m.HugeKB), float64(total)), Title: "hugepages " + sizeKB(m.HugeKB)},
					{Class: "seg-used", Width: width(float64(m.TotalKB-m.HugeKB), float64(total)), Title: "anon/file/shm " + sizeKB(m.TotalKB-m.HugeKB)},
				}
			}
			if c.Local {
				c.Text += " (runs here)"
			}
			hp.Nodes = append(hp.Nodes, c)
		}
		db.Procs = append(db.Procs, hp)
	}
	sort.SliceStable(db.Procs, func(i, j int) bool { return db.Procs[i].PID < db.Procs[j].PID })
	if len(s.Processes) > 0 && len(db.Procs) == 0 {
		db.NoProcNote = "No pages per node were read for these processes (numa_maps are read as root, for each instance's main process)."
	}
}

// instanceName is how the report names a database instance: its name, or
// "(oracle, no instance name)" for processes that do not say it.
func instanceName(instance, engine string) string {
	if instance == "" {
		return "(" + engine + ", no instance name)"
	}
	return instance
}
