package rules

import (
	"encoding/json"
	"github.com/dbhost/dbhost/internal/change"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func okRule(id string) Rule {
	return Rule{ID: id, Area: "test", Title: "t", Severity: SevWarning,
		Sources: []Source{{Doc: Seed000, Section: "s", Quote: "q"}}, Check: func(*Input) Outcome { return Passed("ok") }}
}

func TestRegisterRejectsDuplicatesAndIncompleteRules(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: Register did not panic", name)
			}
		}()
		f()
	}
	Register(okRule("test.dup-check"))
	defer func() { regMu.Lock(); delete(registry, "test.dup-check"); regMu.Unlock() }()
	mustPanic("duplicate", func() { Register(okRule("test.dup-check")) })
	r := okRule("test.no-source")
	r.Sources = nil
	mustPanic("no source", func() { Register(r) })
	r = okRule("test.no-quote")
	r.Sources = []Source{{Doc: Seed003, Section: "s"}}
	mustPanic("seed source without a quote", func() { Register(r) })
	r = okRule("test.bad-sev")
	r.Severity = "high"
	mustPanic("bad severity", func() { Register(r) })
	r = okRule("test.no-check")
	r.Check = nil
	mustPanic("no check", func() { Register(r) })
	r = okRule("test.bad-workload")
	r.Workloads = []string{"batch"}
	mustPanic("bad workload", func() { Register(r) })
}

func TestRunFillsSortsAndClassifies(t *testing.T) {
	src := []Source{{Doc: Seed003, Section: "x", Quote: "q"}}
	list := []Rule{
		{ID: "b.info", Area: "b", Title: "B", Severity: SevInfo, Sources: src, Scope: Scope{Kernels: "all"},
			Check: func(*Input) Outcome { return Found(Finding{Setting: "s", Current: "1", Recommended: "0"}) }},
		{ID: "a.crit", Area: "a", Title: "A", Severity: SevWarning, Sources: src,
			Check: func(*Input) Outcome { return Found(Finding{Severity: SevCritical, Setting: "s"}) }},
		{ID: "c.warn", Area: "c", Title: "C", Severity: SevWarning, Sources: src,
			Check: func(*Input) Outcome { return Found(Finding{Setting: "s"}) }},
		{ID: "d.pass", Area: "d", Title: "D", Severity: SevWarning, Sources: src,
			Check: func(*Input) Outcome { return Passed("fine").Reading("/x = 1") }},
		{ID: "e.cannot", Area: "e", Title: "E", Severity: SevWarning, Sources: src,
			Check: func(in *Input) Outcome { return CannotCheck("%s", AbsentReason(in.Snap, "memory.thp")) }},
		{ID: "f.panic", Area: "f", Title: "F", Severity: SevWarning, Sources: src,
			Check: func(in *Input) Outcome { var m map[string]int; m["x"] = 1; return Outcome{} }},
		{ID: "g.oltp", Area: "g", Title: "G", Severity: SevWarning, Sources: src, Workloads: []string{WorkloadOLTP},
			Check: func(*Input) Outcome { t.Fatal("ran out of scope"); return Outcome{} }},
		{ID: "h.oracle", Area: "h", Title: "H", Severity: SevWarning, Sources: src, DBs: []string{DBOracle},
			Check: func(*Input) Outcome { t.Fatal("ran out of scope"); return Outcome{} }},
		{ID: "i.empty", Area: "i", Title: "I", Severity: SevWarning, Sources: src,
			Check: func(*Input) Outcome { return Outcome{} }},
	}
	s := host()
	absent(s, "memory.thp.enabled", "not present on this host")
	rep := RunRules(list, &Input{Snap: s, Workload: WorkloadDSS, DB: DBPostgres})
	var ids []string
	for _, f := range rep.Findings {
		ids = append(ids, f.ID+":"+f.Severity)
	}
	if got := strings.Join(ids, " "); got != "a.crit:critical c.warn:warning b.info:info" {
		t.Fatalf("order = %s", got)
	}
	b := rep.Findings[2]
	if b.Area != "b" || b.Title != "B" || len(b.Sources) != 1 || b.Scope.Kernels != "all" || b.Fix.Runtime == nil {
		t.Fatalf("not filled from rule: %+v", b)
	}
	// An empty outcome names nothing it read: no pass (issue 26).
	if rep.Host != "db1" || len(rep.Passed) != 1 || rep.Passed[0].Evidence != "/x = 1" {
		t.Fatalf("passed = %+v", rep.Passed)
	}
	if len(rep.CannotCheck) != 3 || rep.CannotCheck[0].Reason != "memory.thp.enabled: not present on this host (/x)" ||
		!strings.Contains(rep.CannotCheck[1].Reason, "internal error in rule f.panic") || rep.CannotCheck[2].Reason != NoEvidence {
		t.Fatalf("cannot = %+v", rep.CannotCheck)
	}
	if len(rep.NotApplicable) != 2 || !strings.Contains(rep.NotApplicable[0].Reason, "oltp") {
		t.Fatalf("n/a = %+v", rep.NotApplicable)
	}
	if rep.Worst() != SevCritical || rep.AtLeast(SevWarning) != 2 || rep.AtLeast(SevInfo) != 3 {
		t.Fatalf("worst/atleast wrong")
	}
}

func TestAbsentReasonMatchesWholeNamesOnly(t *testing.T) {
	s := host()
	absent(s, "topology.nodes[1].distances", "malformed: line 1")
	absent(s, "memory.thpx", "other")
	if r := AbsentReason(s, "topology.nodes"); !strings.HasPrefix(r, "topology.nodes[1].distances: malformed") {
		t.Fatalf("got %q", r)
	}
	if r := AbsentReason(s, "memory.thp"); r != "" {
		t.Fatalf("prefix matched another fact: %q", r)
	}
	// The part of the snapshot holding a fact answers for it (a reader
	// that failed leaves its whole part absent).
	absent(s, "cpu_power", "internal error in the cpupower reader")
	if r := AbsentReason(s, "cpu_power.cpuidle"); !strings.HasPrefix(r, "cpu_power: internal error") {
		t.Fatalf("section absence did not answer for its fact: %q", r)
	}
	if r := AbsentReason(s, "cpu_powerx.cpuidle"); r != "" {
		t.Fatalf("prefix matched another section: %q", r)
	}
	if r := AbsentReason(nil, "x"); r == "" {
		t.Fatal("nil snapshot gave no reason")
	}
}

func TestDetectDB(t *testing.T) {
	s := host()
	if db, _ := DetectDB(s, nil); db != DBNone {
		t.Fatalf("no processes → %s", db)
	}
	if db, ev := DetectDB(s, &artifacts.Set{Files: []artifacts.File{{Path: "a.log", Kind: "oracle-alert-log"}}}); db != DBOracle || !strings.Contains(ev, "a.log") {
		t.Fatalf("artifact → %s %s", db, ev)
	}
	s.Processes = []snapshot.Process{{Comm: "postgres", Engine: "postgres"}, {Comm: "postgres", Engine: "postgres"}, {Comm: "ora_pmon_X", Engine: "oracle"}}
	if db, ev := DetectDB(s, &artifacts.Set{Files: []artifacts.File{{Path: "a.log", Kind: "oracle-alert-log"}}}); db != DBPostgres || !strings.Contains(ev, "also oracle") {
		t.Fatalf("processes → %s (%s)", db, ev)
	}
	s.Processes = []snapshot.Process{{Comm: "mariadbd", Engine: "mariadb"}}
	if db, _ := DetectDB(s, nil); db != DBMySQL {
		t.Fatalf("mariadb → %s", db)
	}
	// A live server the user connected to names the database before the processes.
	s.Databases = []snapshot.Database{{Engine: "postgres", Connection: "user=m host=db2 port=5432 dbname=postgres"}}
	if db, ev := DetectDB(s, nil); db != DBPostgres || !strings.Contains(ev, "live postgres server read (user=m host=db2") {
		t.Fatalf("live server → %s (%s)", db, ev)
	}
	// A server named but not read (wrong password): the engine asked for,
	// and a header that says it was not read, with the server's error.
	s.Databases[0].Error = "FATAL: password authentication failed for user \"m\""
	if db, ev := DetectDB(s, nil); db != DBPostgres || strings.Contains(ev, "server read") || !strings.Contains(ev, "NOT read") || !strings.Contains(ev, "password authentication failed") {
		t.Fatalf("server not read → %s (%s)", db, ev)
	}
	rep := RunRules(nil, &Input{Snap: s, DB: DBPostgres})
	if len(rep.ServersNotRead) != 1 || rep.ServersNotRead[0].Error != s.Databases[0].Error || rep.ServersNotRead[0].Connection != s.Databases[0].Connection {
		t.Fatalf("report: %+v", rep.ServersNotRead)
	}
}

var idRe = regexp.MustCompile(`^[a-z]+\.[a-z0-9]+(-[a-z0-9]+)*$`)

// TestCatalog holds every registered rule to the catalog's conventions.
func TestCatalog(t *testing.T) {
	seeds := map[string]bool{Seed000: true, Seed001: true, Seed002: true, Seed003: true, Seed004: true}
	for _, r := range All() {
		if !idRe.MatchString(r.ID) || !strings.HasPrefix(r.ID, r.Area+".") {
			t.Errorf("%s: id must be area.kebab-name with area %q", r.ID, r.Area)
		}
		for _, s := range r.Sources {
			if _, vendor := vendorDoc(s.Doc); !seeds[s.Doc] && !vendor && !strings.Contains(s.Doc, "://") {
				t.Errorf("%s: source %q is neither a seed nor a public reference", r.ID, s.Doc)
			}
		}
		base := fileBase(r.ID)
		if _, err := os.Stat(base + ".go"); err != nil {
			t.Errorf("%s: rule file must be %s.go (one file per rule)", r.ID, base)
		}
		if _, err := os.Stat(base + "_test.go"); err != nil {
			t.Errorf("%s: no test file %s_test.go beside the rule", r.ID, base)
		}
	}
}

// TestNoFindingWithoutFacts: a snapshot with nothing in it (every fact
// absent) makes no rule fire and no rule crash, for every workload and DB.
// An AIX snapshot holding nothing (every command missing) is the same.
func TestNoFindingWithoutFacts(t *testing.T) {
	for _, empty := range []*snapshot.Snapshot{{}, {AIX: &snapshot.AIX{}}} {
		os := HostOS(empty)
		for _, w := range Workloads {
			for _, db := range DBs {
				rep := Run(&Input{Snap: empty, Workload: w, DB: db})
				if len(rep.Findings) > 0 {
					t.Errorf("%s %s/%s: findings on an empty snapshot: %+v", os, w, db, rep.Findings)
				}
				for _, c := range rep.CannotCheck {
					if strings.Contains(c.Reason, "internal error") {
						t.Errorf("%s %s/%s: %s", os, w, db, c.Reason)
					}
				}
			}
		}
	}
}

func TestFindingJSONNames(t *testing.T) {
	b, _ := json.Marshal(fill(okRule("x.y"), Finding{}))
	for _, k := range []string{"id", "severity", "area", "title", "setting", "current", "recommended", "evidence", "why",
		"fix", "runtime", "persistent", "reboot_required", "risk", "sources", "doc", "section", "scope"} {
		if !strings.Contains(string(b), `"`+k+`":`) {
			t.Errorf("finding JSON lacks %q: %s", k, b)
		}
	}
}

// fileBase is the file name a rule lives in: "numa.disabled-at-boot" → "numa_disabled_at_boot".
func fileBase(id string) string { return strings.NewReplacer(".", "_", "-", "_").Replace(id) }

func TestKernel(t *testing.T) {
	for _, c := range []struct {
		in       string
		maj, min int
		ok       bool
	}{{"5.14.0-427.el9.x86_64", 5, 14, true}, {"3.10", 3, 10, true}, {"6.18rc1", 6, 18, true}, {"-1.0", 0, 0, false}, {"4.", 0, 0, false}, {"", 0, 0, false}} {
		maj, min, ok := Kernel(c.in)
		if maj != c.maj || min != c.min || ok != c.ok {
			t.Errorf("Kernel(%q) = %d.%d %v", c.in, maj, min, ok)
		}
	}
}

func TestOracleParam(t *testing.T) {
	ini, errs := artifacts.ParseInit([]byte("*.sga_target=24G\nORCL1.cpu_count=8\n*.cpu_count=4\n"))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ini.File = "initORCL.ora"
	alert := &artifacts.AlertLog{File: "alert_ORCL.log", Startups: []*artifacts.Startup{{SID: "ORCL1",
		Params: map[string]string{"use_large_pages": "ONLY"}, ParamLine: map[string]int{"use_large_pages": 77}}}}
	in := &Input{Snap: host(), Artifacts: &artifacts.Set{Params: []*artifacts.InitParams{ini}, AlertLogs: []*artifacts.AlertLog{alert}}}
	for _, c := range []struct{ sid, name, want, where string }{
		{"", "SGA_TARGET", "24G", "initORCL.ora:1"},
		{"ORCL1", "cpu_count", "8", "initORCL.ora:2"},
		{"", "cpu_count", "4", "initORCL.ora:3"},
		{"ORCL1", "use_large_pages", "ONLY", "alert_ORCL.log:77"},
	} {
		v, where, ok := in.OracleParam(c.sid, c.name)
		if !ok || v != c.want || where != c.where {
			t.Errorf("OracleParam(%q, %q) = %q %q %v", c.sid, c.name, v, where, ok)
		}
	}
	if _, _, ok := in.OracleParam("", "memory_target"); ok {
		t.Error("unset parameter found")
	}
	if _, _, ok := (&Input{Snap: host()}).OracleParam("", "x"); ok {
		t.Error("no artifacts, found")
	}
}

// TestHolds: of a rule's Wants, the engine keeps as Holds those whose
// current value is the value wanted and that no finding of the rule
// changes, named after the rule; Holding adds boot arguments as given.
func TestHolds(t *testing.T) {
	src := []Source{{Doc: Seed003, Section: "x", Quote: "q"}}
	sc := func(key, cur, val string) change.Change {
		return change.Change{Kind: change.Sysctl, Key: key, Current: cur, Value: val}
	}
	list := []Rule{{ID: "a.held", Area: "a", Title: "A", Severity: SevWarning, Sources: src, Check: func(*Input) Outcome {
		return Found(Finding{Setting: "k1", Changes: []change.Change{sc("k1", "60", "10")}}).
			Wanting(sc("k1", "10", "10"), // changed by the finding: not held
				sc("k2", "10", "10"),                  // in place
				sc("k3", "4096\t87380", "4096 87380"), // in place, blanks as the kernel prints them
				sc("k4", "5", "10"),                   // tolerated, not the value: not held
				sc("k5", "", "0"),                     // unknown: not held
				change.Change{Kind: change.BootArg, Key: "numa", Remove: true}). // boot arguments only through Holding
			Holding(change.Change{Kind: change.BootArg, Key: "transparent_hugepage", Value: "never", Current: "never"})
	}}}
	rep := RunRules(list, &Input{Snap: host(), Workload: WorkloadDSS, DB: DBNone})
	var got []string
	for _, h := range rep.Holds {
		got = append(got, h.Rule+":"+h.Key)
	}
	if strings.Join(got, " ") != "a.held:k2 a.held:k3 a.held:transparent_hugepage" {
		t.Fatalf("holds %v", got)
	}
}
