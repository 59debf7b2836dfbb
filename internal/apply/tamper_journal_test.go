package apply

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/plan"
)

// The journal tamper suite: a small apply run through the real binary, its
// journal damaged in every way a disk, an editor or a half-finished copy
// can, then `dbhost rollback` and `dbhost verify` run on it. The property:
// rollback restores a value exactly, or exits 1 naming it with its recorded
// old value (or saying that the entries holding it were lost); it never
// exits 0 with a value left changed, and never writes to a damaged journal.
// verify never says "as applied" of a damaged journal.

// tamperChanges are three writes (the scheduler with a kernel side effect
// on nr_requests), small enough to cut at every byte.
var tamperChanges = []change.Change{
	{Kind: change.Sysctl, Key: "vm.swappiness", Value: "1", Rule: "memory.swappiness"},
	{Kind: change.Sysfs, Key: "/sys/block/nvme0n1/queue/scheduler", Value: "mq-deadline", Device: "nvme0n1", Rule: "io.scheduler"},
	{Kind: change.Sysctl, Key: "vm.dirty_ratio", Value: "15", Rule: "memory.dirty-ratios"},
}

// tamperRun is one applied tree: the files as before and after the apply,
// the journal and its head file.
type tamperRun struct {
	root, state, journal, head string
	before, applied            map[string]string // the files apply changed
	data, headData             []byte
}

// writeChangesPlan writes a plan.json of the laptop-2s fixture holding
// changes; it returns its path.
func writeChangesPlan(t *testing.T, changes []change.Change) string {
	t.Helper()
	p := &plan.Plan{SchemaVersion: plan.SchemaVersion, Host: "laptop-2s", Workload: "oltp", DB: "none",
		Changes: changes, PendingReboot: []change.Change{}, FindingsWithoutChanges: []plan.Advice{}}
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	planPath := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(planPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return planPath
}

func newTamperRun(t *testing.T, changes []change.Change) *tamperRun {
	t.Helper()
	planPath := writeChangesPlan(t, changes)
	r := &tamperRun{root: fixture(t, "laptop-2s")}
	r.state = filepath.Join(r.root, "var/lib/dbhost")
	before := treeBytes(t, r.root, r.state)
	if out, code, _ := dbhost(t, nil, "apply", "--plan", planPath, "--root", r.root); code != 0 {
		t.Fatalf("apply exit %d:\n%s", code, out)
	}
	after := treeBytes(t, r.root, r.state)
	r.before, r.applied = map[string]string{}, map[string]string{}
	for k, v := range after {
		if before[k] != v {
			// By the name the journal uses: /sys/block/nvme0n1 is a symlink
			// into /sys/devices in the tree.
			if i := strings.Index(k, "/nvme0n1/queue/"); i >= 0 {
				k2 := "sys/block" + k[i:]
				r.before[k2], r.applied[k2] = before[k], v
				continue
			}
			r.before[k], r.applied[k] = before[k], v
		}
	}
	want := len(changes)
	for _, c := range changes {
		if strings.HasSuffix(c.Key, "/scheduler") {
			want++ // and nr_requests
		}
	}
	if len(r.applied) != want {
		t.Fatalf("apply changed %v", r.applied)
	}
	ids, _ := ListJournals(r.state)
	r.journal = filepath.Join(r.state, "journal", ids[0]+journalExt)
	r.head = headPath(r.journal)
	r.data, _ = os.ReadFile(r.journal)
	r.headData, _ = os.ReadFile(r.head)
	return r
}

// reset puts the applied values back and installs journal data (the head
// file as apply left it).
func (r *tamperRun) reset(t *testing.T, data []byte) {
	t.Helper()
	for k, v := range r.applied {
		if err := os.WriteFile(filepath.Join(r.root, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(r.journal, data, 0o600)
	os.WriteFile(r.head, r.headData, 0o600)
}

// check runs rollback on the installed journal and holds it to the
// property; it returns rollback's exit code, and what broke the property.
func (r *tamperRun) check(t *testing.T, what string, data []byte) (int, error) {
	t.Helper()
	out, code, _ := dbhost(t, nil, "rollback", "--root", r.root)
	var left []string // values not back to their old bytes
	for k, v := range r.before {
		if b, _ := os.ReadFile(filepath.Join(r.root, k)); string(b) != v {
			left = append(left, k)
		}
	}
	switch code {
	case 0:
		if len(left) > 0 {
			return code, fmt.Errorf("%s: FALSE SUCCESS: rollback exit 0 but %v not restored:\n%s", what, left, out)
		}
	case 1:
		if !strings.Contains(out, "is DAMAGED") {
			return code, fmt.Errorf("%s: rollback exit 1 without naming the damage:\n%s", what, out)
		}
		for _, k := range left {
			// Named with its old value; or what names it is damaged, and
			// the output says so (unreadable, unverified, lost).
			_, nr, _ := strings.Cut(out, "NOT restored")
			if !strings.Contains(nr, "/"+k) && !strings.Contains(nr, "cannot be read") && !strings.Contains(nr, "unverified") && !strings.Contains(nr, "lost entries") {
				return code, fmt.Errorf("%s: /%s is not restored and not named:\n%s", what, k, out)
			}
		}
		if now, _ := os.ReadFile(r.journal); !bytes.Equal(now, data) {
			return code, fmt.Errorf("%s: rollback wrote to the damaged journal", what)
		}
	default:
		return code, fmt.Errorf("%s: rollback exit %d:\n%s", what, code, out)
	}
	return code, nil
}

// TestTamperJournalCutAtEveryByte cuts a one-write journal at every byte,
// through the binary (each run costs ~30 ms of process start here, so the
// journal is the smallest one; TestJournalCutAtEveryByteInProcess cuts the
// three-write journal with side effects at every byte in process): only the
// cut that removes nothing but the final newline may roll back (exit 0,
// the value restored); every other is damage (exit 1), and verify says so
// (exit 3).
func TestTamperJournalCutAtEveryByte(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	one := tamperChanges[:1]
	r := newTamperRun(t, one)
	// Two trees with the same journal: the binary runs take the time.
	r2 := newTamperRun(t, one)
	os.Remove(r2.journal)
	os.Remove(r2.head)
	r2.journal = filepath.Join(filepath.Dir(r2.journal), filepath.Base(r.journal))
	r2.head = headPath(r2.journal)
	r2.data, r2.headData = r.data, r.headData
	var mu sync.Mutex
	var rolled []int
	var wg sync.WaitGroup
	for w, run := range []*tamperRun{r, r2} {
		wg.Add(1)
		go func(w int, run *tamperRun) {
			defer wg.Done()
			for cut := w; cut < len(run.data); cut += 2 {
				data := run.data[:cut]
				run.reset(t, data)
				code, err := run.check(t, fmt.Sprintf("cut at byte %d of %d", cut, len(run.data)), data)
				if err != nil {
					t.Error(err)
					return
				}
				if code == 0 {
					mu.Lock()
					rolled = append(rolled, cut)
					mu.Unlock()
				}
			}
		}(w, run)
	}
	wg.Wait()
	if len(rolled) != 1 || rolled[0] != len(r.data)-1 {
		t.Errorf("cuts %v of %d bytes rolled back as whole, want only %d (the final newline)", rolled, len(r.data), len(r.data)-1)
	}
	// verify, on a cut at a line boundary and one mid-line.
	for _, cut := range []int{len(r.data) / 3, bytes.LastIndexByte(r.data[:len(r.data)-1], '\n') + 1} {
		r.reset(t, r.data[:cut])
		out, code, _ := dbhost(t, nil, "verify", "--root", r.root)
		if code != 3 || !strings.Contains(out, "is DAMAGED") || !strings.Contains(out, "NOT as applied") {
			t.Errorf("verify of a journal cut at %d: exit %d, want 3 naming the damage:\n%s", cut, code, out)
		}
	}
}

// TestJournalCutAtEveryByteInProcess: the three-write journal (a scheduler
// write whose side effect is journaled) cut at every byte and rolled back
// by Rollback: a rollback that is not stopped restores every value; a
// stopped one names every value it left (or says the entries were lost).
func TestJournalCutAtEveryByteInProcess(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	before := treeBytes(t, root, o.StateDir)
	res, err := Apply(tamperChanges, o)
	if err != nil || res.JournalID == "" {
		t.Fatal(err)
	}
	applied := treeBytes(t, root, o.StateDir)
	changed := map[string]string{} // the files apply changed, as before
	for k, v := range applied {
		if before[k] != v {
			changed[k] = before[k]
		}
	}
	jpath := filepath.Join(o.StateDir, "journal", res.JournalID+journalExt)
	data, _ := os.ReadFile(jpath)
	hdata, _ := os.ReadFile(headPath(jpath))
	whole := 0
	for cut := 0; cut < len(data); cut++ {
		for k := range changed {
			os.WriteFile(filepath.Join(root, k), []byte(applied[k]), 0o644)
		}
		os.WriteFile(jpath, data[:cut], 0o600)
		os.WriteFile(headPath(jpath), hdata, 0o600)
		rb, err := Rollback("", o)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		var d []string
		for k, v := range changed {
			if b, _ := os.ReadFile(filepath.Join(root, k)); string(b) != v {
				d = append(d, k)
			}
		}
		if !rb.Stopped() {
			if len(d) > 0 || rb.Failed() > 0 {
				t.Fatalf("cut %d of %d: FALSE SUCCESS: not stopped, but %v", cut, len(data), d)
			}
			whole++
			continue
		}
		j := rb.Journals[0]
		for _, w := range tamperChanges {
			p := w.Path()
			restored := false
			for _, r := range j.Restores {
				restored = restored || r.Path == p && (r.Status == RestoreDone || r.Status == RestoreUnchanged)
			}
			named := j.Lost
			for _, u := range j.NotRestored {
				named = named || u.Path == p || u.Unreadable
			}
			if !restored && !named {
				t.Fatalf("cut %d: %s neither restored nor named: %+v", cut, p, j)
			}
		}
		if now, _ := os.ReadFile(jpath); !bytes.Equal(now, data[:cut]) {
			t.Fatalf("cut %d: the damaged journal was written to", cut)
		}
	}
	if whole != 1 {
		t.Errorf("%d cuts rolled back as whole, want 1 (the final newline)", whole)
	}
}

// lines splits a journal into its lines (with newlines).
func journalLines(data []byte) [][]byte {
	ls := bytes.SplitAfter(data, []byte("\n"))
	return ls[:len(ls)-1]
}

// TestTamperJournalLines: every line corrupted (one byte of its body
// changed, or its old value edited and its checksum left), dropped,
// repeated, or swapped with the next: rollback never claims success unless
// every value is back, stops at the damage, and names what it did not
// restore; verify reports the damage.
func TestTamperJournalLines(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	r := newTamperRun(t, tamperChanges)
	ls := journalLines(r.data)
	if len(ls) != 9 { // start, 3 × (begin, done), side, end
		t.Fatalf("%d lines:\n%s", len(ls), r.data)
	}
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	type tamper struct {
		what string
		data []byte
	}
	var cases []tamper
	for i := range ls {
		rest := func(k int) []byte { return join(ls[k:]...) }
		head := join(ls[:i]...)
		flip := append([]byte{}, ls[i]...)
		flip[len(flip)/3] ^= 0x04
		cases = append(cases,
			tamper{fmt.Sprintf("line %d: a byte changed", i+1), join(head, flip, rest(i+1))},
			tamper{fmt.Sprintf("line %d dropped", i+1), join(head, rest(i+1))},
			tamper{fmt.Sprintf("line %d repeated", i+1), join(head, ls[i], rest(i))})
		if i+1 < len(ls) {
			cases = append(cases, tamper{fmt.Sprintf("lines %d and %d swapped", i+1, i+2), join(head, ls[i+1], ls[i], rest(i+2))})
		}
		if bytes.Contains(ls[i], []byte(`"old":"10\n"`)) {
			edit := bytes.Replace(ls[i], []byte(`"old":"10\n"`), []byte(`"old":"99\n"`), 1)
			cases = append(cases, tamper{fmt.Sprintf("line %d: the old value edited", i+1), join(head, edit, rest(i+1))})
		}
	}
	for _, c := range cases {
		r.reset(t, c.data)
		out, code, _ := dbhost(t, nil, "verify", "--root", r.root)
		if code != 3 || !strings.Contains(out, "is DAMAGED") {
			t.Errorf("%s: verify exit %d, want 3 naming the damage:\n%s", c.what, code, out)
		}
		for _, again := range []string{"", " (second rollback: the journal stays open)"} {
			code, err := r.check(t, c.what+again, c.data)
			if err != nil {
				t.Fatal(err)
			}
			if code != 1 {
				t.Errorf("%s%s: rollback exit %d, want 1", c.what, again, code)
			}
		}
	}
}

// TestTamperJournalStopsAtDamage: a damaged begin entry of the second
// write: the third is restored, the rollback stops there, and the second
// (its recorded old value marked unverified) and the first are named with
// their old values, newest first.
func TestTamperJournalStopsAtDamage(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	r := newTamperRun(t, tamperChanges)
	ls := journalLines(r.data)
	i := 3 // start, begin 1, done 1, begin 2 (the scheduler)
	if !bytes.Contains(ls[i], []byte(`"state":"begin"`)) || !bytes.Contains(ls[i], []byte("scheduler")) {
		t.Fatalf("line %d is %s", i+1, ls[i])
	}
	bad := bytes.Replace(ls[i], []byte(`"new":"mq-deadline"`), []byte(`"new":"bfq"`), 1)
	data := bytes.Join(append(append(append([][]byte{}, ls[:i]...), bad), ls[i+1:]...), nil)
	r.reset(t, data)
	out, code, _ := dbhost(t, nil, "rollback", "--root", r.root)
	if code != 1 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if got := read(t, r.root, "proc/sys/vm/dirty_ratio"); got != r.before["proc/sys/vm/dirty_ratio"] {
		t.Errorf("the write after the damage was not restored: dirty_ratio %q", got)
	}
	if read(t, r.root, "proc/sys/vm/swappiness") != r.applied["proc/sys/vm/swappiness"] ||
		read(t, r.root, "sys/block/nvme0n1/queue/scheduler") != r.applied["sys/block/nvme0n1/queue/scheduler"] {
		t.Errorf("the rollback wrote past the damage")
	}
	for _, want := range []string{
		"+ vm.dirty_ratio (/proc/sys/vm/dirty_ratio): 15 → 20\n",
		"line 4: checksum mismatch",
		"NOT restored (restore them by hand; newest first):\n" +
			"  ! /sys/block/nvme0n1/queue/scheduler: recorded old value \"none\"  (from a damaged line: unverified, may be wrong)\n" +
			"      with it the kernel changed (or may have changed), old values: /sys/block/nvme0n1/queue/nr_requests \"1023\", ",
		"  ! vm.swappiness (/proc/sys/vm/swappiness): recorded old value \"10\"\n",
		"dbhost: rollback stopped at a damaged journal",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rollback output lacks %q:\n%s", want, out)
		}
	}
}

// TestLegacyJournalStillRolledBack: a journal of the format before
// checksums (no "format", no "sum", no head file) is rolled back, with a
// warning that its integrity cannot be verified; verify says the same.
func TestLegacyJournalStillRolledBack(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	r := newTamperRun(t, tamperChanges)
	var legacy []byte
	for _, l := range journalLines(r.data) {
		body, _, ok := splitSum(bytes.TrimSuffix(l, []byte("\n")))
		if !ok {
			t.Fatalf("no sum: %s", l)
		}
		body = bytes.Replace(body, []byte(`"format":2,`), nil, 1)
		legacy = append(append(legacy, body...), '\n')
	}
	r.reset(t, legacy)
	os.Remove(r.head)
	out, code, _ := dbhost(t, nil, "verify", "--root", r.root)
	if code != 0 || !strings.Contains(out, "legacy format") || strings.Contains(out, "DAMAGED") {
		t.Fatalf("verify of a legacy journal: exit %d\n%s", code, out)
	}
	out, code, _ = dbhost(t, nil, "rollback", "--root", r.root)
	if code != 0 || !strings.Contains(out, "legacy format (written before checksums): its integrity cannot be verified") {
		t.Fatalf("rollback of a legacy journal: exit %d\n%s", code, out)
	}
	for k, v := range r.before {
		if got := read(t, r.root, k); got != v {
			t.Errorf("%s: %q, want %q", k, got, v)
		}
	}
	// The rollback's own lines stay legacy: the journal reads back whole.
	j, err := LoadJournal(r.state, strings.TrimSuffix(filepath.Base(r.journal), journalExt))
	if err != nil || j.Damaged() || !j.RolledBack || j.Format != FormatLegacy {
		t.Fatalf("after rollback: %v damage %v rolled back %v format %d", err, j.Damage, j.RolledBack, j.Format)
	}
	// Stripping the checksums of a format-2 journal is not a way to legacy:
	// the head file (or the start entry's format) gives it away.
	r.reset(t, legacy)
	out, code, _ = dbhost(t, nil, "rollback", "--root", r.root)
	if code != 1 || !strings.Contains(out, "the checksums were stripped") {
		t.Fatalf("stripped checksums with the head file: exit %d\n%s", code, out)
	}
}

// TestTamperJournalFileRemoved: the journal file deleted, its head file
// left (an operator "cleaning" the state directory, a lost file): rollback
// and verify do not say "no journal" (exit 2, nothing to do) but that the
// journal is damaged and its values lost: rollback exit 1 writing nothing,
// verify exit 3.
func TestTamperJournalFileRemoved(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	r := newTamperRun(t, tamperChanges)
	if err := os.Remove(r.journal); err != nil {
		t.Fatal(err)
	}
	out, code, _ := dbhost(t, nil, "rollback", "--root", r.root)
	if code != 1 || !strings.Contains(out, "the journal file is missing, its head file remains") || !strings.Contains(out, "lost entries") {
		t.Fatalf("rollback: exit %d, want 1 naming the missing journal:\n%s", code, out)
	}
	for k, v := range r.applied {
		if got := read(t, r.root, k); got != v {
			t.Errorf("%s written: %q", k, got)
		}
	}
	out, code, _ = dbhost(t, nil, "verify", "--root", r.root)
	if code != 3 || !strings.Contains(out, "is DAMAGED") {
		t.Fatalf("verify: exit %d, want 3:\n%s", code, out)
	}
	if _, err := os.Stat(r.journal); !os.IsNotExist(err) {
		t.Errorf("the missing journal was recreated: %v", err)
	}
}
