package lab

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/plan"
)

func twoNodeCase() (*ApplyCase, []Node) {
	return &ApplyCase{NUMABalancing: "1", BootTHP: "never", THP: "madvise", Swappiness: "10",
			BootHugepages: map[int]int64{0: 4, 1: 4}, Hugepages: map[int]int64{0: 6, 1: 2}},
		[]Node{{ID: 0, CPUs: []int{0}, MemMB: 256}, {ID: 1, CPUs: []int{1}, MemMB: 288}}
}

func memorylessCase() (*ApplyCase, []Node) {
	return &ApplyCase{NUMABalancing: "1", BootTHP: "never", THP: "madvise", Swappiness: "10",
			BootHugepages: map[int]int64{0: 0, 1: 0, 2: 0}, Hugepages: map[int]int64{0: 4, 1: 4, 2: 2}, Memoryless: []int{1}},
		[]Node{{ID: 0, CPUs: []int{0}, MemMB: 256}, {ID: 1, CPUs: []int{1}}, {ID: 2, MemMB: 192}}
}

// The plan is what apply loads: it parses back, and holds the opposite of
// numa_balancing, THP, swappiness and every node's pool.
func TestApplyCasePlan(t *testing.T) {
	c, nodes := twoNodeCase()
	for _, nb := range []struct{ boot, want string }{{"1", "0"}, {"0", "1"}} {
		c.NUMABalancing = nb.boot
		b, err := c.Plan().JSON()
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Parse(b)
		if err != nil {
			t.Fatalf("plan.json does not load: %v\n%s", err, b)
		}
		got := map[string]string{}
		for _, ch := range p.Changes {
			if !ch.Runtime() {
				t.Errorf("%+v is not a runtime change", ch)
			}
			got[ch.Path()] = ch.Value
		}
		want := map[string]string{
			pathNUMABalancing:    nb.want,
			pathSwappiness:       "10",
			pathTHP:              "madvise",
			nodeHugepagesPath(0): "6",
			nodeHugepagesPath(1): "2",
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("boot numa_balancing %s: plan changes %v, want %v", nb.boot, got, want)
		}
	}
	cols := c.Columns(nodes)
	if want := []string{pathNUMABalancing, pathSwappiness, pathTHP, pathMinFree, pathNrHugepages, nodeHugepagesPath(0), nodeHugepagesPath(1)}; fmt.Sprint(cols) != fmt.Sprint(want) {
		t.Errorf("columns %v, want %v", cols, want)
	}
}

// The guest snippet carries the plan verbatim in its heredoc.
func TestApplyGuestCarriesPlan(t *testing.T) {
	c, nodes := memorylessCase()
	g, err := c.Guest(nodes)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(g, "<<'PLAN_EOF'\n")
	body, _, ok2 := strings.Cut(rest, "\nPLAN_EOF\n")
	if !ok || !ok2 {
		t.Fatalf("no plan heredoc in:\n%s", g)
	}
	p, err := plan.Parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 6 || p.Changes[5].Key != nodeHugepagesPath(2) {
		t.Errorf("plan in the guest: %+v", p.Changes)
	}
	for _, want := range []string{"DBHOST_TEST_KILL_AT=$n", "rollback --state-dir /tmp/k$n", "cols=\"" + pathNUMABalancing, "max=80"} {
		if !strings.Contains(g, want) {
			t.Errorf("guest snippet lacks %q", want)
		}
	}
}

func TestParseApplyTable(t *testing.T) {
	good := "phase\trc\t/a\t/b\norig\t-\t1\talways [madvise] never\napply\t0\t0\t[never]\n"
	tab, err := ParseApplyTable(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 2 || tab.Row("apply").Values[1] != "[never]" || tab.Row("orig").RC != "-" || tab.Row("nope") != nil {
		t.Errorf("parsed %+v", tab)
	}
	for name, bad := range map[string]string{
		"empty":          "",
		"no header":      "orig\t-\t1\n",
		"short row":      "phase\trc\t/a\t/b\norig\t-\t1\n",
		"long row":       "phase\trc\t/a\norig\t-\t1\t2\n",
		"repeated phase": "phase\trc\t/a\norig\t-\t1\norig\t-\t1\n",
		"empty phase":    "phase\trc\t/a\n\t-\t1\n",
		"bad rc":         "phase\trc\t/a\napply\tx\t1\n",
		"rc range":       "phase\trc\t/a\napply\t300\t1\n",
		"repeated col":   "phase\trc\t/a\t/a\n",
		"no columns":     "phase\trc\n",
	} {
		if _, err := ParseApplyTable(bad); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// guestResult builds what a correct guest run returns for the case: table,
// journal and output; steps is the number of journal steps of a full apply.
func guestResult(t *testing.T, c *ApplyCase, nodes []Node, steps int) (cols []string, table string, journal []byte, out string) {
	t.Helper()
	cols = c.Columns(nodes)
	orig := make([]string, len(cols))
	for i, col := range cols {
		switch col {
		case pathNUMABalancing:
			orig[i] = c.NUMABalancing
		case pathSwappiness:
			orig[i] = "60"
		case pathTHP:
			orig[i] = "always madvise [never]"
		case pathMinFree:
			orig[i] = "2838"
		case pathNrHugepages:
			orig[i] = "8"
		default:
			orig[i] = "4"
			for n, v := range c.BootHugepages {
				if col == nodeHugepagesPath(n) {
					orig[i] = fmt.Sprint(v)
				}
			}
		}
	}
	applied := c.Want(cols, orig)
	for i, col := range cols {
		switch {
		case col == pathTHP:
			applied[i] = "always [madvise] never"
		case applied[i] == "":
			applied[i] = orig[i] + "0" // a side effect
		}
	}
	rc := "0"
	if len(c.Memoryless) > 0 {
		rc = "1"
	}
	var b strings.Builder
	row := func(phase, rc string, v []string) { fmt.Fprintf(&b, "%s\t%s\t%s\n", phase, rc, strings.Join(v, "\t")) }
	fmt.Fprintf(&b, "phase\trc\t%s\n", strings.Join(cols, "\t"))
	row("orig", "-", orig)
	row("apply", rc, applied)
	if c.applyTwice() {
		row("apply2", "0", applied)
	}
	row("rollback", "0", orig)
	row("rollback2", "0", orig)
	for n := 1; n <= steps+1; n++ {
		krc := "137"
		if n == steps+1 {
			krc = rc
		}
		row(fmt.Sprintf("kill%d-apply", n), krc, applied)
		row(fmt.Sprintf("kill%d-rollback", n), "0", orig)
	}
	var j strings.Builder
	enc := json.NewEncoder(&j)
	enc.Encode(apply.Entry{State: "start", ID: "x"})
	var watch []apply.Watched
	for i, col := range cols {
		if col == pathMinFree || col == pathNrHugepages {
			watch = append(watch, apply.Watched{Path: col, Old: orig[i] + "\n", New: applied[i] + "\n"})
		}
	}
	for i, ch := range c.Plan().Changes {
		enc.Encode(apply.Entry{Seq: i + 1, State: "begin", Kind: string(ch.Kind), Path: ch.Path(), Key: ch.Key, New: ch.Value})
		if ch.Path() == pathTHP {
			enc.Encode(apply.Entry{Seq: i + 1, State: "side", Watch: watch})
		}
		enc.Encode(apply.Entry{Seq: i + 1, State: "done"})
	}
	enc.Encode(apply.Entry{State: "end"})
	out = "== rollback again rc=0\njournal x: already rolled back, nothing to do\n"
	if c.applyTwice() {
		out += "== apply again rc=0 journals=1\n= vm.swappiness: 10 → 10\n    already set: nothing written\n"
	}
	if len(c.Memoryless) > 0 {
		out += `x node1: the kernel accepted "4" but kept "0"` + "\n"
	}
	return cols, b.String(), []byte(j.String()), out
}

// Judge passes a correct run and names expected and got for each way a
// run can be wrong.
func TestApplyJudge(t *testing.T) {
	for _, mk := range []func() (*ApplyCase, []Node){twoNodeCase, memorylessCase} {
		c, nodes := mk()
		cols, table, journal, out := guestResult(t, c, nodes, 26)
		judge := func(table string, journal []byte, out string) []string {
			tab, err := ParseApplyTable(table)
			if err != nil {
				t.Fatal(err)
			}
			return c.Judge(cols, tab, journal, out)
		}
		if bad := judge(table, journal, out); len(bad) > 0 {
			t.Fatalf("a correct run fails:\n%s\n%s", strings.Join(bad, "\n"), table)
		}
		lines := strings.Split(table, "\n")
		twice := func(want string) string { // only the cases that apply twice check it
			if c.applyTwice() {
				return want
			}
			return ""
		}
		edit := func(phase string, col int, v string) string {
			ls := append([]string(nil), lines...)
			for i, l := range ls {
				if f := strings.Split(l, "\t"); f[0] == phase {
					f[col] = v
					ls[i] = strings.Join(f, "\t")
				}
			}
			return strings.Join(ls, "\n")
		}
		for _, m := range []struct {
			table, out string
			journal    []byte
			want       string
		}{
			{edit("rollback", 3, "30"), out, journal, "after rollback /proc/sys/vm/swappiness: expected 60 (as before apply), got 30"},
			{edit("kill7-rollback", 2+len(cols)-1, "9"), out, journal, "after kill7-rollback " + cols[len(cols)-1] + ": expected "},
			{edit("kill7-rollback", 1, "1"), out, journal, "kill7-rollback exit status: expected 0, got 1"},
			{edit("apply", 2, c.NUMABalancing), out, journal, "after apply /proc/sys/kernel/numa_balancing: expected 0, got 1"},
			{edit("apply", 4, "always madvise [never]"), out, journal, "after apply /sys/kernel/mm/transparent_hugepage/enabled: expected [madvise]"},
			{edit("orig", 4, "always [madvise] never"), out, journal, "boot value of /sys/kernel/mm/transparent_hugepage/enabled: expected [never]"},
			{edit("orig", 2, "0"), out, journal, "boot value of /proc/sys/kernel/numa_balancing: expected 1"},
			{edit("kill5-apply", 1, "3"), out, journal, "kill at step 5: apply was not killed and exited 3"},
			{edit("kill27-apply", 1, "137"), out, journal, "kill loop: no row for step 28"},
			{table, "", journal, "already rolled back"},
			{edit("apply2", 3, "60"), out, journal, twice("second apply: expected exit 0 and the values of the first")},
			{table, strings.ReplaceAll(out, "journals=1", "journals=2"), journal, twice("second apply: expected \"nothing written\" and still 1 journal")},
			{table, out, nil, "journal.jsonl: empty"},
			{table, out, []byte(`{"seq":0,"state":"start"}` + "\n"), "without a side entry"},
		} {
			bad := judge(m.table, m.journal, m.out)
			if !strings.Contains(strings.Join(bad, "\n"), m.want) {
				t.Errorf("want %q among:\n%s", m.want, strings.Join(bad, "\n"))
			}
		}
		// Killed at too few steps: the hook did not fire at every step.
		_, short, _, _ := guestResult(t, c, nodes, 4)
		if bad := judge(short, journal, out); !strings.Contains(strings.Join(bad, "\n"), "kill loop: apply was killed at 4 steps") {
			t.Errorf("a short kill loop passes: %v", bad)
		}
		if len(c.Memoryless) > 0 {
			if bad := judge(edit("apply", 1, "0"), journal, strings.ReplaceAll(out, "kept", "has")); len(bad) < 2 {
				t.Errorf("a memoryless write reported as success passes: %v", bad)
			}
		}
	}
}

func TestApplyScenariosRegistered(t *testing.T) {
	names := map[string]*Scenario{}
	for _, s := range Scenarios() {
		names[s.Name] = s
	}
	for _, n := range []string{"apply-two-node", "apply-memoryless"} {
		s := names[n]
		if s == nil || s.Guest == "" || s.Check == nil {
			t.Fatalf("%s not registered with a guest hook and check", n)
		}
		if err := s.Check(&Result{Files: map[string][]byte{}}); err == nil {
			t.Errorf("%s: check passes a guest that sent no table", n)
		}
	}
}

func FuzzParseApplyTable(f *testing.F) {
	f.Add("phase\trc\t/a\t/b\norig\t-\t1\talways [madvise] never\napply\t0\t0\t[never]\n")
	f.Add("phase\trc\t/a\norig\t-\t1\norig\t-\t1\n")
	f.Fuzz(func(t *testing.T, s string) {
		tab, err := ParseApplyTable(s)
		if err != nil {
			return
		}
		for _, r := range tab.Rows {
			if len(r.Values) != len(tab.Cols) || r.Phase == "" || tab.Row(r.Phase) == nil {
				t.Fatalf("row %+v with %d columns", r, len(tab.Cols))
			}
		}
	})
}

// TestApplyCasePlansVet: the plans the lab's apply guests run are plans
// dbhost's catalog makes (apply --plan refuses any other change: issue 24).
func TestApplyCasePlansVet(t *testing.T) {
	two, _ := twoNodeCase()
	ml, _ := memorylessCase()
	for _, c := range []*ApplyCase{two, ml} {
		p := c.Plan()
		b, err := p.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Vet(b); err != nil {
			t.Errorf("the lab's plan is refused: %v", err)
		}
	}
}
