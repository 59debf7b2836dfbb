package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestTopologyContradiction(t *testing.T) {
	const id = "numa.topology-contradiction"
	t.Run("agreeing files pass", func(t *testing.T) {
		quiet(t, id, host(), WorkloadOLTP, DBOracle)
	})
	t.Run("overlapping node lists: a firmware fault, info", func(t *testing.T) {
		s := host()
		s.Topology.Contradictions = []snapshot.Contradiction{{Fact: "nodes.cpus", Kind: "firmware",
			Files:  []string{"/sys/devices/system/node/nodeN/cpulist", "/sys/devices/system/cpu/cpuN/nodeM"},
			Detail: "the nodes' CPU lists overlap: CPUs 0-7 in nodes 0-1", Believed: "/sys/devices/system/cpu/cpuN/nodeM"}}
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if f.Severity != SevInfo || !strings.Contains(f.Why, "firmware fault") || !strings.Contains(f.Evidence, "believes /sys/devices/system/cpu/cpuN/nodeM") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("no topology: cannot check", func(t *testing.T) {
		s := host()
		s.Topology.Nodes, s.Topology.CPUs = nil, nil
		absent(s, "topology.cpus", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "")
	})
}
