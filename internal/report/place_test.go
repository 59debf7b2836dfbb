package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/place"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// guestsSpec places two KVM guests (one pinned, one floating) beside a
// database: the guests' lines, the emulator core and a cpuset.
const guestsSpec = `strategy: mix
instances:
  - name: db1
    engine: kvm-guest
    domain: db1.prod
    cpus: 4
    memory_gb: 1
    class: guaranteed
  - name: float
    engine: kvm-guest
    cpus: 2
    memory_gb: 1
    class: best-effort
  - name: pg
    engine: postgres
    cpus: 2
    memory_gb: 0
    class: guaranteed
`

func placeSpec(t *testing.T, file string, data []byte) *place.Spec {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile(file); err != nil {
			t.Fatal(err)
		}
	}
	spec, err := place.ParseSpec(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// place's view in Markdown: every example spec (feasible, infeasible,
// caging, mix) on the seed's 8-node host and on fixture hosts (numa=off:
// NUMA hidden, odd node numbers, CPU-less nodes), and KVM guests: the same
// view as the text, the instance table whole, errors and warnings kept.
func TestPlaceMarkdown(t *testing.T) {
	bdt, err := snapshot.Load(filepath.Join("..", "..", "examples", "place", "bdt-host.json"))
	if err != nil {
		t.Fatal(err)
	}
	hosts := map[string]*snapshot.Snapshot{"bdt": bdt}
	for _, h := range []string{"numa-off", "odd-8n", "memoryless", "laptop-2s"} {
		hosts[h] = collectTree(t, filepath.Join("..", "..", "testdata", "hosts", h))
	}
	specs, _ := filepath.Glob(filepath.Join("..", "..", "examples", "place", "*.yaml"))
	if len(specs) == 0 {
		t.Fatal("no example specs")
	}
	seen := map[string]bool{}
	check := func(name string, r *place.Result) {
		text, md := PlaceText(r), PlaceMarkdown(r)
		checkSameView(t, name, text, md)
		if !strings.HasPrefix(string(md), "# dbhost place ("+r.Strategy+")\n\nPlacement (") {
			t.Errorf("%s: Markdown title:\n%s", name, md)
		}
		if r.Feasible != strings.Contains(string(md), "\n| INSTANCE | ENGINE | CLASS | CPU_COUNT | CPUS | MEMS | HUGEPAGES (node:pages) |\n|---|") {
			t.Errorf("%s: feasible %v, the instance table:\n%s", name, r.Feasible, md)
		}
		for _, e := range r.Errors {
			seen["error"] = true
			if !strings.Contains(strings.ReplaceAll(string(md), "\\", ""), ": "+e.Message+"\n") {
				t.Errorf("%s: error %q not in the Markdown:\n%s", name, e.Message, md)
			}
		}
		for _, w := range r.Warnings {
			seen["warning"] = true
			if !strings.Contains(string(md), "warning: ") || !strings.Contains(strings.ReplaceAll(string(md), "\\", ""), w.Message) {
				t.Errorf("%s: warning %q not in the Markdown:\n%s", name, w.Message, md)
			}
		}
		if r.Feasible {
			seen["feasible"] = true
		} else {
			seen["infeasible"] = true
		}
	}
	for hn, s := range hosts {
		for _, f := range specs {
			check(hn+"/"+filepath.Base(f), place.Plan(s, placeSpec(t, f, nil)))
		}
		r := place.Plan(s, placeSpec(t, "guests.yaml", []byte(guestsSpec)))
		check(hn+"/guests", r)
		if r.Feasible {
			seen["guests"] = true
			md := string(PlaceMarkdown(r))
			want := []string{"\n| db1 | kvm-guest | guaranteed | 4 | ", "\nguest db1 (domain `db1.prod`): 4 vCPUs ", "\ncpuset `dbhost_guaranteed`: cpus "}
			if len(r.Emulator) > 0 {
				seen["emulator"] = true
				want = append(want, "\nemulator core: node ")
			}
			for _, w := range want {
				if !strings.Contains(md, w) {
					t.Errorf("%s/guests: Markdown lacks %q:\n%s", hn, w, md)
				}
			}
		}
	}
	small := &snapshot.Snapshot{}
	*small = *hosts["numa-off"]
	r := place.Plan(small, placeSpec(t, "one.yaml", []byte("strategy: binding\ninstances:\n  - name: a\n    engine: postgres\n    cpus: 2\n    class: guaranteed\n")))
	check("numa-off/one", r)
	if !r.Feasible || len(r.NUMAHidden) == 0 || !strings.Contains(string(PlaceMarkdown(r)), "(NUMA hidden: 2 sockets; see the warning below)") {
		t.Errorf("numa=off: %v\n%s", r.Errors, PlaceMarkdown(r))
	}
	for _, k := range []string{"feasible", "infeasible", "error", "warning", "guests", "emulator"} {
		if !seen[k] {
			t.Errorf("no case with %s", k)
		}
	}
}

// The instance table's text keeps place's fixed columns (printf's %-20s
// …): a cell longer than its column pushes the rest of the line right,
// the last column is not padded, an empty one leaves the padding before it.
func TestPlaceTextColumns(t *testing.T) {
	r := &place.Result{Strategy: "binding", Feasible: true, Threads: 8, Nodes: 1, HugepageSizeKB: 2048, Instances: []place.InstancePlan{
		{Name: "a_name_longer_than_twenty", Engine: "kvm-guest", Class: "guaranteed", CPUCount: 4, CPUs: []int{0, 1, 2, 3}, Mems: []int{0}, Group: "dbhost_x", Hugepages: []place.HugepageAlloc{{Node: 0, Pages: 512}}},
		{Name: "pg", Engine: "postgres", Class: "best-effort", CPUCount: 2, Mems: []int{0}, Caged: true},
	}}
	want := "Placement (binding): feasible on 8 threads, 1 node; hugepages of 2048 kB\n" +
		fmt.Sprintf("%-20s %-8s %-11s %-9s %-24s %-8s %s\n", "INSTANCE", "ENGINE", "CLASS", "CPU_COUNT", "CPUS", "MEMS", "HUGEPAGES (node:pages)") +
		fmt.Sprintf("%-20s %-8s %-11s %-9d %-24s %-8s %s\n", "a_name_longer_than_twenty", "kvm-guest", "guaranteed", 4, "0-3", "0", "0:512") +
		fmt.Sprintf("%-20s %-8s %-11s %-9d %-24s %-8s %s\n", "pg", "postgres", "best-effort", 2, "all (caged)", "0", "")
	if got := string(PlaceText(r)); got != want {
		t.Errorf("text:\n%q\nwant\n%q", got, want)
	}
}

// place --apply's Markdown: the placement, the hierarchy and notes, then
// apply's lines with their details nested (already set, pending, a
// message, a side change).
func TestPlaceApplyMarkdown(t *testing.T) {
	r := &place.Result{Strategy: "binding", Feasible: true, Threads: 4, Nodes: 1, HugepageSizeKB: 2048,
		Instances: []place.InstancePlan{{Name: "pg", Engine: "postgres", Class: "guaranteed", CPUCount: 2, CPUs: []int{0, 1}, Mems: []int{0}, Group: "dbhost_pg"}},
		Groups:    []place.Group{{Name: "dbhost_pg", CPUs: []int{0, 1}, Mems: []int{0}, Members: []string{"pg"}}},
		Warnings:  []place.Problem{{Instance: "pg", Message: "no hugepages asked"}}}
	res := &apply.Result{JournalID: "J1", Counts: map[string]int{apply.StatusApplied: 2, apply.StatusUnchanged: 1, apply.StatusFailed: 1}, Items: []apply.Item{
		{Kind: "cgroup-controller", Setting: "/sys/fs/cgroup/cgroup.subtree_control", Current: "cpu", New: "+cpuset", Status: apply.StatusUnchanged, Rule: "place-binding"},
		{Kind: "cgroup", Setting: "/sys/fs/cgroup/dbhost_pg", Current: "(absent)", New: "present", Status: apply.StatusApplied, Rule: "place-binding", Why: "cpuset of pg"},
		{Kind: "cgroup-procs", Setting: "/sys/fs/cgroup/dbhost_pg/cgroup.procs", New: "pid 7", Status: apply.StatusFailed, Rule: "place-binding", Message: "no such process"},
		{Kind: "sysfs", Setting: "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", Current: "0", New: "512", Status: apply.StatusApplied, Rule: "place-binding",
			Side: []apply.Watched{{Path: "/proc/sys/vm/nr_hugepages", Old: "0", New: "512"}}},
	}}
	notes := []string{"dbhost_pg: cpus 2-3 → 0-1 is live"}
	md := string(PlaceApplyMarkdown(r, "v2 /sys/fs/cgroup", notes, res))
	checkSameView(t, "place --apply", PlaceApplyText(r, "v2 /sys/fs/cgroup", notes, res), []byte(md))
	for _, w := range []string{"# dbhost place --apply (binding)\n\nPlacement (binding): feasible", "| pg | postgres | guaranteed | 2 | 0-1 | 0 |  |\n",
		"warning: pg: no hugepages asked\n", "cgroup hierarchy: `v2 /sys/fs/cgroup`\n", "note: dbhost_pg: cpus 2-3 → 0-1 is live\n",
		"= `/sys/fs/cgroup/cgroup.subtree_control`: cpu → +cpuset  [place-binding]\n\n  - already set: nothing written\n",
		"x `/sys/fs/cgroup/dbhost_pg/cgroup.procs`: (unknown) → pid 7  [place-binding]\n\n  - failed: no such process\n",
		"  - the kernel also changed `/proc/sys/vm/nr_hugepages`: 0 → 512 (journaled; rollback restores it)\n",
		"\n2 applied, 1 already set, 1 failed; journal J1 ('dbhost rollback' restores every value)\n"} {
		if !strings.Contains(md, w) {
			t.Errorf("place --apply Markdown lacks %q:\n%s", w, md)
		}
	}
}
