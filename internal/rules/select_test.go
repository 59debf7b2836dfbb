package rules

import (
	"strings"
	"testing"
)

func TestMatches(t *testing.T) {
	cases := []struct {
		id   string
		sel  []string
		want bool
	}{
		{"memory.swappiness", nil, false},
		{"memory.swappiness", []string{"memory"}, true},
		{"memory.swappiness", []string{"memory."}, true},
		{"memory.swappiness", []string{" memory.swappiness "}, true},
		{"memory.swappiness", []string{"memory.swap"}, false},
		{"memory.swappiness", []string{"mem"}, false},
		{"memory.swappiness", []string{"io", "memory.swappiness"}, true},
		{"memory.swappiness", []string{""}, false},
	}
	for _, c := range cases {
		if got := Matches(c.id, c.sel); got != c.want {
			t.Errorf("Matches(%q, %q) = %v, want %v", c.id, c.sel, got, c.want)
		}
	}
}

func TestCheckSelectors(t *testing.T) {
	if err := CheckSelectors("--skip", []string{"io", "memory.swappiness", "cpu."}); err != nil {
		t.Fatal(err)
	}
	err := CheckSelectors("--skip", []string{"io", "memory.swapiness"})
	if err == nil || !strings.Contains(err.Error(), `--skip "memory.swapiness"`) || !strings.Contains(err.Error(), "did you mean memory.swappiness?") {
		t.Fatalf("typo: %v", err)
	}
	if err := CheckSelectors("--only", []string{"bogus"}); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Fatalf("no suggestion expected for bogus: %v", err)
	}
}

func TestSkipLeavesRulesOut(t *testing.T) {
	rep := Run(&Input{Snap: nil, Workload: WorkloadMixed, DB: DBNone, Skip: []string{"memory", "cpu.smt-off"}})
	skipped := map[string]bool{}
	for _, r := range rep.Skipped {
		skipped[r.ID] = true
	}
	for _, r := range All() {
		want := r.Area == AreaMemory || r.ID == "cpu.smt-off"
		if skipped[r.ID] != want {
			t.Errorf("%s: skipped %v, want %v", r.ID, skipped[r.ID], want)
		}
	}
	for _, list := range [][]Result{rep.Passed, rep.CannotCheck, rep.NotApplicable} {
		for _, r := range list {
			if skipped[r.ID] {
				t.Errorf("%s left out but also run", r.ID)
			}
		}
	}
}

func TestDocumentNames(t *testing.T) {
	for _, f := range []string{Seed000, Seed001, Seed002, Seed003, Seed004} {
		d, ok := DocumentOf(f)
		if !ok || d.Title == "" || d.Year == "" || d.Short == "" {
			t.Errorf("%s: no document name: %+v", f, d)
		}
		c := Source{Doc: f, Section: "S", Quote: "q"}.Cite()
		if strings.Contains(c, f) || !strings.Contains(c, d.Title) {
			t.Errorf("Cite names the file, not the document: %s", c)
		}
	}
	u := Source{Doc: "https://docs.kernel.org/admin-guide/sysctl/vm.html", Section: "swappiness"}
	if u.DocShort() != "docs.kernel.org" || !strings.HasPrefix(u.Cite(), "https://docs.kernel.org/") {
		t.Errorf("URL source: %q %q", u.DocShort(), u.Cite())
	}
	// Every document a rule cites has a name.
	for _, r := range All() {
		for _, s := range r.Sources {
			if _, ok := DocumentOf(s.Doc); !ok && !strings.Contains(s.Doc, "://") {
				t.Errorf("%s cites %q, which has no document name (documents.go)", r.ID, s.Doc)
			}
		}
	}
}
