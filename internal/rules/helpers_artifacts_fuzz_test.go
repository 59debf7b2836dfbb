package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// artRuleIDs are the rules that read --artifact files.
var artRuleIDs = []string{
	"db.oracle-caging-sums", "db.oracle-filesystemio-options", "db.oracle-single-listener-multinode",
	"db.oracle-listener-rate-limit-rac", "db.oracle-inmemory-distribution", "memory.hugepages-pool-oversized",
	"memory.memlock-below-sga", "memory.oracle-amm-with-hugepages", "memory.use-large-pages-not-only",
	"middle.datasource-foreground-validation", "db.postgres-huge-pages",
}

// FuzzArtifactRules: any artifact content (recognised and parsed the way
// --artifact does, two files so instances can merge) runs through every
// artifact rule for every database without a crash, and every finding
// names what it read and who says so.
func FuzzArtifactRules(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "artifacts", "*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, []byte("*.cpu_count=1\n*.db_name=X\n"))
		}
	}
	f.Add([]byte("*.memory_target=0\n*.sga_target=-1\n"), []byte("Starting ORACLE instance\nDump of system resources acquired for SHARED GLOBAL AREA (SGA)\n"))
	var list []Rule
	for _, id := range artRuleIDs {
		r, ok := Lookup(id)
		if !ok {
			f.Fatalf("%s not registered", id)
		}
		list = append(list, r)
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		set := &artifacts.Set{}
		set.Add("a.ora", a)
		set.Add("alert_B.log", b)
		for _, s := range []*snapshot.Snapshot{host(), hugeHost(1000, 500), nicHost(1e6, 0), {}} {
			for _, db := range DBs {
				rep := RunRules(list, &Input{Snap: s, Workload: WorkloadOLTP, DB: db, Artifacts: set})
				for _, c := range rep.CannotCheck {
					if strings.Contains(c.Reason, "internal error") {
						t.Fatalf("%s: %s", db, c.Reason)
					}
				}
				for _, f := range rep.Findings {
					if f.Setting == "" || f.Current == "" || f.Evidence == "" || len(f.Sources) == 0 {
						t.Fatalf("incomplete finding %+v", f)
					}
				}
			}
		}
	})
}
