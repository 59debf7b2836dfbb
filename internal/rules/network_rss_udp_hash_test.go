package rules

import "testing"

func TestNetRSSUDPHash(t *testing.T) {
	const id = "network.rss-udp-hash"
	// Not in the snapshot: never a finding, a cannot-check that names the NIC and the command.
	cannot(t, id, netHost(), WorkloadLatency, DBOracle, "eno1 and set 4-tuple hashing with: ethtool -N <if> rx-flow-hash udp4 sdfn")
	s := netHost()
	s.Network.Interfaces[0].RxQueues = 1
	if rep := quiet(t, id, s, WorkloadLatency, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal(rep)
	}
	r, _ := Lookup(id)
	if r.Description == "" {
		t.Fatal("the fix lives in the description")
	}
}
