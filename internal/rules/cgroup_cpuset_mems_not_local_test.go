package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestCpusetMemsNotLocal(t *testing.T) {
	const id = "cgroup.cpuset-mems-not-local"
	group := func(cpus, mems string) *snapshot.Snapshot {
		s := host()
		s.Cgroups.Groups = []snapshot.CgroupGroup{
			{Path: "/", Version: 1, Mount: "/sys/fs/cgroup/cpuset", CPUs: ptr("0-7"), Mems: ptr("0-1")},
			{Path: "/oracle", Version: 1, Mount: "/sys/fs/cgroup/cpuset", CPUs: ptr(cpus), Mems: ptr(mems)},
		}
		return s
	}
	t.Run("all memory remote is critical with the distance ratio", func(t *testing.T) {
		f := fires(t, id, group("1-3", "1"), WorkloadOLTP, DBOracle)
		wantChange(t, f, change.Sysfs, "/sys/fs/cgroup/cpuset/oracle/cpuset.mems", "0", "1")
		if f.Severity != SevCritical || f.Setting != "cgroup:oracle cpuset.mems" || !strings.HasPrefix(f.Recommended, "0 ") ||
			!strings.Contains(f.Evidence, "distance 21 vs 10") || !strings.Contains(f.Evidence, "ratio 2.10") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("extra remote node is a warning", func(t *testing.T) {
		f := fires(t, id, group("0-3", "0-1"), WorkloadOLTP, DBOracle)
		if f.Severity != SevWarning || !strings.Contains(f.Evidence, "mems node(s) 1 have none of its CPUs") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("cgconfig.conf is checked too", func(t *testing.T) {
		s := host()
		s.Config.Cgconfig = []snapshot.CgconfigEntry{
			{File: "/etc/cgconfig.conf", Line: 9, Group: "oracle", Key: "cpuset.mems", Value: `"1"`},
			{File: "/etc/cgconfig.conf", Line: 10, Group: "oracle", Key: "cpuset.cpus", Value: `"1-3"`},
		}
		if f := fires(t, id, s, WorkloadOLTP, DBOracle); !strings.Contains(f.Evidence, "/etc/cgconfig.conf:9") {
			t.Fatalf("%+v", f)
		}
	})
	t.Run("local mems pass", func(t *testing.T) {
		quiet(t, id, group("4-7", "1"), WorkloadOLTP, DBOracle)
		quiet(t, id, group("0-7", "0-1"), WorkloadOLTP, DBOracle)
	})
	t.Run("no nodes: cannot check", func(t *testing.T) {
		s := group("1-3", "1")
		s.Topology.Nodes = nil
		absent(s, "topology.nodes", "not present on this host")
		cannot(t, id, s, WorkloadOLTP, DBOracle, "topology.nodes: not present")
	})
}
