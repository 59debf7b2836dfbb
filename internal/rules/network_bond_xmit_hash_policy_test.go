package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func bondHost(mode, policy string) *snapshot.Snapshot {
	s := netHost()
	s.Network.Interfaces = append(s.Network.Interfaces, snapshot.Interface{Name: "bond0", Kind: "bond", OperState: "up",
		Bond: &snapshot.Bond{Mode: mode, XmitHashPolicy: policy, Slaves: []string{"ens1f0", "ens1f1"}}})
	return s
}

func TestNetBondXmitHashPolicy(t *testing.T) {
	const id = "network.bond-xmit-hash-policy"
	quiet(t, id, bondHost("802.3ad 4", "layer3+4 1"), WorkloadOLTP, DBOracle)
	quiet(t, id, bondHost("active-backup 1", "layer2 0"), WorkloadOLTP, DBOracle)
	f := fires(t, id, bondHost("802.3ad 4", "layer2 0"), WorkloadOLTP, DBOracle)
	wantChange(t, f, change.Sysfs, "/sys/class/net/bond0/bonding/xmit_hash_policy", "layer3+4", "layer2")
	if f.Setting != "/sys/class/net/bond0/bonding/xmit_hash_policy" || f.Current != "layer2 0" || f.Recommended != "layer3+4 1" ||
		!strings.Contains(f.Fix.Persistent[0], "xmit_hash_policy=layer3+4") || !strings.Contains(f.Why, "36.4") ||
		!strings.Contains(f.Fix.Persistent[0], "nmcli -g GENERAL.CONNECTION device show bond0") {
		t.Fatalf("%+v", f)
	}
	fires(t, id, bondHost("balance-xor 2", "layer2+3 2"), WorkloadOLTP, DBOracle)

	if rep := quiet(t, id, netHost(), WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal(rep)
	}
	s := bondHost("", "")
	absent(s, "network.interfaces[bond0].bond.mode", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
	cannot(t, id, bondHost("802.3ad 4 x", "layer2 0"), WorkloadOLTP, DBOracle, "expected")
}
