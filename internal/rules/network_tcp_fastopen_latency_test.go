package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestNetTCPFastOpenLatency(t *testing.T) {
	const id = "network.tcp-fastopen-latency"
	s := netHost()
	s.Sysctl["net.ipv4.tcp_fastopen"] = "1" // the kernel's default: client only
	f := fires(t, id, s, WorkloadLatency, DBNone)
	wantChange(t, f, change.Sysctl, "net.ipv4.tcp_fastopen", "3", "1")
	if f.Severity != SevInfo || !strings.Contains(f.Current, "client only") || f.Fix.Runtime[0] != "sysctl -w net.ipv4.tcp_fastopen=3" {
		t.Fatalf("%+v", f)
	}
	// Other bits the host set are kept.
	s.Sysctl["net.ipv4.tcp_fastopen"] = "0x405"
	cannot(t, id, s, WorkloadLatency, DBNone, "not an integer")
	s.Sysctl["net.ipv4.tcp_fastopen"] = "1025"
	wantChange(t, fires(t, id, s, WorkloadLatency, DBNone), change.Sysctl, "net.ipv4.tcp_fastopen", "1027", "1025")
	for _, v := range []string{"3", "7", "1027"} {
		s.Sysctl["net.ipv4.tcp_fastopen"] = v
		quiet(t, id, s, WorkloadLatency, DBNone)
	}
	s.Sysctl["net.ipv4.tcp_fastopen"] = "0"
	if rep := quiet(t, id, s, WorkloadOLTP, DBOracle); len(rep.NotApplicable) != 1 {
		t.Fatal("latency only")
	}
	delete(s.Sysctl, "net.ipv4.tcp_fastopen")
	absent(s, "sysctl.net.ipv4.tcp_fastopen", "not present on this host")
	cannot(t, id, s, WorkloadLatency, DBNone, "not present on this host")
}
