package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// cpu.smt-off: simultaneous multithreading (Hyper-Threading) is off, or some
// CPUs' sibling threads are offline. 003 measured OLTP with and without
// hyperthreads: the gain ranged from 30 % on one node to 5.5 % on four.
// Informational: whether it helps depends on how the workload scales.
func init() {
	Register(Rule{
		ID:        "cpu.smt-off",
		Area:      AreaCPU,
		Severity:  SevInfo,
		Title:     "SMT (hyperthreads) is off or sibling threads are offline",
		Workloads: []string{WorkloadOLTP, WorkloadMixed},
		Sources: []Source{
			{Doc: Seed003, Section: "Anything “Hyper” has to be good for performance... right?",
				Quote: "Avg % gain – 1 Node – 30% / 2 Nodes – 20% / 3 Nodes – 14% / 4 Nodes – 5.5%"},
			{Doc: Seed003, Section: "Multi Instances of database with and without Hyperthreads",
				Quote: "Each of the 4 instances were aligned to an individual NUMA node. This test shows the best gain in performances"},
		},
		Scope: Scope{
			Kernels: "4.19+ for /sys/devices/system/cpu/smt/active; the sibling lists on every kernel; not in guests (the vCPU topology is the hypervisor's)",
			Note:    "smt/active is 0 both when SMT is disabled and when the CPU has none: the nosmt boot argument and offline siblings are the certain signs",
		},
		Check: checkSMTOff,
	})
}

func checkSMTOff(in *Input) Outcome {
	s := in.Snap
	if s.Host.Virt.Guest {
		return NotApplicable("guest (%s): hyperthreading is the hypervisor host's choice; audit the host", s.Host.Virt.Type)
	}
	if len(s.Topology.CPUs) == 0 && s.Topology.SMTActive == nil {
		return CannotCheck("%s", in.Reason("topology.cpus", "no CPU topology in the snapshot"))
	}
	online := map[int]bool{}
	for _, c := range s.Topology.CPUs {
		if c.Online {
			online[c.ID] = true
		}
	}
	// Siblings of online CPUs that are offline (echo 0 > cpuN/online, or
	// smt/control off, which offlines them).
	offSet := map[int]bool{}
	for _, c := range s.Topology.CPUs {
		if !c.Online {
			continue
		}
		for _, sib := range c.Siblings {
			if sib != c.ID && !online[sib] {
				offSet[sib] = true
			}
		}
	}
	var offline []int
	for c := range offSet {
		offline = append(offline, c)
	}
	sort.Ints(offline)
	nosmt := ""
	if _, ok := s.Host.CmdlineArgs["nosmt"]; ok {
		nosmt = "nosmt"
	} else if m, ok := s.Host.CmdlineArgs["mitigations"]; ok && strings.Contains(m, "nosmt") {
		nosmt = "mitigations=" + m
	}
	smtOff := s.Topology.SMTActive != nil && !*s.Topology.SMTActive
	if !smtOff && len(offline) == 0 && nosmt == "" {
		if s.Topology.SMTActive != nil {
			return Passed("SMT active (/sys/devices/system/cpu/smt/active = 1), no offline sibling thread").Reading(smtRead(s))
		}
		return Passed("no offline sibling thread in the CPUs' thread_siblings_list (smt/active not in the snapshot)").Reading(smtRead(s))
	}
	var ev []string
	if s.Topology.SMTActive != nil {
		ev = append(ev, fmt.Sprintf("/sys/devices/system/cpu/smt/active = %d", smtInt(*s.Topology.SMTActive)))
	}
	if len(offline) > 0 {
		ev = append(ev, fmt.Sprintf("CPUs %s are offline sibling threads of online CPUs (cpuN/topology/thread_siblings_list, cpuN/online)", List(offline)))
	}
	if nosmt != "" {
		ev = append(ev, "/proc/cmdline: "+nosmt)
	}
	if smtOff && len(offline) == 0 && nosmt == "" && (s.Host.Arch == "aarch64" || s.Host.Arch == "arm64") {
		return Passed("smt/active = 0 on %s: most Arm server CPUs have no SMT, and nothing (nosmt, offline siblings) shows it was turned off", s.Host.Arch).
			Reading(strings.Join(ev, "; "), smtRead(s), "uname -m "+s.Host.Arch)
	}
	ev = append(ev, fmt.Sprintf("%d online logical CPUs on %d cores", s.Topology.Threads, s.Topology.Cores))
	f := Finding{
		Setting:     "/sys/devices/system/cpu/smt/control",
		Recommended: "SMT on (test it: the gain depends on how the workload scales)",
		Evidence:    strings.Join(ev, "; "),
		Why: "003 (OLTP, 96 GB SGA, one instance scaled node by node): hyperthreads gave on average +30 % on 1 node, +20 % on 2, +14 % on 3 and +5.5 % on 4 nodes; " +
			"with one instance aligned per NUMA node the gain was the best. Workloads that do not scale linearly with CPUs may not gain.",
		Risk: "Some sites keep SMT off on purpose (CPU vulnerability mitigations such as L1TF/MDS, or per-core licensing): check the reason before turning it on.",
		Fix:  Fix{Runtime: []string{}, Persistent: []string{}},
	}
	switch {
	case nosmt != "":
		f.Current = "off (" + nosmt + " on the boot line)"
		f.RebootRequired = true
		if nosmt == "nosmt" {
			f.Fix = RemoveKernelArgFix(s, "nosmt")
			f.Changes = []change.Change{RemoveBootArgChange("cpu.smt-off", "nosmt", "", "003: hyperthreads gave OLTP +5.5 % to +30 %")}
		} else {
			f.Fix = AddKernelArgFix(s, "mitigations=auto") // replaces auto,nosmt: the mitigations stay, SMT is not switched off
		}
	case len(offline) > 0:
		f.Current = fmt.Sprintf("sibling threads %s offline", List(offline))
		for _, c := range offline {
			f.Fix.Runtime = append(f.Fix.Runtime, echoTo("1", fmt.Sprintf("/sys/devices/system/cpu/cpu%d/online", c)))
			f.Changes = append(f.Changes, SysfsChange("cpu.smt-off", fmt.Sprintf("/sys/devices/system/cpu/cpu%d/online", c), "1", "0",
				"bring the sibling thread online (003: hyperthreads gave OLTP +5.5 % to +30 %)"))
		}
		f.Fix.Persistent = []string{"find what offlines them at boot (a unit writing cpuN/online or smt/control, maxcpus=) and remove it"}
	default:
		f.Current = "inactive (smt/active = 0: disabled in firmware or by smt/control, or a CPU without SMT)"
		f.Fix.Runtime = []string{"cat /sys/devices/system/cpu/smt/control   (off → echo on > /sys/devices/system/cpu/smt/control; notsupported → the CPU has no SMT or firmware disabled it)"}
		f.Fix.Persistent = []string{"enable Hyper-Threading / SMT in the firmware setup if the CPU supports it"}
	}
	return Found(f)
}

// smtRead names what the SMT check read: smt/active and the CPUs' sibling lists.
func smtRead(s *snapshot.Snapshot) string {
	ev := fmt.Sprintf("%d online logical CPUs on %d cores (cpuN/topology/thread_siblings_list, cpuN/online)", s.Topology.Threads, s.Topology.Cores)
	if s.Topology.SMTActive != nil {
		ev = fmt.Sprintf("/sys/devices/system/cpu/smt/active = %d; ", smtInt(*s.Topology.SMTActive)) + ev
	}
	return ev
}
