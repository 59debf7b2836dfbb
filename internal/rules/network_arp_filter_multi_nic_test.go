package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestNetArpFilterMultiNIC(t *testing.T) {
	const id = "network.arp-filter-multi-nic"
	quiet(t, id, netHost(), WorkloadOLTP, DBOracle) // one NIC on 10.0.0.0/24

	s := netHost()
	s.Network.Interfaces[1].OperState = "up"
	s.Network.Interfaces[1].IPv4 = []string{"10.0.0.6/24"}
	f := fires(t, id, s, WorkloadOLTP, DBOracle)
	wantChange(t, f, change.Sysctl, "net.ipv4.conf.all.arp_filter", "1", "-")
	if f.Setting != "net.ipv4.conf.all.arp_filter" || !strings.Contains(f.Current, "eno1,eno2") || !strings.Contains(f.Evidence, "10.0.0.0/24") ||
		!strings.Contains(f.Why, "ARP flux") {
		t.Fatalf("%+v", f)
	}
	s.Sysctl["net.ipv4.conf.all.arp_filter"] = "1"
	quiet(t, id, s, WorkloadOLTP, DBOracle)
	s.Sysctl["net.ipv4.conf.all.arp_filter"] = "0"
	s.Network.Interfaces[0].ArpFilter, s.Network.Interfaces[1].ArpFilter = i64(1), i64(1)
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	// Different subnets: fine.
	s = netHost()
	s.Network.Interfaces[1].OperState = "up"
	s.Network.Interfaces[1].IPv4 = []string{"10.0.1.6/24"}
	quiet(t, id, s, WorkloadOLTP, DBOracle)

	// No addresses outside a live host.
	s = netHost()
	s.Source.Kind = "sosreport"
	s.Network.Interfaces[0].IPv4 = nil
	cannot(t, id, s, WorkloadOLTP, DBOracle, "live host only")
}
