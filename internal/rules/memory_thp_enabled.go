package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// memory.thp-enabled: transparent hugepages on where the database's sources
// turn them off. The sources differ by kernel and database version: 000
// (RHEL 7, Oracle 12c) disables THP; Oracle's preinstall RPM disables it on
// older kernels and leaves madvise on UEK7 (5.15) and RHEL 9 (5.14) and
// later. Both are recorded in the scope; madvise is accepted except for
// Oracle on kernels before 5.14. THP can also back shared memory (tmpfs,
// SysV, shared anonymous mappings) on kernels 4.8 and later when
// shmem_enabled is not never: 003's "cannot be used for Database shared
// memory" was true of RHEL 6. shmem_enabled is judged too.
func init() {
	Register(Rule{
		ID:       "memory.thp-enabled",
		Area:     AreaMemory,
		Severity: SevWarning,
		Title:    "Transparent hugepages are on where the database's sources turn them off",
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — HugePages configuration",
				Quote: "Disable Transparent HugePages"},
			{Doc: Seed003, Section: "Memory Tuning – Huge Pages",
				Quote: "Transparent Huge Pages in RHEL6 (cannot be used for Database shared memory – only for process private memory)"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "Disable THP\tBoolean\tN/A\tNo\tYes"},
			{Doc: "https://docs.kernel.org/admin-guide/mm/transhuge.html",
				Section: "Hugepages in tmpfs/shmem (shmem_enabled: always, within_size, advise, never, deny, force; Linux 4.8+)"},
		},
		Scope: Scope{
			Kernels:    "000: RHEL 7 (3.10) → never; RHEL 9 (5.14) and Oracle Linux UEK7 (5.15) and later: madvise; shmem_enabled from 4.8",
			Distros:    "RHEL/Oracle Linux 7-8: never; UEK7+/RHEL 9: madvise acceptable",
			DBVersions: "000: Oracle 12c with the SGA in HugePages; any database whose shared memory is in SysV or hugetlbfs",
			Note:       "sources disagree by kernel: never on older kernels, madvise on newer ones; always is wrong for both",
		},
		Check: checkTHP,
	})
}

// thpMadviseMajor/Minor is the first kernel where madvise is accepted for
// Oracle: RHEL 9's 5.14 (UEK7 is 5.15).
const thpMadviseMajor, thpMadviseMinor = 5, 14

const (
	thpEnabledPath = "/sys/kernel/mm/transparent_hugepage/enabled"
	thpShmemPath   = "/sys/kernel/mm/transparent_hugepage/shmem_enabled"
)

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
	enabled := THPDir(s) + "/enabled" // RHEL 6: redhat_transparent_hugepage
	ev := fmt.Sprintf("%s = [%s]; kernel %s", enabled, mode, orUnknown(s.Host.Kernel))
	if d := s.Memory.THP.Defrag; d != nil {
		ev += fmt.Sprintf("; defrag = [%s]", *d)
	}
	shmem := ""
	if sh := s.Memory.THP.ShmemEnabled; sh != nil {
		shmem = *sh
		ev += fmt.Sprintf("; shmem_enabled = [%s]", shmem)
	}
	if v, ok := s.Memory.Meminfo["ShmemHugePages"]; ok {
		ev += fmt.Sprintf("; /proc/meminfo ShmemHugePages %s", KB(v))
	}
	shmNote := "THP backs shared memory only when shmem_enabled is not never (4.8+; never is the default and this host's value)"
	switch {
	case shmem == "":
		shmNote = "THP backs shared memory only when shmem_enabled is not never (4.8+; " + in.Reason("memory.thp.shmem_enabled", "not read") + ")"
	case shmem != "never" && shmem != "deny":
		shmNote = "THP backs this host's shared memory too: shmem_enabled is " + shmem
	}
	var fs []Finding
	f := Finding{
		Setting:     enabled,
		Current:     mode,
		Recommended: recommended,
		Evidence:    ev,
		Fix: Fix{
			Runtime:    []string{echoTo(firstWord(recommended), enabled)},
			Persistent: KernelArgFixFor(s, "transparent_hugepage="+firstWord(recommended)).Persistent,
			Edits:      KernelArgFixFor(s, "transparent_hugepage="+firstWord(recommended)).Edits,
		},
		Changes: []change.Change{
			SysfsChange("memory.thp-enabled", enabled, firstWord(recommended), mode,
				"khugepaged and THP compaction stall the database's allocations"),
			BootArgChange("memory.thp-enabled", "transparent_hugepage", firstWord(recommended), s.Host.CmdlineArgs["transparent_hugepage"],
				"keeps THP "+firstWord(recommended)+" from boot on"),
		},
		Risk: "Programs that rely on THP for their private memory (JVMs with large heaps) lose it unless they madvise; " +
			"the database's shared memory belongs in explicit hugepages (memory.hugepages-too-few).",
	}
	switch {
	case mode == "always":
		f.Title = "Transparent hugepages are enabled for every process"
		f.Why = "THP gives the database nothing explicit hugepages do not give better (reserved, locked, never split), while " +
			"khugepaged scanning and compaction stall allocations; " + shmNote + " (003's \"cannot be used for Database shared memory\" " +
			"was RHEL 6's). 000 lists disabling THP among the steps that gave Oracle +13 % TPM with the SGA in HugePages."
		if !wantNever {
			f.Why += " On RHEL 9 (5.14) and UEK7 (5.15) and later Oracle's own preinstall leaves madvise, which gives THP only to programs that ask."
		}
		fs = append(fs, f)
	case mode == "madvise" && wantNever:
		f.Severity = SevInfo
		f.Title = "Transparent hugepages are on for programs that ask (madvise) on a kernel where Oracle's sources turn them off"
		f.Why = "On kernels before 5.14 Oracle's preinstall RPM and 000 (RHEL 7, Oracle 12c) disable THP entirely; madvise " +
			"is what newer kernels (RHEL 9, UEK7) use, so this is a difference of source versions rather than a known loss. " + shmNote + "."
		fs = append(fs, f)
	}
	if shmem == "always" || shmem == "within_size" || shmem == "force" {
		fs = append(fs, Finding{
			Title:       "Transparent hugepages back shared memory (shmem_enabled)",
			Setting:     thpShmemPath,
			Current:     shmem,
			Recommended: "never (the kernel's default; advise leaves it to programs that ask)",
			Evidence:    ev,
			Why: "Since Linux 4.8 THP can back tmpfs, SysV and shared anonymous memory, which 003 (RHEL 6) says it cannot: with " +
				"shmem_enabled " + shmem + " the part of the database's shared memory that is not in explicit hugepages (an SGA that " +
				"did not fit the pool, PostgreSQL's shared_buffers with huge_pages=try) is faulted in and collapsed by khugepaged in " +
				"2 MB pieces: THP's compaction stalls on the memory every session touches, without the reservation and locking of " +
				"hugetlbfs pages (000: disable Transparent HugePages; put the SGA in HugePages).",
			Fix: Fix{
				Runtime: []string{echoTo("never", thpShmemPath)},
				Persistent: []string{"a tuned profile [sysfs] line: " + thpShmemPath + "=never (dbhost plan writes it), or an echo in a boot unit; " +
					"shmem THP is off by default, so find what turns it on (a boot argument transparent_hugepage_shmem=, a script)"},
			},
			Changes: []change.Change{SysfsChange("memory.thp-enabled", thpShmemPath, "never", shmem,
				"THP would collapse the database's shared memory and stall its faults on compaction")},
			Risk: "tmpfs mounts with huge= keep their own setting; a program that depends on huge shmem (rare) loses it.",
		})
	}
	// The desired state: THP at the recommended mode, from boot on too (the
	// boot argument: held when the command line has it, pending reboot when
	// it lacks it, as after an apply wrote the mode), shmem THP never.
	target := firstWord(recommended)
	wants := []change.Change{
		SysfsChange("memory.thp-enabled", thpEnabledPath, target, mode, "khugepaged and THP compaction stall the database's allocations"),
		BootArgChange("memory.thp-enabled", "transparent_hugepage", target, s.Host.CmdlineArgs["transparent_hugepage"], "keeps THP "+target+" from boot on"),
	}
	if shmem != "" {
		wants = append(wants, SysfsChange("memory.thp-enabled", thpShmemPath, "never", shmem,
			"THP would collapse the database's shared memory and stall its faults on compaction"))
	}
	if len(fs) > 0 {
		return Found(fs...).Wanting(wants...)
	}
	return Passed("transparent_hugepage/enabled = %s, shmem_enabled = %s (kernel %s, database %s)", mode, orUnknown(shmem), orUnknown(s.Host.Kernel), in.DB).
		Wanting(wants...).Reading(fmt.Sprintf("/sys/kernel/mm/transparent_hugepage/enabled = %s, shmem_enabled = %s; kernel %s", mode, orUnknown(shmem), orUnknown(s.Host.Kernel)))
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
