package rules

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestAIXBundleAuditGoldens audits the snapshots the AIX bundle reader
// makes of its golden bundles (internal/facts/aix/testdata: an AIX 7.2 and
// an AIX 6.1 host, written from the commands' documented formats), and
// compares each outcome of the AIX rules (rule, outcome, severity, setting
// and current value; for "could not check" the reason) with
// testdata/audit-aix/<bundle>.txt (-update rewrites). The Linux rules must
// all be "not applicable" there.
func TestAIXBundleAuditGoldens(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "facts", "aix", "testdata", "golden", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no AIX bundle snapshots in internal/facts/aix/testdata/golden: %v", err)
	}
	got := map[string][]byte{}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		s, err := snapshot.Load(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if HostOS(s) != OSAIX {
			t.Fatalf("%s: not an AIX snapshot", file)
		}
		db, _ := DetectDB(s, nil)
		rep := Run(&Input{Snap: s, Workload: WorkloadOLTP, DB: db})
		var lines []string
		for _, f := range rep.Findings {
			lines = append(lines, fmt.Sprintf("%s\tfinding %s\t%s = %s", f.ID, f.Severity, f.Setting, f.Current))
		}
		for _, r := range rep.Passed {
			lines = append(lines, r.ID+"\tpassed")
		}
		for _, r := range rep.NotApplicable {
			if rule, _ := Lookup(r.ID); rule.RunsOn(OSAIX) {
				lines = append(lines, r.ID+"\tnot applicable: "+r.Reason)
			} else if !strings.Contains(r.Reason, "this host runs AIX") && !rule.HostOptional {
				t.Errorf("%s: Linux rule %s: %s", name, r.ID, r.Reason)
			}
		}
		for _, r := range rep.CannotCheck {
			if strings.Contains(r.Reason, "internal error") {
				t.Errorf("%s: %s: %s", name, r.ID, r.Reason)
			}
			lines = append(lines, r.ID+"\tcould not check: "+r.Reason)
		}
		for _, f := range rep.Findings {
			if r, _ := Lookup(f.ID); !r.RunsOn(OSAIX) {
				t.Errorf("%s: Linux rule %s judged the AIX host", name, f.ID)
			}
		}
		sort.Strings(lines)
		got[name+".txt"] = []byte(fmt.Sprintf("# audit of internal/facts/aix/testdata/golden/%s.json, workload oltp, db %s (go test ./internal/rules -run AIXBundleAuditGoldens -update)\n%s\n",
			name, rep.DB, strings.Join(lines, "\n")))
	}
	golden.Check(t, golden.Set{Dir: filepath.Join("testdata", "audit-aix"), Hint: "go test ./internal/rules -run AIXBundleAuditGoldens -update"}, got)
}
