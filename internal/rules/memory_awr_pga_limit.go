package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// memory.awr-pga-limit: the report shows the PGA at its hard limit
// (pga_aggregate_limit, 12c+: sessions beyond it are terminated), or the
// SGA and PGA together taking nearly all of the host's memory, so that the
// host swaps or the limit bites. The seeds keep the database's memory
// resident (000: hugepages are never swapped out; 003: swapping).
func init() {
	Register(Rule{
		ID:           "memory.awr-pga-limit",
		Area:         AreaMemory,
		Severity:     SevWarning,
		Title:        "PGA at its limit, or SGA and PGA filling the host's memory",
		DBs:          []string{DBOracle},
		HostOptional: true,
		Sources: []Source{
			{Doc: Seed000, Section: "Scenario 2: HugePages",
				Quote: "the memory associated with these large pages are locked in memory and never swapped out"},
			{Doc: Seed003, Section: "System Level Memory Swapping",
				Quote: "Even though one application does not have resources and starts swapping, other applications are not affected"},
			{Doc: "https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/PGA_AGGREGATE_LIMIT.html",
				Section: "PGA_AGGREGATE_LIMIT (12c+): above the limit, the sessions using the most untunable PGA are terminated"},
		},
		Scope: Scope{
			DBVersions: "pga_aggregate_limit: 12c and later",
			Note:       "read from the report's Memory Statistics and init.ora Parameters (--artifact, dbhost awr)",
		},
		Thresholds: []string{
			fmt.Sprintf("PGA use at %d %% of pga_aggregate_limit or more", pgaLimitPct),
			fmt.Sprintf("SGA and PGA at %d %% of the host's memory or more", pgaHostPct),
		},
		Check: checkAWRPGALimit,
	})
}

const (
	pgaLimitPct = 90
	pgaHostPct  = 90
)

func checkAWRPGALimit(in *Input) Outcome {
	return awrCheck(in, func(r *artifacts.AWRReport) Outcome { return pgaLimitReport(in, r) })
}

func pgaLimitReport(in *Input, r *artifacts.AWRReport) Outcome {
	if r.Memory == nil || r.Memory.PGAUseMB == nil {
		return CannotCheck("the report has no Memory Statistics (PGA use): 11gR2 and later print it")
	}
	pga := *r.Memory.PGAUseMB
	ev := []string{fmt.Sprintf("Memory Statistics: PGA use %s MB at the end", awrNum(pga))}
	var fs []Finding
	var judged []string // what the PGA use was compared with
	if v, pe, ok := awrParam(r, "pga_aggregate_limit"); ok {
		if lim, err := artifacts.ParseBytes(v); err == nil && lim > 0 {
			limMB := float64(lim) / (1 << 20)
			judged = append(judged, pe)
			if pct := pga / limMB * 100; pct >= pgaLimitPct {
				fs = append(fs, Finding{
					Setting:     "oracle:pga_aggregate_limit",
					Current:     fmt.Sprintf("PGA use %s MB is %s %% of pga_aggregate_limit %s MB", awrNum(pga), awrNum(pct), awrNum(limMB)),
					Recommended: "PGA use well below the limit: a larger pga_aggregate_limit the host's memory can hold, or less PGA (fewer sessions, smaller work areas)",
					Evidence:    strings.Join(append(ev, pe), "; "),
					Why:         "Above pga_aggregate_limit Oracle terminates the sessions using the most untunable PGA (ORA-04036); at the limit that is a matter of time.",
					Fix:         Fix{Runtime: []string{"ALTER SYSTEM SET pga_aggregate_limit=<bytes> SCOPE=BOTH; (only if the host's memory holds it: SGA + PGA under its RAM)"}, Persistent: []string{}},
					Risk:        "Raising the limit without the memory for it makes the host swap instead (000 keeps the SGA resident; 003).",
				})
			}
		}
	}
	hostMB := 0.0
	if r.Memory.HostMemMB != nil {
		hostMB = *r.Memory.HostMemMB
	}
	given, none := awrHost(in)
	if given {
		if n := awrHostNote(in, r); n != "" {
			ev = append(ev, n)
		}
		if kb, ok := in.Snap.Memory.Meminfo["MemTotal"]; ok && kb > 0 {
			hostMB = float64(kb) / 1024
			ev = append(ev, fmt.Sprintf("this host: MemTotal %s", KB(kb)))
		}
	}
	if sga := r.Memory.SGAUseMB; sga != nil && hostMB > 0 {
		judged = append(judged, fmt.Sprintf("SGA use %s MB + PGA use %s MB of %s MB host memory", awrNum(*sga), awrNum(pga), awrNum(hostMB)))
		if pct := (*sga + pga) / hostMB * 100; pct >= pgaHostPct {
			e := append(ev, fmt.Sprintf("SGA use %s MB + PGA use %s MB of %s MB host memory", awrNum(*sga), awrNum(pga), awrNum(hostMB)))
			if !given {
				e = append(e, none+" swap use, vm.swappiness and the other instances on the host")
			}
			fs = append(fs, Finding{
				Setting:     "memory of the instance (SGA + PGA) against the host",
				Current:     fmt.Sprintf("SGA and PGA %s %% of the host's memory", awrNum(pct)),
				Recommended: "SGA + PGA with room for the kernel, page tables and the other processes: smaller targets, or more memory",
				Evidence:    strings.Join(e, "; "),
				Why:         "A host without free memory reclaims and swaps the database's own pages; 000 keeps the SGA resident in hugepages, and 003 shows swapping as the price of overcommitted memory.",
				Fix:         Fix{Runtime: []string{}, Persistent: []string{"lower sga_target/pga_aggregate_target (and pga_aggregate_limit) so that the instances fit the host's memory"}},
				Risk:        "A smaller SGA reads more from disk; measure before and after (dbhost awr before.html after.html).",
			})
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(judged) == 0 {
		// Nothing to compare the PGA use with is no pass (issue 26).
		return CannotCheck("%s: no pga_aggregate_limit and no host memory (the report's or this host's) to compare it with", strings.Join(ev, "; "))
	}
	return Passed("PGA use %s MB below its limit; SGA and PGA within the host's memory", awrNum(pga)).Reading(strings.Join(append(ev, judged...), "; "))
}
