package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// memory.aix-large-pages-sga: Oracle runs on AIX with its SGA in 4 KB/64 KB
// pages: the 16 MB page pool (vmo lgpg_regions × lgpg_size) is empty, the
// oracle user lacks CAP_BYPASS_RAC_VMM, or the pool exists and nothing
// uses it (ORACLE_SGA_PGSZ not exported).
func init() {
	Register(Rule{
		ID:       "memory.aix-large-pages-sga",
		Area:     AreaMemory,
		Severity: SevWarning,
		OS:       aixRule,
		DBs:      []string{DBOracle},
		Title:    "Oracle's SGA not in AIX 16 MB large pages (lgpg_regions, CAP_BYPASS_RAC_VMM, ORACLE_SGA_PGSZ)",
		Sources: []Source{
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "Improve CPU performance by reducing TLB miss (Page address resolution)"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "vmo -r -o lgpg_regions=xxxx -o lgpg_size=16777216"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "capabilities=CAP_NUMA_ATTACH,CAP_BYPASS_RAC_VMM,CAP_PROPAGATE oracle"},
			{Doc: Seed004, Section: "Power7 specific tuning",
				Quote: "export ORACLE_SGA_PGSZ=16M before starting oracle (with oracle user)"},
		},
		Scope: Scope{
			Kernels:    "AIX 5.3 and later on POWER (16 MB pages); 004 measured POWER7",
			DBVersions: "Oracle 10g and later (ORACLE_SGA_PGSZ; 12c and later may ask for lock_sga to pin)",
			Note:       "the pool from svmon -G (16 MB row) and vmo -a; the oracle user's capabilities from lsuser",
		},
		Description: `004: "Use Large Pages (16MB memory pages)" for the SGA — fewer TLB misses. Three steps: a pool of
16 MB pages (vmo -r -o lgpg_regions=N -o lgpg_size=16777216, N = 16 MB segments, in effect after bosboot
and a reboot), the oracle user allowed to use it (chuser capabilities=CAP_NUMA_ATTACH,CAP_BYPASS_RAC_VMM,
CAP_PROPAGATE oracle), and ORACLE_SGA_PGSZ=16M exported before the instance starts. svmon -mwU oracle
shows what the instance got.`,
		Check: checkAIXLargePagesSGA,
	})
}

// aix16MB is the 16 MB page size in KB.
const aix16MB = 16384

func checkAIXLargePagesSGA(in *Input) Outcome {
	s := in.Snap
	a := s.AIX
	running, sids, why := aixOracleRunning(s)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if !running {
		return NotApplicable("no Oracle process in ps -ef")
	}
	var pool *snapshot.AIXPagePool
	for i := range a.PagePools {
		if a.PagePools[i].SizeKB == aix16MB {
			pool = &a.PagePools[i]
		}
	}
	regions, regWhy := aixTunable(s, "vmo", "lgpg_regions")
	if a.PagePools == nil && regWhy != "" {
		return CannotCheck("%s; %s", aixWhy(s, "aix.page_pools", "svmon -G"), regWhy)
	}
	pages := int64(-1)
	var ev []string
	switch {
	case pool != nil && pool.PoolSize != nil:
		pages = *pool.PoolSize
		ev = append(ev, fmt.Sprintf("svmon -G: 16 MB pool of %d page(s)", pages))
	case a.PagePools != nil && pool == nil:
		pages = 0
		ev = append(ev, "svmon -G lists no 16 MB page pool")
	}
	if regWhy == "" {
		ev = append(ev, fmt.Sprintf("vmo lgpg_regions %d", regions))
		if pages < 0 {
			pages = regions
		}
	}
	sga, sgaEv := aixSGA(in)
	need := int64(0)
	if sga > 0 {
		need = (sga + 16<<20 - 1) >> 24
		ev = append(ev, sgaEv)
	}
	instances := strings.Join(sids, ", ")
	if instances == "" {
		instances = "Oracle"
	}
	if pages == 0 {
		rec := "a 16 MB page pool holding the SGA"
		n := "<SGA size / 16 MB>"
		if need > 0 {
			rec = fmt.Sprintf("lgpg_regions %d (the SGA in 16 MB pages)", need)
			n = fmt.Sprint(need)
		}
		return Found(Finding{
			Setting:     "vmo:lgpg_regions",
			Current:     "no 16 MB large pages (lgpg_regions 0) while " + instances + " runs",
			Recommended: rec,
			Evidence:    strings.Join(ev, "; ") + "; running: " + instances,
			Why: "004: 16 MB large pages for the SGA \"improve CPU performance by reducing TLB miss\"; without a pool the SGA " +
				"sits in 4 KB or 64 KB pages.",
			Fix: Fix{
				Runtime: []string{
					"vmo -r -o lgpg_regions=" + n + " -o lgpg_size=16777216   # the pool, from the next boot",
					"chuser capabilities=CAP_NUMA_ATTACH,CAP_BYPASS_RAC_VMM,CAP_PROPAGATE oracle",
					"as oracle, before starting the instance: export ORACLE_SGA_PGSZ=16M",
					"bosboot -a; shutdown -Fr   # then check with svmon -mwU oracle",
				},
				Persistent: []string{"vmo -r -o lgpg_regions=... -o lgpg_size=... (above) also writes them to /etc/tunables/nextboot"},
				Edits:      []FileEdit{{File: "the oracle user's profile (~oracle/.profile)", Edit: "add export ORACLE_SGA_PGSZ=16M"}},
			},
			RebootRequired: true,
			Risk: "The pool's pages are taken from memory at boot and serve nothing but large-page requests: size it to the " +
				"SGA (not the SGA plus a margin the LPAR lacks), or the rest of the system pages. An SGA larger than the pool " +
				"gets the remainder in small pages.",
		})
	}
	var user *snapshot.AIXUser
	for i := range a.Users {
		if a.Users[i].Name == "oracle" {
			user = &a.Users[i]
		}
	}
	if user != nil && !containsFold(user.Capabilities, "CAP_BYPASS_RAC_VMM") {
		return Found(Finding{
			Setting:     "lsuser:oracle capabilities",
			Current:     "oracle capabilities=" + strings.Join(user.Capabilities, ","),
			Recommended: "capabilities=CAP_NUMA_ATTACH,CAP_BYPASS_RAC_VMM,CAP_PROPAGATE",
			Evidence:    strings.Join(ev, "; ") + "; lsuser -a capabilities oracle: " + strings.Join(user.Capabilities, ","),
			Why:         "004: the oracle user needs CAP_BYPASS_RAC_VMM (and CAP_PROPAGATE for its children) to put the SGA in the 16 MB pool; without it the pool stays unused.",
			Fix: Fix{
				Runtime:    []string{"chuser capabilities=CAP_NUMA_ATTACH,CAP_BYPASS_RAC_VMM,CAP_PROPAGATE oracle", "restart the instances from a new login of oracle"},
				Persistent: []string{"chuser (above) writes the oracle user's capabilities to /etc/security/user"},
			},
			Pending: PendingRestart,
			Risk:    "Takes effect for new logins of oracle: restart the instances (and listeners) from one.",
		})
	}
	if pool != nil && pool.Inuse != nil && *pool.Inuse == 0 && pages > 0 {
		return Found(Finding{
			Severity:    SevInfo,
			Setting:     "ORACLE_SGA_PGSZ",
			Current:     fmt.Sprintf("16 MB pool of %d page(s), none in use, while %s runs", pages, instances),
			Recommended: "the SGA in the 16 MB pool: ORACLE_SGA_PGSZ=16M in the instance's environment",
			Evidence:    strings.Join(ev, "; ") + "; svmon -G: 16 MB pages in use 0",
			Why:         "004: \"export ORACLE_SGA_PGSZ=16M before starting oracle\"; the pool is configured but nothing uses it: its memory is idle.",
			Fix: Fix{
				Runtime:    []string{"as oracle: export ORACLE_SGA_PGSZ=16M (and with clusterware: srvctl setenv database -d <db> -t ORACLE_SGA_PGSZ=16M)", "restart the instance; svmon -mwU oracle shows the 16 MB pages"},
				Persistent: []string{"the oracle user's profile / srvctl setenv: ORACLE_SGA_PGSZ=16M"},
			},
			Pending: PendingRestart,
			Risk:    "An instance restart. The pool's memory serves nothing else meanwhile.",
		})
	}
	// What remains must be seen to pass (issue 26): a pool of a known size
	// or pages in use, and the oracle user's capabilities or pages in use.
	inuse := int64(-1)
	if pool != nil && pool.Inuse != nil {
		inuse = *pool.Inuse
		ev = append(ev, fmt.Sprintf("svmon -G: 16 MB pages in use %d", inuse))
	}
	if pages < 0 && inuse <= 0 {
		return CannotCheck("the 16 MB pool's size is not known (svmon -G shows it as -; %s) and svmon -G shows %s 16 MB pages in use while %s runs: "+
			"whether the SGA has a pool to use cannot be told", regWhy, map[bool]string{true: "no", false: "no count of"}[inuse == 0], instances)
	}
	if user == nil {
		if inuse <= 0 {
			return CannotCheck("%s; the oracle user's capabilities unknown (%s) and no 16 MB pages shown in use: whether the SGA can use the pool cannot be told",
				strings.Join(ev, "; "), aixWhy(s, "aix.users", "lsuser -a capabilities oracle"))
		}
		ev = append(ev, "the oracle user's capabilities unknown ("+aixWhy(s, "aix.users", "lsuser -a capabilities oracle")+"), but the pool is in use")
	} else {
		ev = append(ev, "lsuser -a capabilities oracle: "+strings.Join(user.Capabilities, ","))
	}
	return Passed("a 16 MB page pool the oracle user can use while %s runs", instances).Reading(strings.Join(ev, "; "))
}

// aixSGA is the largest SGA the artifacts give (sga_max_size, else
// sga_target, else memory_max_target / memory_target) and where.
func aixSGA(in *Input) (int64, string) {
	best, ev := int64(0), ""
	for _, inst := range in.oraInstances() {
		for _, p := range []string{"sga_max_size", "sga_target", "memory_max_target", "memory_target"} {
			if n, where, ok := inst.Bytes(p); ok && n > 0 {
				if n > best {
					best, ev = n, fmt.Sprintf("%s: %s %s", where, p, KB(n>>10))
				}
				break
			}
		}
	}
	return best, ev
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(strings.TrimSpace(x), s) {
			return true
		}
	}
	return false
}
