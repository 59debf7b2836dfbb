package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestNetBusyPollLatency(t *testing.T) {
	const id = "network.busy-poll-latency"
	quiet(t, id, netHost(), WorkloadLatency, DBOracle)
	s := netHost()
	s.Sysctl["net.core.busy_read"] = "0"
	s.Sysctl["net.core.busy_poll"] = "0"
	rep := run(t, id, s, WorkloadLatency, DBOracle)
	wantChange(t, rep.Findings[0], change.Sysctl, "net.core.busy_poll", "50", "0")
	if len(rep.Findings) != 2 || rep.Findings[0].Setting != "net.core.busy_poll" || rep.Findings[0].Fix.Runtime[0] != "sysctl -w net.core.busy_poll=50" {
		t.Fatalf("%+v", rep.Findings)
	}
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal("latency only")
	}
	delete(s.Sysctl, "net.core.busy_read")
	delete(s.Sysctl, "net.core.busy_poll")
	absent(s, "sysctl.net.core.busy_read", "not present on this kernel")
	cannot(t, id, s, WorkloadLatency, DBOracle, "not present on this kernel")
}
