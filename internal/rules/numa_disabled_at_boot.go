package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// numa.disabled-at-boot: the kernel runs without NUMA (numa=off on the boot
// line, or fewer NUMA nodes with CPUs than sockets) on a multi-socket host.
//
// This file is the pattern for a rule: Register in init() with the citation
// and scope, then a Check that reads facts, returns CannotCheck with the
// recorded reason when a fact it needs is absent, Passed when all is well, and
// Found(Finding{...}) with only what it found (the engine fills the rest).
func init() {
	Register(Rule{
		ID:       "numa.disabled-at-boot",
		Area:     AreaNUMA,
		Severity: SevCritical,
		Title:    "NUMA is disabled at boot on a multi-socket host",
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations",
				Quote: "Remove the “numa=off” parameter from the kernel boot syntax and reboot the server."},
			{Doc: Seed000, Section: "Scenario 1: NUMA optimizations — Operating system NUMA configuration",
				Quote: "They may also add “numa=off” to the kernel boot string, which disables all NUMA features in the kernel."},
			{Doc: Seed000, Section: "Table 12. Oracle recommendation summary.",
				Quote: "NUMA\tON\tOFF\tOFF\t27%\t27%"},
		},
		Scope: Scope{
			Kernels: "any Linux kernel with CONFIG_NUMA",
			Distros: "all; the Oracle preinstall RPMs (oracle-rdbms-server-11gR2/12cR1-preinstall) may add numa=off",
			Note:    "measured on RHEL 7 (3.10) with Oracle 12c, 8 sockets; the gain grows with the number of sockets",
		},
		Description: `With numa=off the kernel fakes one node spanning all memory: every allocation may land on
any socket's memory and nothing (kernel, database, numactl, cpusets) can place memory close to
its CPUs. Seed 000 found numa=off, added by Oracle's preinstall RPM, on an 8-socket Superdome X;
removing it and enabling Oracle NUMA support with automatic NUMA balancing off gave +27 % TPM.
Fewer nodes than sockets without numa=off usually means node interleaving in the firmware.`,
		Check: checkNUMADisabledAtBoot,
	})
}

func checkNUMADisabledAtBoot(in *Input) Outcome {
	s := in.Snap
	cmdlineWhy := AbsentReason(s, "host.cmdline")
	socketsWhy := AbsentReason(s, "topology.cpus")
	if cmdlineWhy != "" && socketsWhy != "" {
		return CannotCheck("%s; %s", cmdlineWhy, socketsWhy)
	}
	sockets := s.Topology.Sockets
	withCPU := 0
	for _, n := range s.Topology.Nodes {
		if n.HasCPU {
			withCPU++
		}
	}
	// In a guest the hypervisor decides the virtual NUMA layout: say so,
	// but do not call it critical.
	sev := SevCritical
	note := ""
	if s.Host.Virt.Guest {
		sev = SevWarning
		note = " In a guest the virtual NUMA layout is the hypervisor's: give the VM one vNUMA node per host socket it spans."
	}
	why := "000: removing numa=off (with Oracle NUMA support on and automatic NUMA balancing off) raised Oracle TPM by 27 % " +
		"on an 8-socket host; with hugepages and one listener per node, +80 % over the default configuration (Table 12)."

	if v, ok := s.Host.CmdlineArgs["numa"]; cmdlineWhy == "" && ok && v == "off" {
		if socketsWhy == "" && sockets <= 1 {
			return Passed("numa=off on the boot line, but %d socket(s): no NUMA to lose", sockets).Reading("/proc/cmdline: numa=off", socketsText(s, "", withCPU))
		}
		cur := "numa=off"
		ev := fmt.Sprintf("/proc/cmdline has numa=off; %s", socketsText(s, socketsWhy, withCPU))
		return Found(Finding{
			Severity:       sev,
			Setting:        "cmdline:numa",
			Current:        cur,
			Recommended:    "no numa= argument (NUMA on)",
			Evidence:       ev,
			Why:            why + note,
			Fix:            RemoveKernelArgFix(s, "numa"),
			Changes:        []change.Change{RemoveBootArgChange("numa.disabled-at-boot", "numa", "off", "numa=off hides the NUMA topology from the kernel and the database")},
			RebootRequired: true,
			Risk: "After the reboot memory is allocated per node: re-check hugepages per node (an SGA larger than one node's pool " +
				"spreads or fails with use_large_pages=ONLY) and turn off automatic NUMA balancing (numa.balancing-with-db-shm). " +
				"An upgrade of the Oracle preinstall RPM may add numa=off again.",
		})
	}
	if socketsWhy != "" {
		return CannotCheck("no numa=off on the boot line, but sockets are unknown: %s", socketsWhy)
	}
	if len(s.Topology.Nodes) == 0 {
		// No node directory: a kernel without CONFIG_NUMA, or a capture that
		// left /sys/devices/system/node out. Not a fact to judge by.
		return CannotCheck("no numa=off on the boot line, and %s", in.Reason("topology.nodes", "no NUMA nodes in the snapshot"))
	}
	// Firmware interleaving needs positive evidence: one node directory
	// holding the CPUs of several packages. Fewer nodes with CPUs than
	// packages is not evidence by itself (a node CPU list unread, has_cpu
	// empty on some 3.10 kernels, package ids a hypervisor hides).
	if n, pk, ok := s.Topology.NodeSpanningPackages(); ok && sockets > 1 {
		return Found(Finding{
			Severity:    sev,
			Setting:     "firmware:NUMA (node interleaving)",
			Current:     fmt.Sprintf("node %d holds the CPUs of %d packages", n.ID, len(pk)),
			Recommended: fmt.Sprintf("at least one NUMA node per socket (%d)", sockets),
			Evidence: fmt.Sprintf("%s; node %d's cpulist %s spans packages %s (physical_package_id of each CPU); "+
				"/proc/cmdline has no numa=off (%s)", socketsText(s, "", withCPU), n.ID, cpulist.Format(n.CPUs),
				cpulist.Format(pk), strings.TrimSpace(s.Host.Cmdline)),
			Why: why + note,
			Fix: Fix{Persistent: []string{
				"firmware setup: disable memory/node interleaving (enable NUMA) so the kernel sees one node per socket",
			}},
			RebootRequired: true,
			Risk:           "Memory placement changes after the reboot: re-check hugepages per node and the DB's NUMA settings.",
		})
	}
	if w := topologyUnsure(s); w != "" && sockets > 1 {
		return CannotCheck("no numa=off on the boot line; whether each node holds one package cannot be told: %s", w)
	}
	out := Passed("%s", socketsText(s, "", withCPU)).Reading(socketsText(s, "", withCPU), cmdlineRead(s, cmdlineWhy))
	if cmdlineWhy == "" && sockets > 1 {
		// numa=off kept off the boot line: the desired state.
		out = out.Holding(RemoveBootArgChange("numa.disabled-at-boot", "numa", "", "numa=off hides the NUMA topology from the kernel and the database"))
	}
	return out
}

func socketsText(s *snapshot.Snapshot, socketsWhy string, withCPU int) string {
	if socketsWhy != "" {
		return "sockets unknown (" + socketsWhy + ")"
	}
	return fmt.Sprintf("%d socket(s), %d NUMA node(s) with CPUs (physical_package_id of each CPU; /sys/devices/system/node)",
		s.Topology.Sockets, withCPU)
}

// topologyUnsure says why the snapshot cannot show which package each
// node's CPUs belong to: a contradiction between the node and CPU files, a
// node CPU list or a CPU's package not read. "" when it can.
func topologyUnsure(s *snapshot.Snapshot) string {
	for _, x := range s.Topology.Contradictions {
		if x.Fact == "nodes.cpus" || x.Fact == "cpus.socket" {
			return "the kernel's files contradict each other: " + x.Detail
		}
	}
	for _, a := range s.Absent {
		if a.Fact == "topology" || a.Fact == "topology.nodes" ||
			(strings.HasPrefix(a.Fact, "topology.nodes[") && strings.HasSuffix(a.Fact, "].cpus")) {
			return a.Fact + ": " + a.Reason
		}
	}
	if why := AbsentReason(s, "topology.cpus.socket"); why != "" {
		return why
	}
	return ""
}

// cmdlineRead names what the boot line said of numa=, or why it is unknown.
func cmdlineRead(s *snapshot.Snapshot, why string) string {
	if why != "" {
		return "boot line unknown: " + why
	}
	if v, ok := s.Host.CmdlineArgs["numa"]; ok {
		return "/proc/cmdline: numa=" + v
	}
	return "/proc/cmdline: no numa= argument"
}
