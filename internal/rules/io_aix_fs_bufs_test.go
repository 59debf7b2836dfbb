package rules

import (
	"strings"
	"testing"
)

func TestAIXFSBufs(t *testing.T) {
	const id = "io.aix-fs-bufs"
	t.Run("JFS2 I/Os blocked with no fsbuf fire", func(t *testing.T) {
		s := aixHost()
		s.AIX.VmstatV[aixJ2FsbufLabel] = 5329075
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "ioo:j2_dynamicBufferPreallocation" || !strings.Contains(f.Recommended, "32") ||
			!strings.Contains(f.Fix.Runtime[0], "ioo -p -o j2_dynamicBufferPreallocation=32") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("JFS I/Os blocked fire numfsbufs, pending a remount", func(t *testing.T) {
		s := aixHost()
		s.AIX.VmstatV[aixJFSFsbufLabel] = 2288
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Setting != "ioo:numfsbufs" || !strings.Contains(f.Recommended, "numfsbufs 392") || f.Pending != PendingManual {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("no blocked I/O passes", func(t *testing.T) {
		quiet(t, id, aixHost(), WorkloadOLTP, DBOracle)
	})
	t.Run("vmstat -v missing: could not check", func(t *testing.T) {
		s := aixHost()
		s.AIX.VmstatV = nil
		aixAbsent(s, "aix.vmstat_v", "commands/vmstat_-v", "failed: vmstat -v exited 1")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "vmstat -v exited 1")
	})
}
