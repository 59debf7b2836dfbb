package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestNetUDPMem(t *testing.T) {
	const id = "network.udp-mem"
	s := netHost()
	s.Sysctl["net.ipv4.udp_mem"] = "1527702\t2036938\t3055404" // a 64 GiB host's boot-time sizing
	f := fires(t, id, s, WorkloadDSS, DBOracle)
	wantChange(t, f, change.Sysctl, "net.ipv4.udp_mem", "1527702 2036938 16777216", "1527702\t2036938\t3055404")
	if f.Severity != SevInfo || !strings.Contains(f.Current, "max 11.7 GiB") || f.Fix.Runtime[0] != "sysctl -w net.ipv4.udp_mem='1527702 2036938 16777216'" {
		t.Fatalf("%+v", f)
	}
	for _, v := range []string{"3145728 4194304 16777216", "1 2 33554432"} {
		s.Sysctl["net.ipv4.udp_mem"] = v
		quiet(t, id, s, WorkloadOLTP, DBNone)
	}
	s.Sysctl["net.ipv4.udp_mem"] = "1 2"
	cannot(t, id, s, WorkloadDSS, DBNone, "net.ipv4.udp_mem")
	delete(s.Sysctl, "net.ipv4.udp_mem")
	absent(s, "sysctl.net.ipv4.udp_mem", "permission denied")
	cannot(t, id, s, WorkloadDSS, DBNone, "permission denied")
}
