package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestZoneReclaim(t *testing.T) {
	const id = "memory.zone-reclaim"
	s := host()
	s.Sysctl["vm.zone_reclaim_mode"] = "1"
	wantChange(t, fires(t, id, s, WorkloadOLTP, DBPostgres), change.Sysctl, "vm.zone_reclaim_mode", "0", "1")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Current != "1" || f.Fix.Runtime[0] != "sysctl -w vm.zone_reclaim_mode=0" {
		t.Fatalf("%+v", f)
	}
	s.Config.SysctlFiles = nil
	quiet(t, id, host(), WorkloadOLTP, DBPostgres)

	one := host()
	one.Sysctl["vm.zone_reclaim_mode"] = "1"
	one.Topology.Nodes = one.Topology.Nodes[:1]
	quiet(t, id, one, WorkloadOLTP, DBPostgres)

	bad := host()
	bad.Sysctl["vm.zone_reclaim_mode"] = "x"
	cannot(t, id, bad, WorkloadOLTP, DBPostgres, "not an integer")
}

// Issue 26: the seeds do not name vm.zone_reclaim_mode; the rule cites 000's
// general NUMA sentence and must say that the knob is not the seed's.
func TestZoneReclaimSaysTheSeedsDoNotNameIt(t *testing.T) {
	r, _ := Lookup("memory.zone-reclaim")
	s := host()
	s.Sysctl["vm.zone_reclaim_mode"] = "1"
	f := fires(t, r.ID, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(r.Scope.Note, "do not name vm.zone_reclaim_mode") || !strings.Contains(f.Why, "do not name this knob") {
		t.Fatalf("scope %q, why %q", r.Scope.Note, f.Why)
	}
}
