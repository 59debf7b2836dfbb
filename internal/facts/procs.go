package facts

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() {
	register("processes", StageSources, readProcesses, "processes", "irqs.irqbalance_running", "config.tuned.running", "host.virt.kvm_guests", factLatencyHolders)
	register("processes-daemons", StageDerived, deriveDaemons, "irqs.irqbalance_running", "config.tuned.running", "host.virt.kvm_guests", "memory.sysv_shm.huge", factLatencyHolders)
}

const (
	maxCmdlineBytes = 256
	// maxNumaMapsProcs caps how many processes' numa_maps are read: the kernel
	// walks the page tables of the whole mapping for each read.
	maxNumaMapsProcs = 32
	maxProcFileBytes = 1 << 20
	// maxFDLinks bounds the /proc/PID/fd links read in one scan (a host with
	// thousands of processes of thousands of files each); an absence says
	// which processes were left unchecked.
	maxFDLinks = 1 << 18
	// devDMALatency is the PM QoS CPU latency device: a process holding it
	// open keeps the CPUs out of idle states slower than it asked for.
	devDMALatency      = "/dev/cpu_dma_latency"
	factLatencyHolders = "cpu_power.dma_latency_holders"
)

// procMatchHook lets a test treat another comm as a database process
// (engine, role). nil outside tests.
var procMatchHook func(comm string) (engine, role string, ok bool)

// daemonScan is what the process scan learned for other parts of the
// snapshot: non-database daemons, the holders of /dev/cpu_dma_latency, and
// how the database's SysV segments are mapped; it is handed from the sources stage to deriveDaemons, which writes
// the fields that belong to those parts (IRQs, Config.Tuned, Host.Virt,
// CPUPower, Memory.SysVShm).
type daemonScan struct {
	scanned          bool
	irqbalance, tund bool
	kvmGuests        int                           // QEMU/KVM guest processes (this host is a hypervisor)
	shmMaps          map[int]map[uint32]shmBacking // PID → SysV key → backing, from numa_maps
	holders          []snapshot.LatencyHolder      // processes holding /dev/cpu_dma_latency
}

var daemonScans sync.Map // *Collector → daemonScan

// procProblems counts per kind of fact the processes whose file could not
// be read, so that one absence is recorded per kind, not one per process.
type procProblems struct {
	kinds map[string]*procProblem
}

type procProblem struct {
	file   string // "/proc/PID/status"
	denied int
	other  int
	first  string // first non-permission reason, with its PID
}

func (pp *procProblems) add(kind, file string, pid int, err error) {
	if pp.kinds == nil {
		pp.kinds = map[string]*procProblem{}
	}
	p := pp.kinds[kind]
	if p == nil {
		p = &procProblem{file: file}
		pp.kinds[kind] = p
	}
	if errors.Is(err, fs.ErrPermission) {
		p.denied++
		return
	}
	p.other++
	if p.first == "" {
		p.first = fmt.Sprintf("PID %d: %s", pid, Reason(err))
	}
}

func (pp *procProblems) record(c *Collector) {
	for kind, p := range pp.kinds {
		var parts []string
		if p.denied > 0 {
			parts = append(parts, deniedReason(fmt.Sprintf("permission denied for %d process(es)", p.denied), "them", runningAsRoot()))
		}
		if p.other > 0 {
			parts = append(parts, fmt.Sprintf("unreadable for %d process(es), first %s", p.other, p.first))
		}
		c.AbsentReason(kind, p.file, strings.Join(parts, "; "))
	}
}

// vanished reports an error that means the process exited during the scan.
func vanished(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// readProcFile reads a /proc file (see readRaw), at most maxProcFileBytes;
// with oneRead, a single read (enough for comm, at most 16 bytes).
func (c *Collector) readProcFile(p string, oneRead bool) ([]byte, error) {
	size := 4096
	if oneRead {
		size = 256
	}
	return c.Root.readRaw(p, make([]byte, 0, size), !oneRead, maxProcFileBytes)
}

func readProcesses(c *Collector) {
	procs, ds := scanProcesses(c)
	c.Snap.Processes = procs
	daemonScans.Store(c, ds)
}

// deriveDaemons sets IRQs.IrqbalanceRunning, Config.Tuned.Running,
// Host.Virt.KVMGuests and CPUPower.LatencyHolders from the process scan (nil
// when /proc could not be scanned), and each SysV segment's Huge from the
// numa_maps of the processes mapping it (nil when none says:
// /proc/sysvipc/shm does not show SHM_HUGETLB).
func deriveDaemons(c *Collector) {
	v, ok := daemonScans.LoadAndDelete(c)
	if !ok {
		return
	}
	ds := v.(daemonScan)
	for i := range c.Snap.Memory.SysVShm {
		c.Snap.Memory.SysVShm[i].Huge = shmHuge(c.Snap.Memory.SysVShm[i], ds.shmMaps)
	}
	if ds.holders == nil { // no /proc/PID scanned (a sosreport's processes come from ps)
		c.AbsentReason(factLatencyHolders, "/proc", "no /proc/PID directories to read open files from (see processes; "+
			"a sosreport's ps output does not show them)")
	} else {
		c.Snap.CPUPower.LatencyHolders = ds.holders
	}
	if !ds.scanned {
		return
	}
	irq, tuned := ds.irqbalance, ds.tund
	c.Snap.IRQs.IrqbalanceRunning = &irq
	c.Snap.Config.Tuned.Running = &tuned
	kvm := ds.kvmGuests
	c.Snap.Host.Virt.KVMGuests = &kvm
}

func scanProcesses(c *Collector) ([]snapshot.Process, daemonScan) {
	procs := []snapshot.Process{}
	var ds daemonScan
	names, err := c.Root.ReadDirNames("/proc")
	if err != nil {
		c.Absent("processes", "/proc", err)
		return procs, ds
	}
	var pids []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	if len(pids) == 0 {
		c.AbsentReason("processes", "/proc", "no process directories under /proc (processes were not captured)")
		return procs, ds
	}
	sort.Ints(pids)
	var pp procProblems
	ds.holders = []snapshot.LatencyHolder{}
	fdLinks, fdStop := 0, 0
	type cand struct {
		pid    int
		comm   string
		engine string
		role   string
	}
	var cands []cand
	for _, pid := range pids {
		dir := "/proc/" + strconv.Itoa(pid)
		b, err := c.readProcFile(dir+"/comm", true)
		if err != nil {
			if !vanished(err) {
				pp.add("processes", "/proc/PID/comm", pid, err)
			}
			continue
		}
		comm := strings.TrimSuffix(string(b), "\n")
		if fdLinks >= maxFDLinks {
			if fdStop == 0 {
				fdStop = pid
			}
		} else if held, err := holdsDMALatency(c, dir, &fdLinks); err != nil {
			if !c.Root.Live || !vanished(err) {
				pp.add(factLatencyHolders, "/proc/PID/fd", pid, err)
			}
		} else if held {
			h := snapshot.LatencyHolder{PID: pid, Comm: comm}
			if cb, err := c.readProcFile(dir+"/cmdline", false); err == nil {
				h.Cmdline = cmdlineText(cmdlineArgs(cb))
			}
			ds.holders = append(ds.holders, h)
		}
		switch {
		case comm == "irqbalance":
			ds.irqbalance = true
			continue
		case comm == "tuned":
			ds.tund = true
			continue
		case strings.HasPrefix(comm, "qemu-kvm") || strings.HasPrefix(comm, "qemu-system-"):
			ds.kvmGuests++
			continue
		case strings.HasPrefix(comm, "python") && !ds.tund:
			// tuned run as "python3 /usr/sbin/tuned".
			if cb, err := c.readProcFile(dir+"/cmdline", false); err == nil {
				for i, a := range cmdlineArgs(cb) {
					if i > 0 && i < 4 && (a == "tuned" || strings.HasSuffix(a, "/tuned")) {
						ds.tund = true
					}
				}
			}
			continue
		}
		if procMatchHook != nil {
			if e, r, ok := procMatchHook(comm); ok {
				cands = append(cands, cand{pid, comm, e, r})
				continue
			}
		}
		if dbComm(comm) {
			cands = append(cands, cand{pid: pid, comm: comm})
		}
	}
	ds.scanned = true
	if fdStop != 0 {
		c.AbsentReason(factLatencyHolders, "/proc/PID/fd", fmt.Sprintf("stopped after %d open-file links: processes from PID %d on were not checked", maxFDLinks, fdStop))
	}
	if c.Root.Live && os.Geteuid() != 0 {
		if b, err := c.Root.ReadFile("/proc/mounts"); err == nil {
			if opt := procHidepid(string(b)); opt != "" {
				c.AbsentReason("processes", "/proc", "/proc is mounted with "+opt+
					": other users' processes are hidden (run as root to see every database process)")
			}
		}
	}
	passwd := map[int]string(nil)
	if len(cands) > 0 {
		_, passwd = c.readPasswd("processes.user")
	}
	argsOf := map[int][]string{}
	for _, cd := range cands {
		dir := "/proc/" + strconv.Itoa(cd.pid)
		var args []string
		if b, err := c.readProcFile(dir+"/cmdline", false); err == nil {
			args = cmdlineArgs(b)
		} else if vanished(err) {
			continue
		} else {
			pp.add("processes.cmdline", "/proc/PID/cmdline", cd.pid, err)
		}
		engine, role, inst := cd.engine, cd.role, ""
		if engine == "" {
			var ok bool
			if engine, role, inst, ok = classifyProcess(cd.comm, args); !ok {
				continue
			}
		}
		// A status that cannot be read or parsed costs its fields, not the
		// process: comm, cmdline, stat and cgroup still say what it is.
		st := pidStatus{UID: -1, PPID: -1}
		b, err := c.readProcFile(dir+"/status", false)
		if err == nil {
			st, err = parsePIDStatus(bytes.NewReader(b))
		}
		if vanished(err) {
			continue
		}
		if err != nil {
			pp.add("processes.status", "/proc/PID/status", cd.pid, err)
		}
		p := snapshot.Process{
			PID: cd.pid, Comm: cd.comm, Cmdline: cmdlineText(args), UID: st.UID, User: passwd[st.UID],
			Engine: engine, Role: role, Instance: inst, PPID: st.PPID, Threads: st.Threads, RSSKB: st.RSSKB,
			CPUsAllowed: st.CPUs, MemsAllowed: st.Mems,
		}
		for field, why := range st.Missing {
			pp.add("processes."+field, "/proc/PID/status", cd.pid, why)
		}
		if b, err := c.readProcFile(dir+"/stat", false); err != nil {
			if !vanished(err) {
				pp.add("processes.last_cpu", "/proc/PID/stat", cd.pid, err)
			}
		} else if cpu, err := parsePIDStat(string(b)); err != nil {
			pp.add("processes.last_cpu", "/proc/PID/stat", cd.pid, err)
		} else {
			p.LastCPU = &cpu
		}
		if b, err := c.readProcFile(dir+"/cgroup", false); err != nil {
			if !vanished(err) {
				pp.add("processes.cgroup", "/proc/PID/cgroup", cd.pid, err)
			}
		} else if cg, err := ParsePIDCgroup(bytes.NewReader(b)); err != nil {
			pp.add("processes.cgroup", "/proc/PID/cgroup", cd.pid, err)
		} else {
			p.Cgroup = cg.cpusetPath()
		}
		procs = append(procs, p)
		argsOf[cd.pid] = args
	}
	resolvePostgres(procs, argsOf)
	ds.shmMaps = readMainNumaMaps(c, procs, &pp)
	pp.record(c)
	return procs, ds
}

// procHidepid returns the /proc mount option that hides other users'
// processes ("hidepid=2", "hidepid=invisible", "hidepid=1" hides their
// files), or "" when /proc shows them.
func procHidepid(mounts string) string {
	for _, line := range strings.Split(mounts, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[2] != "proc" || f[1] != "/proc" {
			continue
		}
		for _, o := range strings.Split(f[3], ",") {
			if v, ok := strings.CutPrefix(o, "hidepid="); ok && v != "0" && v != "off" {
				return o
			}
		}
	}
	return ""
}

// holdsDMALatency reports whether the process in dir (/proc/PID) holds
// /dev/cpu_dma_latency open, from its fd links; *links counts the links
// read. A descriptor closed while the directory is walked is skipped.
func holdsDMALatency(c *Collector, dir string, links *int) (bool, error) {
	fds, err := c.Root.ReadDirNames(dir + "/fd")
	if err != nil {
		return false, err
	}
	for _, fd := range fds {
		*links++
		if t, err := c.Root.Readlink(dir + "/fd/" + fd); err == nil && t == devDMALatency {
			return true, nil
		}
	}
	return false, nil
}
