package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// memory.thp-enabled: transparent hugepages in "always" mode on a database
// host. The sources differ by kernel and database version: 000 (RHEL 7,
// Oracle 12c) disables THP; Oracle's preinstall RPM disables it on older
// kernels and sets madvise on UEK7 (5.15) and later. Both are recorded in
// the scope; madvise is accepted except for Oracle on kernels before 5.15.
func init() {
	Register(Rule{
		ID:       "memory.thp-enabled",
		Area:     AreaMemory,
		Severity: SevWarning,
		Title:    "Transparent hugepages are enabled for every process",
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — HugePages configuration",
				Quote: "Disable Transparent HugePages"},
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages",
				Quote: "Transparent Huge Pages in RHEL6 (cannot be used for Database shared memory – only for process private memory)"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "Disable THP\tBoolean\tN/A\tNo\tYes"},
		},
		Scope: Scope{
			Kernels:    "000: RHEL 7 (3.10) → never; Oracle Linux UEK7 (5.15) and later ship madvise in the preinstall RPM",
			Distros:    "RHEL/Oracle Linux 7-8: never; UEK7+/RHEL 9: madvise acceptable",
			DBVersions: "000: Oracle 12c with the SGA in HugePages; any database whose shared memory is in SysV or hugetlbfs",
			Note:       "sources disagree by kernel: never on older kernels, madvise on newer ones; always is wrong for both",
		},
		Check: checkTHP,
	})
}

// thpMadviseKernel is the first kernel where madvise is accepted for Oracle (UEK7).
const thpMadviseMajor, thpMadviseMinor = 5, 15

func checkTHP(in *Input) Outcome {
	s := in.Snap
	if s.Memory.THP.Enabled == nil {
		return CannotCheck("%s", in.Reason("memory.thp.enabled", "not in the snapshot"))
	}
	mode := *s.Memory.THP.Enabled
	maj, min, known := Kernel(s.Host.Kernel)
	oldKernel := known && (maj < thpMadviseMajor || maj == thpMadviseMajor && min < thpMadviseMinor)
	wantNever := in.DB == DBOracle && (oldKernel || !known)
	recommended := "madvise (or never)"
	if wantNever {
		recommended = "never"
	}
	ev := fmt.Sprintf("/sys/kernel/mm/transparent_hugepage/enabled = [%s]; kernel %s", mode, orUnknown(s.Host.Kernel))
	if d := s.Memory.THP.Defrag; d != nil {
		ev += fmt.Sprintf("; defrag = [%s]", *d)
	}
	f := Finding{
		Setting:     "/sys/kernel/mm/transparent_hugepage/enabled",
		Current:     mode,
		Recommended: recommended,
		Evidence:    ev,
		Fix: Fix{
			Runtime:    []string{"echo " + firstWord(recommended) + " > /sys/kernel/mm/transparent_hugepage/enabled"},
			Persistent: AddKernelArgFix("transparent_hugepage=" + firstWord(recommended)).Persistent,
		},
		Changes: []change.Change{
			SysfsChange("memory.thp-enabled", "/sys/kernel/mm/transparent_hugepage/enabled", firstWord(recommended), mode,
				"THP cannot back SysV shared memory and its compaction stalls allocations"),
			BootArgChange("memory.thp-enabled", "transparent_hugepage", firstWord(recommended), s.Host.CmdlineArgs["transparent_hugepage"],
				"keeps THP "+firstWord(recommended)+" from boot on"),
		},
		Risk: "Programs that rely on THP for their private memory (JVMs with large heaps) lose it unless they madvise; " +
			"the database's shared memory belongs in explicit hugepages (memory.hugepages-too-few).",
	}
	switch {
	case mode == "always":
		f.Why = "THP cannot back SysV shared memory (003), so it gives a database nothing there, while khugepaged scanning and " +
			"compaction stall private allocations. 000 lists disabling THP among the steps that gave Oracle +13 % TPM with the " +
			"SGA in HugePages."
		if !wantNever {
			f.Why += " On kernels 5.15 and later (UEK7) Oracle's own preinstall sets madvise, which leaves THP to programs that ask."
		}
		return Found(f)
	case mode == "madvise" && wantNever:
		f.Severity = SevInfo
		f.Why = "On kernels before 5.15 Oracle's preinstall RPM and 000 (RHEL 7, Oracle 12c) disable THP entirely; madvise " +
			"is what newer kernels (UEK7) use, so this is a difference of source versions rather than a known loss."
		return Found(f)
	}
	return Passed("transparent_hugepage/enabled = %s (kernel %s, database %s)", mode, orUnknown(s.Host.Kernel), in.DB)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func firstWord(s string) string {
	for i, r := range s {
		if r == ' ' {
			return s[:i]
		}
	}
	return s
}
