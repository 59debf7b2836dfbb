package place

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func describe(cs []change.Change) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "%s %s=%s\n", c.Kind, c.Key, c.Value)
	}
	return b.String()
}

func strp(s string) *string { return &s }

func TestChangesBindingV2AndV1(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{64, 64}, freeHuge: []int64{0, 0}, cgroupV2: true})
	s.Cgroups.Mounts = []snapshot.CgroupMount{{Path: "/sys/fs/cgroup", Version: 2, Controllers: []string{"cpuset", "cpu"}}}
	s.Processes = []snapshot.Process{
		{PID: 100, Engine: "oracle", Instance: "erp"},
		{PID: 101, Engine: "oracle", Instance: "erp"},
		{PID: 200, Engine: "oracle", Instance: "crm"},
		{PID: 300, Engine: "postgres", Instance: "/var/lib/pgsql/16/data"}, // the only postgres instance
		{PID: 400, Engine: "mysql", Instance: "other"},
	}
	spec := &Spec{Strategy: "binding", Instances: []Instance{
		{Name: "erp", Engine: "oracle", CPUs: 4, MemoryGB: 1, Class: "guaranteed"},
		{Name: "pg", Engine: "postgres", CPUs: 2, Class: "guaranteed"},
	}}
	r := Plan(s, spec)
	if !r.Feasible {
		t.Fatalf("infeasible: %+v", r.Errors)
	}
	a, err := Changes(r, s, ApplyOptions{MemoryMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	got := describe(a.Changes)
	erp, pg := r.plan("erp"), r.plan("pg")
	want := "cgroup-controller /sys/fs/cgroup/cgroup.subtree_control=+cpuset\n" +
		fmt.Sprintf("cgroup /sys/fs/cgroup/dbhost_erp=present\ncgroup-file /sys/fs/cgroup/dbhost_erp/cpuset.cpus=%s\ncgroup-file /sys/fs/cgroup/dbhost_erp/cpuset.mems=%s\n", fmtList(erp.CPUs), fmtList(erp.Mems)) +
		"cgroup-procs /sys/fs/cgroup/dbhost_erp/cgroup.procs=100\ncgroup-procs /sys/fs/cgroup/dbhost_erp/cgroup.procs=101\n" +
		fmt.Sprintf("cgroup /sys/fs/cgroup/dbhost_pg=present\ncgroup-file /sys/fs/cgroup/dbhost_pg/cpuset.cpus=%s\ncgroup-file /sys/fs/cgroup/dbhost_pg/cpuset.mems=%s\n", fmtList(pg.CPUs), fmtList(pg.Mems)) +
		"cgroup-procs /sys/fs/cgroup/dbhost_pg/cgroup.procs=300\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("changes:\n%s\nwant first:\n%s", got, want)
	}
	// Hugepages: erp's 512 pages on its node, through the sysfs kind.
	rest := strings.TrimPrefix(got, want)
	if !strings.Contains(rest, fmt.Sprintf("sysfs /sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages=512", erp.Mems[0])) {
		t.Errorf("hugepages: %q", rest)
	}
	if a.Hierarchy != "v2 /sys/fs/cgroup" || strings.Contains(got, "memory_migrate") {
		t.Errorf("v2 hierarchy %q / memory_migrate on v2:\n%s", a.Hierarchy, got)
	}

	// v1 (hybrid: the cpuset hierarchy is v1), memory_migrate asked, and an
	// existing group whose cpus and mems change: notes say what is live.
	s.Cgroups.Version = "hybrid"
	s.Cgroups.Mounts = []snapshot.CgroupMount{{Path: "/sys/fs/cgroup/unified", Version: 2}, {Path: "/sys/fs/cgroup/cpuset", Version: 1, Controllers: []string{"cpuset"}}}
	s.Cgroups.Groups = []snapshot.CgroupGroup{{Path: "/dbhost_erp", Version: 1, Mount: "/sys/fs/cgroup/cpuset", CPUs: strp("30-31"), Mems: strp("1")}}
	a, err = Changes(r, s, ApplyOptions{MemoryMigrate: true})
	if err != nil {
		t.Fatal(err)
	}
	got = describe(a.Changes)
	if !strings.HasPrefix(got, "cgroup /sys/fs/cgroup/cpuset/dbhost_erp=present\ncgroup-file /sys/fs/cgroup/cpuset/dbhost_erp/cpuset.memory_migrate=1\ncgroup-file /sys/fs/cgroup/cpuset/dbhost_erp/cpuset.cpus=") {
		t.Errorf("v1 changes (memory_migrate before cpus/mems):\n%s", got)
	}
	if fmtList(erp.CPUs) != "0-3" || fmtList(erp.Mems) != "0" {
		t.Fatalf("erp placed on %v/%v", erp.CPUs, erp.Mems)
	}
	notes := strings.Join(a.Notes, "\n")
	for _, w := range []string{"dbhost_erp: cpus 30-31 → 0-3 is live", "dbhost_erp: mems 1 → 0: memory_migrate=1 is set first"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
	a, _ = Changes(r, s, ApplyOptions{})
	if n := strings.Join(a.Notes, "\n"); !strings.Contains(n, "memory already allocated does not follow without memory_migrate (--memory-migrate) and a restart") {
		t.Errorf("mems note without --memory-migrate:\n%s", n)
	}
	// No process of an instance: nothing to move, said.
	s.Processes = s.Processes[:3]
	a, _ = Changes(r, s, ApplyOptions{})
	if n := strings.Join(a.Notes, "\n"); !strings.Contains(n, "dbhost_pg: no running process of pg: nothing to move") {
		t.Errorf("notes:\n%s", n)
	}
	// No hierarchy with cpuset: an error, not a guess.
	s.Cgroups.Mounts = nil
	if _, err := Changes(r, s, ApplyOptions{}); err == nil {
		t.Error("no cpuset hierarchy: no error")
	}
}

func fmtList(a []int) string {
	var p []string
	for i := 0; i < len(a); {
		j := i
		for j+1 < len(a) && a[j+1] == a[j]+1 {
			j++
		}
		if j > i {
			p = append(p, fmt.Sprintf("%d-%d", a[i], a[j]))
		} else {
			p = append(p, fmt.Sprint(a[i]))
		}
		i = j + 1
	}
	return strings.Join(p, ",")
}

func TestChangesCagingHasNoCgroups(t *testing.T) {
	s := mkHost(hostSpec{ids: []int{0, 1}, cores: []int{4, 4}, memGB: []int64{64, 64}, freeHuge: []int64{0, 0}})
	r := Plan(s, &Spec{Strategy: "caging", Instances: []Instance{{Name: "a", Engine: "oracle", CPUs: 2, Class: "guaranteed"}}})
	if !r.Feasible {
		t.Fatalf("infeasible: %+v", r.Errors)
	}
	a, err := Changes(r, s, ApplyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range a.Changes {
		if c.Kind.Cgroup() {
			t.Errorf("caging made a cgroup change: %+v", c)
		}
	}
	if len(a.Notes) == 0 || !strings.Contains(a.Notes[0], "nothing to apply for cgroups") {
		t.Errorf("notes: %v", a.Notes)
	}
}

func TestMatchProcesses(t *testing.T) {
	r := &Result{Instances: []InstancePlan{{Name: "a", Engine: "oracle"}, {Name: "b", Engine: "oracle"}, {Name: "pg", Engine: "postgres"}, {Name: "m", Engine: "mysql"}}}
	s := &snapshot.Snapshot{Processes: []snapshot.Process{
		{PID: 1, Engine: "oracle", Instance: "a"},
		{PID: 2, Engine: "oracle", Instance: "c"}, // two oracle instances planned: no engine fallback
		{PID: 3, Engine: "postgres", Instance: "/srv/pg"},
		{PID: 4, Engine: "postgres", Instance: "/data/pg/"},
		{PID: 5, Engine: "mariadb"},
	}}
	got := fmt.Sprint(MatchProcesses(r, s))
	if got != "map[a:[1] m:[5] pg:[3 4]]" {
		t.Errorf("got %s", got)
	}
}
