package rules

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/place"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestPlaceInitOraAuditedBack: issue 27 item 3. The init.ora files and the
// cgconfig.conf `dbhost place` writes for 001's customer cases (binding,
// mix, caging), audited back with the host they were planned on, raise no
// finding that would undo the placement: no resource plan asked for a bound
// instance (binding turned into caging), no cpu_count or
// processor_group_name changed.
func TestPlaceInitOraAuditedBack(t *testing.T) {
	dir := filepath.Join("..", "..", "examples", "place")
	snap, err := snapshot.Load(filepath.Join(dir, "bdt-host.json"))
	if err != nil {
		t.Fatal(err)
	}
	specs, _ := filepath.Glob(filepath.Join(dir, "case*.yaml"))
	if len(specs) == 0 {
		t.Fatal("no place examples")
	}
	bound := 0
	for _, file := range specs {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := place.ParseSpec(filepath.Base(file), b)
		if err != nil {
			t.Fatal(err)
		}
		res := place.Plan(snap, spec)
		arts := res.Artifacts("v1", nil)
		var names []string
		for n := range arts {
			names = append(names, n)
		}
		sort.Strings(names)
		set := &artifacts.Set{}
		for _, n := range names {
			base := filepath.Base(n)
			switch {
			case strings.HasPrefix(n, "oracle/") && strings.HasSuffix(n, ".ora") && !strings.Contains(base, "listener") && !strings.Contains(base, "tnsnames"):
				if strings.Contains(arts[n], "processor_group_name") {
					bound++
				}
				base = "init" + base // as the DBA installs it: init<SID>.ora
			case base == "cgconfig.conf":
			default:
				continue
			}
			if errs := set.Add(base, []byte(arts[n])); len(errs) > 0 {
				t.Fatalf("%s %s: %v", file, n, errs)
			}
		}
		rep := Run(&Input{Snap: snap, Workload: WorkloadOLTP, DB: DBOracle, Artifacts: set})
		for _, f := range rep.Findings {
			fix := strings.Join(append(append([]string{f.Setting}, f.Fix.Runtime...), f.Fix.Persistent...), " ")
			for _, undo := range []string{"resource_manager_plan", "processor_group_name", "cpu_count"} {
				if strings.Contains(fix, undo) {
					t.Errorf("%s: %s undoes the placement (%s): %s = %s; %s", filepath.Base(file), f.ID, undo, f.Setting, f.Current, fix)
				}
			}
		}
	}
	if bound == 0 {
		t.Fatal("no bound instance among place's init.ora files")
	}
}
