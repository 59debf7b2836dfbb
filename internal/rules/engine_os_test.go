package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestOSScope: on an AIX snapshot every Linux rule is "not applicable"
// (saying so) and judges nothing; on a Linux snapshot every AIX rule is;
// a report diagnosis (HostOptional) runs on AIX as without a host.
func TestOSScope(t *testing.T) {
	aix := Run(&Input{Snap: aixHost(), Workload: WorkloadOLTP, DB: DBOracle})
	lin := Run(&Input{Snap: host(), Workload: WorkloadOLTP, DB: DBOracle})
	na := func(rep Report) map[string]string {
		m := map[string]string{}
		for _, r := range rep.NotApplicable {
			m[r.ID] = r.Reason
		}
		return m
	}
	aixNA, linNA := na(aix), na(lin)
	nAIX := 0
	for _, r := range All() {
		switch {
		case r.RunsOn(OSAIX) && !r.RunsOn(OSLinux):
			nAIX++
			if !strings.Contains(linNA[r.ID], "applies to AIX hosts; this host runs Linux") {
				t.Errorf("%s on Linux: want not applicable, got %q", r.ID, linNA[r.ID])
			}
		case !r.RunsOn(OSAIX) && !r.HostOptional:
			if !strings.Contains(aixNA[r.ID], "applies to Linux hosts; this host runs AIX") {
				t.Errorf("%s on AIX: want not applicable, got %q", r.ID, aixNA[r.ID])
			}
		}
	}
	if nAIX == 0 {
		t.Fatal("no AIX rule registered")
	}
	for _, f := range aix.Findings {
		if r, _ := Lookup(f.ID); !r.RunsOn(OSAIX) {
			t.Errorf("Linux rule %s judged an AIX host: %+v", f.ID, f)
		}
	}
	if HostOS(&snapshot.Snapshot{Source: snapshot.Source{Kind: "aix-bundle"}}) != OSAIX || HostOS(host()) != OSLinux || HostOS(nil) != OSLinux {
		t.Error("HostOS")
	}
	if r, _ := Lookup("middle.datasource-foreground-validation"); r.Systems() != "Linux and AIX" {
		t.Errorf("artifact-only rule: %q", r.Systems())
	}
}

func TestDetectDBOnAIX(t *testing.T) {
	db, ev := DetectDB(aixHost(), nil)
	if db != DBOracle || !strings.Contains(ev, "ora_pmon_ORCL") {
		t.Fatalf("%s %s", db, ev)
	}
}

// TestAIXSnapshotRoundTrip: the AIX test host survives the snapshot's
// JSON form (what --snapshot reads), and audits the same after it.
func TestAIXSnapshotRoundTrip(t *testing.T) {
	b, err := json.Marshal(aixHost())
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Parse("aix.json", b)
	if err != nil {
		t.Fatal(err)
	}
	if HostOS(s) != OSAIX {
		t.Fatal("not AIX after parsing")
	}
}
