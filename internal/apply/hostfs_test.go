package apply

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestCheckEntry(t *testing.T) {
	h := fuzzHierarchies
	ok := []Entry{
		{Kind: "sysctl", Path: "/proc/sys/vm/swappiness"},
		{Kind: "sysfs", Path: "/sys/block/sda/queue/scheduler", Watch: []Watched{{Path: "/sys/block/sda/queue/nr_requests"}, {Path: "/proc/sys/vm/min_free_kbytes"}}},
		{Kind: kindFile, Path: LimitsFile},
		{Kind: string(change.CgroupDir), Path: "/sys/fs/cgroup/cpuset/dbhost_a"},
		{Kind: string(change.CgroupFile), Path: "/sys/fs/cgroup/dbhost_a/cpuset.cpus"},
	}
	for _, e := range ok {
		if err := checkEntry(e, h); err != nil {
			t.Errorf("%+v refused: %v", e, err)
		}
	}
	bad := []Entry{
		{Kind: "sysctl", Path: "/proc/sys/../../../x"},
		{Kind: "sysctl", Path: "/proc/sys/vm/../../../etc/passwd"},
		{Kind: "sysctl", Path: "/etc/passwd"},
		{Kind: "sysctl", Path: "proc/sys/vm/swappiness"},
		{Kind: "sysctl", Path: "/proc/sys//vm/swappiness"},
		{Kind: "sysfs", Path: "/etc/shadow"},
		{Kind: "sysfs", Path: "/sys/../etc/shadow"},
		{Kind: kindFile, Path: "/etc/passwd"},
		{Kind: kindFile, Path: "/etc/security/limits.d/../../passwd"},
		{Kind: string(change.CgroupDir), Path: "/etc/cron.d"},
		{Kind: string(change.CgroupFile), Path: "/sys/fs/cgroup/a/../../../etc/x/cpuset.cpus"},
		{Kind: string(change.CgroupDir), Path: "/cgroup/cpuset/dbhost_a"},                             // not a mount of this host
		{Kind: string(change.CgroupDir), Path: "/sys/fs/cgroup/memory/dbhost_a"},                      // not a cpuset hierarchy
		{Kind: string(change.CgroupFile), Path: "/sys/fs/cgroup/a/b/cpuset.cpus"},                     // not directly under the mount
		{Kind: string(change.CgroupController), Path: "/sys/fs/cgroup/cpuset/cgroup.subtree_control"}, // a v1 mount
		{Kind: "sysctl", Path: "/proc/sys/vm/swappiness", Watch: []Watched{{Path: "/etc/hostname"}}},
		{Kind: "sysctl", Path: "/proc/sys/vm/swappiness", Watch: []Watched{{Path: "/proc/sys/../../x"}}},
		{Kind: "bogus", Path: "/proc/sys/vm/swappiness"},
	}
	for _, e := range bad {
		if err := checkEntry(e, h); err == nil {
			t.Errorf("%+v accepted", e)
		}
	}
}

// journalOf writes a journal with the package's own writer (whatever its
// format is) holding the given begin/done pairs.
func journalOf(t *testing.T, root, stateDir string, begins ...Entry) {
	t.Helper()
	jf, id, err := createJournal(stateDir, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer jf.close()
	if err := jf.append(Entry{State: StateStart, Format: Format, ID: id, Root: root, Time: stamp(time.Now())}); err != nil {
		t.Fatal(err)
	}
	for i, b := range begins {
		b.Seq, b.State = i+1, StateBegin
		if err := jf.append(b); err != nil {
			t.Fatal(err)
		}
		if err := jf.append(Entry{Seq: i + 1, State: StateDone}); err != nil {
			t.Fatal(err)
		}
	}
	if err := jf.append(Entry{State: StateEnd}); err != nil {
		t.Fatal(err)
	}
}

// A journal entry of no kind dbhost writes is refused on its own: nothing
// is written for it (in the tree, where "/proc/sys/../../../x" would land on
// ROOT/x), it is listed as failed with its key, the others are restored,
// and the journal stays open.
func TestRollbackRefusesOutOfKindEntries(t *testing.T) {
	root := fixture(t, "laptop-2s")
	o := opts(root)
	os.WriteFile(filepath.Join(root, "x"), []byte("keep\n"), 0o644)
	os.WriteFile(filepath.Join(root, "proc/sys/vm/swappiness"), []byte("10\n"), 0o644)
	before := treeBytes(t, root, o.StateDir)
	journalOf(t, root, o.StateDir,
		Entry{Kind: "sysctl", Key: "kernel.x", Path: "/proc/sys/../../../x", Old: "1\n", New: "2"},
		Entry{Kind: kindFile, Key: "limits", Path: "/etc/passwd", Old: "evil::0:0\n", New: "x"},
		Entry{Kind: "sysctl", Key: "vm.swappiness", Path: "/proc/sys/vm/swappiness", Old: "60\n", New: "10"},
	)
	res, err := Rollback("", o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed() != 2 {
		t.Errorf("%d failed restores, want 2: %+v", res.Failed(), res.Journals)
	}
	for _, r := range res.Journals[0].Restores {
		switch r.Setting {
		case "kernel.x", "limits":
			if r.Status != RestoreFailed || !strings.Contains(r.Message, "not restored") {
				t.Errorf("%s: %+v", r.Setting, r)
			}
		case "vm.swappiness":
			if r.Status != RestoreDone {
				t.Errorf("the valid entry was not restored: %+v", r)
			}
		}
	}
	after := treeBytes(t, root, o.StateDir)
	d := diffTrees(before, after)
	if len(d) != 1 || !strings.HasPrefix(d[0], "proc/sys/vm/swappiness") {
		t.Errorf("rollback changed %v; want only proc/sys/vm/swappiness", d)
	}
	j, err := LoadJournal(o.StateDir, res.Journals[0].ID)
	if err != nil || j.RolledBack {
		t.Errorf("the journal is marked rolled back (%v) although entries were refused", err)
	}
	checks := VerifyJournal(j, VerifyOptions{Root: o.Root, Sys: o.Sys})
	refused := 0
	for _, c := range checks {
		if c.Status == "refused" {
			refused++
		}
	}
	if refused != 2 {
		t.Errorf("verify: %d refused checks, want 2: %+v", refused, checks)
	}
}

// On the live host, writes of no kind dbhost writes are refused before
// anything is opened (these never reach the file system).
func TestLiveSysRefusesOtherPaths(t *testing.T) {
	var s LiveSys
	for _, p := range []string{"/etc/hostname", "/proc/sys/../../etc/x", "/sys/../etc/x", "proc/sys/vm/swappiness", "/proc/sys", "/sys", "/tmp/dbhost-never"} {
		if err := s.Write(p, "1"); !errors.Is(err, errNotAllowed) {
			t.Errorf("Write(%q): %v, want refused", p, err)
		}
	}
	for _, p := range []string{"/tmp/dbhost-never", "/etc/dbhost-never", "/sys/kernel/dbhost-never", "/proc/sys/dbhost-never"} {
		if err := s.Mkdir(p); !errors.Is(err, errNotAllowed) {
			t.Errorf("Mkdir(%q): %v, want refused", p, err)
		}
		if err := s.Rmdir(p); !errors.Is(err, errNotAllowed) {
			t.Errorf("Rmdir(%q): %v, want refused", p, err)
		}
	}
	for _, p := range []string{"/tmp/dbhost-never/cpuset.cpus", "/etc/dbhost-never", "/proc/sys/kernel/../../../etc/x"} {
		if err := s.WriteCgroup(p, ""); !errors.Is(err, errNotAllowed) {
			t.Errorf("WriteCgroup(%q): %v, want refused", p, err)
		}
		if err := s.MovePID(path.Dir(p), p, "1"); !errors.Is(err, errNotAllowed) {
			t.Errorf("MovePID(%q): %v, want refused", p, err)
		}
	}
	if _, err := os.Stat("/tmp/dbhost-never"); err == nil {
		t.Error("/tmp/dbhost-never was created")
	}
	// A file of an allowed directory that does not exist is not created.
	if err := s.Write("/proc/sys/kernel/dbhost-never", "1"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Write of a missing /proc/sys file: %v, want not exist", err)
	}
}

// LiveSys reads this host's kernel files (read-only here: nothing written).
func TestLiveSysReads(t *testing.T) {
	var s LiveSys
	if v, err := s.Read("/proc/sys/kernel/ostype"); err != nil || v != "Linux\n" {
		t.Errorf("Read(/proc/sys/kernel/ostype) = %q, %v", v, err)
	}
	if _, err := s.Read("/proc/sys/kernel/dbhost-never"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read of a missing file: %v, want not exist", err)
	}
	names, err := s.List("/proc/sys/vm")
	if err != nil || !slices.Contains(names, "swappiness") {
		t.Errorf("List(/proc/sys/vm) = %v, %v", names, err)
	}
}

func TestCgroupMountOf(t *testing.T) {
	mounts := []string{"/sys/fs/cgroup", "/sys/fs/cgroup/cpuset", "/cgroup/cpuset", "/cgroup/memory"}
	for p, want := range map[string]string{
		"/sys/fs/cgroup/cpuset/db/cpuset.cpus": "/sys/fs/cgroup/cpuset",
		"/sys/fs/cgroup/db/cgroup.procs":       "/sys/fs/cgroup",
		"/cgroup/cpuset/db":                    "/cgroup/cpuset",
		"/cgroup/cpusetx/db":                   "",
		"/etc/passwd":                          "",
	} {
		if got, _ := CgroupMountOf(p, mounts); got != want {
			t.Errorf("CgroupMountOf(%q) = %q, want %q", p, got, want)
		}
	}
}

// The default state directory of a tree must stay in it: ROOT/var linked
// to the live /var would put the journal and the lock there.
func TestDefaultStateDirStaysInTree(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "proc"), 0o755)
	r := facts.Root{Dir: root}
	if d, err := DefaultStateDir(r); err != nil || d != filepath.Join(root, "var/lib/dbhost") {
		t.Errorf("plain tree: %q %v", d, err)
	}
	outside := t.TempDir()
	os.Symlink(outside, filepath.Join(root, "var"))
	if d, err := DefaultStateDir(r); err == nil {
		t.Errorf("var -> outside: %q accepted", d)
	}
	os.Remove(filepath.Join(root, "var"))
	os.MkdirAll(filepath.Join(root, "srv/var"), 0o755)
	os.Symlink("srv/var", filepath.Join(root, "var"))
	if _, err := DefaultStateDir(r); err != nil {
		t.Errorf("var -> a directory inside the tree: %v", err)
	}
	if d, err := DefaultStateDir(facts.Root{Dir: "/", Live: true}); err != nil || d != "/var/lib/dbhost" {
		t.Errorf("live: %q %v", d, err)
	}
}

// TreeSys removes a group it created with the files it created, and never
// a file it did not write.
// (treeGroupFiles lists what Mkdir creates, v1 and v2: a name missing there
// would make the removal of a fresh group fail here.)
func TestTreeRmdirKeepsForeignFiles(t *testing.T) {
	for _, host := range []string{"cgroup-v2", "cgroup-v1"} {
		t.Run(host, func(t *testing.T) { treeRmdir(t, host) })
	}
}

func treeRmdir(t *testing.T, host string) {
	root := fixture(t, host)
	ts := TreeSys{Root: facts.Root{Dir: root}}
	var mount string
	ms, _ := facts.CgroupMounts(ts.Root)
	for _, m := range ms {
		for _, c := range m.Controllers {
			if c == "cpuset" {
				mount = m.Path
			}
		}
		if m.Version == 2 && mount == "" {
			mount = m.Path
		}
	}
	if mount == "" {
		t.Fatalf("fixture %s has no cpuset hierarchy", host)
	}
	dir := mount + "/dbhost_test"
	if err := ts.Mkdir(dir); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, dir, "notes.txt"), []byte("mine\n"), 0o644)
	if err := ts.Rmdir(dir); err == nil {
		t.Fatal("Rmdir removed a group holding a file dbhost did not write")
	}
	if _, err := os.Stat(filepath.Join(root, dir, "notes.txt")); err != nil {
		t.Fatalf("the foreign file is gone: %v", err)
	}
	os.Remove(filepath.Join(root, dir, "notes.txt"))
	if err := ts.Rmdir(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, dir)); err == nil {
		t.Fatal("the group is still there")
	}
}

// fuzzHierarchies: a hybrid host's cpuset hierarchies, v1 cpuset at
// /sys/fs/cgroup/cpuset and cgroup2 at /sys/fs/cgroup, as /proc/mounts
// would list them.
var fuzzHierarchies = cpusetHierarchies{mounts: []snapshot.CgroupMount{
	{Path: "/sys/fs/cgroup/cpuset", Version: 1, Controllers: []string{"cpuset"}},
	{Path: "/sys/fs/cgroup", Version: 2},
}}

// FuzzCheckEntry: whatever a journal line says, an entry checkEntry lets
// through names only clean absolute paths of its kind's directories.
func FuzzCheckEntry(f *testing.F) {
	f.Add("sysctl", "/proc/sys/vm/swappiness", "/proc/sys/vm/min_free_kbytes")
	f.Add("sysfs", "/sys/block/sda/queue/scheduler", "/sys/block/sda/queue/nr_requests")
	f.Add("file", LimitsFile, "")
	f.Add("cgroup-file", "/sys/fs/cgroup/cpuset/dbhost_a/cpuset.cpus", "")
	f.Add("sysctl", "/proc/sys/../../../x", "")
	f.Add("sysfs", "/sys/kernel/mm/transparent_hugepage/enabled", "/etc/hostname")
	f.Fuzz(func(t *testing.T, kind, p, watch string) {
		e := Entry{Kind: kind, Path: p}
		if watch != "" {
			e.Watch = []Watched{{Path: watch}}
		}
		if checkEntry(e, fuzzHierarchies) != nil {
			return
		}
		for _, q := range []string{p, watch} {
			if q == "" && q == watch {
				continue
			}
			if !path.IsAbs(q) || path.Clean(q) != q || strings.Contains(q, "..") {
				t.Fatalf("accepted %q (kind %q): not a clean absolute path", q, kind)
			}
		}
		ok := false
		switch {
		case kind == kindFile:
			ok = p == LimitsFile
		case kind == "sysctl":
			ok = strings.HasPrefix(p, "/proc/sys/")
		case kind == "sysfs":
			ok = strings.HasPrefix(p, "/sys/")
		case change.Kind(kind).Cgroup():
			// A group directly under one of the host's cpuset hierarchies.
			g := p
			if change.Kind(kind) != change.CgroupDir {
				g = path.Dir(p)
			}
			_, under := fuzzHierarchies.at(path.Dir(g))
			_, at := fuzzHierarchies.at(g)
			ok = under || change.Kind(kind) == change.CgroupController && at
		}
		if !ok {
			t.Fatalf("accepted %q for kind %q", p, kind)
		}
		if watch != "" && !strings.HasPrefix(watch, "/proc/sys/") && !strings.HasPrefix(watch, "/sys/") {
			t.Fatalf("accepted the side effect %q", watch)
		}
	})
}
