package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestNetOneSubnetPerInterface(t *testing.T) {
	const id = "network.one-subnet-per-interface"
	// netHost: eno1 10.0.0.5/24 alone (eno2 down): quiet.
	if rep := quiet(t, id, netHost(), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "10.0.0.0/24") {
		t.Fatalf("%+v", rep)
	}
	// eno2 up on the same subnet: fires, manual.
	s := netHost()
	s.Network.Interfaces[1].OperState, s.Network.Interfaces[1].IPv4 = "up", []string{"10.0.0.6/24"}
	f := fires(t, id, s, WorkloadOLTP, DBOracle)
	if f.Setting != "IPv4 addressing of eno1, eno2" || f.Pending != PendingManual || len(f.Changes) != 0 ||
		f.Evidence != "10.0.0.0/24: eno1 10.0.0.5/24; eno2 10.0.0.6/24" || !strings.Contains(f.Why, "different subnet") {
		t.Fatalf("%+v", f)
	}
	// A bond's slaves are not counted apart from the bond.
	s.Network.Interfaces[1].Master = "bond0"
	quiet(t, id, s, WorkloadOLTP, DBOracle)
	// A RAC instance on a host with one subnet: its interconnect shares the public network.
	set := &artifacts.Set{}
	if errs := set.Add("initORCL1.ora", []byte("*.db_name=ORCL\n*.cluster_database=TRUE\nORCL1.instance_number=1\n")); len(errs) > 0 {
		t.Fatal(errs)
	}
	rep := runArt(t, id, netHost(), set, DBOracle)
	if len(rep.Findings) != 1 || rep.Findings[0].Setting != "RAC interconnect network (ORCL1)" || !strings.Contains(rep.Findings[0].Evidence, "cluster_database = TRUE (initORCL1.ora:2)") {
		t.Fatalf("%+v", rep)
	}
	// With a private subnet beside the public one: quiet.
	s = netHost()
	s.Network.Interfaces[1].OperState, s.Network.Interfaces[1].IPv4 = "up", []string{"192.168.10.1/24"}
	if rep := runArt(t, id, s, set, DBOracle); len(rep.Findings) != 0 {
		t.Fatalf("%+v", rep)
	}
	// Addresses are read live only: a sosreport could not be checked.
	s = netHost()
	s.Source.Kind = "sosreport"
	for i := range s.Network.Interfaces {
		s.Network.Interfaces[i].IPv4 = nil
	}
	cannot(t, id, s, WorkloadOLTP, DBOracle, "live host only")
	// No interfaces at all.
	s = netHost()
	s.Network.Interfaces = []snapshot.Interface{}
	absent(s, "network.interfaces", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
}
