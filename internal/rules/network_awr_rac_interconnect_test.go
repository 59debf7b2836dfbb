package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestAWRRACInterconnect: the 19c RAC report (gc buffer busy acquire
// 11.2 ms, 5.1 % of DB time) got "no finding"; now the global cache waits
// are tied to the interconnect, with the host's NIC when it is known.
func TestAWRRACInterconnect(t *testing.T) {
	const id = "network.awr-rac-interconnect"
	rac := awrTestReport(t, "awrrpt_2_2201_2202_19c_rac.html")
	f := awrFires(t, id, nil, rac)
	wantIn(t, "current", f.Current, "gc buffer busy acquire 11.2 ms on average (5.1 % of DB time, norm 5 ms)",
		"the 2-way transfers themselves are fast (gc cr block 2-way 0.42 ms")
	wantIn(t, "evidence", f.Evidence, "gc buffer busy acquire: 98002 waits", "no host given")
	wantIn(t, "fix", strings.Join(f.Fix.Runtime, " "), "dbhost bench net --test udp_rr")
	if f.Severity != SevWarning {
		t.Errorf("severity %s", f.Severity)
	}

	// Slow 2-way transfers and lost blocks, with the host: the HAIP NIC,
	// a bond slave, at MTU 1500 with small buffers.
	w1, w2, w3 := int64(400000), int64(1200), int64(9000)
	avg1, pct1, t1 := 2.4, 8.0, 960.0
	lost := "gc cr block lost"
	r := &artifacts.AWRReport{File: "rac.txt", RAC: true, TopEventsPctOf: "db time", Host: artifacts.AWRHost{Name: "db1", Platform: "Linux x86 64-bit"},
		TopEvents: []artifacts.AWREvent{
			{Event: "gc cr block 2-way", Waits: &w1, TimeS: &t1, AvgMS: &avg1, PctDBTime: &pct1},
			{Event: lost, Waits: &w2, TimeS: ptr(600.0), AvgMS: ptr(500.0), PctDBTime: ptr(5.0)},
			{Event: "gc current block 2-way", Waits: &w3, TimeS: ptr(3.0), AvgMS: ptr(0.3), PctDBTime: ptr(0.02)}},
		GlobalCache: &artifacts.AWRGlobalCache{Workload: map[string]float64{"Avg global cache cr block receive time": 2.4}}}
	f = awrFires(t, id, nil, r)
	wantIn(t, "current", f.Current, "gc cr block 2-way 2.4 ms on average (8 % of DB time, norm 1 ms)", "gc cr block lost: 1200 lost")
	wantIn(t, "evidence", f.Evidence, "avg global cache cr block receive time 2.4 ms (above 1 ms)")
	if strings.Contains(f.Current, "gc current block 2-way") {
		t.Errorf("a fast event over: %s", f.Current)
	}
	h := host()
	h.Host.Hostname = "db1"
	mtu, node := int64(1500), 1
	h.Network.Interfaces = []snapshot.Interface{
		{Name: "bond1", Kind: "bond", MTU: &mtu, NUMANode: &node, IPv4: []string{"169.254.12.5/16"}, Bond: &snapshot.Bond{Mode: "active-backup 1", XmitHashPolicy: "layer2 0", Slaves: []string{"ens2f0", "ens2f1"}}},
		{Name: "ens2f0", Kind: "physical", MTU: &mtu, Master: "bond1"},
		{Name: "eno1", Kind: "physical", MTU: &mtu, IPv4: []string{"10.0.0.5/24"}}}
	h.Sysctl["net.core.rmem_max"] = "212992"
	f = awrFires(t, id, h, r)
	wantIn(t, "evidence", f.Evidence, "interconnect NIC bond1 (by its 169.254 HAIP address), MTU 1500 (000: 9000), bond mode active-backup 1",
		"card on NUMA node 1", "net.core.rmem_max = 212992 (000: 16 MB")
	wantIn(t, "fix", strings.Join(f.Fix.Persistent, " "), "ip link set dev bond1 mtu 9000")
	if strings.Contains(f.Evidence, "eno1") {
		t.Errorf("the public NIC named: %s", f.Evidence)
	}
	// The NIC unknown: said, not guessed.
	h.Network.Interfaces = h.Network.Interfaces[2:]
	f = awrFires(t, id, h, r)
	wantIn(t, "evidence", f.Evidence, "which NIC of this host is the interconnect is unknown")

	// Quiet: a single-instance report; a RAC report within the norms.
	awrOutcome(t, id, "n/a", "not a RAC instance", nil, awrTestReport(t, "awrrpt_1_412_413_12102.txt"))
	r.TopEvents = r.TopEvents[2:]
	awrOutcome(t, id, "passed", "global cache within the norms: gc current block 2-way 0.3 ms", nil, r)
}
