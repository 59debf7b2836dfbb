package apply

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
	hosttree "github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/kernelsim"
)

// hostsDir is the committed fixture trees.
func hostsDir(t testing.TB) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "hosts")
}

// copyTree copies a fixture tree (regular files, directories, relative
// symlinks) into dst, leaving out what apply never touches (slimSkip).
func copyTree(t testing.TB, src, dst string) { copyFiltered(t, src, dst, slimSkip) }

// copyFiltered copies a tree, leaving out the directories skip names
// (nil: the whole tree).
func copyFiltered(t testing.TB, src, dst string, skip func(rel string) bool) {
	t.Helper()
	if err := hosttree.CopyTree(src, dst, skip); err != nil {
		t.Fatal(err)
	}
}

// slimSkip leaves out the parts of a fixture tree apply never touches
// (per-CPU sysfs, IRQs, processes), which are most of its files.
func slimSkip(rel string) bool {
	rel = filepath.ToSlash(rel)
	if rel == "sys/devices/system/cpu" || rel == "proc/irq" {
		return true
	}
	if d, ok := strings.CutPrefix(rel, "proc/"); ok && !strings.Contains(d, "/") && d != "" && strings.Trim(d, "0123456789") == "" {
		return true
	}
	return false
}

// fixture copies testdata/hosts/name into a temporary root.
func fixture(t testing.TB, name string) string {
	dir := t.TempDir()
	copyTree(t, filepath.Join(hostsDir(t), name), dir)
	return dir
}

// treeBytes maps every regular file of a tree (the state directory left
// out) to its bytes.
func treeBytes(t testing.TB, root, skip string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if skip != "" && p == skip {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			m[rel] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func diffTrees(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if w, ok := b[k]; !ok {
			out = append(out, "removed "+k)
		} else if v != w {
			out = append(out, fmt.Sprintf("%s: %q → %q", k, v, w))
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, "added "+k)
		}
	}
	sort.Strings(out)
	return out
}

func read(t testing.TB, root, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jumboRisk is the catalog's risk of network.jumbo-frames, the risky
// change of everyKind (a plan's risk is the catalog's: apply --plan).
const jumboRisk = "A switch port or peer left at 1500 silently drops full-size frames (connections hang after the handshake, RAC " +
	"interconnect evictions). Change the switches first, then both ends; never only one side."

// everyKind is a change of every kind on laptop-2s, each one its catalog
// rule makes (the binary's apply --plan takes nothing else).
func everyKind() []change.Change {
	return []change.Change{
		{Kind: change.Sysctl, Key: "vm.swappiness", Value: "1", Rule: "memory.swappiness", Why: "keep the SGA in RAM"},
		{Kind: change.Sysctl, Key: "net.ipv4.tcp_rmem", Value: "4096 87380 16777216", Rule: "network.socket-buffers"},
		{Kind: change.Sysfs, Key: "/sys/block/nvme0n1/queue/scheduler", Value: "mq-deadline", Device: "nvme0n1", Rule: "io.scheduler"},
		{Kind: change.Sysfs, Key: "/sys/block/nvme0n1/queue/read_ahead_kb", Value: "4096", Device: "nvme0n1", Rule: "io.read-ahead"},
		{Kind: change.Sysfs, Key: "/sys/kernel/mm/transparent_hugepage/enabled", Value: "never", Rule: "memory.thp-enabled"},
		{Kind: change.Sysfs, Key: "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages", Value: "512", Rule: "memory.hugepages-too-few"},
		{Kind: change.Limit, Key: "mysql soft memlock", Value: "unlimited", Rule: "memory.memlock-below-sga"},
		{Kind: change.Limit, Key: "mysql hard memlock", Value: "unlimited", Rule: "memory.memlock-below-sga"},
		{Kind: change.BootArg, Key: "numa", Remove: true, Rule: "numa.disabled-at-boot"},
		{Kind: change.BootArg, Key: "transparent_hugepage", Value: "never", Rule: "memory.thp-enabled"},
		{Kind: change.Sysfs, Key: "/sys/class/net/eno1/mtu", Value: "9000", Device: "eno1", Rule: "network.jumbo-frames", Risk: jumboRisk},
		{Kind: change.TunedProfile, Key: "profile", Value: "throughput-performance", Rule: "tuned.profile"},
	}
}

func opts(root string) Options {
	return Options{
		Root:     facts.Root{Dir: root},
		StateDir: filepath.Join(root, "var/lib/dbhost"),
		Sys:      TreeSys{Root: facts.Root{Dir: root}, Kernel: kernelsim.New(facts.Root{Dir: root})},
		Version:  "test",
	}
}

func itemBy(t testing.TB, r *Result, setting string) Item {
	t.Helper()
	for _, it := range r.Items {
		if it.Setting == setting {
			return it
		}
	}
	t.Fatalf("no item %s in %+v", setting, r.Items)
	return Item{}
}

func TestApplyRollbackEveryKind(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	state := o.StateDir
	before := treeBytes(t, root, state)

	res, err := Apply(everyKind(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res.JournalID == "" {
		t.Fatal("no journal")
	}
	want := map[string]string{
		"vm.swappiness": StatusApplied, "net.ipv4.tcp_rmem": StatusApplied,
		"/sys/block/nvme0n1/queue/scheduler": StatusApplied, "/sys/block/nvme0n1/queue/read_ahead_kb": StatusApplied,
		"/sys/kernel/mm/transparent_hugepage/enabled":                            StatusApplied,
		"/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages": StatusApplied,
		"mysql soft memlock": StatusApplied, "mysql hard memlock": StatusApplied,
		"numa": StatusUnchanged, "transparent_hugepage": StatusPending,
		"/sys/class/net/eno1/mtu": StatusRefused, "profile": StatusManual,
	}
	for k, st := range want {
		if it := itemBy(t, res, k); it.Status != st {
			t.Errorf("%s: status %s (%s), want %s", k, it.Status, it.Message, st)
		}
	}
	if it := itemBy(t, res, "/sys/class/net/eno1/mtu"); !strings.Contains(it.Message, "silently drops full-size frames") {
		t.Errorf("refusal does not quote the risk: %q", it.Message)
	}
	if it := itemBy(t, res, "transparent_hugepage"); it.Command != "edit /etc/default/grub: add transparent_hugepage=never to GRUB_CMDLINE_LINUX, then run update-grub" {
		t.Errorf("boot arg command %q", it.Command)
	}
	// Values as the kernel shows them.
	for p, v := range map[string]string{
		"proc/sys/vm/swappiness":                                "1\n",
		"proc/sys/net/ipv4/tcp_rmem":                            "4096 87380 16777216\n",
		"sys/block/nvme0n1/queue/scheduler":                     "none [mq-deadline] kyber bfq\n",
		"sys/block/nvme0n1/queue/read_ahead_kb":                 "4096\n",
		"sys/kernel/mm/transparent_hugepage/enabled":            "always madvise [never]\n",
		"sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages": "512\n",
	} {
		if got := read(t, root, p); got != v {
			t.Errorf("%s = %q, want %q", p, got, v)
		}
	}
	if got := read(t, root, "etc/security/limits.d/90-dbhost.conf"); !strings.Contains(got, "\nmysql soft memlock unlimited\nmysql hard memlock unlimited\n") {
		t.Errorf("limits file:\n%s", got)
	}
	// Side effects were seen and journaled.
	sched := itemBy(t, res, "/sys/block/nvme0n1/queue/scheduler")
	if len(sched.Side) != 1 || sched.Side[0].Path != "/sys/block/nvme0n1/queue/nr_requests" || sched.Side[0].New != "256" {
		t.Errorf("scheduler side effects %+v", sched.Side)
	}
	if thp := itemBy(t, res, "/sys/kernel/mm/transparent_hugepage/enabled"); len(thp.Side) != 1 || thp.Side[0].Path != "/proc/sys/vm/min_free_kbytes" {
		t.Errorf("THP side effects %+v", thp.Side)
	}
	j, err := LoadJournal(state, res.JournalID)
	if err != nil {
		t.Fatal(err)
	}
	if !j.Ended || j.Torn || j.Damaged() || j.Format != Format || len(j.Writes) != 7 {
		t.Fatalf("journal: ended %v torn %v damage %v format %d writes %d", j.Ended, j.Torn, j.Damage, j.Format, len(j.Writes))
	}
	for _, w := range j.Writes {
		if w.State != StateDone {
			t.Errorf("%s: %s %s", w.Begin.Path, w.State, w.Outcome.Error)
		}
	}
	// Verify: all ok.
	for _, c := range VerifyJournal(j, VerifyOptions{Root: o.Root, Sys: o.Sys}) {
		if c.Status != "ok" {
			t.Errorf("verify %s: %s (%s)", c.Setting, c.Status, c.Cause)
		}
	}

	// apply twice: nothing written, no journal.
	mid := treeBytes(t, root, state)
	res2, err := Apply(everyKind(), o)
	if err != nil {
		t.Fatal(err)
	}
	if res2.JournalID != "" || res2.Count(StatusApplied) != 0 || res2.Count(StatusUnchanged) != 9 {
		t.Errorf("second apply: journal %q counts %v", res2.JournalID, res2.Counts)
	}
	if d := diffTrees(mid, treeBytes(t, root, state)); len(d) > 0 {
		t.Errorf("second apply changed files: %v", d)
	}

	// A temporary file left by a crash inside the limits file's atomic write.
	os.WriteFile(filepath.Join(root, "etc/security/limits.d/.dbhost-123"), []byte("x"), 0o644)
	// rollback: byte for byte.
	rb, err := Rollback("", o)
	if err != nil {
		t.Fatal(err)
	}
	if rb.Failed() != 0 || len(rb.Journals) != 1 || rb.Journals[0].Already {
		t.Fatalf("rollback: %+v", rb)
	}
	if d := diffTrees(before, treeBytes(t, root, state)); len(d) > 0 {
		t.Errorf("rollback left differences:\n%s", strings.Join(d, "\n"))
	}
	// rollback twice: a no-op.
	rb, err = Rollback("", o)
	if err != nil {
		t.Fatal(err)
	}
	if !rb.Journals[0].Already {
		t.Errorf("second rollback did not see the journal rolled back: %+v", rb)
	}
	if d := diffTrees(before, treeBytes(t, root, state)); len(d) > 0 {
		t.Errorf("second rollback changed files: %v", d)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	o.DryRun = true
	before := treeBytes(t, root, "")
	res, err := Apply(everyKind(), o)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, treeBytes(t, root, "")); len(d) > 0 {
		t.Errorf("dry run changed: %v", d)
	}
	if it := itemBy(t, res, "vm.swappiness"); it.Status != StatusChange || it.Current != "60" && it.Current == "" {
		t.Errorf("dry-run swappiness %+v", it)
	}
	if it := itemBy(t, res, "/sys/block/nvme0n1/queue/scheduler"); it.Current != "none" || it.New != "mq-deadline" {
		t.Errorf("dry-run scheduler %+v", it)
	}
	if _, err := os.Stat(o.StateDir); !os.IsNotExist(err) {
		t.Errorf("dry run created the state directory: %v", err)
	}
}

func TestAcceptRisk(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	o.AcceptRisk = true
	cs := []change.Change{{Kind: change.Sysfs, Key: "/sys/block/sda/queue/write_cache", Value: "write through", Rule: "io.wt", Risk: "data loss"}}
	res, err := Apply(cs, o)
	if err != nil {
		t.Fatal(err)
	}
	if it := res.Items[0]; it.Status != StatusApplied {
		t.Fatalf("%+v", it)
	}
	if got := read(t, root, "sys/block/sda/queue/write_cache"); got != "write through\n" {
		t.Errorf("write_cache %q", got)
	}
}

func TestReadbackFailureMemorylessNode(t *testing.T) {
	root := fixture(t, "memoryless")
	o := opts(root)
	before := treeBytes(t, root, o.StateDir)
	p := "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"
	res, err := Apply([]change.Change{{Kind: change.Sysfs, Key: p, Value: "512", Rule: "memory.hugepages"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	it := res.Items[0]
	if it.Status != StatusFailed || !strings.Contains(it.Message, `"512"`) || !strings.Contains(it.Message, `kept "0"`) {
		t.Fatalf("memoryless node pool: %+v", it)
	}
	j, _ := LoadJournal(o.StateDir, res.JournalID)
	if len(j.Writes) != 1 || j.Writes[0].State != StateFailed || j.Writes[0].Outcome.Readback != "0" {
		t.Fatalf("journal %+v", j.Writes)
	}
	if _, err := Rollback("", o); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
		t.Errorf("rollback: %v", d)
	}
}

func TestRefusedChoiceAndAbsent(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	res, err := Apply([]change.Change{
		{Kind: change.Sysfs, Key: "/sys/block/sda/queue/scheduler", Value: "cfq", Rule: "io.scheduler"},
		{Kind: change.Sysfs, Key: "/sys/block/sdz/queue/scheduler", Value: "none", Rule: "io.scheduler"},
		{Kind: change.Sysfs, Key: "/proc/sys/vm/swappiness", Value: "1", Rule: "x"},
		{Kind: change.Sysctl, Key: "vm.nonexistent_knob", Value: "1", Rule: "x"},
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	st := []string{StatusFailed, StatusAbsent, StatusFailed, StatusAbsent}
	for i, s := range st {
		if res.Items[i].Status != s {
			t.Errorf("item %d: %s (%s), want %s", i, res.Items[i].Status, res.Items[i].Message, s)
		}
	}
	if !strings.Contains(res.Items[0].Message, "invalid argument") {
		t.Errorf("cfq: %q", res.Items[0].Message)
	}
	if _, err := os.Stat(filepath.Join(root, "sys/block/sdz")); !os.IsNotExist(err) {
		t.Error("a missing sysfs file was created")
	}
}

// crash is the panic a test Step hook throws to stop a run mid-way.
type crash struct{}

// TestCrashAtEveryStep stops Apply after each journal step (in process:
// the journal file is left as the step left it) and rolls back.
func TestCrashAtEveryStep(t *testing.T) {
	src := fixture(t, "laptop-2s")
	atEveryStep(t, crashStride(), func(t *testing.T, n int) bool {
		root := t.TempDir()
		copyTree(t, src, root)
		o := opts(root)
		before := treeBytes(t, root, o.StateDir)
		o.Step = func(k int) {
			if k == n {
				panic(crash{})
			}
		}
		finished := func() (done bool) {
			defer func() {
				if r := recover(); r != nil {
					if _, ok := r.(crash); !ok {
						panic(r)
					}
				}
			}()
			if _, err := Apply(everyKind(), o); err != nil {
				t.Fatal(err)
			}
			return true
		}()
		o.Step = nil
		rb, err := Rollback("", o)
		if err != nil {
			t.Fatalf("step %d: rollback: %v", n, err)
		}
		if rb.Failed() > 0 {
			t.Fatalf("step %d: rollback failures %+v", n, rb)
		}
		if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
			t.Fatalf("step %d: after rollback:\n%s", n, strings.Join(d, "\n"))
		}
		if finished && n < 20 {
			t.Fatalf("apply finished after only %d steps", n)
		}
		return finished
	})
}

func TestRollbackTo(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	before := treeBytes(t, root, o.StateDir)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	o.Now = func() time.Time { return t0 }
	r1, _ := Apply([]change.Change{{Kind: change.Sysctl, Key: "vm.swappiness", Value: "1", Rule: "a"}}, o)
	o.Now = func() time.Time { return t0.Add(time.Second) }
	r2, _ := Apply([]change.Change{{Kind: change.Sysctl, Key: "vm.swappiness", Value: "5", Rule: "a"},
		{Kind: change.Sysctl, Key: "vm.dirty_ratio", Value: "15", Rule: "b"}}, o)
	o.Now = func() time.Time { return t0.Add(-time.Hour) } // the clock went back
	r3, _ := Apply([]change.Change{{Kind: change.Sysctl, Key: "vm.dirty_ratio", Value: "16", Rule: "b"}}, o)
	if r1.JournalID >= r2.JournalID || r2.JournalID >= r3.JournalID {
		t.Fatalf("ids not in run order: %s %s %s", r1.JournalID, r2.JournalID, r3.JournalID)
	}
	if got := read(t, root, "proc/sys/vm/swappiness"); got != "5\n" {
		t.Fatalf("swappiness %q", got)
	}
	rb, err := Rollback(r1.JournalID, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(rb.Journals) != 3 || rb.Journals[0].ID != r3.JournalID || rb.Journals[1].ID != r2.JournalID {
		t.Fatalf("%+v", rb)
	}
	if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
		t.Errorf("after rollback --to: %v", d)
	}
	if _, err := Rollback("nope", o); err == nil {
		t.Error("unknown id accepted")
	}
}

func TestRollbackWithoutJournal(t *testing.T) {
	o := opts(t.TempDir())
	if _, err := Rollback("", o); err != ErrNoJournal {
		t.Fatalf("err %v", err)
	}
}

func TestMergeLimits(t *testing.T) {
	got := MergeLimits("", []LimitLine{{"oracle soft memlock", "unlimited"}})
	if got != limitsHeader+"oracle soft memlock unlimited\n" {
		t.Errorf("new file %q", got)
	}
	old := "# mine\noracle   soft  memlock 1024 # old\n*  hard nofile 65536\noracle soft memlock 2048\n"
	got = MergeLimits(old, []LimitLine{{"oracle soft memlock", "unlimited"}, {"oracle hard memlock", "unlimited"}})
	want := "# mine\noracle soft memlock unlimited\n*  hard nofile 65536\noracle hard memlock unlimited\n"
	if got != want {
		t.Errorf("merge:\n%s\nwant\n%s", got, want)
	}
	if again := MergeLimits(got, []LimitLine{{"oracle soft memlock", "unlimited"}, {"oracle hard memlock", "unlimited"}}); again != got {
		t.Errorf("merge is not idempotent:\n%s", again)
	}
	if v := LimitsValues(got); v["oracle hard memlock"] != "unlimited" || v["* hard nofile"] != "65536" {
		t.Errorf("values %v", v)
	}
}

func TestTreeContent(t *testing.T) {
	for _, c := range []struct{ old, v, want string }{
		{"[none] mq-deadline\n", "mq-deadline", "none [mq-deadline]\n"},
		{"always [madvise] never", "never", "always madvise [never]"},
		{"60\n", "1", "1\n"},
		{"4096\t87380\t6291456\n", "4096 87380 16777216", "4096 87380 16777216\n"},
	} {
		got, err := TreeContent(c.old, c.v)
		if err != nil || got != c.want {
			t.Errorf("TreeContent(%q, %q) = %q, %v; want %q", c.old, c.v, got, err, c.want)
		}
	}
	if _, err := TreeContent("[none] kyber", "bfq"); err == nil {
		t.Error("a scheduler the file does not offer was accepted")
	}
}

// TestParseLegacyJournalTornLine: a journal written before checksums
// (format 1) is still read: a torn last line is a crash and ignored, no
// complete line before it is lost; an unreadable line elsewhere is damage.
func TestParseLegacyJournalTornLine(t *testing.T) {
	full := `{"seq":0,"state":"start","id":"X","time":"2026-01-01T00:00:00Z"}
{"seq":1,"state":"begin","kind":"sysctl","key":"vm.swappiness","path":"/proc/sys/vm/swappiness","old":"60\n","new":"1"}
{"seq":1,"state":"done","readback":"1"}
{"seq":2,"state":"begin","kind":"sysctl","key":"vm.dirty_ratio","path":"/proc/sys/vm/dirty_ratio","old":"20\n","new":"15"}
`
	j := ParseJournal([]byte(full))
	if j.ID != "X" || j.Format != FormatLegacy || len(j.Writes) != 2 || j.Writes[0].State != StateDone || j.Writes[1].State != StateBegin || j.Torn || j.Damaged() {
		t.Fatalf("%+v", j)
	}
	for cut := len(full) - 1; cut > 0; cut-- {
		j := ParseJournal([]byte(full[:cut]))
		lines := strings.Count(full[:cut], "\n")
		if j.Damaged() {
			t.Fatalf("cut %d: damage %v", cut, j.Damage)
		}
		wantWrites := map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 4: 2}[lines]
		if len(j.Writes) < wantWrites {
			t.Fatalf("cut %d: %d writes, want at least %d (complete lines lost)", cut, len(j.Writes), wantWrites)
		}
	}
	j = ParseJournal([]byte(`{"seq":0,"state":"start"}` + "\n" + `{"seq":1,"sta` + "\n" + `{"seq":0,"state":"end"}` + "\n"))
	if !j.Ended || len(j.Damage) != 1 || j.Damage[0].Line != 2 {
		t.Errorf("%+v", j)
	}
}

func TestOpenJournalCutsTornLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "j.jsonl")
	load := func() *Journal {
		b, _ := os.ReadFile(p)
		j := ParseJournal(b)
		j.Path = p
		j.checkHead(os.ReadFile(headPath(p)))
		return j
	}
	// Legacy: the torn line is cut, new lines stay without checksums.
	os.WriteFile(p, []byte(`{"seq":0,"state":"start"}`+"\n"+`{"seq":1,"state":"beg`), 0o600)
	jf, err := openJournal(load())
	if err != nil {
		t.Fatal(err)
	}
	jf.append(Entry{State: StateRollback})
	jf.close()
	b, _ := os.ReadFile(p)
	if !bytes.Equal(b, []byte(`{"seq":0,"state":"start"}`+"\n"+`{"seq":0,"state":"rollback"}`+"\n")) {
		t.Errorf("%q", b)
	}
	// Format 2: a whole entry that lost only its newline is kept, the chain
	// and the head continue from it; a torn tail after the head's count is cut.
	jf = &journalFile{format: Format, prev: chainSeed}
	jf.f, _ = os.Create(p)
	jf.head, _ = os.Create(headPath(p))
	jf.append(Entry{State: StateStart, Format: Format, ID: "X"})
	jf.append(Entry{Seq: 1, State: StateBegin, Kind: "sysctl", Key: "vm.swappiness", Path: "/proc/sys/vm/swappiness", Old: "60\n", New: "1"})
	jf.close()
	b, _ = os.ReadFile(p)
	os.WriteFile(p, b[:len(b)-1], 0o600)
	j := load()
	if j.Damaged() || j.Torn || len(j.Writes) != 1 {
		t.Fatalf("lost newline: %+v", j)
	}
	jf, err = openJournal(j)
	if err != nil {
		t.Fatal(err)
	}
	jf.append(Entry{Seq: 1, State: StateDone})
	jf.f.Write([]byte(`{"seq":0,"state":"en`)) // a crash while writing the next line
	jf.close()
	j = load()
	if j.Damaged() || !j.Torn || j.Writes[0].State != StateDone {
		t.Fatalf("torn after the head: %+v", j)
	}
	jf, _ = openJournal(j)
	jf.append(Entry{State: StateEnd})
	jf.close()
	if j = load(); j.Damaged() || j.Torn || !j.Ended {
		t.Fatalf("after mending: %+v", j)
	}
}

func TestRollbackRefusesOtherRoot(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	if _, err := Apply([]change.Change{{Kind: change.Sysctl, Key: "vm.swappiness", Value: "1", Rule: "a"}}, o); err != nil {
		t.Fatal(err)
	}
	live := o
	live.Root = facts.Root{Dir: "/", Live: true}
	live.Sys = failSys{t}
	if _, err := Rollback("", live); err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("a tree's journal was rolled back on the live host: %v", err)
	}
}

// failSys fails the test on any access: nothing may touch the live host.
type failSys struct{ t *testing.T }

func (f failSys) Read(p string) (string, error)   { f.t.Fatalf("read %s", p); return "", nil }
func (f failSys) Write(p, v string) error         { f.t.Fatalf("write %s", p); return nil }
func (f failSys) List(p string) ([]string, error) { f.t.Fatalf("list %s", p); return nil, nil }

func TestBadLimitAndInterruptedWarning(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	res, err := Apply([]change.Change{
		{Kind: change.Limit, Key: "oracle soft memlock", Value: "#1", Rule: "a"},
		{Kind: change.Limit, Key: "oracle memlock", Value: "1", Rule: "a"},
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items[0].Status != StatusFailed || res.Items[1].Status != StatusFailed || res.JournalID != "" {
		t.Fatalf("%+v", res)
	}
	if _, err := os.Stat(filepath.Join(root, LimitsFile)); !os.IsNotExist(err) {
		t.Fatal("limits file written for bad limits")
	}
	// An interrupted apply is named by the next one.
	o.Step = func(n int) {
		if n == 3 {
			panic(crash{})
		}
	}
	func() {
		defer func() { recover() }()
		Apply([]change.Change{{Kind: change.Sysctl, Key: "vm.swappiness", Value: "1", Rule: "a"}}, o)
	}()
	o.Step = nil
	res, err = Apply([]change.Change{{Kind: change.Sysctl, Key: "vm.dirty_ratio", Value: "5", Rule: "a"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "was interrupted") {
		t.Fatalf("warnings %v", res.Warnings)
	}
}

// clampSys keeps at most 1280 in max_sectors_kb, as the kernel clamps to max_hw_sectors_kb.
type clampSys struct{ TreeSys }

func (c clampSys) Write(p, v string) error {
	if strings.HasSuffix(p, "/max_sectors_kb") && len(v) > 4 {
		v = "1280"
	}
	return c.TreeSys.Write(p, v)
}

func TestReadbackFailureClamped(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	o.Sys = clampSys{TreeSys{Root: facts.Root{Dir: root}}}
	before := treeBytes(t, root, o.StateDir)
	res, err := Apply([]change.Change{{Kind: change.Sysfs, Key: "/sys/block/sda/queue/max_sectors_kb", Value: "32767", Rule: "io.max-sectors"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if it := res.Items[0]; it.Status != StatusFailed || it.Message != `the kernel accepted "32767" but kept "1280"` {
		t.Fatalf("%+v", it)
	}
	if _, err := Rollback("", o); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
		t.Errorf("rollback: %v", d)
	}
}

func TestCpusetListsAndEffectiveFallback(t *testing.T) {
	root := fixture(t, "cgroup-v2")
	o := opts(root)
	before := treeBytes(t, root, o.StateDir)
	res, err := Apply([]change.Change{
		// The same set written differently: nothing to do.
		{Kind: change.Sysfs, Key: "/sys/fs/cgroup/db.slice/cpuset.cpus", Value: "2,3,4,5,6,7", Rule: "cgroup.a"},
		// Kept as written but not used: cpuset.mems.effective still shows 0.
		{Kind: change.Sysfs, Key: "/sys/fs/cgroup/db.slice/cpuset.mems", Value: "1", Rule: "cgroup.cpuset-mems-not-local", Risk: "restart", Current: "0"},
	}, Options{Root: o.Root, StateDir: o.StateDir, Sys: o.Sys, AcceptRisk: true})
	if err != nil {
		t.Fatal(err)
	}
	if it := res.Items[0]; it.Status != StatusUnchanged {
		t.Errorf("cpuset.cpus 2-7 vs 2,3,4,5,6,7: %+v", it)
	}
	if it := res.Items[1]; it.Status != StatusFailed || it.Message != `the kernel kept "1" but uses "0" (cpuset.mems.effective)` {
		t.Errorf("cpuset.mems fallback: %+v", it)
	}
	if _, err := Rollback("", o); err != nil {
		t.Fatal(err)
	}
	if d := diffTrees(before, treeBytes(t, root, o.StateDir)); len(d) > 0 {
		t.Errorf("rollback: %v", d)
	}
	// cgroup v1 names the effective file cpuset.effective_mems.
	root = fixture(t, "cgroup-v1")
	o = opts(root)
	o.AcceptRisk = true
	p := "/sys/fs/cgroup/cpuset/oracle/cpuset.mems"
	eff := read(t, root, "sys/fs/cgroup/cpuset/oracle/cpuset.effective_mems")
	res, err = Apply([]change.Change{{Kind: change.Sysfs, Key: p, Value: "0", Rule: "cgroup.cpuset-mems-not-local"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if it := res.Items[0]; it.Status != StatusFailed || !strings.Contains(it.Message, "cpuset.effective_mems") || strings.TrimSpace(eff) == "0" {
		t.Errorf("v1 fallback (effective %q): %+v", eff, it)
	}
}

// Issue 26 item 10: the pending command for a boot argument is the host's
// distribution's way, read from the tree's /etc/os-release: grubby on the
// Red Hat family only.
func TestBootArgCommandPerDistribution(t *testing.T) {
	for _, c := range []struct{ host, add, remove string }{
		{"rhel8", "grubby --update-kernel=ALL --args=transparent_hugepage=never", "grubby --update-kernel=ALL --remove-args=numa"},
		{"laptop-2s", "edit /etc/default/grub: add transparent_hugepage=never to GRUB_CMDLINE_LINUX, then run update-grub",
			"edit /etc/default/grub: remove numa=... from GRUB_CMDLINE_LINUX, then run update-grub"},
		{"ubuntu2204", "edit /etc/default/grub: add transparent_hugepage=never to GRUB_CMDLINE_LINUX, then run update-grub",
			"edit /etc/default/grub: remove numa=... from GRUB_CMDLINE_LINUX, then run update-grub"},
		{"sles12", "edit /etc/default/grub: add transparent_hugepage=never to GRUB_CMDLINE_LINUX, then run grub2-mkconfig -o /boot/grub2/grub.cfg",
			"edit /etc/default/grub: remove numa=... from GRUB_CMDLINE_LINUX, then run grub2-mkconfig -o /boot/grub2/grub.cfg"},
	} {
		root := fixture(t, c.host)
		o := opts(root)
		o.DryRun = true
		res, err := Apply([]change.Change{
			{Kind: change.BootArg, Key: "transparent_hugepage", Value: "never", Rule: "memory.thp-enabled"},
			{Kind: change.BootArg, Key: "numa", Remove: true, Rule: "numa.disabled-at-boot"},
		}, o)
		if err != nil {
			t.Fatalf("%s: %v", c.host, err)
		}
		if it := itemBy(t, res, "transparent_hugepage"); it.Status == StatusPending && it.Command != c.add {
			t.Errorf("%s: add command %q, want %q", c.host, it.Command, c.add)
		}
		if it := itemBy(t, res, "numa"); it.Status == StatusPending && it.Command != c.remove {
			t.Errorf("%s: remove command %q, want %q", c.host, it.Command, c.remove)
		}
	}
	// No os-release: both ways, labelled.
	if got := change.BootArgCommand("", "numa", true); !strings.Contains(got, "(Red Hat family") || !strings.Contains(got, "update-grub (Debian, Ubuntu)") {
		t.Errorf("unknown distribution: %q", got)
	}
}
