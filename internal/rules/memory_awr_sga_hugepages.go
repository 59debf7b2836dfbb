package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// memory.awr-sga-hugepages: the report's parameters show Automatic Memory
// Management (memory_target), which cannot use hugepages, or an SGA larger
// than the host's hugepage pool. 000 Scenario 2: the SGA in 2 MB pages gave
// +13 % TPM and a page table of 175 MB instead of 5.5 GB, after disabling
// AMM.
func init() {
	Register(Rule{
		ID:           "memory.awr-sga-hugepages",
		Area:         AreaMemory,
		Severity:     SevWarning,
		Title:        "SGA not in hugepages: memory_target (AMM) or an SGA larger than the hugepage pool",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages — HugePages configuration",
				Quote: "Disable Automatic Memory Management for the Oracle instance"},
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "With the Oracle instance configured to use HugePages, the resulting TPM numbers increased by an average of 13%"},
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "The page table size decreased from 5.5GB to 175MB by enabling HugePages"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "export ORACLE_SGA_PGSZ=16M before starting oracle (with oracle user)"},
		},
		Scope: Scope{
			DBVersions: "memory_target (AMM) 11g and later: Linux AMM uses /dev/shm, never hugepages",
			Kernels:    "Linux hugepages; on AIX (the report's platform, else the audited host's) the SGA's 16 MB large pages of 004, whose pool memory.aix-large-pages-sga judges",
			Note:       "read from the report's init.ora Parameters and Memory Statistics (--artifact, dbhost awr); the pool needs the host",
		},
		Check: checkAWRSGAHugepages,
	})
}

func checkAWRSGAHugepages(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return sgaHugepagesReport(in, r) })
}

// awrSGABytes is the SGA's size from the report: Memory Statistics' SGA use,
// else sga_max_size, else sga_target.
func awrSGABytes(r *artifacts.AWRReport) (int64, string, bool) {
	if r.Memory != nil && r.Memory.SGAUseMB != nil && *r.Memory.SGAUseMB > 0 {
		return int64(*r.Memory.SGAUseMB * (1 << 20)), fmt.Sprintf("Memory Statistics: SGA use %s MB", awrNum(*r.Memory.SGAUseMB)), true
	}
	for _, p := range []string{"sga_max_size", "sga_target"} {
		if v, ev, ok := awrParam(r, p); ok {
			if n, err := artifacts.ParseBytes(v); err == nil && n > 0 {
				return n, ev, true
			}
		}
	}
	return 0, "", false
}

func sgaHugepagesReport(in *Input, r *artifacts.AWRReport) Outcome {
	if !r.Has(artifacts.AWRSectionInitOra) && (r.Memory == nil || r.Memory.SGAUseMB == nil) {
		return CannotCheck("the report has no init.ora Parameters and no Memory Statistics")
	}
	given, none := awrHost(in)
	var ev []string
	osName, osEv := awrOS(in, r)
	if osName == OSAIX {
		return sgaLargePagesAIX(in, r, osEv)
	}
	amm := int64(0)
	for _, p := range []string{"memory_target", "memory_max_target"} {
		if v, pe, ok := awrParam(r, p); ok {
			if n, err := artifacts.ParseBytes(v); err == nil && n > 0 {
				ev = append(ev, pe)
				if amm == 0 {
					amm = n
				}
			}
		}
	}
	sga, sgaEv, haveSGA := awrSGABytes(r)
	if haveSGA {
		ev = append(ev, sgaEv)
	}
	ulp, ulpEv, haveULP := awrParam(r, "use_large_pages")
	if haveULP {
		ev = append(ev, ulpEv)
	}
	if given {
		if n := awrHostNote(in, r); n != "" {
			ev = append(ev, n)
		}
	}
	if amm > 0 {
		cur := fmt.Sprintf("memory_target %s: Automatic Memory Management puts the SGA in /dev/shm, 4 kB pages", KB(amm>>10))
		if given {
			if h, why := artHugePool(in); why == "" && h.Total > 0 {
				cur += fmt.Sprintf(", while this host's pool of %d x %s hugepages (%s) goes unused by it", h.Total, KB(h.SizeKB), KB(h.Total*h.SizeKB))
			} else if why == "" {
				cur += "; this host has no hugepage pool either"
			}
		} else {
			ev = append(ev, none+" the host's hugepage pool")
		}
		return Found(Finding{
			Setting:     "oracle:memory_target",
			Current:     cur,
			Recommended: "0 (unset), with sga_target/sga_max_size and pga_aggregate_target sized instead and the SGA in hugepages (use_large_pages=ONLY)",
			Evidence:    strings.Join(ev, "; "),
			Why: "000 Scenario 2 disables AMM for the instance to use HugePages; the SGA in 2 MB pages gave +13 % TPM and shrank " +
				"the page tables from 5.5 GB to 175 MB.",
			Fix: Fix{Runtime: []string{}, Persistent: []string{"ALTER SYSTEM RESET memory_target SCOPE=SPFILE SID='*'; ALTER SYSTEM RESET memory_max_target SCOPE=SPFILE SID='*'; " +
				"ALTER SYSTEM SET sga_target=<size> sga_max_size=<size> pga_aggregate_target=<size> use_large_pages=ONLY SCOPE=SPFILE; restart"}},
			Risk: "The SGA/PGA split becomes fixed; the hugepage pool (vm.nr_hugepages) must hold the SGA or, with use_large_pages=ONLY, the instance does not start.",
		})
	}
	if !haveSGA {
		return CannotCheck("the report gives no SGA size (Memory Statistics, sga_max_size or sga_target)")
	}
	if !given {
		return CannotCheck("SGA %s (%s); %s the hugepage pool it should fit in", KB(sga>>10), sgaEv, none)
	}
	h, why := artHugePool(in)
	if why != "" {
		return CannotCheck("%s", why)
	}
	pool := h.Total * h.SizeKB << 10
	ev = append(ev, fmt.Sprintf("this host's hugepage pool: %d x %s = %s (%d free)", h.Total, KB(h.SizeKB), KB(pool>>10), h.Free))
	if pool >= sga {
		return Passed("SGA %s fits in the hugepage pool of %s (shared with the host's other instances)", KB(sga>>10), KB(pool>>10)).Reading(strings.Join(ev, "; "))
	}
	cur := fmt.Sprintf("SGA %s, hugepage pool %s", KB(sga>>10), KB(pool>>10))
	if haveULP {
		switch strings.ToUpper(oraUnquote(ulp)) {
		case "ONLY":
			cur += ": with use_large_pages=ONLY the instance cannot start"
		case "FALSE":
			cur += ": use_large_pages=FALSE keeps the SGA out of it anyway"
		default:
			cur += ": the rest of the SGA falls back to 4 kB pages"
		}
	}
	pages := (sga + h.SizeKB<<10 - 1) / (h.SizeKB << 10)
	return Found(Finding{
		Setting:     "vm.nr_hugepages",
		Current:     cur,
		Recommended: fmt.Sprintf("at least %d pages of %s for this SGA, plus the other instances' SGAs on the host", pages, KB(h.SizeKB)),
		Evidence:    strings.Join(ev, "; "),
		Why: "000 Scenario 2: with the SGA in hugepages TPM rose 13 % and the page tables shrank from 5.5 GB to 175 MB; an SGA " +
			"partly in 4 kB pages keeps most of that cost.",
		Fix: Fix{Runtime: []string{fmt.Sprintf("sysctl -w vm.nr_hugepages=%d (the pool grows only as far as free, unfragmented memory allows)", pages)},
			Persistent: []string{fmt.Sprintf("/etc/sysctl.d/90-dbhost.conf: vm.nr_hugepages = %d (see memory.hugepages-too-few, which sizes it from every instance)", pages)}},
		Risk: "Hugepages are taken from the host's memory whether used or not; size the pool for every instance on the host.",
	})
}

// sgaLargePagesAIX is the diagnosis for an AIX instance: no /dev/shm, no
// use_large_pages (a Linux parameter), no vm.nr_hugepages. 004 puts the
// SGA in 16 MB large pages (vmo lgpg_regions/lgpg_size, the oracle user's
// capabilities, ORACLE_SGA_PGSZ=16M); memory.aix-large-pages-sga judges
// the pool on the AIX bundle. What the report alone says is AMM.
func sgaLargePagesAIX(in *Input, r *artifacts.AWRReport, osEv string) Outcome {
	ev := []string{osEv}
	amm := int64(0)
	for _, p := range []string{"memory_target", "memory_max_target"} {
		if v, pe, ok := awrParam(r, p); ok {
			if n, err := artifacts.ParseBytes(v); err == nil && n > 0 {
				ev = append(ev, pe)
				if amm == 0 {
					amm = n
				}
			}
		}
	}
	if sga, sgaEv, ok := awrSGABytes(r); ok {
		ev = append(ev, sgaEv)
		if amm == 0 {
			return NotApplicable("SGA %s on AIX (%s): its 16 MB large-page pool is judged by memory.aix-large-pages-sga on the AIX bundle (004), not a Linux hugepage pool", KB(sga>>10), osEv)
		}
	}
	if amm == 0 {
		return NotApplicable("an AIX instance (%s): its 16 MB large-page pool is judged by memory.aix-large-pages-sga on the AIX bundle (004)", osEv)
	}
	if n := awrHostNote(in, r); n != "" {
		ev = append(ev, n)
	}
	return Found(Finding{
		Setting: "oracle:memory_target",
		Current: fmt.Sprintf("memory_target %s on AIX: Automatic Memory Management sizes the SGA and PGA together, so the SGA has no fixed size for a 16 MB large-page pool", KB(amm>>10)),
		Recommended: "0 (unset), with sga_target/sga_max_size and pga_aggregate_target sized instead and the SGA in 16 MB large pages as 004 sets them up " +
			"(vmo lgpg_regions/lgpg_size, the oracle user's CAP_BYPASS_RAC_VMM, ORACLE_SGA_PGSZ=16M: memory.aix-large-pages-sga)",
		Evidence: strings.Join(ev, "; "),
		Why: "004 (Power7 specific tuning) puts the SGA in 16 MB large pages to reduce TLB misses, with a pool of lgpg_regions pages of a fixed " +
			"size; 000 Scenario 2 (Linux) disables AMM for the SGA to use large pages (+13 % TPM).",
		Fix: Fix{Runtime: []string{}, Persistent: []string{"ALTER SYSTEM RESET memory_target SCOPE=SPFILE SID='*'; ALTER SYSTEM RESET memory_max_target SCOPE=SPFILE SID='*'; " +
			"ALTER SYSTEM SET sga_target=<size> sga_max_size=<size> pga_aggregate_target=<size> SCOPE=SPFILE; then the 16 MB pool (vmo -r -o lgpg_regions=<SGA / 16 MB> -o lgpg_size=16777216, memory.aix-large-pages-sga) and restart"}},
		Risk: "The SGA/PGA split becomes fixed; the large-page pool is taken from the LPAR's memory (pinned) whether used or not.",
	})
}
