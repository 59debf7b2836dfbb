package facts

import (
	"bytes"
	"errors"
	"io/fs"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Sosreport fallbacks. A sosreport keeps copies of /proc, /sys and /etc files
// plus command outputs under sos_commands/. When a file copy is missing, the
// command output stands in for it: each fallback fills a fact only if the
// file reader recorded it absent, and then resolves that absence. If the
// fallback cannot help either, what it tried is added to the fact's absences.

func init() { register("sos", StageSos, readSos, "host", "topology", "sysctl") }

// Paths of the command outputs inside a sosreport (root-relative).
const (
	sosSysctlA  = "/sos_commands/kernel/sysctl_-a"
	sosNumactl  = "/sos_commands/numa/numactl_--hardware"
	sosLscpu    = "/sos_commands/processor/lscpu"
	sosLscpuAE  = "/sos_commands/processor/lscpu_-ae"
	sosHostname = "/hostname"
	sosUname    = "/uname"
	sosUnameA   = "/sos_commands/kernel/uname_-a"
)

func readSos(c *Collector) {
	if !c.Root.Sos {
		return
	}
	sysctlA := sosSysctl(c)
	sosHost(c, sysctlA)
	sosTopology(c)
}

// sosSysctl fills curated sysctl keys from sysctl -a output; it returns the
// parsed output (nil when unreadable) for the other fallbacks.
func sosSysctl(c *Collector) map[string]string {
	var missing []string
	for _, key := range SysctlKeys {
		if _, ok := c.Snap.Sysctl[key]; !ok && c.IsAbsent("sysctl."+key) {
			missing = append(missing, key)
		}
	}
	b, err := c.Root.ReadFile(sosSysctlA)
	var m map[string]string
	if err == nil {
		m, err = ParseSysctlA(bytes.NewReader(b))
	}
	if err != nil {
		for _, key := range missing {
			c.Absent("sysctl."+key, sosSysctlA, err)
		}
		return nil
	}
	if c.Snap.Sysctl == nil {
		c.Snap.Sysctl = map[string]string{}
	}
	for _, key := range missing {
		if v, ok := m[key]; ok {
			c.Snap.Sysctl[key] = v
			c.Resolve("sysctl." + key)
		} else {
			c.AbsentReason("sysctl."+key, sosSysctlA, "not in the sysctl -a output either")
		}
	}
	return m
}

// recountTopology recomputes sockets, cores and threads from the CPUs.
func recountTopology(t *snapshot.Topology) {
	sockets := map[int]bool{}
	for _, cp := range t.CPUs {
		if cp.Socket >= 0 {
			sockets[cp.Socket] = true
		}
	}
	t.Sockets = len(sockets)
	countCores(t)
}

// sosTopology fills nodes from numactl --hardware (or lscpu's node lines),
// and CPUs, sockets and cores from lscpu -ae (per CPU) or lscpu's summary,
// when /sys copies were missing.
func sosTopology(c *Collector) {
	t := &c.Snap.Topology
	needNodes := len(t.Nodes) == 0 && c.IsAbsent("topology.nodes")
	needCPUs := len(t.CPUs) == 0 && c.IsAbsent("topology.cpus")
	needOnline := len(t.CPUsOnline) == 0 && c.IsAbsent("topology.cpus_online")
	needSocket := c.IsAbsent("topology.cpus.socket") // CPUs without topology
	needSockets := t.Sockets == 0
	if !needNodes && !needCPUs && !needOnline && !needSocket && !needSockets {
		return
	}

	var lscpu *lscpuInfo
	b, lerr := c.Root.ReadFile(sosLscpu)
	if lerr == nil {
		lscpu, lerr = parseLscpu(bytes.NewReader(b))
	}
	var ae []lscpuCPU
	b, aerr := c.Root.ReadFile(sosLscpuAE)
	if aerr == nil {
		ae, aerr = parseLscpuExtended(bytes.NewReader(b))
	}

	if needNodes {
		b, err := c.Root.ReadFile(sosNumactl)
		var nn []numactlNode
		if err == nil {
			nn, err = parseNumactlHardware(bytes.NewReader(b))
		}
		switch {
		case err == nil:
			c.Resolve("topology.nodes")
			t.NUMAEnabled = true
			t.Nodes = nodesFromNumactl(c, nn)
		case errors.Is(err, errNoNUMA):
			c.AbsentReason("topology.nodes", sosNumactl, "numactl --hardware: No NUMA available on this system")
		case lscpu != nil && len(lscpu.NodeCPUs) > 0:
			c.Resolve("topology.nodes")
			t.NUMAEnabled = true
			t.Nodes = nodesFromLscpu(c, lscpu)
		default:
			c.Absent("topology.nodes", sosNumactl, err)
		}
	}

	if needOnline {
		switch {
		case lscpu != nil && lscpu.Online != nil:
			t.CPUsOnline = lscpu.Online
			c.Resolve("topology.cpus_online")
		case ae != nil && ae[0].Online != nil:
			t.CPUsOnline = []int{}
			for _, r := range ae {
				if *r.Online {
					t.CPUsOnline = append(t.CPUsOnline, r.ID)
				}
			}
			c.Resolve("topology.cpus_online")
		case lscpu != nil:
			c.AbsentReason("topology.cpus_online", sosLscpu, "no \"On-line CPU(s) list\" line")
		default:
			c.Absent("topology.cpus_online", sosLscpu, lerr)
		}
	}

	perCPU, usedAE := false, false // socket and core of every online CPU known
	switch {
	case needCPUs && ae != nil:
		perCPU, usedAE = cpusFromLscpuExtended(t, ae), true
		c.Resolve("topology.cpus")
	case needCPUs && lscpu != nil:
		cpusFromLscpu(c, t, lscpu)
	case needCPUs:
		c.Absent("topology.cpus", sosLscpu, lerr)
	case needSocket && ae != nil:
		perCPU, usedAE = cpusFromLscpuExtended(t, ae), true
	}
	if usedAE {
		if perCPU {
			c.Resolve("topology.cpus.socket")
		} else {
			c.AbsentReason("topology.cpus.socket", sosLscpuAE, "lscpu -ae does not give the socket and core of every online CPU")
		}
		recountTopology(t)
	} else if needCPUs && len(t.CPUs) > 0 {
		if aerr != nil && !errors.Is(aerr, fs.ErrNotExist) {
			c.Absent("topology.cpus.socket", sosLscpuAE, aerr)
		}
		c.AbsentReason("topology.cpus.socket", sosLscpu, "per-CPU socket, core and SMT siblings are not in lscpu's summary (no /sys/devices/system/cpu copy, no lscpu -ae)")
	}
	if t.Sockets == 0 && lscpu != nil && lscpu.Sockets != nil && *lscpu.Sockets > 0 {
		t.Sockets = *lscpu.Sockets
		if t.Cores == 0 && lscpu.CoresPerSocket != nil {
			t.Cores = *lscpu.Sockets * *lscpu.CoresPerSocket
		}
	}
	if t.Threads == 0 && lscpu != nil && lscpu.Online != nil {
		t.Threads = len(lscpu.Online)
	}
	assignNodes(t)
	if len(t.Nodes) == 0 && lscpu != nil {
		// No node list at all: lscpu's node lines still say where each CPU is.
		for i := range t.CPUs {
			for id, cpus := range lscpu.NodeCPUs {
				if t.CPUs[i].Node < 0 && contains(cpus, t.CPUs[i].ID) {
					t.CPUs[i].Node = id
				}
			}
		}
	}
}

// assignNodes sets the node of CPUs that have none from the nodes' CPU lists.
func assignNodes(t *snapshot.Topology) {
	if len(t.Nodes) == 0 {
		return
	}
	owner := map[int]int{}
	for _, n := range t.Nodes {
		for _, id := range n.CPUs {
			owner[id] = n.ID
		}
	}
	for i := range t.CPUs {
		if t.CPUs[i].Node < 0 {
			if id, ok := owner[t.CPUs[i].ID]; ok {
				t.CPUs[i].Node = id
			}
		}
	}
}
