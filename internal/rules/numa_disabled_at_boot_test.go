package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestNUMADisabledAtBoot(t *testing.T) {
	const id = "numa.disabled-at-boot"
	t.Run("numa=off fires critical", func(t *testing.T) {
		s := host()
		s.Host.CmdlineArgs["numa"] = "off"
		f := fires(t, id, s, WorkloadOLTP, DBOracle)
		if c := wantChange(t, f, change.BootArg, "numa", "", "off"); !c.Remove {
			t.Fatalf("numa=off must be removed: %+v", c)
		}
		if f.Severity != SevCritical || !f.RebootRequired || f.Setting != "cmdline:numa" || !strings.Contains(f.Why, "27 %") {
			t.Fatalf("%+v", f)
		}
		if len(f.Fix.Persistent) == 0 || !strings.Contains(f.Fix.Persistent[0], "--remove-args=numa") {
			t.Fatalf("fix: %+v", f.Fix)
		}
	})
	t.Run("one node for two sockets fires", func(t *testing.T) {
		s := host()
		s.Topology.Nodes = s.Topology.Nodes[:1]
		s.Topology.Nodes[0].CPUs = []int{0, 1, 2, 3, 4, 5, 6, 7}
		f := fires(t, id, s, WorkloadMixed, DBNone)
		if f.Current != "node 0 holds the CPUs of 2 packages" || !strings.Contains(f.Evidence, "spans packages 0-1") {
			t.Fatalf("current %q evidence %q", f.Current, f.Evidence)
		}
	})
	// Issue 25: no verdict from an absence or a contradiction.
	t.Run("has_cpu empty but every node lists CPUs: passes", func(t *testing.T) {
		s := host()
		for i := range s.Topology.Nodes {
			s.Topology.Nodes[i].HasCPU = false
		}
		s.Topology.Contradictions = append(s.Topology.Contradictions, snapshot.Contradiction{Fact: "nodes.has_cpu", Kind: "kernel"})
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("fewer nodes with CPUs than sockets, node CPU lists unread: cannot check", func(t *testing.T) {
		s := host()
		for i := range s.Topology.Nodes {
			s.Topology.Nodes[i].HasCPU, s.Topology.Nodes[i].CPUs = false, []int{}
		}
		absent(s, "topology.nodes[0].cpus", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "topology.nodes[0].cpus")
	})
	t.Run("overlapping node CPU lists: a firmware fault, not numa=off", func(t *testing.T) {
		s := host()
		for i := range s.Topology.Nodes {
			s.Topology.Nodes[i].CPUs = []int{0, 1, 2, 3, 4, 5, 6, 7}
		}
		s.Topology.Contradictions = append(s.Topology.Contradictions, snapshot.Contradiction{Fact: "nodes.cpus", Kind: "firmware",
			Detail: "the nodes' CPU lists overlap"})
		cannot(t, id, s, WorkloadOLTP, DBOracle, "overlap")
	})
	t.Run("a CPU without a package: no evidence, cannot check", func(t *testing.T) {
		s := host()
		s.Topology.Nodes = s.Topology.Nodes[:1]
		s.Topology.Nodes[0].CPUs = []int{0, 1, 2, 3, 4, 5, 6, 7}
		s.Topology.CPUs[3].Socket = -1
		absent(s, "topology.cpus.socket", "1 online CPUs have no readable topology (socket/core unknown)")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "socket/core unknown")
	})
	t.Run("guest is a warning", func(t *testing.T) {
		s := host()
		s.Host.CmdlineArgs["numa"] = "off"
		s.Host.Virt.Guest = true
		if f := fires(t, id, s, WorkloadMixed, DBNone); f.Severity != SevWarning {
			t.Fatalf("severity %s", f.Severity)
		}
	})
	t.Run("healthy two-node host passes", func(t *testing.T) {
		if rep := quiet(t, id, host(), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 {
			t.Fatalf("%+v", rep)
		}
	})
	t.Run("single socket with numa=off passes", func(t *testing.T) {
		s := host()
		s.Topology.Sockets = 1
		s.Host.CmdlineArgs["numa"] = "off"
		quiet(t, id, s, WorkloadOLTP, DBOracle)
	})
	t.Run("no node directory: cannot check, not passed", func(t *testing.T) {
		s := host()
		s.Topology.Nodes = nil
		absent(s, "topology.nodes", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "topology.nodes: not present on this host")
	})
	t.Run("no cmdline and no sockets: cannot check", func(t *testing.T) {
		s := host()
		absent(s, "host.cmdline", "permission denied")
		absent(s, "topology.cpus.socket", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "permission denied")
	})
}
