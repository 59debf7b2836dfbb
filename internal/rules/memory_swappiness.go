package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// memory.swappiness: vm.swappiness above the 10 that every database-oriented
// tuned profile in 003's tables sets (balanced keeps the kernel default 60).
func init() {
	Register(Rule{
		ID:       "memory.swappiness",
		Area:     AreaMemory,
		Severity: SevWarning,
		Title:    "vm.swappiness is above the database profiles' 10",
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "swappiness\tWeight 1-100\t60\t10"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "swappiness\tWeight 1-100\t60\t10"},
			{Doc: Seed003, Section: "Tuning Memory – swappiness",
				Quote: "Decreasing: more aggressive reclaiming of unmapped pagecache memory, thereby delaying swapping"},
			{Doc: Seed003, Section: "Tuning Memory – swappiness",
				Quote: "Not needed as much in RHEL7"},
		},
		Scope: Scope{
			Kernels: "all; 003 notes it is \"not needed as much in RHEL7\" (3.10+ reclaim favours page cache already)",
			Distros: "RHEL 7 tuned profiles; the same values on any distribution",
		},
		Thresholds: []string{"info from 11 to 29, warning from 30 (the sources give 10 and say nothing of the values between)",
			"on a kernel from 3.10 (RHEL 7's; 003: \"Not needed as much in RHEL7\") info at any value above 10; the warning is for older kernels and kernels whose release cannot be read"},
		Check: checkSwappiness,
	})
}

const wantSwappiness = 10

const swappinessWhy = "vm.swappiness is above the database profiles' 10"

func checkSwappiness(in *Input) Outcome {
	v, why := in.SysctlInt("vm.swappiness")
	if why != "" {
		return CannotCheck("%s", why)
	}
	if v <= wantSwappiness {
		return Passed("vm.swappiness = %d", v).Wanting(in.SysctlChange("memory.swappiness", "vm.swappiness", fmt.Sprint(wantSwappiness), swappinessWhy)).
			Reading(in.SysctlEvidence("vm.swappiness", fmt.Sprint(v)))
	}
	ev := in.SysctlEvidence("vm.swappiness", fmt.Sprint(v))
	if st, ok := in.Snap.Memory.Meminfo["SwapTotal"]; ok {
		if st == 0 {
			return Passed("vm.swappiness = %d, but no swap is configured (SwapTotal 0 kB)", v).Reading(ev, "/proc/meminfo SwapTotal 0 kB")
		}
		ev += fmt.Sprintf("; SwapTotal %s", KB(st))
	}
	why = "003: the throughput-performance and latency-performance profiles set 10 (balanced keeps 60). A lower value " +
		"reclaims unmapped page cache before swapping mapped memory, so the database's buffers stay resident."
	sev := SevWarning
	if v < 30 {
		sev = SevInfo
	}
	// 003 says swappiness is "not needed as much in RHEL7": the RHEL 7
	// kernel (3.10) already reclaims page cache before mapped memory, so
	// from 3.10 the value is a profile default to align, not a hazard.
	if maj, min, ok := Kernel(in.Snap.Host.Kernel); ok && (maj > 3 || maj == 3 && min >= 10) {
		sev = SevInfo
		ev += fmt.Sprintf("; kernel %d.%d", maj, min)
		why += " 003 adds that it is not needed as much in RHEL7: from kernel 3.10 (RHEL 7's) reclaim already favours " +
			"page cache, so on this kernel it aligns with the profiles rather than averting swapping."
	}
	return Found(Finding{
		Severity:    sev,
		Setting:     "vm.swappiness",
		Current:     fmt.Sprint(v),
		Recommended: fmt.Sprint(wantSwappiness),
		Evidence:    ev,
		Why:         why,
		Fix:         SysctlFix("vm.swappiness", fmt.Sprint(wantSwappiness)),
		Changes:     []change.Change{in.SysctlChange("memory.swappiness", "vm.swappiness", fmt.Sprint(wantSwappiness), swappinessWhy)},
		Risk:        "Under real memory shortage the OOM killer may act sooner instead of swapping; size memory, not swap, for the database.",
	})
}
