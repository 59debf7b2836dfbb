package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestNetRxUsecsLatency(t *testing.T) {
	const id = "network.rx-usecs-latency"
	quiet(t, id, netHost(), WorkloadLatency, DBOracle)

	s := netHost()
	s.Network.Interfaces[0].Coalesce = &snapshot.Coalesce{RxUsecs: 3, AdaptiveRx: true}
	f := fires(t, id, s, WorkloadLatency, DBOracle)
	if f.Current != "rx-usecs 3, adaptive-rx on" || f.Fix.Runtime[0] != "ethtool -C eno1 adaptive-rx off rx-usecs 0" || !strings.Contains(f.Why, "+86 %") {
		t.Fatalf("%+v", f)
	}
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal("latency only")
	}

	s = netHost()
	s.Source.Kind = "sosreport"
	s.Network.Interfaces[0].Coalesce = nil
	cannot(t, id, s, WorkloadLatency, DBOracle, "live host only")
	absent(s, "network.interfaces[eno1].coalesce", "operation not supported")
	cannot(t, id, s, WorkloadLatency, DBOracle, "operation not supported")
}
