package rules

import (
	"strings"
	"testing"
)

func TestAIXFCMaxXferSize(t *testing.T) {
	const id = "io.aix-fc-max-xfer-size"
	t.Run("No DMA Resource Count above 0 fires", func(t *testing.T) {
		s := aixHost()
		s.AIX.FCAdapters[0].NoDMAResourceCount = ptr(int64(77))
		s.AIX.FCAdapters[0].MaxXferSize = ptr(int64(0x100000))
		f := fires(t, id, s, WorkloadDSS, DBOracle)
		if f.Setting != "fcs0:max_xfer_size" || !strings.Contains(f.Current, "0x100000, 77 I/Os") ||
			!strings.Contains(f.Recommended, "max_xfer_size 0x200000") || !f.RebootRequired {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("counter at 0 is quiet whatever max_xfer_size is", func(t *testing.T) {
		s := aixHost()
		s.AIX.FCAdapters[0].MaxXferSize = ptr(int64(0x100000))
		quiet(t, id, s, WorkloadDSS, DBOracle)
	})
	t.Run("fcstat -e failed: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.FCAdapters[1].NoDMAResourceCount = nil
		aixAbsent(s, "aix.fc_adapters.no_dma_resource_count", "commands/fcstat_-e_fcs1", "failed: fcstat -e fcs1 exited 255")
		cannot(t, id, s, WorkloadDSS, DBOracle, "fcstat -e fcs1 exited 255")
	})
}
