package place

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestNICPreferenceAndListeners(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1, 2}, cores: []int{4, 4, 4}, memGB: []int64{16, 16, 16},
		nicNode: map[string]int{"eth0": 0, "eth2": 2}, ipv4: map[string]string{"eth2": "10.9.0.5/24"}})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "net", Engine: "oracle", CPUs: 4, MemoryGB: 1, Class: "guaranteed", NIC: "eth2"},
		{Name: "pg", Engine: "postgres", CPUs: 2, MemoryGB: 1, Class: "guaranteed"},
	}}
	r := Plan(s, spec)
	if !r.Feasible {
		t.Fatal(r.Errors)
	}
	if !reflect.DeepEqual(r.Instances[0].Mems, []int{2}) {
		t.Errorf("net: mems %v, want [2] (its NIC's node)", r.Instances[0].Mems)
	}
	files := r.Artifacts("v2", textView(r))
	ora := files["oracle/net.ora"]
	if strings.Contains(ora, "*.cpu_count=") || strings.Contains(ora, "*.resource_manager_plan=") {
		t.Errorf("net.ora: a bound instance is not caged (Oracle sizes cpu_count from its cpuset):\n%s", ora)
	}
	for _, w := range []string{"*.processor_group_name='dbhost_net'", "*.use_large_pages='ONLY'", "*.local_listener='(ADDRESS_LIST=(ADDRESS=(PROTOCOL=TCP)(HOST=10.9.0.5)(PORT=1521)))'"} {
		if !strings.Contains(ora, w) {
			t.Errorf("net.ora lacks %q:\n%s", w, ora)
		}
	}
	if strings.Contains(ora, "_enable_NUMA_support") {
		t.Error("_enable_NUMA_support for a one-node instance")
	}
	lo := files["oracle/listener.ora"]
	for _, w := range []string{"LISTENER_N0 =", "HOST=<address of eth0>", "LISTENER_N2 =", "HOST=10.9.0.5"} {
		if !strings.Contains(lo, w) {
			t.Errorf("listener.ora lacks %q:\n%s", w, lo)
		}
	}
	if tn := files["oracle/tnsnames.ora"]; !strings.Contains(tn, "NET =") || !strings.Contains(tn, "(LOAD_BALANCE = ON)") || strings.Contains(tn, "PG =") {
		t.Errorf("tnsnames.ora:\n%s", tn)
	}
	slice := files["systemd/dbhost_net.slice"]
	if !strings.Contains(slice, "AllowedCPUs=8-11\n") || !strings.Contains(slice, "AllowedMemoryNodes=2\n") {
		t.Errorf("slice:\n%s", slice)
	}
	drop := files["systemd/pg.service.d/50-dbhost-place.conf"]
	if !strings.Contains(drop, "Slice=dbhost_pg.slice") || strings.Contains(drop, "CPUQuota") {
		t.Errorf("pg drop-in (bound, not caged):\n%s", drop)
	}
	cg := files["cgconfig.conf"]
	if !strings.Contains(cg, "group dbhost_net {") || !strings.Contains(cg, "cpuset.cpus = \"8-11\";") || !strings.Contains(cg, "cpuset.mems = \"2\";") || !strings.Contains(cg, "uid = postgres;") {
		t.Errorf("cgconfig.conf:\n%s", cg)
	}
	// 1 GB = 512 pages of 2 MB on node 2; the pool is empty, so it grows to 512.
	if hp := files["hugepages.sh"]; !strings.Contains(hp, "echo 512 > /sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages") {
		t.Errorf("hugepages.sh:\n%s", hp)
	}
	dir := t.TempDir()
	names, err := r.WriteArtifacts(dir, "v2", textView(r))
	if err != nil || len(names) != len(files) {
		t.Fatal(err, names)
	}
	if st, err := os.Stat(filepath.Join(dir, "hugepages.sh")); err != nil || st.Mode().Perm()&0o100 == 0 {
		t.Errorf("hugepages.sh not executable: %v", err)
	}
}

func TestCagingArtifactsAndPoolGrowth(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{16, 16}, freeHuge: []int64{1000, 0}})
	spec := &Spec{Strategy: "caging", Instances: []Instance{
		{Name: "ora", Engine: "oracle", CPUs: 4, MemoryGB: 2, Class: "guaranteed"},
		{Name: "my", Engine: "mysql", CPUs: 2, Class: "best-effort"},
	}}
	r := Plan(s, spec)
	if !r.Feasible {
		t.Fatal(r.Errors)
	}
	files := r.Artifacts("v1", textView(r))
	if _, ok := files["cgconfig.conf"]; ok {
		t.Error("caging writes no cpusets")
	}
	if ora := files["oracle/ora.ora"]; !strings.Contains(ora, "*.cpu_count=4\n*.resource_manager_plan='DEFAULT_PLAN'") || strings.Contains(ora, "processor_group_name") {
		t.Errorf("ora.ora:\n%s", ora)
	}
	if d := files["systemd/my.service.d/50-dbhost-place.conf"]; !strings.Contains(d, "CPUQuota=200%") || strings.Contains(d, "AllowedCPUs") {
		t.Errorf("mysql drop-in:\n%s", d)
	}
	// 2 GB = 1024 pages interleaved: 512 per node. Node 0 has 1000 free in a
	// pool of 1000: no growth; node 1 grows from 0 to 512.
	hp := files["hugepages.sh"]
	if !strings.Contains(hp, "echo 1000 > /sys/devices/system/node/node0/") || !strings.Contains(hp, "echo 512 > /sys/devices/system/node/node1/") {
		t.Errorf("hugepages.sh:\n%s", hp)
	}
	grow := ""
	for _, w := range r.Warnings {
		if strings.Contains(w.Message, "grows the pool") {
			grow += w.Message + "\n"
		}
	}
	if !strings.Contains(grow, "node 1: 512 pages of 2048 kB planned, its pool has 0 free: hugepages.sh grows the pool by 512") || strings.Contains(grow, "node 0:") {
		t.Errorf("pool growth warnings:\n%s", grow)
	}
	if !strings.Contains(files["numactl.txt"], "numactl --interleave=0-1") {
		t.Errorf("numactl.txt:\n%s", files["numactl.txt"])
	}
	if !strings.Contains(files["README.txt"], "cgroup v1") {
		t.Error("README does not say which cgroup form applies")
	}
}

// TestListenerOnBondNotSlave: the spec names ens1f1, a slave of bond0 (a
// slave has no address: the kernel puts it on the bond); the listener is on
// bond0's address, once, even when its slaves sit on two nodes.
func TestListenerOnBondNotSlave(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{16, 16},
		nicNode: map[string]int{"ens1f0": 0, "ens1f1": 1}})
	for i := range s.Network.Interfaces {
		s.Network.Interfaces[i].Master = "bond0"
	}
	s.Network.Interfaces = append(s.Network.Interfaces, snapshot.Interface{Name: "bond0", Kind: "bond", IPv4: []string{"10.20.0.7/24"}})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "ora", Engine: "oracle", CPUs: 4, MemoryGB: 1, Class: "guaranteed", NIC: "ens1f1"},
	}}
	r := Plan(s, spec)
	if !r.Feasible {
		t.Fatal(r.Errors)
	}
	files := r.Artifacts("v1", textView(r))
	lo := files["oracle/listener.ora"]
	if strings.Contains(lo, "ens1f1>") || strings.Contains(lo, "ens1f0>") || strings.Count(lo, "HOST=10.20.0.7") != 1 {
		t.Errorf("listener.ora: want one listener on bond0's address, none on a slave:\n%s", lo)
	}
	if ora := files["oracle/ora.ora"]; !strings.Contains(ora, "(HOST=10.20.0.7)") || strings.Contains(ora, "address of ens1f") {
		t.Errorf("local_listener on a slave:\n%s", ora)
	}
	var said bool
	for _, w := range r.Warnings {
		said = said || w.Instance == "ora" && strings.Contains(w.Message, "nic ens1f1 is a slave of bond0")
	}
	if !said {
		t.Errorf("no warning that ens1f1 is a bond slave: %v", r.Warnings)
	}
}

// TestNUMASupportPayingOnly: a paying database bound over two nodes gets
// _enable_NUMA_support=TRUE (000 Scenario 1), a non-paying one sharing a
// two-node cpuset keeps 001's tested default FALSE and is not caged.
func TestNUMASupportPayingOnly(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1, 2, 3}, cores: []int{4, 4, 4, 4}, memGB: []int64{16, 16, 16, 16}})
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "prod", Engine: "oracle", CPUs: 8, MemoryGB: 20, Class: "guaranteed"},
		{Name: "dev", Engine: "oracle", CPUs: 4, MemoryGB: 2, Class: "best-effort"},
	}}
	r := Plan(s, spec)
	if !r.Feasible {
		t.Fatal(r.Errors)
	}
	if len(r.Instances[0].Mems) < 2 || len(r.Instances[1].Mems) < 2 {
		t.Fatalf("want both on two nodes or more: %v %v", r.Instances[0].Mems, r.Instances[1].Mems)
	}
	files := r.Artifacts("v1", nil)
	if prod := files["oracle/prod.ora"]; !strings.Contains(prod, "*._enable_NUMA_support=TRUE") {
		t.Errorf("prod:\n%s", prod)
	}
	dev := files["oracle/dev.ora"]
	if strings.Contains(dev, "_enable_NUMA_support") || strings.Contains(dev, "*.cpu_count=") || strings.Contains(dev, "*.resource_manager_plan=") {
		t.Errorf("dev (non-paying): no caging, default NUMA support:\n%s", dev)
	}
	if r.Instances[1].Caged {
		t.Error("dev caged")
	}
}
