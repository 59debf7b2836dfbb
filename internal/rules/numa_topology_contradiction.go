package rules

import (
	"fmt"
	"strings"
)

// numa.topology-contradiction: the kernel's topology files disagree
// (node/has_cpu against the nodes' cpulist, node CPU lists that overlap,
// package ids against core_siblings). The reader believes the more specific
// file and records the contradiction (docs/snapshot.md); this rule says so,
// as information: a contradiction is never another finding's evidence.
func init() {
	Register(Rule{
		ID:       "numa.topology-contradiction",
		Area:     AreaNUMA,
		Severity: SevInfo,
		Title:    "The kernel's topology files contradict each other",
		Sources: []Source{
			{Doc: "https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-devices-node",
				Section: "/sys/devices/system/node/nodeX/cpulist, cpumap; /sys/devices/system/node/has_cpu (the node states)"},
			{Doc: "https://www.kernel.org/doc/Documentation/ABI/stable/sysfs-devices-system-cpu",
				Section: "/sys/devices/system/cpu/cpuX/topology/physical_package_id, core_siblings, thread_siblings"},
		},
		Scope: Scope{
			Kernels: "any; seen on 3.10.0-1160.el7 (has_cpu empty) and on firmware whose ACPI SRAT gives every node every CPU",
			Note:    "what dbhost believed is in the finding; every other rule reads the believed values or says it cannot check",
		},
		Description: `Two kernel files that should agree do not. dbhost believes the more specific one (a node's
own cpulist over the has_cpu state list; a CPU's own node link over overlapping node lists; a CPU's
physical_package_id over core_siblings) and records the disagreement. Node CPU lists that overlap
are a firmware fault (the ACPI SRAT): numa=off or memory interleaving is not the diagnosis.`,
		Check: checkTopologyContradiction,
	})
}

func checkTopologyContradiction(in *Input) Outcome {
	s := in.Snap
	if len(s.Topology.Nodes) == 0 && len(s.Topology.CPUs) == 0 {
		return CannotCheck("%s", in.Reason("topology", "no CPU or node topology in the snapshot"))
	}
	if len(s.Topology.Contradictions) == 0 {
		return Passed("the node and CPU topology files agree (%d node(s), %d CPU(s) read)", len(s.Topology.Nodes), len(s.Topology.CPUs)).
			Reading(fmt.Sprintf("/sys/devices/system/node: %d node(s); /sys/devices/system/cpu/cpuN/topology: %d CPU(s), no contradiction recorded", len(s.Topology.Nodes), len(s.Topology.CPUs)))
	}
	var fs []Finding
	for _, x := range s.Topology.Contradictions {
		f := Finding{
			Setting:  "topology:" + x.Fact,
			Current:  x.Detail,
			Evidence: fmt.Sprintf("%s disagree: %s", strings.Join(x.Files, " and "), x.Detail),
		}
		if x.Believed != "" {
			f.Evidence += "; dbhost believes " + x.Believed
		} else {
			f.Evidence += "; dbhost believes neither: the facts that depend on them are recorded absent"
		}
		switch x.Kind {
		case "firmware":
			f.Recommended = "firmware tables that give each CPU one node"
			f.Why = "The firmware describes the machine's NUMA layout (ACPI SRAT/SLIT); the kernel's files only repeat it. " +
				"CPUs in several nodes is a firmware fault, not numa=off or memory interleaving: tools that trust the node lists " +
				"(numactl, cpusets, the database's NUMA support) place work on the wrong node."
			f.Fix = Fix{Persistent: []string{"update the system firmware (BIOS/UEFI) or report the SRAT fault to the vendor: " +
				"each CPU must belong to exactly one proximity domain"}}
			f.Pending = PendingManual
			f.Risk = "A firmware update needs a maintenance window and a reboot."
		default:
			f.Recommended = "nothing to change: dbhost read the more specific file"
			f.Why = "Kernels and captures sometimes leave a summary file wrong while the per-node or per-CPU files are right; " +
				"tools that read only the summary (has_cpu) conclude NUMA is off. dbhost's other findings use the believed values."
			f.Fix = Fix{Runtime: []string{}, Persistent: []string{}}
			f.Risk = "None: informational."
		}
		fs = append(fs, f)
	}
	return Found(fs...)
}
