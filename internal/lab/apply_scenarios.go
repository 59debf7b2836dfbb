package lab

// Apply/rollback for real: scenarios that run `dbhost apply`, `dbhost
// rollback` and a SIGKILL of apply after every journal step inside a lab
// guest, on the guest's real kernel, and compare every value with the one
// recorded before (docs/lab.md, "Apply and rollback in the guests").

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/plan"
)

// Paths the apply scenarios change or watch.
const (
	pathNUMABalancing = "/proc/sys/kernel/numa_balancing"
	pathSwappiness    = "/proc/sys/vm/swappiness"
	pathMinFree       = "/proc/sys/vm/min_free_kbytes"
	pathNrHugepages   = "/proc/sys/vm/nr_hugepages"
	pathTHP           = "/sys/kernel/mm/transparent_hugepage/enabled"
)

func nodeHugepagesPath(node int) string {
	return fmt.Sprintf("/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/nr_hugepages", node)
}

// ApplyCase is what one apply scenario changes in its guest: the kernel's
// boot defaults it starts from (Current) and the values it asks for.
type ApplyCase struct {
	// NUMABalancing is the boot value of kernel.numa_balancing (the Debian
	// kernel enables it on a multi-node machine); the plan asks for the opposite.
	NUMABalancing string
	// BootTHP is the guest's boot value of
	// /sys/kernel/mm/transparent_hugepage/enabled ("never": the kernel
	// disables THP below 512 MB of RAM) and THP the value asked for.
	BootTHP, THP string
	// Swappiness is the value asked for vm.swappiness.
	Swappiness string
	// Hugepages is the 2 MB pool asked for per node; BootHugepages the pool
	// per node the guest boots with.
	Hugepages, BootHugepages map[int]int64
	// Memoryless lists the nodes without memory: their write is accepted by
	// the kernel but must come back FAILED by read-back, the pool unchanged.
	Memoryless []int
}

// Plan is the case as a plan.json, built from change.Change values the way
// `dbhost plan` writes it.
func (c *ApplyCase) Plan() *plan.Plan {
	opposite := map[string]string{"0": "1", "1": "0"}
	cs := []change.Change{
		{Kind: change.Sysctl, Key: "kernel.numa_balancing", Value: opposite[c.NUMABalancing], Current: c.NUMABalancing,
			Rule: "numa.balancing-with-db-shm", Why: "lab: the opposite of the boot value"},
		{Kind: change.Sysctl, Key: "vm.swappiness", Value: c.Swappiness, Current: "60",
			Rule: "memory.swappiness", Why: "lab: another value than the boot one"},
		{Kind: change.Sysfs, Key: pathTHP, Value: c.THP, Current: c.BootTHP,
			Rule: "memory.thp-enabled", Why: "lab: the kernel may change vm.min_free_kbytes with it"},
	}
	for _, n := range sortedNodes(c.Hugepages) {
		cs = append(cs, change.Change{Kind: change.Sysfs, Key: nodeHugepagesPath(n),
			Value: strconv.FormatInt(c.Hugepages[n], 10), Current: strconv.FormatInt(c.BootHugepages[n], 10),
			Rule: "memory.hugepages-too-few", Why: "lab: per-node pool"})
	}
	return &plan.Plan{SchemaVersion: plan.SchemaVersion, Host: "dbhost-lab", Workload: "oltp", DB: "lab",
		Changes: cs, PendingReboot: []change.Change{}, FindingsWithoutChanges: []plan.Advice{}}
}

func sortedNodes(m map[int]int64) []int {
	var ns []int
	for n := range m {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	return ns
}

// Columns are the files the guest reads after every step, in table order:
// the changed settings, the side effects the kernel may make (min_free_kbytes,
// the global pool) and every node's pool.
func (c *ApplyCase) Columns(nodes []Node) []string {
	cols := []string{pathNUMABalancing, pathSwappiness, pathTHP, pathMinFree, pathNrHugepages}
	for _, n := range nodes {
		cols = append(cols, nodeHugepagesPath(n.ID))
	}
	return cols
}

// maxKillSteps bounds the guest's kill loop (a plan of 7 changes has at most
// 2 + 7×4 journal steps).
const maxKillSteps = 80

// Guest is the shell snippet (busybox ash) the guest runs: it writes the
// plan, records the original values, applies, rolls back twice, then for
// every journal step N kills apply there and rolls back. After every step one
// row of $LAB_OUT/table.tsv holds the phase, the command's exit status and
// every column's value. Outputs of failed steps are kept in the guest output.
func (c *ApplyCase) Guest(nodes []Node) (string, error) {
	pj, err := c.Plan().JSON()
	if err != nil {
		return "", err
	}
	if strings.Contains(string(pj), "\nPLAN_EOF") {
		return "", errors.New("plan.json holds the heredoc marker")
	}
	cols := c.Columns(nodes)
	var b strings.Builder
	fmt.Fprintf(&b, "cat > /tmp/plan.json <<'PLAN_EOF'\n%sPLAN_EOF\n", pj)
	fmt.Fprintf(&b, "cols=%q\n", strings.Join(cols, " "))
	fmt.Fprintf(&b, "max=%d\n", maxKillSteps)
	if c.applyTwice() {
		b.WriteString("again=1\n")
	}
	b.WriteString(applyGuestBody)
	return b.String(), nil
}

const applyGuestBody = `T=$LAB_OUT/table.tsv
row() { # phase rc
	printf '%s\t%s' "$1" "$2"
	for f in $cols; do
		if v=$(cat $f 2>/dev/null); then printf '\t%s' "$v"; else printf '\t(absent)'; fi
	done
	echo
}
{ printf 'phase\trc'; for f in $cols; do printf '\t%s' $f; done; echo; } > $T
row orig - >> $T
$DBHOST apply --plan /tmp/plan.json --state-dir /tmp/st > /tmp/apply.out 2>&1; rc=$?
echo "== apply rc=$rc"; cat /tmp/apply.out
row apply $rc >> $T
cat /tmp/st/journal/*.jsonl > $LAB_OUT/journal.jsonl
if [ "$again" = 1 ]; then
	$DBHOST apply --plan /tmp/plan.json --state-dir /tmp/st > /tmp/apply2.out 2>&1; rc=$?
	echo "== apply again rc=$rc journals=$(ls /tmp/st/journal/*.jsonl | wc -l)"; cat /tmp/apply2.out
	row apply2 $rc >> $T
fi
$DBHOST rollback --state-dir /tmp/st > /tmp/rb.out 2>&1; rc=$?
echo "== rollback rc=$rc"; cat /tmp/rb.out
row rollback $rc >> $T
$DBHOST rollback --state-dir /tmp/st > /tmp/rb2.out 2>&1; rc=$?
echo "== rollback again rc=$rc"; cat /tmp/rb2.out
row rollback2 $rc >> $T
n=1
while [ $n -le $max ]; do
	DBHOST_TEST_KILL_AT=$n $DBHOST apply --plan /tmp/plan.json --state-dir /tmp/k$n > /tmp/k.out 2>&1; rc=$?
	row kill$n-apply $rc >> $T
	$DBHOST rollback --state-dir /tmp/k$n > /tmp/kr.out 2>&1; rrc=$?
	row kill$n-rollback $rrc >> $T
	if [ $rrc -ne 0 ]; then
		echo "== kill $n: apply rc=$rc"; tail -n 5 /tmp/k.out
		echo "== kill $n: rollback rc=$rrc"; cat /tmp/kr.out
		cat /tmp/k$n/journal/*.jsonl > $LAB_OUT/journal-kill$n.jsonl
	fi
	[ $rc -eq 137 ] || break
	n=$((n+1))
done
echo "== kill loop: $n runs"
`

// applyTwice: the guest applies the plan a second time right after the
// first, which must write nothing (no journal). Not with a memoryless node:
// its pool is not at the plan's value, so every apply tries it again.
func (c *ApplyCase) applyTwice() bool { return len(c.Memoryless) == 0 }

// ApplyTable is the guest's table.tsv: a header naming the columns, then one
// row per step.
type ApplyTable struct {
	Cols []string
	Rows []ApplyRow
}

// ApplyRow is one step: its phase ("orig", "apply", "kill3-rollback"), the
// command's exit status ("-" for none) and the value of every column.
type ApplyRow struct {
	Phase  string
	RC     string
	Values []string
}

// ParseApplyTable reads table.tsv. Every row must have one value per column
// and a phase of its own; an empty table is an error.
func ParseApplyTable(s string) (*ApplyTable, error) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return nil, errors.New("table: empty")
	}
	head := strings.Split(strings.TrimRight(lines[0], "\r"), "\t")
	if len(head) < 3 || head[0] != "phase" || head[1] != "rc" {
		return nil, fmt.Errorf("table line 1: expected \"phase\\trc\\t<path>...\", got %q", trunc(lines[0], 60))
	}
	t := &ApplyTable{Cols: head[2:]}
	seen := map[string]bool{}
	for _, c := range t.Cols {
		if c == "" || seen[c] {
			return nil, fmt.Errorf("table line 1: empty or repeated column %q", c)
		}
		seen[c] = true
	}
	phases := map[string]bool{}
	for i, l := range lines[1:] {
		f := strings.Split(strings.TrimRight(l, "\r"), "\t")
		if len(f) != len(head) {
			return nil, fmt.Errorf("table line %d: %d fields, expected %d: %q", i+2, len(f), len(head), trunc(l, 80))
		}
		if f[0] == "" || phases[f[0]] {
			return nil, fmt.Errorf("table line %d: empty or repeated phase %q", i+2, f[0])
		}
		if f[1] != "-" {
			if rc, err := strconv.Atoi(f[1]); err != nil || rc < 0 || rc > 255 {
				return nil, fmt.Errorf("table line %d: exit status %q", i+2, trunc(f[1], 20))
			}
		}
		phases[f[0]] = true
		t.Rows = append(t.Rows, ApplyRow{Phase: f[0], RC: f[1], Values: f[2:]})
	}
	return t, nil
}

// Row returns the row of a phase, nil when there is none.
func (t *ApplyTable) Row(phase string) *ApplyRow {
	for i := range t.Rows {
		if t.Rows[i].Phase == phase {
			return &t.Rows[i]
		}
	}
	return nil
}

// Want is the value every column must have after the apply: the plan's value
// for each change ("[never]" for the THP choice file, which shows the word
// in brackets), the original for the memoryless nodes' pools and for the
// columns apply does not write (side effects: any value, "" here).
func (c *ApplyCase) Want(cols []string, orig []string) []string {
	want := make([]string, len(cols))
	for i, col := range cols {
		switch col {
		case pathNUMABalancing:
			want[i] = map[string]string{"0": "1", "1": "0"}[c.NUMABalancing]
		case pathSwappiness:
			want[i] = c.Swappiness
		case pathTHP:
			want[i] = "[" + c.THP + "]"
		}
		for n, v := range c.Hugepages {
			if col == nodeHugepagesPath(n) {
				want[i] = strconv.FormatInt(v, 10)
				for _, m := range c.Memoryless {
					if m == n {
						want[i] = orig[i]
					}
				}
			}
		}
	}
	return want
}

// Judge checks the guest's table, journal and output; every mismatch is one
// "what: expected X, got Y" line.
func (c *ApplyCase) Judge(cols []string, tab *ApplyTable, journal []byte, out string) []string {
	var bad []string
	badf := func(f string, a ...any) { bad = append(bad, fmt.Sprintf(f, a...)) }
	if strings.Join(tab.Cols, " ") != strings.Join(cols, " ") {
		return []string{fmt.Sprintf("table columns: expected %v, got %v", cols, tab.Cols)}
	}
	orig := tab.Row("orig")
	if orig == nil {
		return []string{"table: no orig row"}
	}
	// The plan was built for the boot values: check them first.
	for i, col := range cols {
		switch {
		case col == pathNUMABalancing && orig.Values[i] != c.NUMABalancing:
			badf("boot value of %s: expected %s (the plan asks for the opposite), got %s", col, c.NUMABalancing, orig.Values[i])
		case col == pathTHP && !strings.Contains(orig.Values[i], "["+c.BootTHP+"]"):
			badf("boot value of %s: expected [%s], got %q", col, c.BootTHP, orig.Values[i])
		}
		for n, v := range c.BootHugepages {
			if col == nodeHugepagesPath(n) && orig.Values[i] != strconv.FormatInt(v, 10) {
				badf("boot pool of node %d: expected %d, got %s", n, v, orig.Values[i])
			}
		}
	}
	wantRC := "0"
	if len(c.Memoryless) > 0 {
		wantRC = "1" // a change failed: the memoryless node's pool
	}
	ap := tab.Row("apply")
	if ap == nil {
		badf("table: no apply row")
	} else {
		if ap.RC != wantRC {
			badf("apply exit status: expected %s, got %s", wantRC, ap.RC)
		}
		for i, w := range c.Want(cols, orig.Values) {
			got := ap.Values[i]
			if w != "" && !(cols[i] == pathTHP && strings.Contains(got, w)) && got != w {
				badf("after apply %s: expected %s, got %s", cols[i], w, got)
			}
		}
	}
	for _, n := range c.Memoryless {
		msg := fmt.Sprintf("the kernel accepted %q but kept %q",
			strconv.FormatInt(c.Hugepages[n], 10), strconv.FormatInt(c.BootHugepages[n], 10))
		if !strings.Contains(out, msg) {
			badf("apply output: expected %q (read-back of the memoryless node), not found", msg)
		}
	}
	if c.applyTwice() {
		a2 := tab.Row("apply2")
		switch {
		case a2 == nil:
			badf("table: no apply2 row (apply twice)")
		case a2.RC != "0" || ap == nil || strings.Join(a2.Values, "\t") != strings.Join(ap.Values, "\t"):
			badf("second apply: expected exit 0 and the values of the first, got exit %s and %v", a2.RC, a2.Values)
		}
		if !strings.Contains(out, "== apply again rc=0 journals=1\n") || !strings.Contains(out, "nothing written") {
			badf("second apply: expected \"nothing written\" and still 1 journal in its output")
		}
	}
	// Side effects: every value the kernel changed on its own must be in the
	// journal; the global pool after a successful per-node pool write.
	bad = append(bad, c.judgeJournal(cols, orig, ap, journal)...)
	sameAsOrig := func(phase string) {
		r := tab.Row(phase)
		if r == nil {
			badf("table: no %s row", phase)
			return
		}
		if r.RC != "0" {
			badf("%s exit status: expected 0, got %s", phase, r.RC)
		}
		for i := range cols {
			if r.Values[i] != orig.Values[i] {
				badf("after %s %s: expected %s (as before apply), got %s", phase, cols[i], orig.Values[i], r.Values[i])
			}
		}
	}
	sameAsOrig("rollback")
	sameAsOrig("rollback2")
	if !strings.Contains(out, "already rolled back") {
		badf("second rollback: expected \"already rolled back\" in its output")
	}
	// Kill loop: every step killed (137) until one run reaches the end with
	// the full apply's exit status; after each, rollback restores everything.
	steps := 0
	for n := 1; n <= maxKillSteps; n++ {
		ka := tab.Row(fmt.Sprintf("kill%d-apply", n))
		if ka == nil {
			badf("kill loop: no row for step %d (the guest stopped early)", n)
			break
		}
		sameAsOrig(fmt.Sprintf("kill%d-rollback", n))
		if ka.RC != "137" {
			if ka.RC != wantRC {
				badf("kill at step %d: apply was not killed and exited %s, expected %s", n, ka.RC, wantRC)
			}
			if ap != nil && strings.Join(ka.Values, "\t") != strings.Join(ap.Values, "\t") {
				badf("kill at step %d: the run that was not killed left %v, expected the full apply's %v", n, ka.Values, ap.Values)
			}
			if tab.Row(fmt.Sprintf("kill%d-apply", n+1)) != nil {
				badf("kill loop: rows after step %d, where apply was not killed", n)
			}
			steps = n - 1
			break
		}
	}
	// At least: start, then begin+write+done per change, end.
	if min := 2 + 3*len(c.Plan().Changes); steps < min {
		badf("kill loop: apply was killed at %d steps, expected at least %d (start, begin/write/done per change, end)", steps, min)
	}
	return bad
}

func (c *ApplyCase) judgeJournal(cols []string, orig, ap *ApplyRow, journal []byte) []string {
	var bad []string
	if len(journal) == 0 {
		return []string{"journal.jsonl: empty"}
	}
	j := apply.ParseJournal(journal)
	if !j.Ended || j.Damaged() {
		bad = append(bad, fmt.Sprintf("journal: expected a finished journal without damage, got ended=%v damage=%v", j.Ended, j.Damage))
	}
	side := map[string]bool{}
	for _, w := range j.Writes {
		for _, s := range w.Side {
			side[s.Path] = true
		}
	}
	if ap == nil {
		return bad
	}
	for i, col := range cols {
		written := false
		for _, w := range j.Writes {
			written = written || w.Begin.Path == col
		}
		if !written && ap.Values[i] != orig.Values[i] && !side[col] {
			bad = append(bad, fmt.Sprintf("journal: %s changed %s → %s without a side entry", col, orig.Values[i], ap.Values[i]))
		}
	}
	if !side[pathNrHugepages] {
		bad = append(bad, "journal: expected a side entry for "+pathNrHugepages+" after the per-node pool writes, got none")
	}
	return bad
}

// SideEffects lists the journal's side entries, "write: path old → new", for the report.
func SideEffects(journal []byte) []string {
	var out []string
	for _, w := range apply.ParseJournal(journal).Writes {
		for _, s := range w.Side {
			out = append(out, fmt.Sprintf("%s=%s: %s %s → %s", w.Begin.Path, apply.Value(w.Begin.New),
				s.Path, apply.Value(s.Old), apply.Value(s.New)))
		}
	}
	return out
}

// applyScenario wraps a topology with the apply case's guest and check.
func applyScenario(s *Scenario, c *ApplyCase) *Scenario {
	g, err := c.Guest(s.Nodes)
	if err != nil {
		panic(err) // a plan.json that cannot be written is a bug in this file
	}
	s.Guest = g
	s.TimeoutSec = 240
	cols := c.Columns(s.Nodes)
	s.Check = func(r *Result) error {
		tab, err := ParseApplyTable(string(r.Files["table.tsv"]))
		if err != nil {
			return fmt.Errorf("%v\nguest output:\n%s", err, r.Guest)
		}
		if bad := c.Judge(cols, tab, r.Files["journal.jsonl"], r.Guest); len(bad) > 0 {
			return fmt.Errorf("%s\ntable:\n%s\nguest output:\n%s", strings.Join(bad, "\n"), r.Files["table.tsv"], r.Guest)
		}
		return nil
	}
	return s
}

// applyScenarios are the apply/rollback suite's guests.
func applyScenarios() []*Scenario {
	two := applyScenario(&Scenario{
		Name: "apply-two-node", Doc: "dbhost apply/rollback for real: numa_balancing, THP, swappiness, per-node hugepages; kill -9 at every journal step",
		Sockets: 2, Cores: 1, Threads: 1,
		Nodes: []Node{
			{ID: 0, CPUs: []int{0}, MemMB: 256},
			{ID: 1, CPUs: []int{1}, MemMB: 288},
		},
		KernelArgs:       []string{"hugepages=8"},
		HugepagesPerNode: map[int]int64{0: 4, 1: 4},
	}, &ApplyCase{NUMABalancing: "1", BootTHP: "never", THP: "madvise", Swappiness: "10",
		BootHugepages: map[int]int64{0: 4, 1: 4}, Hugepages: map[int]int64{0: 6, 1: 2}})
	ml := applyScenario(&Scenario{
		Name: "apply-memoryless", Doc: "the same on a memoryless + CPU-less layout: the memoryless node's pool write is FAILED by read-back",
		Sockets: 2, Cores: 1, Threads: 1,
		Nodes: []Node{
			{ID: 0, CPUs: []int{0}, MemMB: 256},
			{ID: 1, CPUs: []int{1}},
			{ID: 2, MemMB: 192},
		},
	}, &ApplyCase{NUMABalancing: "1", BootTHP: "never", THP: "madvise", Swappiness: "10",
		BootHugepages: map[int]int64{0: 0, 1: 0, 2: 0}, Hugepages: map[int]int64{0: 4, 1: 4, 2: 2}, Memoryless: []int{1}})
	return []*Scenario{two, ml}
}
