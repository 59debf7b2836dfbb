package apply

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

// cgFixture copies a fixture tree whole (processes too: moves need
// /proc/PID/cgroup).
func cgFixture(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	copyFiltered(t, filepath.Join(hostsDir(t), name), dst, nil)
	return dst
}

// cgState is treeBytes plus every directory of /sys/fs/cgroup (a group left
// behind shows as an added "dir ...").
func cgState(t testing.TB, root, skip string) map[string]string {
	m := treeBytes(t, root, skip)
	_ = filepath.WalkDir(filepath.Join(root, "sys/fs/cgroup"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			m["dir "+rel] = ""
		}
		return nil
	})
	return m
}

func cg(k change.Kind, key, value string) change.Change {
	return change.Change{Kind: k, Key: key, Value: value, Rule: "place-binding"}
}

func statuses(r *Result) string {
	var s []string
	for _, it := range r.Items {
		s = append(s, it.Status)
	}
	return strings.Join(s, " ")
}

func TestCgroupV2ApplyRollback(t *testing.T) {
	root := cgFixture(t, "cgroup-v2")
	// cpuset not yet enabled for the root's children: apply enables it.
	os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cgroup.subtree_control"), []byte("cpu io memory pids\n"), 0o644)
	o := opts(root)
	before := cgState(t, root, o.StateDir)
	g := "/sys/fs/cgroup/dbhost_pg"
	cs := []change.Change{
		cg(change.CgroupController, "/sys/fs/cgroup/cgroup.subtree_control", "+cpuset"),
		cg(change.CgroupDir, g, "present"),
		cg(change.CgroupFile, g+"/cpuset.cpus", "2-3"),
		cg(change.CgroupFile, g+"/cpuset.mems", "0"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "812"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "1501"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "4242"), // not running
	}
	dry, err := Apply(cs, Options{Root: o.Root, StateDir: o.StateDir, Sys: o.Sys, DryRun: true})
	if err != nil || statuses(dry) != "change change change change change change absent" {
		t.Fatalf("dry run: %v %s", err, statuses(dry))
	}
	if d := diffTrees(before, cgState(t, root, o.StateDir)); len(d) > 0 {
		t.Fatalf("dry run changed %v", d)
	}
	res, err := Apply(cs, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res); got != "applied applied applied applied applied applied absent" {
		t.Fatalf("apply: %s\n%+v", got, res.Items)
	}
	if it := res.Items[4]; it.Current != "/sys/fs/cgroup/db.slice/postgresql.service" || it.New != "pid 812" {
		t.Errorf("move item: %+v", it)
	}
	for p, want := range map[string]string{
		"sys/fs/cgroup/cgroup.subtree_control":                   "cpu io memory pids cpuset\n",
		"sys/fs/cgroup/dbhost_pg/cpuset.cpus":                    "2-3\n",
		"sys/fs/cgroup/dbhost_pg/cpuset.cpus.effective":          "2-3\n",
		"sys/fs/cgroup/dbhost_pg/cpuset.mems.effective":          "0\n",
		"sys/fs/cgroup/dbhost_pg/cgroup.procs":                   "812\n1501\n",
		"proc/812/cgroup":                                        "0::/dbhost_pg\n",
		"sys/fs/cgroup/db.slice/postgresql.service/cgroup.procs": "830\n831\n832\n",
	} {
		if got := read(t, root, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	// Apply twice: nothing to write, no journal.
	again, err := Apply(cs, o)
	if err != nil || again.JournalID != "" || statuses(again) != "unchanged unchanged unchanged unchanged unchanged unchanged absent" {
		t.Fatalf("second apply: %v %q %s", err, again.JournalID, statuses(again))
	}
	rb, err := Rollback("", o)
	if err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback: %v %+v", err, rb)
	}
	if d := diffTrees(before, cgState(t, root, o.StateDir)); len(d) > 0 {
		t.Fatalf("after rollback: %v", d)
	}
	rb, err = Rollback("", o)
	if err != nil || len(rb.Journals) != 1 || !rb.Journals[0].Already {
		t.Fatalf("second rollback: %v %+v", err, rb)
	}
	// A rollback of a journal whose group's work is undone by hand already
	// (the group removed, PIDs back) is a no-op too: run it on a fresh apply.
	if _, err := Apply(cs, o); err != nil {
		t.Fatal(err)
	}
	// A process forked in the group since (not in the journal) goes to the
	// root so that the group can be removed.
	os.MkdirAll(filepath.Join(root, "proc/9000"), 0o755)
	os.WriteFile(filepath.Join(root, "proc/9000/cgroup"), []byte("0::/dbhost_pg\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sys/fs/cgroup/dbhost_pg/cgroup.procs"), []byte("812\n1501\n9000\n"), 0o644)
	rb, err = Rollback("", o)
	if err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback with a forked child: %v %+v", err, rb)
	}
	if _, err := os.Stat(filepath.Join(root, "sys/fs/cgroup/dbhost_pg")); !os.IsNotExist(err) {
		t.Errorf("group not removed: %v", err)
	}
	if got := read(t, root, "proc/9000/cgroup"); got != "0::/\n" {
		t.Errorf("child moved to %q, want the root", got)
	}
	// The PID's old group removed since: it goes to the root, the rollback
	// completes (it would otherwise fail forever on the busy group).
	if _, err := Apply(cs[:5], o); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(root, "sys/fs/cgroup/db.slice/postgresql.service"))
	rb, err = Rollback("", o)
	if err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback with the old group gone: %v %+v", err, rb)
	}
	if got := read(t, root, "proc/812/cgroup"); got != "0::/\n" {
		t.Errorf("pid 812 in %q, want the root", got)
	}
	if m := rb.Journals[0].Restores[0].Message; !strings.Contains(m, "no longer exists") {
		t.Errorf("restore message %q", m)
	}
}

func TestCgroupV1ApplyRollback(t *testing.T) {
	root := cgFixture(t, "cgroup-v1")
	o := opts(root)
	before := cgState(t, root, o.StateDir)
	g := "/sys/fs/cgroup/cpuset/dbhost_ORCL"
	cs := []change.Change{
		cg(change.CgroupDir, g, "present"),
		cg(change.CgroupFile, g+"/cpuset.cpus", "8-9"),
		cg(change.CgroupFile, g+"/cpuset.mems", "1"),
		cg(change.CgroupFile, g+"/cpuset.memory_migrate", "1"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "2201"),
		// An existing group's cpus: a live change, restored by rollback.
		cg(change.CgroupFile, "/sys/fs/cgroup/cpuset/oracle/cpuset.cpus", "4-5"),
	}
	res, err := Apply(cs, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res); got != "applied applied applied applied applied applied" {
		t.Fatalf("apply: %s\n%+v", got, res.Items)
	}
	for p, want := range map[string]string{
		"sys/fs/cgroup/cpuset/dbhost_ORCL/cpuset.effective_mems": "1\n",
		"sys/fs/cgroup/cpuset/dbhost_ORCL/cpuset.memory_migrate": "1\n",
		"sys/fs/cgroup/cpuset/dbhost_ORCL/tasks":                 "2201\n",
		"proc/2201/cgroup":                                       strings.Replace(read(t, filepath.Join(hostsDir(t), "cgroup-v1"), "proc/2201/cgroup"), "cpuset:/oracle", "cpuset:/dbhost_ORCL", 1),
	} {
		if got := read(t, root, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if rb, err := Rollback("", o); err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback: %v %+v", err, rb)
	}
	if d := diffTrees(before, cgState(t, root, o.StateDir)); len(d) > 0 {
		t.Fatalf("after rollback: %v", d)
	}
	// v1 refuses a list outside the parent's: the write fails, nothing kept.
	res, err = Apply([]change.Change{cg(change.CgroupDir, g, "present"), cg(change.CgroupFile, g+"/cpuset.mems", "5")}, o)
	if err != nil || res.Items[1].Status != StatusFailed || !strings.Contains(res.Items[1].Message, "invalid argument") {
		t.Fatalf("v1 mems outside the parent: %v %+v", err, res.Items)
	}
	if rb, err := Rollback("", o); err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback: %v %+v", err, rb)
	}
	if d := diffTrees(before, cgState(t, root, o.StateDir)); len(d) > 0 {
		t.Fatalf("after rollback: %v", d)
	}
}

// TestCgroupMemsFallsBack: v2 keeps a cpuset.mems it cannot use and falls
// back to the parent's nodes: FAILED, with both lists.
func TestCgroupMemsFallsBack(t *testing.T) {
	root := cgFixture(t, "cgroup-v2")
	o := opts(root)
	before := cgState(t, root, o.StateDir)
	g := "/sys/fs/cgroup/dbhost_x"
	res, err := Apply([]change.Change{
		cg(change.CgroupDir, g, "present"),
		cg(change.CgroupFile, g+"/cpuset.mems", "1"),
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	if it := res.Items[1]; it.Status != StatusFailed || it.Message != `the kernel kept "1" but uses "0" (cpuset.mems.effective)` {
		t.Fatalf("mems fallback: %+v", it)
	}
	if rb, err := Rollback("", o); err != nil || rb.Failed() != 0 {
		t.Fatalf("rollback: %v %+v", err, rb)
	}
	if d := diffTrees(before, cgState(t, root, o.StateDir)); len(d) > 0 {
		t.Fatalf("after rollback: %v", d)
	}
}

func TestCgroupRefusesOtherPaths(t *testing.T) {
	root := cgFixture(t, "cgroup-v2")
	o := opts(root)
	res, err := Apply([]change.Change{
		cg(change.CgroupDir, "/etc/x", "present"),
		cg(change.CgroupFile, "/sys/fs/cgroup/db.slice/memory.max", "1"),
		cg(change.CgroupProcs, "/sys/fs/cgroup/db.slice/cgroup.procs", "1; rm"),
		cg(change.CgroupDir, "/sys/fs/cgroup/../../etc", "present"),
	}, o)
	if err != nil || statuses(res) != "failed failed failed failed" {
		t.Fatalf("%v %s", err, statuses(res))
	}
}

func TestProcessGroup(t *testing.T) {
	text := "12:cpu,cpuacct:/x\n6:cpuset:/oracle\n1:name=systemd:/system.slice/a.service\n0::/system.slice/a.service\n"
	if g, err := processGroup(text, false); err != nil || g != "/oracle" {
		t.Errorf("v1: %q %v", g, err)
	}
	if g, err := processGroup(text, true); err != nil || g != "/system.slice/a.service" {
		t.Errorf("v2: %q %v", g, err)
	}
	for _, bad := range []string{"", "0::relative\n", "6:cpuset\n", "6:cpusetx:/a\n"} {
		if g, err := processGroup(bad, false); err == nil {
			t.Errorf("v1 %q: %q, want an error", bad, g)
		}
	}
	if got := setProcCgroup(text, false, "/dbhost_a"); !strings.Contains(got, "6:cpuset:/dbhost_a\n") || !strings.Contains(got, "0::/system.slice") {
		t.Errorf("setProcCgroup: %q", got)
	}
	if got := editControllers("cpu io\n", "+cpuset"); got != "cpu io cpuset\n" {
		t.Errorf("editControllers: %q", got)
	}
	if got := editControllers("cpu cpuset io\n", "-cpuset"); got != "cpu io\n" {
		t.Errorf("editControllers: %q", got)
	}
}

func FuzzParseProcCgroup(f *testing.F) {
	f.Add("0::/\n", true)
	f.Add("6:cpuset:/oracle\n0::/a\n", false)
	f.Fuzz(func(t *testing.T, text string, v2 bool) {
		g, err := processGroup(text, v2)
		if err != nil {
			return
		}
		if !strings.HasPrefix(g, "/") || strings.Contains(g, "\n") {
			t.Fatalf("group %q from %q", g, text)
		}
		// Setting the group it has changes nothing it reads.
		if g2, err := processGroup(setProcCgroup(text, v2, g), v2); err != nil || g2 != g {
			t.Fatalf("set/parse %q: %q %v", text, g2, err)
		}
	})
}

// TestKill9PlaceApplyAtEveryStep runs the real binary's place --apply on a
// copy of each cgroup fixture, SIGKILLs it after journal step N, then
// rolls back: the tree (files and cgroup directories) is as before, byte
// for byte, for every N; a second rollback is a no-op.
func TestKill9PlaceApplyAtEveryStep(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: db\n    engine: postgres\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n"), 0o644)
	spec1 := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec1, []byte("strategy: binding\ninstances:\n  - name: CDB1\n    engine: oracle\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n"), 0o644)
	for _, c := range []struct {
		host, spec string
		extra      []string
		steps      int
	}{{"cgroup-v2", spec, nil, 16}, {"cgroup-v1", spec1, []string{"--memory-migrate"}, 10}} {
		src := cgFixture(t, c.host)
		if c.host == "cgroup-v2" {
			os.WriteFile(filepath.Join(src, "sys/fs/cgroup/cgroup.subtree_control"), []byte("cpu memory\n"), 0o644)
		}
		for n := 1; ; n += crashStride() {
			root := t.TempDir()
			copyFiltered(t, src, root, nil)
			state := filepath.Join(root, "var/lib/dbhost")
			before := cgState(t, root, state)
			args := append([]string{"place", "--spec", c.spec, "--apply", "--root", root}, c.extra...)
			out, code, killed := dbhost(t, []string{"DBHOST_TEST_KILL_AT=" + strconv.Itoa(n)}, args...)
			if !killed {
				if code != 0 || !strings.Contains(out, "journal ") {
					t.Fatalf("%s step %d: place --apply exit %d:\n%s", c.host, n, code, out)
				}
				if n < c.steps {
					t.Fatalf("%s: place --apply ran to the end after %d steps:\n%s", c.host, n, out)
				}
				out, code, _ = dbhost(t, nil, args...)
				if code != 0 || strings.Contains(out, "journal ") || strings.Contains(out, "applied") {
					t.Fatalf("%s: second place --apply exit %d:\n%s", c.host, code, out)
				}
			}
			out, code, _ = dbhost(t, nil, "rollback", "--root", root)
			if code != 0 {
				t.Fatalf("%s step %d: rollback exit %d:\n%s", c.host, n, code, out)
			}
			if d := diffTrees(before, cgState(t, root, state)); len(d) > 0 {
				t.Fatalf("%s step %d: after kill -9 and rollback:\n%s\nrollback said:\n%s", c.host, n, strings.Join(d, "\n"), out)
			}
			out, code, _ = dbhost(t, nil, "rollback", "--root", root)
			if code != 0 || !strings.Contains(out, "already rolled back") {
				t.Fatalf("%s step %d: second rollback exit %d:\n%s", c.host, n, code, out)
			}
			if !killed {
				break
			}
		}
	}
}

func FuzzEditControllers(f *testing.F) {
	f.Add("cpu io memory pids\n", "+cpuset")
	f.Add("cpuset cpu io\n", "-cpuset")
	f.Add("", "+cpuset -cpu")
	f.Fuzz(func(t *testing.T, cur, edit string) {
		out := editControllers(cur, edit)
		if !strings.HasSuffix(out, "\n") {
			t.Fatalf("%q %q → %q: no newline", cur, edit, out)
		}
		// Each word of the edit decides its controller; the others stay.
		last := map[string]bool{}
		for _, e := range strings.Fields(edit) {
			last[strings.TrimLeft(e, "+-")] = strings.HasPrefix(e, "+")
		}
		for name, on := range last {
			if name != "" && hasWord(out, name) != on {
				t.Fatalf("%q %q → %q: %s should be %v", cur, edit, out, name, on)
			}
		}
		for _, w := range strings.Fields(cur) {
			if _, edited := last[w]; !edited && !hasWord(out, w) {
				t.Fatalf("%q %q → %q: lost %s", cur, edit, out, w)
			}
		}
	})
}

// TestCLIPlaceApplyJSON: place --apply --dry-run --format json parses and
// writes nothing.
func TestCLIPlaceApplyJSON(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	root := cgFixture(t, "cgroup-v2")
	before := cgState(t, root, "")
	spec := filepath.Join(t.TempDir(), "spec.yaml")
	os.WriteFile(spec, []byte("strategy: binding\ninstances:\n  - name: db\n    engine: postgres\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n"), 0o644)
	out, code, _ := dbhost(t, nil, "place", "--spec", spec, "--apply", "--dry-run", "--format", "json", "--root", root)
	var v struct {
		Placement struct{ Feasible bool } `json:"placement"`
		Hierarchy string                  `json:"hierarchy"`
		Apply     Result                  `json:"apply"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil || code != 0 || !v.Placement.Feasible || v.Hierarchy != "v2 /sys/fs/cgroup" ||
		!v.Apply.DryRun || v.Apply.Counts[StatusChange] != 8 {
		t.Fatalf("exit %d, %v: %+v\n%s", code, err, v, out)
	}
	if d := diffTrees(before, cgState(t, root, "")); len(d) > 0 {
		t.Fatalf("dry run changed %v", d)
	}
}

// TestCgroupV1TreePlaysOldKernels: on the RHEL 6.5 tree (cgconfig's
// /cgroup/cpuset, a 2.6.32 kernel without cpuset.effective_*), a new group
// gets the files its parent has, its lists are checked against the
// parent's cpuset.cpus/mems, and a process cannot join a group without
// CPUs (ENOSPC, as cpuset_can_attach): the move fails, nothing is moved.
func TestCgroupV1TreePlaysOldKernels(t *testing.T) {
	root := cgFixture(t, "rhel6")
	o := opts(root)
	g := "/cgroup/cpuset/dbhost_ORCL"
	res, err := Apply([]change.Change{
		cg(change.CgroupDir, g, "present"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "3101"),
		cg(change.CgroupFile, g+"/cpuset.cpus", "6-7,18-19"),
		cg(change.CgroupFile, g+"/cpuset.mems", "1"),
		cg(change.CgroupFile, g+"/cpuset.cpus", "24"), // not the parent's
		cg(change.CgroupProcs, g+"/cgroup.procs", "3117"),
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res); got != "applied failed applied applied failed applied" {
		t.Fatalf("apply: %s\n%+v", got, res.Items)
	}
	if m := res.Items[1].Message; !strings.Contains(m, "no space left on device") {
		t.Errorf("move into a group without CPUs: %q", m)
	}
	if _, err := os.Stat(filepath.Join(root, g, "cpuset.effective_cpus")); !os.IsNotExist(err) {
		t.Errorf("a 2.6.32 group has no cpuset.effective_cpus: %v", err)
	}
	for p, want := range map[string]string{
		"cgroup/cpuset/dbhost_ORCL/cpuset.cpus":  "6-7,18-19\n",
		"cgroup/cpuset/dbhost_ORCL/cgroup.procs": "3117\n",
		"cgroup/cpuset/db/tasks":                 strings.Replace(read(t, filepath.Join(hostsDir(t), "rhel6"), "cgroup/cpuset/db/tasks"), "3117\n", "", 1),
	} {
		if got := read(t, root, p); got != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
}
