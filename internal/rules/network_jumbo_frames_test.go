package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestNetJumboFrames(t *testing.T) {
	const id = "network.jumbo-frames"
	s := netHost()
	f := fires(t, id, s, WorkloadDSS, DBOracle)
	if c := wantChange(t, f, change.Sysfs, f.Setting, "9000", "-"); !strings.Contains(c.Risk, "silently drops") {
		t.Fatalf("an MTU change needs --accept-risk: %+v", c)
	}
	if f.Severity != SevInfo || f.Setting != "/sys/class/net/eno1/mtu" || !strings.Contains(f.Risk, "switch") || !strings.Contains(f.Why, "1,000 MB/s") ||
		!strings.HasPrefix(f.Fix.Persistent[0], `nmcli connection modify "$(nmcli -g GENERAL.CONNECTION device show eno1)" 802-3-ethernet.mtu 9000`) {
		t.Fatalf("%+v", f)
	}
	if rep := run(t, id, s, WorkloadDSS, DBOracle); len(rep.Findings) != 1 { // eno2 is down, lo is loopback
		t.Fatalf("%+v", rep.Findings)
	}
	s.Network.Interfaces[0].MTU = i64(9000)
	quiet(t, id, s, WorkloadDSS, DBOracle)

	// A bond's slaves are judged through the bond.
	s = netHost()
	s.Network.Interfaces = []snapshot.Interface{
		{Name: "bond0", Kind: "bond", MTU: i64(1500), SpeedMbps: i64(20000), OperState: "up", Bond: &snapshot.Bond{Mode: "802.3ad 4", Slaves: []string{"ens1f0", "ens1f1"}}},
		{Name: "ens1f0", Kind: "physical", MTU: i64(1500), SpeedMbps: i64(10000), OperState: "up", Master: "bond0"},
		{Name: "ens1f1", Kind: "physical", MTU: i64(1500), SpeedMbps: i64(10000), OperState: "up", Master: "bond0"},
	}
	if rep := run(t, id, s, WorkloadDSS, DBOracle); len(rep.Findings) != 1 || !strings.Contains(rep.Findings[0].Evidence, "slaves ens1f0,ens1f1") {
		t.Fatalf("%+v", rep.Findings)
	}

	s = host()
	absent(s, "network.interfaces", "permission denied")
	cannot(t, id, s, WorkloadDSS, DBOracle, "permission denied")
}
