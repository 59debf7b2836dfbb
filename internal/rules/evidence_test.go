package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestPassNamesWhatItRead is the engine-wide form of issue 26's "a verdict
// needs evidence": on every fixture host (Linux and the AIX bundles), for
// every workload and database, and on every test AWR report with and
// without a host, each rule whose check passes names the facts it read
// (Outcome.Evidence). A check that passes because nothing matched, with
// nothing read, fails here; the engine would report it as could not check.
func TestPassNamesWhatItRead(t *testing.T) {
	snaps := goldenSnapshots(t)
	aix, err := filepath.Glob(filepath.Join("..", "facts", "aix", "testdata", "golden", "*.json"))
	if err != nil || len(aix) == 0 {
		t.Fatalf("no AIX bundle snapshots: %v", err)
	}
	for _, f := range aix {
		s, err := snapshot.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		snaps["aix/"+strings.TrimSuffix(filepath.Base(f), ".json")] = s
	}
	seen := map[string]bool{}
	check := func(where string, in *Input) {
		for _, r := range All() {
			out := runOne(r, in)
			if len(out.Findings) > 0 || out.CannotCheck != "" || out.NotApplicable != "" || out.Evidence != "" {
				continue
			}
			if k := r.ID + "\x00" + out.Passed; !seen[k] {
				seen[k] = true
				t.Errorf("%s: %s passed (%q) without naming what it read", where, r.ID, out.Passed)
			}
		}
	}
	for name, s := range snaps {
		for _, w := range Workloads {
			for _, db := range DBs {
				check(name+" "+w+"/"+db, &Input{Snap: s, Workload: w, DB: db})
			}
		}
	}
	reports, _ := filepath.Glob(filepath.Join("..", "artifacts", "testdata", "awr", "*"))
	for _, f := range reports {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rep, errs := artifacts.ParseAWR(b)
		if len(errs) > 0 || rep == nil {
			continue // not a report the reader takes: its tests say so
		}
		rep.File = filepath.Base(f)
		set := &artifacts.Set{AWR: []*artifacts.AWRReport{rep}}
		check(rep.File+" alone", &Input{Workload: WorkloadOLTP, DB: DBOracle, Artifacts: set})
		for name, s := range snaps {
			check(rep.File+" on "+name, &Input{Snap: s, Workload: WorkloadOLTP, DB: DBOracle, Artifacts: set})
		}
	}
}

// TestEvidencelessPassIsNoVerdict: the engine reports a check that passes
// without naming what it read as could not check, and carries a pass's
// evidence into its result.
func TestEvidencelessPassIsNoVerdict(t *testing.T) {
	in := &Input{Snap: &snapshot.Snapshot{}, Workload: WorkloadOLTP, DB: DBNone}
	bare := Rule{ID: "test.bare", Area: AreaIO, Check: func(*Input) Outcome { return Passed("nothing matched") }}
	rep := RunRules([]Rule{bare}, in)
	if len(rep.Passed) != 0 || len(rep.CannotCheck) != 1 || !strings.HasPrefix(rep.CannotCheck[0].Reason, NoEvidence) {
		t.Fatalf("a pass without evidence: passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
	}
	read := Rule{ID: "test.read", Area: AreaIO, Check: func(*Input) Outcome {
		return Passed("vm.swappiness = 10").Reading("/proc/sys/vm/swappiness = 10", "", "SwapTotal 0 kB")
	}}
	rep = RunRules([]Rule{read}, in)
	if len(rep.Passed) != 1 || rep.Passed[0].Evidence != "/proc/sys/vm/swappiness = 10; SwapTotal 0 kB" {
		t.Fatalf("a pass with evidence: passed=%+v cannot=%+v", rep.Passed, rep.CannotCheck)
	}
}
