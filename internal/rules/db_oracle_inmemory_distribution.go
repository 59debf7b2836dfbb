package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
)

// db.oracle-inmemory-distribution: on RAC, where the In-Memory column store
// is populated for a service depends on parallel_instance_group on each
// instance and on where the service runs (001: six tests on a 2-node RAC).
// With parallel_instance_group set to the service on the preferred instance
// only, the service running on the available instance while the preferred
// one is up (a relocation, a startup order) spreads the data over every
// instance's column store (Test 3); after a failover with the preferred
// instance still down it is fully populated on the available one (Test 3,
// Remark 2).
func init() {
	Register(Rule{
		ID:       "db.oracle-inmemory-distribution",
		Area:     AreaDB,
		Severity: SevWarning,
		OS:       []string{OSLinux, OSAIX}, // reads only the artifacts
		Title:    "RAC In-Memory population depends on where the service runs (parallel_instance_group)",
		DBs:      []string{DBOracle},
		Sources: []Source{
			{Doc: Seed001, Section: "In-Memory Instance distribution with RAC databases: Impact of the parallel_instance_group parameter — Test 3:",
				Quote: "The data is distributed across all of the IM column stores in the cluster."},
			{Doc: Seed001, Section: "In-Memory Instance distribution with RAC databases: Impact of the parallel_instance_group parameter — Test 3:",
				Quote: "If a failover occurred and the Instance 1 is still down, then the data is fully populated on the Instance 2."},
			{Doc: Seed001, Section: "In-Memory Instance distribution with RAC databases: Impact of the parallel_instance_group parameter — CONCLUSION",
				Quote: "With the parallel_instance_group parameter set to the service on the preferred Instance only"},
		},
		Scope: Scope{
			DBVersions: "Oracle 12.1.0.2+ In-Memory option on RAC (001 tested 12.1.0.2 on 2 nodes, admin-managed services); not Engineered Systems' DUPLICATE",
			Note:       "needs `srvctl config service` output and the init.ora/spfile with per-SID parallel_instance_group",
		},
		Check: checkInMemoryDistribution,
	})
}

// imCase is a service's configuration as 001's tests vary it.
type imCase struct {
	PreferredOnAll  bool // the service is preferred on every instance (no available one)
	PIGPreferred    bool // parallel_instance_group = the service on every preferred instance
	PIGAvailable    bool // ... on every available instance
	RunsOnAvailable bool // the service runs on an available instance (failover, relocation, startup order)
	// PreferredDown: it runs there after a failover, the preferred
	// instance still down (001 Test 3, Remark 2).
	PreferredDown bool
}

// imOutcome is where the column store is populated in one of 001's tests.
type imOutcome struct {
	Test  int // 001's test number
	Fully bool
	Where string
}

// imTable encodes 001's six tests. Rows not listed are not covered by 001.
var imTable = []struct {
	c imCase
	o imOutcome
}{
	{imCase{}, imOutcome{1, false, "distributed across the IM column stores of all instances"}},
	{imCase{PIGPreferred: true}, imOutcome{2, true, "fully on the preferred instance the service runs on"}},
	{imCase{PIGPreferred: true, RunsOnAvailable: true}, imOutcome{3, false, "distributed across the IM column stores of all instances"}},
	{imCase{PIGPreferred: true, RunsOnAvailable: true, PreferredDown: true}, imOutcome{3, true, "fully on the available instance the service failed over to"}},
	{imCase{PIGPreferred: true, PIGAvailable: true}, imOutcome{4, true, "fully on the preferred instance the service runs on"}},
	{imCase{PIGPreferred: true, PIGAvailable: true, RunsOnAvailable: true}, imOutcome{5, true, "fully on the available instance the service runs on"}},
	{imCase{PreferredOnAll: true, PIGPreferred: true}, imOutcome{6, false, "distributed across the IM column stores of all instances"}},
}

// imDistribution is where 001 saw the data populated for c; ok false when
// none of its tests covers c. parallel_instance_group unset behaves as test 1
// wherever the service runs (the RAC default).
func imDistribution(c imCase) (imOutcome, bool) {
	if !c.PIGPreferred && !c.PIGAvailable && !c.PreferredOnAll {
		c.RunsOnAvailable = false
	}
	if c.PreferredOnAll {
		c.PIGAvailable, c.RunsOnAvailable = false, false
	}
	if !c.RunsOnAvailable {
		c.PreferredDown = false
	}
	for _, r := range imTable {
		if r.c == c {
			return r.o, true
		}
	}
	return imOutcome{}, false
}

func checkInMemoryDistribution(in *Input) Outcome {
	if in.Artifacts == nil || len(in.Artifacts.Services) == 0 {
		return NotApplicable("no `srvctl config service` output given (--artifact)")
	}
	if len(in.Artifacts.Params) == 0 && len(in.Artifacts.AlertLogs) == 0 {
		return CannotCheck("parallel_instance_group per instance unknown: give the RAC database's init.ora/spfile (--artifact)")
	}
	var fs []Finding
	var notes []string
	for _, sv := range in.Artifacts.Services {
		if len(sv.Preferred) == 0 {
			notes = append(notes, sv.Name+": no preferred instances (policy-managed): not covered by 001")
			continue
		}
		all := append(append([]string{}, sv.Preferred...), sv.Available...)
		imSet, imWhere := false, ""
		for _, sid := range all {
			if v, where, ok := in.OracleParam(sid, "inmemory_size"); ok {
				if n, err := artifacts.ParseBytes(oraUnquote(v)); err == nil && n > 0 {
					imSet, imWhere = true, fmt.Sprintf("%s: inmemory_size = %s", where, v)
				}
			}
		}
		if !imSet {
			notes = append(notes, sv.Name+": inmemory_size not set on its instances (no In-Memory column store)")
			continue
		}
		pig := func(sids []string) (bool, []string) {
			every := len(sids) > 0
			var ev []string
			for _, sid := range sids {
				v, where, ok := in.OracleParam(sid, "parallel_instance_group")
				if ok {
					ev = append(ev, fmt.Sprintf("%s: %s parallel_instance_group = %s", where, sid, v))
				}
				if !ok || !strings.EqualFold(oraUnquote(v), sv.Name) {
					every = false
				}
			}
			return every, ev
		}
		pigPref, evPref := pig(sv.Preferred)
		pigAvail, evAvail := pig(sv.Available)
		c := imCase{PreferredOnAll: len(sv.Available) == 0, PIGPreferred: pigPref, PIGAvailable: pigAvail}
		ev := fmt.Sprintf("%s:%d: service %s preferred %s, available %s; %s", sv.File, sv.Line, sv.Name,
			strings.Join(sv.Preferred, ","), artOrNone(strings.Join(sv.Available, ",")), imWhere)
		if pe := append(evPref, evAvail...); len(pe) > 0 {
			ev += "; " + strings.Join(pe, "; ")
		} else {
			ev += "; parallel_instance_group not set on its instances"
		}
		onPref, ok1 := imDistribution(c)
		c.RunsOnAvailable = true
		onAvail, ok2 := imDistribution(c)
		c.PreferredDown = true
		onFailover, okFailover := imDistribution(c)
		switch {
		case !ok1 || !ok2:
			notes = append(notes, sv.Name+": parallel_instance_group combination not covered by 001's tests")
		case onPref.Fully && !onAvail.Fully:
			fs = append(fs, Finding{
				Setting: "oracle:parallel_instance_group",
				Current: fmt.Sprintf("service %s: on its preferred instance %s (001 Test %d); running on %s while %s is up (a relocation, a startup order): %s (001 Test %d)%s",
					sv.Name, onPref.Where, onPref.Test, strings.Join(sv.Available, ","), strings.Join(sv.Preferred, ","), onAvail.Where, onAvail.Test,
					imFailoverText(okFailover, onFailover, sv.Preferred)),
				Recommended: fmt.Sprintf("parallel_instance_group = %s on the available instance(s) too: fully populated wherever the service runs (001 Tests 4-5)", sv.Name),
				Evidence:    ev,
				Why: "001 (Test 3): with parallel_instance_group set on the preferred instance only and the service running on the " +
					"available one, no instance held all the data (BYTES_NOT_POPULATED > 0 on both): \"this distribution could " +
					"lead to performance issue\". After a failover with the preferred instance still down, the data is fully populated on the " +
					"available one (Test 3, Remark 2). Set on both instances, the data was fully populated on the instance the service ran on.",
				Fix: Fix{Runtime: oraPIGFix(sv.Name, sv.Available, "BOTH"), Persistent: oraPIGFix(sv.Name, sv.Available, "SPFILE")},
				Risk: "Parallel execution of sessions on the available instance is then confined to the service's instances; " +
					"tables are repopulated after the change (priority none: on first access).",
			})
		case !onPref.Fully && c.PreferredOnAll && pigPref:
			fs = append(fs, Finding{
				Severity:    SevInfo,
				Setting:     "oracle:parallel_instance_group",
				Current:     fmt.Sprintf("service %s preferred on all instances with parallel_instance_group set to it: %s (001 Test %d)", sv.Name, onPref.Where, onPref.Test),
				Recommended: "expect distribution; for a full copy on the instance serving the queries, a preferred/available service with parallel_instance_group on both (001 Tests 4-5)",
				Evidence:    ev,
				Why:         "001 (Test 6): a service preferred on both instances with parallel_instance_group set on both left part of the data on each instance.",
				Fix:         Fix{Runtime: []string{}, Persistent: []string{fmt.Sprintf("srvctl modify service -db <db> -service %s -modifyconfig -preferred %s -available %s", sh(sv.Name), sh(sv.Preferred[0]), sh(strings.Join(sv.Preferred[1:], ",")))}},
				Risk:        "A preferred/available service runs on one instance at a time: its load is no longer spread.",
			})
		default:
			notes = append(notes, fmt.Sprintf("%s: on preferred %s (001 Test %d); on available %s (001 Test %d)", sv.Name, onPref.Where, onPref.Test, onAvail.Where, onAvail.Test))
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%s", strings.Join(notes, "; ")).Reading(strings.Join(notes, "; ")) // none read: the engine's could not check
}

// imFailoverText is 001's Remark 2 for a service on its available
// instance after a failover ("" when 001 does not cover the case).
func imFailoverText(ok bool, o imOutcome, preferred []string) string {
	if !ok {
		return ""
	}
	return fmt.Sprintf("; after a failover with %s still down: %s (001 Test %d, Remark 2)", strings.Join(preferred, ","), o.Where, o.Test)
}

func oraPIGFix(svc string, sids []string, scope string) []string {
	var out []string
	for _, sid := range sids {
		out = append(out, fmt.Sprintf("ALTER SYSTEM SET parallel_instance_group=%s SCOPE=%s SID=%s;", sqlStr(svc), scope, sqlStr(sid)))
	}
	return out
}

func artOrNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
