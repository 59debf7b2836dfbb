package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/drift"
	"github.com/dbhost/dbhost/internal/plan"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// A view's text and Markdown come from one renderer: every word of the
// text is in the Markdown (backticks, escapes, brackets and commas around a word
// and words without a letter or digit aside), the Markdown's
// tables have as many cells in every row as in their header, and a list
// item never starts a nested list.
func checkSameView(t *testing.T, name string, text, md []byte) {
	t.Helper()
	plain := strings.NewReplacer("`", "", "\\", "").Replace(string(md))
	words := map[string]bool{}
	for _, w := range strings.Fields(plain) {
		words[strings.Trim(w, "|")] = true
	}
	for _, w := range strings.Fields(string(text)) {
		if !strings.ContainsFunc(w, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue // layout (→, —, a lone -), not a word
		}
		if !words[w] && !strings.Contains(plain, strings.TrimSuffix(w, ":")) && !strings.Contains(string(md), w) && !words[strings.Trim(w, "[](),;")] {
			t.Errorf("%s: %q of the text is not in the Markdown", name, w)
		}
	}
	cells := -1
	for i, l := range strings.Split(string(md), "\n") {
		switch {
		case strings.HasPrefix(l, "|"):
			n := strings.Count(strings.ReplaceAll(l, "\\|", ""), "|") - 1
			if cells < 0 {
				cells = n
			} else if n != cells {
				t.Errorf("%s: Markdown line %d has %d cells, its table %d: %q", name, i+1, n, cells, l)
			}
		default:
			cells = -1
		}
		if strings.HasPrefix(l, "- ") && strings.ContainsRune("-+*", rune(strings.TrimPrefix(l, "- ")[0])) {
			t.Errorf("%s: Markdown line %d starts a nested list: %q", name, i+1, l)
		}
	}
}

func TestNUMAViewMarkdown(t *testing.T) {
	for _, h := range []string{"odd-8n", "numa-off", "interleaved-4n"} {
		s, _ := fixtureReport(t, h)
		v := NUMANodes(s)
		v.AddSample("since boot", snapshot.CPULoad{}, s.CPULoad, snapshot.IRQs{}, s.IRQs)
		md := v.Markdown()
		checkSameView(t, h, v.Text(), md)
		if !strings.Contains(string(md), "| Node_0 |") || !strings.Contains(string(md), "## node distances") {
			t.Errorf("%s:\n%s", h, md)
		}
	}
	s, _ := fixtureReport(t, "rhel9")
	var ps []*ProcNUMA
	for _, p := range s.Processes {
		if p.NUMA != nil {
			pn := &ProcNUMA{PID: p.PID, Comm: p.Comm, Instance: p.Instance, CPUsAllowed: p.CPUsAllowed, MemsAllowed: p.MemsAllowed, LastCPU: p.LastCPU, Pages: p.NUMA}
			pn.Judge(s.Topology, nil)
			ps = append(ps, pn)
		}
	}
	if len(ps) == 0 {
		t.Fatal("the rhel9 fixture has no process with numa_maps")
	}
	checkSameView(t, "numa --pid", ProcText(ps), ProcMarkdown(ps))
}

func TestDriftMarkdown(t *testing.T) {
	load := func(h string) *snapshot.Snapshot {
		s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", h+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	d, err := drift.Compare(load("rhel8"), "rhel8.json", load("rhel9"), "rhel9.json")
	if err != nil {
		t.Fatal(err)
	}
	md := DriftMarkdown(d)
	checkSameView(t, "diff", DriftText(d, 100000), md)
	if !strings.HasPrefix(string(md), "# Drift of ") || !strings.Contains(string(md), "## SETTINGS (") || !strings.Contains(string(md), "- \\+ `") {
		t.Errorf("diff Markdown:\n%s", md)
	}
}

// collect's summary in Markdown, for every golden host (Linux and AIX).
func TestSummaryMarkdown(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.json"))
	aix, _ := filepath.Glob(filepath.Join("..", "facts", "aix", "testdata", "golden", "*.json"))
	if len(files) == 0 || len(aix) == 0 {
		t.Fatal("no golden snapshots")
	}
	for _, f := range append(files, aix...) {
		s, err := snapshot.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		md := SummaryMarkdown(s)
		checkSameView(t, filepath.Base(f), Summary(s), md)
		if !strings.HasPrefix(string(md), "# Host ") || !strings.Contains(string(md), "\n## ") || !strings.Contains(string(md), "|---|") {
			t.Errorf("%s: collect Markdown:\n%s", f, md)
		}
	}
}

// plan's summary in Markdown, for every fixture host: the same view, and
// the settings already in place listed when nothing is left to change.
func TestPlanMarkdown(t *testing.T) {
	hosts, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", "*.json"))
	if len(hosts) == 0 {
		t.Fatal("no golden snapshots")
	}
	for _, f := range hosts {
		s, err := snapshot.Load(f)
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Build(s, plan.Options{Workload: "oltp", Now: time.Unix(0, 0)})
		if err != nil {
			t.Fatal(err)
		}
		md := PlanMarkdown(p, "out/plan")
		checkSameView(t, filepath.Base(f), PlanSummary(p, "out/plan"), md)
		if !strings.HasPrefix(string(md), "# dbhost plan for ") || !strings.Contains(string(md), "\n## Changes (") || !strings.Contains(string(md), "`out/plan/plan.json`") {
			t.Errorf("%s: plan Markdown:\n%s", f, md)
		}
		// Everything in place: the summary still lists what the artifacts keep.
		for i := range p.Changes {
			p.Changes[i].InPlace = true
		}
		if txt := string(PlanSummary(p, "")); len(p.Changes) > 0 && (!strings.Contains(txt, "Changes (0):\n  none\n") || !strings.Contains(txt, "Already in place")) {
			t.Errorf("%s: the settings in place are not listed:\n%s", f, txt)
		}
	}
}

// verify's view in Markdown: checks (grouped CPUs, a drift and its cause),
// a damaged journal (more than 10 places) and an interrupted apply.
func TestVerifyMarkdown(t *testing.T) {
	checks := []apply.Check{{Kind: "sysctl", Setting: "vm.swappiness", Want: "1", Live: "60", Status: "drifted", Rule: "memory.swappiness", Cause: "/etc/sysctl.d/99-x.conf sets vm.swappiness = 60"}}
	for cpu := 0; cpu < 4; cpu++ {
		p := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/power/energy_perf_bias", cpu)
		checks = append(checks, apply.Check{Kind: "sysfs", Setting: p, Want: "0", Live: "0", Status: "ok", Rule: "cpu.energy-perf-bias"})
	}
	var ds []apply.Damage
	for i := 0; i < 12; i++ {
		ds = append(ds, apply.Damage{Line: i + 3, Reason: "checksum mismatch"})
	}
	md := VerifyMarkdown("journal J", checks, ds, true)
	checkSameView(t, "verify", VerifyJournalText("journal J", checks, ds, true), md)
	for _, want := range []string{"# verify journal J\n", "x `vm.swappiness`: live 60", "\n  - cause: /etc/sysctl.d/", "- ... and 2 more", "journal J was INTERRUPTED"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("verify Markdown lacks %q:\n%s", want, md)
		}
	}
}
