package apply

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/plan"
	"github.com/dbhost/dbhost/internal/testbin"
)

// dbhostBin is the real dbhost binary built with -tags testhooks (the
// DBHOST_TEST_* hooks the crash tests use), once in TestMain.
var dbhostBin string

func TestMain(m *testing.M) {
	code := func() int {
		if os.Getenv("DBHOST_APPLY_SKIP_BINARY") == "" {
			dir, err := os.MkdirTemp("", "dbhost-apply-bin-")
			if err != nil {
				panic(err)
			}
			defer os.RemoveAll(dir)
			bin, err := testbin.Build(dir, testbin.Module+"/cmd/dbhost", "-tags", "testhooks")
			if err != nil {
				panic("building dbhost: " + err.Error())
			}
			dbhostBin = bin
		}
		return m.Run()
	}()
	os.Exit(code)
}

// crashStride is how far the crash loops step: every journal step, or with
// go test -short (./scripts/test --quick) every third one.
func crashStride() int {
	if testing.Short() {
		return 3
	}
	return 1
}

// writePlan saves everyKind's plan-able changes as a plan.json.
func writePlan(t *testing.T) string {
	t.Helper()
	p := &plan.Plan{SchemaVersion: plan.SchemaVersion, Host: "dev-2s", Workload: "oltp", DB: "mysql",
		Changes: []change.Change{}, PendingReboot: []change.Change{}, FindingsWithoutChanges: []plan.Advice{}}
	for _, c := range everyKind() {
		switch c.Kind {
		case change.BootArg:
			p.PendingReboot = append(p.PendingReboot, c)
		case change.TunedProfile:
			p.TunedProfile = c.Value
		default:
			p.Changes = append(p.Changes, c)
		}
	}
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// dbhost runs the binary; killed reports a SIGKILL death.
func dbhost(t *testing.T, env []string, args ...string) (out string, code int, killed bool) {
	t.Helper()
	cmd := testbin.Command(dbhostBin, args...)
	cmd.Env = append(append(cmd.Env, "DBHOST_TEST_SIMULATE=1"), env...)
	b, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			return string(b), -1, true
		}
		return string(b), ee.ExitCode(), false
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b), 0, false
}

// TestKill9AtEveryStep runs the real binary on a copy of a fixture tree,
// SIGKILLs it right after journal step N (after a begin, after a write,
// after a side or done entry), then runs dbhost rollback: every file must be
// as before, byte for byte, for every N; a second rollback is a no-op.
func TestKill9AtEveryStep(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	planPath := writePlan(t)
	src := fixture(t, "laptop-2s")
	atEveryStep(t, crashStride(), func(t *testing.T, n int) bool {
		root := t.TempDir()
		copyTree(t, src, root)
		state := filepath.Join(root, "var/lib/dbhost")
		before := treeBytes(t, root, state)
		out, code, killed := dbhost(t, []string{"DBHOST_TEST_KILL_AT=" + strconv.Itoa(n)},
			"apply", "--plan", planPath, "--root", root, "--accept-risk")
		if !killed {
			if code != 0 || !strings.Contains(out, "journal ") {
				t.Fatalf("step %d: apply exit %d:\n%s", n, code, out)
			}
			if n < 20 {
				t.Fatalf("apply ran to the end after %d steps: the hook is not called at every step", n)
			}
			// Apply twice: nothing written.
			out, code, _ = dbhost(t, nil, "apply", "--plan", planPath, "--root", root, "--accept-risk")
			if code != 0 || !strings.Contains(out, "nothing written") || strings.Contains(out, "journal ") {
				t.Fatalf("second apply exit %d:\n%s", code, out)
			}
		}
		if killed {
			tearOpenWrite(t, root, state)
		}
		// A kill during the rollback too (at its first write), on the finished apply.
		if !killed {
			if _, _, k := dbhost(t, []string{"DBHOST_TEST_KILL_AT=2"}, "rollback", "--root", root); !k {
				t.Fatalf("rollback was not killed at step 2")
			}
		}
		out, code, _ = dbhost(t, nil, "rollback", "--root", root)
		if code != 0 {
			t.Fatalf("step %d: rollback exit %d:\n%s", n, code, out)
		}
		if d := diffTrees(before, treeBytes(t, root, state)); len(d) > 0 {
			t.Fatalf("step %d: after kill -9 and rollback:\n%s\nrollback said:\n%s", n, strings.Join(d, "\n"), out)
		}
		checkJournalOld(t, root, state)
		out, code, _ = dbhost(t, nil, "rollback", "--root", root)
		if code != 0 || !strings.Contains(out, "already rolled back") {
			t.Fatalf("step %d: second rollback exit %d:\n%s", n, code, out)
		}
		return !killed
	})
}

// TestCLIDryRunAndVerify checks the dry-run diff and verify's drift causes
// through the binary.
func TestCLIDryRunAndVerify(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	planPath := writePlan(t)
	root := fixture(t, "laptop-2s")
	before := treeBytes(t, root, "")
	out, code, _ := dbhost(t, nil, "apply", "--dry-run", "--plan", planPath, "--root", root)
	if code != 0 {
		t.Fatalf("dry run exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"~ vm.swappiness: 10 → 1  [memory.swappiness] keep the SGA in RAM\n",
		"~ /sys/block/nvme0n1/queue/scheduler: none → mq-deadline  [io.scheduler]\n",
		"! /sys/class/net/eno1/mtu: 1500 → 9000  [network.jumbo-frames]\n    refused: risky, refused without --accept-risk: A switch port or peer left at 1500 silently drops full-size frames",
		"> transparent_hugepage: (absent) → transparent_hugepage=never  [memory.thp-enabled]\n    pending reboot: edit /etc/default/grub: add transparent_hugepage=never to GRUB_CMDLINE_LINUX, then run update-grub\n",
		"= numa: (absent) → (removed)  [numa.disabled-at-boot]\n    already set: nothing written\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if d := diffTrees(before, treeBytes(t, root, "")); len(d) > 0 {
		t.Fatalf("dry run changed %v", d)
	}
	// Without --accept-risk: the rest applied, exit 5 for the refusal.
	out, code, _ = dbhost(t, nil, "apply", "--plan", planPath, "--root", root)
	if code != 5 || !strings.Contains(out, "1 refused (risky)") {
		t.Fatalf("apply exit %d:\n%s", code, out)
	}
	out, code, _ = dbhost(t, nil, "verify", "--root", root)
	if code != 0 {
		t.Fatalf("verify exit %d:\n%s", code, out)
	}
	// Drift: a sysctl.d file wins for swappiness; tuned's profile sets THP;
	// a udev rule sets the scheduler; someone else changed read_ahead_kb.
	os.WriteFile(filepath.Join(root, "proc/sys/vm/swappiness"), []byte("30\n"), 0o644)
	os.WriteFile(filepath.Join(root, "etc/sysctl.d/99-zz.conf"), []byte("vm.swappiness = 30\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sys/kernel/mm/transparent_hugepage/enabled"), []byte("[always] madvise never\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "etc/tuned/dbprof"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/tuned/active_profile"), []byte("dbprof\n"), 0o644)
	os.WriteFile(filepath.Join(root, "etc/tuned/dbprof/tuned.conf"), []byte("[main]\ninclude=throughput-performance\n[vm]\ntransparent_hugepages=always\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "usr/lib/tuned/throughput-performance"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/lib/tuned/throughput-performance/tuned.conf"), []byte("[main]\nsummary=Broadly applicable tuning\n[vm]\ntransparent_hugepages=madvise\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sys/block/nvme0n1/queue/scheduler"), []byte("[none] mq-deadline kyber bfq\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "etc/udev/rules.d"), 0o755)
	os.WriteFile(filepath.Join(root, "etc/udev/rules.d/61-io.rules"), []byte("ACTION==\"add|change\", KERNEL==\"nvme*\", ATTR{queue/scheduler}=\"none\"\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sys/block/nvme0n1/queue/read_ahead_kb"), []byte("128\n"), 0o644)
	out, code, _ = dbhost(t, nil, "verify", "--root", root)
	if code != 3 {
		t.Fatalf("verify with drift exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"x vm.swappiness: live 30, applied 1  [memory.swappiness] drift\n    cause: /etc/sysctl.d/99-zz.conf line 1 sets vm.swappiness = 30",
		"cause: tuned profile dbprof (/etc/tuned/dbprof/tuned.conf line 4) sets [vm] transparent_hugepages = always",
		"cause: udev rule /etc/udev/rules.d/61-io.rules line 1 sets ATTR{queue/scheduler}=\"none\"",
		"x /sys/block/nvme0n1/queue/read_ahead_kb: live 128, applied 4096  [io.read-ahead] drift\n    cause: changed by another agent",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("verify lacks %q:\n%s", want, out)
		}
	}
	// A reboot after the apply: btime later than the journal.
	stat := read(t, root, "proc/stat")
	stat = strings.Replace(stat, "btime 1793400000", "btime 4102444800", 1) // 2100-01-01
	os.WriteFile(filepath.Join(root, "proc/stat"), []byte(stat), 0o644)
	out, _, _ = dbhost(t, nil, "verify", "--root", root)
	if !strings.Contains(out, "the host rebooted at 2100-01-01T00:00:00Z, after the apply") {
		t.Errorf("verify does not name the reboot:\n%s", out)
	}
}

// TestCLIUsageAndJSON: exit codes for bad input and nothing to do, and the
// JSON forms parse.
func TestCLIUsageAndJSON(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	root := fixture(t, "laptop-2s")
	planPath := writePlan(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rollback", "--root", root}, 2, "nothing to roll back"},
		{[]string{"verify", "--root", root}, 2, "nothing to verify"},
		{[]string{"apply", "--root", root, "--format", "yaml", "--plan", planPath}, 2, "--format"},
		{[]string{"apply", "--root", filepath.Join(root, "nope"), "--plan", planPath}, 2, "expects a host tree directory"},
		{[]string{"apply", "--root", root, "--plan", filepath.Join(root, "nope.json")}, 2, "no such file"},
		{[]string{"rollback", "--root", root, "--to", "x"}, 2, "nothing to roll back"},
	} {
		out, code, _ := dbhost(t, nil, c.args...)
		if code != c.code || !strings.Contains(out, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, out)
		}
	}
	out, code, _ := dbhost(t, nil, "apply", "--dry-run", "--format", "json", "--plan", planPath, "--root", root)
	var res Result
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || !res.DryRun || len(res.Items) != 12 || res.Counts[StatusChange] != 8 {
		t.Fatalf("dry-run json (exit %d, %v): %+v\n%s", code, err, res.Counts, out)
	}
	out, code, _ = dbhost(t, nil, "apply", "--accept-risk", "--format", "json", "--plan", planPath, "--root", root)
	// The first apply makes the state directory and says so on standard
	// error (the dry run, which checks the plan first, made none).
	out = strings.TrimPrefix(out, "dbhost: created the state directory "+filepath.Join(root, "var/lib/dbhost")+
		" (the lock, the journals rollback restores from, the record of what benches create)\n")
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || res.JournalID == "" || res.Counts[StatusApplied] != 9 {
		t.Fatalf("apply json (exit %d, %v): %+v\n%s", code, err, res.Counts, out)
	}
	out, code, _ = dbhost(t, nil, "rollback", "--format", "json", "--root", root, "--to", res.JournalID)
	var rb RollbackResult
	if err := json.Unmarshal([]byte(out), &rb); err != nil || code != 0 || len(rb.Journals) != 1 || rb.Journals[0].ID != res.JournalID {
		t.Fatalf("rollback json (exit %d, %v):\n%s", code, err, out)
	}
	out, code, _ = dbhost(t, nil, "verify", "--root", root)
	if code != 2 || !strings.Contains(out, "was rolled back") {
		t.Fatalf("verify after rollback: exit %d\n%s", code, out)
	}
}

// tearOpenWrite leaves the write an apply was killed in (its begin entry
// journaled, no outcome) as a write torn between O_TRUNC and write(2)
// leaves a file: empty (dbhost before issue 24 wrote tree files so; a
// kill there lost the newline in rollback, which took it from the emptied
// file instead of the journal).
func tearOpenWrite(t *testing.T, root, state string) {
	t.Helper()
	ids, err := ListJournals(state)
	if err != nil || len(ids) == 0 {
		return
	}
	j, err := LoadJournal(state, ids[len(ids)-1])
	if err != nil || len(j.Writes) == 0 {
		return
	}
	w := j.Writes[len(j.Writes)-1]
	if w.State != StateBegin || (w.Begin.Kind != string(change.Sysctl) && w.Begin.Kind != string(change.Sysfs)) {
		return
	}
	if err := os.Truncate(filepath.Join(root, w.Begin.Path), 0); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// checkJournalOld checks that every sysctl and sysfs file the journals
// recorded holds, byte for byte (trailing newline included), the old
// bytes its first begin entry recorded, and every watched file the old
// bytes its first watch recorded.
func checkJournalOld(t *testing.T, root, state string) {
	t.Helper()
	ids, err := ListJournals(state)
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]string{}
	for _, id := range ids {
		j, err := LoadJournal(state, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range j.Writes {
			if k := w.Begin.Kind; k == string(change.Sysctl) || k == string(change.Sysfs) {
				if _, ok := first[w.Begin.Path]; !ok {
					first[w.Begin.Path] = w.Begin.Old
				}
			}
			for _, x := range w.Begin.Watch {
				if _, ok := first[x.Path]; !ok {
					first[x.Path] = x.Old
				}
			}
		}
	}
	for p, old := range first {
		if b, err := os.ReadFile(filepath.Join(root, p)); err != nil || string(b) != old {
			t.Errorf("%s after rollback: %q (%v), the journal recorded %q", p, b, err, old)
		}
	}
}
