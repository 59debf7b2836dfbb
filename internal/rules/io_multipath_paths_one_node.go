package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.multipath-paths-one-node: a multipath LUN whose paths all go through
// HBAs of one NUMA node while the host has HBAs on other nodes (000,
// Multipath configuration: "spread the I/O workload over multiple Fibre
// Channel paths across multiple blades"). Each path (a dm device's slave)
// is placed by its host adapter's PCI function: its numa_node.
func init() {
	Register(Rule{
		ID:       "io.multipath-paths-one-node",
		Area:     AreaIO,
		Severity: SevWarning,
		Title:    "A multipath LUN's paths all go through the HBAs of one node",
		Sources: []Source{
			{Doc: Seed000, Section: "Multipath configuration",
				Quote: "To maximize throughput, be sure to spread the I/O workload over multiple Fibre Channel paths across multiple blades in the Superdome X server."},
			{Doc: Seed000, Section: "Optimizing storage I/O performance — Test environment",
				Quote: "The Superdome X used eight fiber channel (FC) ports connected to the 3PAR through the FC Interconnect module, resulting in 16 paths to each virtual LUN."},
		},
		Scope: Scope{
			Note: "multi-node hosts with host adapters on more than one node; a host whose HBAs are all on one node needs hardware, which the pass says",
		},
		Description: `For each device-mapper multipath device, the NUMA nodes of the host adapters its paths
go through (the slaves' controllers' numa_node). Paths on one node while HBAs sit on others:
the LUN's bandwidth is that node's ports' and every other node reaches it through the
interconnect. 000's 3PAR LUNs had 16 paths over the eight FC ports of four blades.`,
		Check: checkMultipathOneNode,
	})
}

func checkMultipathOneNode(in *Input) Outcome {
	s := in.Snap
	nodeOf := NodeOfCPU(s)
	cpuNodes := map[int]bool{}
	for _, n := range nodeOf {
		cpuNodes[n] = true
	}
	if len(s.Topology.Nodes) == 0 {
		return CannotCheck("%s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	if len(cpuNodes) < 2 {
		return NotApplicable("%d NUMA node(s) with CPUs: one blade", len(cpuNodes))
	}
	if r := AbsentReason(s, "storage.devices"); r != "" && len(s.Storage.Devices) == 0 {
		return CannotCheck("%s", r)
	}
	byName := map[string]snapshot.BlockDevice{}
	var mps []snapshot.BlockDevice
	for _, d := range s.Storage.Devices {
		byName[d.Name] = d
		if d.Multipath && len(d.Slaves) > 0 {
			mps = append(mps, d)
		}
	}
	if len(mps) == 0 {
		return NotApplicable("no multipath device")
	}
	// The PCI function of each SCSI host, and the nodes the host has HBAs on.
	pciOf := map[int]string{}
	hbaNodes := map[int][]string{}
	for _, d := range s.PCIDevices {
		for _, h := range d.SCSIHosts {
			pciOf[h] = d.Address
		}
		if (d.Kind == "fc" || len(d.FCHosts) > 0) && d.NUMANode != nil {
			hbaNodes[*d.NUMANode] = append(hbaNodes[*d.NUMANode], d.Address)
		}
	}
	type path struct{ name, where string }
	lunNodes := map[string]map[int][]path{}
	for _, mp := range mps {
		m := map[int][]path{}
		for _, p := range mp.Slaves {
			sd, ok := byName[p]
			if !ok || sd.NUMANode == nil {
				continue
			}
			where, adapter := "", ""
			if sd.SCSIHost != nil {
				where = "host" + strconv.Itoa(*sd.SCSIHost)
				adapter = where
				if a := pciOf[*sd.SCSIHost]; a != "" {
					where += " " + a
					adapter = a
				}
			}
			// Every adapter a path goes through is an HBA of its node,
			// whatever its class (a SAS or iSCSI offload adapter too).
			if adapter != "" && !containsStr(hbaNodes[*sd.NUMANode], adapter) {
				hbaNodes[*sd.NUMANode] = append(hbaNodes[*sd.NUMANode], adapter)
			}
			m[*sd.NUMANode] = append(m[*sd.NUMANode], path{p, where})
		}
		lunNodes[mp.Name] = m
	}
	var fs []Finding
	var ok, unknown []string
	for _, mp := range mps {
		m := lunNodes[mp.Name]
		lun := mp.Name
		if mp.DMName != "" {
			lun = mp.DMName + " (" + mp.Name + ")"
		}
		if len(m) == 0 {
			unknown = append(unknown, lun+": no path's node known")
			continue
		}
		if len(m) > 1 {
			var parts []string
			for _, n := range sortedKeys(m) {
				parts = append(parts, fmt.Sprintf("node%d %d", n, len(m[n])))
			}
			ok = append(ok, fmt.Sprintf("%s: %d paths over nodes (%s)", lun, len(mp.Slaves), strings.Join(parts, ", ")))
			continue
		}
		node := sortedKeys(m)[0]
		var others []int
		for _, n := range sortedKeys(hbaNodes) {
			if n != node {
				others = append(others, n)
			}
		}
		if len(others) == 0 {
			ok = append(ok, fmt.Sprintf("%s: %d paths, all on node %d, where every HBA the host's paths and FC ports use is: spreading them over blades needs an HBA on another node (000)", lun, len(mp.Slaves), node))
			continue
		}
		var paths []string
		for _, p := range m[node] {
			paths = append(paths, p.name+" "+p.where)
		}
		var elsewhere []string
		for _, n := range others {
			elsewhere = append(elsewhere, fmt.Sprintf("node %d: %s", n, strings.Join(hbaNodes[n], ", ")))
		}
		fs = append(fs, Finding{
			Setting:     "multipath:" + mp.Name + " paths",
			Current:     fmt.Sprintf("%s: %d paths, every one through the HBAs of node %d", lun, len(m[node]), node),
			Recommended: "paths through HBAs on several nodes (blades): zone and map the LUN to the HBA ports of the other nodes too",
			Evidence: fmt.Sprintf("/sys/block/%s/slaves: %s, each on node %d (its adapter's numa_node); the host's HBAs elsewhere: %s",
				mp.Name, strings.Join(paths, "; "), node, strings.Join(elsewhere, "; ")),
			Why: "000 (Multipath configuration): to maximize throughput, spread the I/O over multiple FC paths across multiple " +
				"blades; its 3PAR LUNs had 16 paths over eight FC ports on four blades. Paths on one node cap the LUN at that " +
				"node's ports and send every other node's I/O through the interconnect.",
			Fix: Fix{Runtime: []string{}, Persistent: []string{
				"zone the fabric and map the LUN on the array to the HBA ports of the other nodes, then rescan (echo '- - -' > /sys/class/scsi_host/hostN/scan for those hosts) and let multipathd add the paths (multipathd reconfigure)",
			}},
			Pending: PendingManual,
			Risk:    "Zoning and LUN mapping are SAN changes: make them with the storage team, one fabric at a time, with the paths in place.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(ok) == 0 {
		return CannotCheck("storage.devices: the nodes of the multipath paths are unknown (numa_node -1 or unread): %s", strings.Join(unknown, "; "))
	}
	msg := strings.Join(ok, "; ")
	if len(unknown) > 0 {
		msg += "; not judged: " + strings.Join(unknown, "; ")
	}
	return Passed("%s", msg).Reading("/sys/block/DM/slaves, each path's adapter numa_node: " + strings.Join(ok, "; "))
}

func containsStr(a []string, s string) bool {
	for _, x := range a {
		if x == s {
			return true
		}
	}
	return false
}
