package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

func TestNetSocketBuffers(t *testing.T) {
	const id = "network.socket-buffers"
	quiet(t, id, netHost(), WorkloadOLTP, DBOracle)

	s := netHost()
	s.Sysctl["net.core.rmem_max"] = "4194304"
	s.Sysctl["net.ipv4.tcp_rmem"] = "4096 131072 6291456"
	rep := run(t, id, s, WorkloadOLTP, DBOracle)
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep.Findings)
	}
	for _, f := range rep.Findings {
		switch f.Setting {
		case "net.core.rmem_max":
			if !strings.HasPrefix(f.Recommended, "16777216") || !strings.Contains(f.Why, "20-30 %") || f.Fix.Runtime[0] != "sysctl -w net.core.rmem_max=16777216" {
				t.Fatalf("%+v", f)
			}
		case "net.ipv4.tcp_rmem":
			// The host's min and default are kept.
			wantChange(t, f, change.Sysctl, "net.ipv4.tcp_rmem", "4096 131072 16777216", "4096 131072 6291456")
			if f.Recommended != "4096 131072 16777216" || f.Fix.Runtime[0] != "sysctl -w net.ipv4.tcp_rmem='4096 131072 16777216'" {
				t.Fatalf("%+v", f)
			}
		default:
			t.Fatalf("%+v", f)
		}
	}

	s = netHost()
	s.Sysctl["net.ipv4.tcp_wmem"] = "4096 16384"
	for _, k := range []string{"net.core.rmem_max", "net.core.wmem_max", "net.ipv4.tcp_rmem"} {
		delete(s.Sysctl, k)
		absent(s, "sysctl."+k, "permission denied")
	}
	cannot(t, id, s, WorkloadOLTP, DBOracle, "expected 3 integers")
}
