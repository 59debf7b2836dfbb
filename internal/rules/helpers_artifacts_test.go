package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// artSet builds an artifact Set from files under testdata/artifacts (named
// by base name) and inline files given as "name=content" pairs.
func artSet(t *testing.T, files ...string) *artifacts.Set {
	t.Helper()
	s := &artifacts.Set{}
	for _, f := range files {
		var b []byte
		name := f
		if i := indexByte(f, '='); i > 0 && filepath.Base(f[:i]) == f[:i] && !fileExists(f) {
			name, b = f[:i], []byte(f[i+1:])
		} else {
			var err error
			b, err = os.ReadFile(filepath.Join("testdata", "artifacts", f))
			if err != nil {
				t.Fatal(err)
			}
		}
		if errs := s.Add(name, b); len(errs) > 0 {
			t.Fatalf("%s: %v", name, errs)
		}
	}
	return s
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func fileExists(name string) bool {
	_, err := os.Stat(filepath.Join("testdata", "artifacts", name))
	return err == nil
}

// runArt runs one registered rule on snapshot s with artifacts.
func runArt(t *testing.T, id string, s *snapshot.Snapshot, set *artifacts.Set, db string) Report {
	t.Helper()
	r, ok := Lookup(id)
	if !ok {
		t.Fatalf("rule %s is not registered", id)
	}
	rep := RunRules([]Rule{r}, &Input{Snap: s, Workload: WorkloadOLTP, DB: db, Artifacts: set})
	vetPasses(t, rep)
	return rep
}

// artFires asserts findings and returns them.
func artFires(t *testing.T, rep Report) []Finding {
	t.Helper()
	if len(rep.Findings) == 0 {
		t.Fatalf("did not fire; passed=%v cannot=%v n/a=%v", rep.Passed, rep.CannotCheck, rep.NotApplicable)
	}
	for _, f := range rep.Findings {
		if f.Setting == "" || f.Current == "" || f.Recommended == "" || f.Evidence == "" || len(f.Sources) == 0 || f.Why == "" {
			t.Fatalf("incomplete finding %+v", f)
		}
	}
	return rep.Findings
}

// artQuiet asserts no finding and one outcome of the given kind: "passed", "cannot" or "n/a".
func artQuiet(t *testing.T, rep Report, kind string) string {
	t.Helper()
	if len(rep.Findings) > 0 {
		t.Fatalf("fired unexpectedly: %+v", rep.Findings)
	}
	var list []Result
	switch kind {
	case "passed":
		list = rep.Passed
	case "cannot":
		list = rep.CannotCheck
	case "n/a":
		list = rep.NotApplicable
	}
	if len(list) != 1 {
		t.Fatalf("want %s; passed=%v cannot=%v n/a=%v", kind, rep.Passed, rep.CannotCheck, rep.NotApplicable)
	}
	return list[0].Reason
}

func TestOraInstancesMergeInitAndAlert(t *testing.T) {
	set := artSet(t, "initORCL.ora=*.cpu_count=4\n*.db_name=ORCL\n", "alert_ORCL.log=Starting ORACLE instance (normal)\nSystem parameters with non-default values:\n  cpu_count = 8\n  sga_target = 2G\n")
	in := &Input{Snap: host(), Artifacts: set}
	insts := in.oraInstances()
	if len(insts) != 1 || insts[0].SID != "ORCL" || insts[0].Params == nil || insts[0].Alert == nil {
		t.Fatalf("%+v", insts)
	}
	if v, where, _ := insts[0].Param("cpu_count"); v != "4" || where != "initORCL.ora:1" {
		t.Fatalf("cpu_count %s at %s: the init file wins", v, where)
	}
	if v, where, _ := insts[0].Param("sga_target"); v != "2G" || where != "alert_ORCL.log:4" {
		t.Fatalf("sga_target %s at %s", v, where)
	}
}

// TestArtMergeRACInstances: the instances of one RAC pfile that read the
// same line give one finding naming both.
func TestArtMergeRACInstances(t *testing.T) {
	fs := artFires(t, runArt(t, "db.oracle-filesystemio-options", host(), artSet(t, "initRAC.ora=*.db_name=R\n*.cluster_database=true\n"+
		"R1.instance_number=1\nR2.instance_number=2\n*.filesystemio_options=ASYNCH\n"), DBOracle))
	if len(fs) != 1 || fs[0].Current != "ASYNCH for instances R1, R2 (asynchronous but buffered: double caching)" {
		t.Fatalf("%+v", fs)
	}
}

func TestOraInstancesSkipASM(t *testing.T) {
	set := artSet(t, "alert_+ASM1.log=Starting ORACLE instance (normal)\nSystem parameters with non-default values:\n  instance_type = \"asm\"\n")
	if insts := (&Input{Snap: host(), Artifacts: set}).oraInstances(); len(insts) != 0 {
		t.Fatalf("%+v", insts[0])
	}
}
