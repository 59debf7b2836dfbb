package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestPGHugePagesOnShort(t *testing.T) {
	const id = "db.pg-huge-pages-on-short"
	// on, running (its 2150 pages in the pool), and another program holds 500 more of a 2500 pool.
	s := liveHost(2500, 0)
	s.Memory.Hugepages[0].Reserved = 150
	pgLive(s, "huge_pages=on")
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Severity != SevCritical || !strings.Contains(f.Current, "150 short") || f.Fix.Runtime[0] != "sysctl -w vm.nr_hugepages=2650" {
		t.Fatalf("%+v", f)
	}
	// Enough now but set nowhere for the next boot: warning.
	s = liveHost(2150, 0)
	pgLive(s, "huge_pages=on")
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Severity != SevWarning || !strings.Contains(f.Why, "after a reboot") {
		t.Fatalf("%+v", f)
	}
	s.Config.SysctlFiles = []snapshot.SysctlEntry{{File: "/etc/sysctl.d/90-pg.conf", Line: 1, Key: "vm.nr_hugepages", Value: "2150", Effective: true}}
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	s.Config.SysctlFiles = nil
	s.Host.CmdlineArgs["hugepages"] = "2150"
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// try: not this rule's.
	s = liveHost(0, 0)
	pgLive(s)
	if rep := run(t, id, s, WorkloadOLTP, DBPostgres); len(rep.NotApplicable) != 1 {
		t.Errorf("%+v", rep)
	}
	// A role that may not read huge_pages: could not check, with the permission reason.
	s = liveHost(0, 0)
	pgLive(s, "huge_pages=!could not check (permission): denied")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "could not check (permission)")
}
