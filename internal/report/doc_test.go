package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/drift"
	"github.com/dbhost/dbhost/internal/plan"
	"github.com/dbhost/dbhost/internal/rules"
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
	for _, w := range strings.Fields(strings.NewReplacer("`", "", "\\", "").Replace(string(text))) {
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

// dbhost awr in Markdown: every AWR and Statspack fixture alone (single
// instance, RAC instance, global RAC with its instances' tables, 8i to
// 23ai), two reports compared, and all of them compared; findings,
// problems and what could not be decided included.
func TestAWRMarkdown(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "artifacts", "testdata", "awr", "*"))
	if len(files) < 10 {
		t.Fatalf("AWR fixtures: %v", files)
	}
	item := func(f string) AWRItem {
		rs, errs := artifacts.LoadAWR([]string{f})
		if len(rs) != 1 || len(errs) != 0 {
			t.Fatalf("%s: %v", f, errs)
		}
		d := rules.DiagnoseAWR(rs[0], nil)
		return AWRItem{Report: rs[0], Findings: d.Findings, CannotCheck: d.CannotCheck, Rules: len(rules.AWRRules()),
			Problems: []string{rs[0].File + ":61: Top 5 Timed Foreground Events: expected a number in the Waits column, got \"###\""}}
	}
	compare := func(items []AWRItem) *artifacts.AWRComparison {
		var reps []*artifacts.AWRReport
		for _, it := range items {
			reps = append(reps, it.Report)
		}
		return artifacts.CompareAWR(reps)
	}
	var all []AWRItem
	findings, global := 0, false
	for _, f := range files {
		it := item(f)
		all = append(all, it)
		findings += len(it.Findings)
		md := string(AWRMarkdown([]AWRItem{it}, nil))
		checkSameView(t, f, AWRText([]AWRItem{it}, nil, FindingsOptions{}), []byte(md))
		if !strings.HasPrefix(md, "# "+f+" — ") || !strings.Contains(md, "\n## Diagnosis") || strings.Contains(md, "Comparison") ||
			!strings.Contains(md, "\ncould not read: "+f+":61: ") {
			t.Errorf("%s: awr Markdown:\n%s", f, md)
		}
		if len(it.Report.TopEvents) > 0 && !strings.Contains(md, "\n| Top events | waits | time (s) | avg (ms) | % DB time | class |\n|---|") {
			t.Errorf("%s: no top events table:\n%s", f, md)
		}
		for _, in := range it.Report.Instances {
			if len(in.TopEvents) > 0 {
				global = true
				if !strings.Contains(md, fmt.Sprintf("\n| Instance %d %s (", in.Number, in.Name)) {
					t.Errorf("%s: no table for instance %d:\n%s", f, in.Number, md)
				}
			}
		}
		for _, fd := range it.Findings {
			if !strings.Contains(md, "- ["+strings.ToUpper(fd.Severity)+"] "+fd.Title+" — `"+fd.ID+"`\n  - **") {
				t.Errorf("%s: finding %s is not a list item with nested fields:\n%s", f, fd.ID, md)
			}
			for _, c := range fd.Fix.Runtime {
				if !strings.Contains(md, "  - **fix now**: "+mdCode(c)+"\n") && !strings.Contains(md, "  - "+mdCode(c)+"\n") {
					t.Errorf("%s: fix %q is not whole, as code:\n%s", f, c, md)
				}
			}
		}
	}
	if findings == 0 || !global {
		t.Fatalf("the fixtures gave %d findings, a global RAC report with instances: %v", findings, global)
	}
	for name, items := range map[string][]AWRItem{"two reports": all[:2], "all reports": all} {
		cmp := compare(items)
		md := string(AWRMarkdown(items, cmp))
		checkSameView(t, name, AWRText(items, cmp, FindingsOptions{}), []byte(md))
		head := "| Event (time s / avg ms / % DB time) |"
		for i := range items {
			head += fmt.Sprintf(" [%d] |", i+1)
		}
		for i := 2; i <= len(items); i++ {
			head += fmt.Sprintf(" [%d]-[1] time s | %% DB time |", i)
		}
		if !strings.Contains(md, "\n# Comparison (each report against the first, "+items[0].Report.File+")\n") ||
			!strings.Contains(md, "\n"+head+"\n|---|") || !strings.Contains(md, "\n| Load per second | [1] | [2] |") ||
			strings.Count(md, "\n## Diagnosis") != len(items) {
			t.Errorf("%s: awr Markdown comparison:\n%s", name, md)
		}
	}
}

// apply's view in Markdown: every status, CPUs grouped, the kernel's own
// changes, a pending reboot's command; the warnings stay apart (standard
// error), as in text.
func TestApplyMarkdown(t *testing.T) {
	r := sampleApply()
	md := string(ApplyMarkdown(r))
	checkSameView(t, "apply", ApplyText(r), []byte(md))
	for _, want := range []string{"# dbhost apply\n", "\n\\+ `vm.swappiness`: 60 → 1  [memory.swappiness]",
		"\nx `vm.nr_hugepages`: 0 → 1024  [memory.hugepages-sga]\n\n  - failed: the kernel kept 512",
		"\n\\> `numa=off`: present → absent", "  - pending reboot: `grubby --update-kernel=ALL --remove-args=numa=off`\n",
		"\n\\- `/sys/block/nvme0n1/queue/nomerges`", "  - the kernel also changed `/proc/sys/vm/min_free_kbytes`: 67584 → 45056",
		"\n11 applied, 1 already set, 1 failed, 1 refused (risky), 1 pending reboot, 1 manual, 1 not on this host; journal 20261122T064512.123456789Z"} {
		if !strings.Contains(md, want) {
			t.Errorf("apply Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "made for host") {
		t.Errorf("a warning in the Markdown (it goes to standard error):\n%s", md)
	}
	r.DryRun, r.JournalID = true, ""
	if md := string(ApplyMarkdown(r)); !strings.HasPrefix(md, "# dbhost apply\n\ndbhost apply --dry-run: nothing is changed\n") {
		t.Errorf("dry run:\n%s", md)
	}
}

// rollback's view in Markdown: a value that could not be restored (the
// journal stays open), a file removed, a journal stopped at its damage with
// what it did not restore, journals already rolled back or empty.
func TestRollbackMarkdown(t *testing.T) {
	r := sampleRollback()
	md := string(RollbackMarkdown(r))
	checkSameView(t, "rollback", RollbackText(r), []byte(md))
	for _, want := range []string{"# dbhost rollback\n",
		"\nx `vm.nr_hugepages` (`/proc/sys/vm/nr_hugepages`): 512 → 0\n\n  - could not restore: write /proc/sys/vm/nr_hugepages: device or resource busy\n",
		"\njournal J3: 6 value(s) restored, 1 already at their old value, 1 NOT restored (the journal stays open)\n",
		"\n\\- `/etc/security/limits.d/90-dbhost.conf`: (dbhost's) → (absent) (file removed",
		"\njournal J2 is DAMAGED (11 place(s)):\n\n- line 4: checksum mismatch\n", "- ... and 1 more\n",
		"\nNOT restored (restore them by hand; newest first):\n\n- ! `vm.swappiness` (`/proc/sys/vm/swappiness`): recorded old value \"60\"\n",
		"\n  - with it the kernel changed (or may have changed), old values: `/proc/sys/vm/min_free_kbytes` \"67584\"\n",
		"- ! and whatever the lost entries at the end recorded: unknown\n", "\njournal J1: already rolled back, nothing to do\n"} {
		if !strings.Contains(md, want) {
			t.Errorf("rollback Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "legacy") {
		t.Errorf("the legacy warning in the Markdown (it goes to standard error):\n%s", md)
	}
}

// mdInline escapes markup outside code spans only.
func TestMDInline(t *testing.T) {
	for in, want := range map[string]string{
		"vm.dirty_ratio 20":             "vm.dirty_ratio 20",
		"_enable_NUMA_support = TRUE":   "\\_enable_NUMA_support = TRUE",
		"plan for <host> with a<b":      "plan for \\<host> with a\\<b",
		"cpu* governors; 2 * 3":         "cpu\\* governors; 2 \\* 3",
		"`cpu*/cpufreq` and `a<b` kept": "`cpu*/cpufreq` and `a<b` kept",
		"``a`b_*`` then *x*":            "``a`b_*`` then \\*x\\*",
		"an unmatched ` then _x_":       "an unmatched ` then \\_x\\_",
		"`unclosed ``double`` *":        "`unclosed ``double`` \\*",
		"":                              "",
		"__init__ of a_b":               "\\_\\_init\\_\\_ of a_b",
		"`` ` `` <":                     "`` ` `` \\<",
		`numa\_balancing and C:\x`:      `numa\\\_balancing and C:\x`,
	} {
		if got := mdInline(in); got != want {
			t.Errorf("mdInline(%q) = %q, want %q", in, got, want)
		}
	}
}
