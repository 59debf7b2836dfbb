package rules

import (
	"strings"
	"testing"
)

func TestAIXLVMPbufs(t *testing.T) {
	const id = "io.aix-lvm-pbufs"
	t.Run("I/Os blocked with no pbuf fire", func(t *testing.T) {
		s := aixHost()
		s.AIX.VmstatV[aixPbufLabel] = 164918
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if !strings.Contains(f.Current, "ioo pv_min_pbuf 512; 164918 I/Os") || !strings.Contains(f.Recommended, "pv_min_pbuf 1024") {
			t.Fatalf("%+v", f)
		}
		if !strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "ioo -p -o pv_min_pbuf=1024") {
			t.Fatalf("fix %+v", f.Fix)
		}
	})
	t.Run("none blocked passes", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
	})
	t.Run("vmstat -v missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.VmstatV = nil
		aixAbsent(s, "aix.vmstat_v", "commands/vmstat_-v", "not present on this host: vmstat: not found (exit 127)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "aix.vmstat_v: not present")
	})
}
