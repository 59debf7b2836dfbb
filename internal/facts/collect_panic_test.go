//go:build testhooks

package facts

import (
	"strings"
	"testing"
)

// Run with go test -tags testhooks: DBHOST_TEST_PANIC works only in a
// testhooks build (internal/testhooks).

// TestPanicInReaderDropsPartialCPUs: a panic in the topology reader's
// per-CPU workers leaves topology.cpus absent, not a list whose unread
// entries are CPU 0.
func TestPanicInReaderDropsPartialCPUs(t *testing.T) {
	files := map[string]string{"sys/devices/system/cpu/online": "0-1\n"}
	cpuFiles(files, 0, 0, 0, "0")
	cpuFiles(files, 1, 0, 1, "1")
	dir := topoTree(t, files)
	if s := Collect(Root{Dir: dir}, Options{Version: "test"}); len(s.Topology.CPUs) != 2 {
		t.Fatalf("without a panic: %+v", s.Topology.CPUs)
	}
	t.Setenv("DBHOST_TEST_PANIC", "worker:topology")
	s := Collect(Root{Dir: dir}, Options{Version: "test"})
	if len(s.Topology.CPUs) != 0 {
		t.Errorf("CPUs kept after a worker panic: %+v", s.Topology.CPUs)
	}
	found := false
	for _, a := range s.Absent {
		if a.Fact == "topology.cpus" && strings.Contains(a.Reason, "internal error in the topology reader") {
			found = true
		}
	}
	if !found {
		t.Errorf("no topology.cpus absence: %+v", s.Absent)
	}
}
