package apply

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

// cgroupLayout is a host's cgroup mounts as /proc/mounts lists them: where
// the cpuset hierarchy is (v1) or the unified one (v2).
type cgroupLayout struct {
	name, base string // the fixture it is made from
	// move relocates the fixture's cpuset hierarchy (v1) to another mount
	// point; "" keeps it.
	move  string
	extra string // more /proc/mounts lines (and their directories)
	mount string // where the group must be created
	hier  string // place's "hierarchy" line
}

var cgroupLayouts = []cgroupLayout{
	{name: "systemd-v1", base: "cgroup-v1", mount: "/sys/fs/cgroup/cpuset", hier: "v1 /sys/fs/cgroup/cpuset"},
	{name: "cgconfig-rhel6", base: "cgroup-v1", move: "/cgroup/cpuset", mount: "/cgroup/cpuset", hier: "v1 /cgroup/cpuset"},
	// The RHEL 6.5 fixture as cgconfig mounts it: /cgroup/cpuset, /cgroup/cpu,
	// /cgroup/memory, a 2.6.32 kernel without cpuset.effective_*.
	{name: "rhel6", base: "rhel6", mount: "/cgroup/cpuset", hier: "v1 /cgroup/cpuset"},
	{name: "custom-dev-cpuset", base: "cgroup-v1", move: "/dev/cpuset", mount: "/dev/cpuset", hier: "v1 /dev/cpuset"},
	{name: "hybrid", base: "cgroup-v1", extra: "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,nosuid,nodev,noexec,relatime,nsdelegate 0 0\n",
		mount: "/sys/fs/cgroup/cpuset", hier: "v1 /sys/fs/cgroup/cpuset"},
	{name: "v2", base: "cgroup-v2", mount: "/sys/fs/cgroup", hier: "v2 /sys/fs/cgroup"},
}

// build makes the layout's tree from its fixture.
func (l cgroupLayout) build(t *testing.T) string {
	t.Helper()
	root := cgFixture(t, l.base)
	mounts := read(t, root, "proc/mounts")
	if l.move != "" {
		to := filepath.Join(root, l.move)
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(filepath.Join(root, "sys/fs/cgroup/cpuset"), to); err != nil {
			t.Fatal(err)
		}
		mounts = strings.Replace(mounts, " /sys/fs/cgroup/cpuset cgroup ", " "+l.move+" cgroup ", 1)
	}
	for _, line := range strings.Split(strings.TrimSpace(l.extra), "\n") {
		if f := strings.Fields(line); len(f) > 2 {
			dir := filepath.Join(root, f[1])
			os.MkdirAll(dir, 0o755)
			for n, c := range map[string]string{"cgroup.controllers": "\n", "cgroup.subtree_control": "\n", "cgroup.procs": ""} {
				os.WriteFile(filepath.Join(dir, n), []byte(c), 0o644)
			}
			mounts += line + "\n"
		}
	}
	os.WriteFile(filepath.Join(root, "proc/mounts"), []byte(mounts), 0o644)
	if l.base == "cgroup-v2" {
		os.WriteFile(filepath.Join(root, "sys/fs/cgroup/cgroup.subtree_control"), []byte("cpu memory\n"), 0o644)
	}
	return root
}

// treeState is every file and directory of a tree but the state directory.
func treeState(t *testing.T, root, state string) map[string]string {
	m := treeBytes(t, root, state)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && p != state {
			rel, _ := filepath.Rel(root, p)
			m["dir "+rel] = ""
		}
		if err == nil && d.IsDir() && p == state {
			return filepath.SkipDir
		}
		return nil
	})
	return m
}

// TestPlaceApplyEveryCgroupLayout: place --apply, verify and rollback on
// every cgroup layout, the mounts read from the tree's /proc/mounts:
// systemd's v1 /sys/fs/cgroup/cpuset, cgconfig's /cgroup/cpuset (RHEL 6),
// a custom /dev/cpuset, systemd's hybrid (v1 cpuset, cgroup2 at
// /sys/fs/cgroup/unified) and v2. The group is created under the cpuset
// mount of each, the process moved, verify finds it as applied, and
// rollback leaves the tree as it was, byte for byte.
func TestPlaceApplyEveryCgroupLayout(t *testing.T) {
	if dbhostBin == "" {
		t.Skip("binary not built")
	}
	specs := map[string]string{
		"cgroup-v1": "strategy: binding\ninstances:\n  - name: CDB1\n    engine: oracle\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n",
		"cgroup-v2": "strategy: binding\ninstances:\n  - name: db\n    engine: postgres\n    cpus: 2\n    memory_gb: 0\n    class: guaranteed\n",
		"rhel6":     "strategy: binding\ninstances:\n  - name: ORCL\n    engine: oracle\n    cpus: 4\n    memory_gb: 0\n    class: guaranteed\n",
	}
	for _, l := range cgroupLayouts {
		t.Run(l.name, func(t *testing.T) {
			root := l.build(t)
			state := filepath.Join(root, "var/lib/dbhost")
			os.MkdirAll(state, 0o700)
			spec := filepath.Join(t.TempDir(), "spec.yaml")
			os.WriteFile(spec, []byte(specs[l.base]), 0o644)
			before := treeState(t, root, state)
			out, code, _ := dbhost(t, nil, "place", "--spec", spec, "--apply", "--root", root)
			if code != 0 || !strings.Contains(out, "cgroup hierarchy: "+l.hier+"\n") || strings.Contains(out, "failed") {
				t.Fatalf("place --apply: exit %d, want 0 on %s:\n%s", code, l.hier, out)
			}
			groups, _ := filepath.Glob(filepath.Join(root, l.mount, "dbhost_*"))
			if len(groups) != 1 {
				t.Fatalf("groups under %s: %v\n%s", l.mount, groups, out)
			}
			procs, _ := os.ReadFile(filepath.Join(groups[0], "cgroup.procs"))
			if strings.TrimSpace(string(procs)) == "" {
				t.Errorf("no process moved into %s:\n%s", groups[0], out)
			}
			if out, code, _ := dbhost(t, nil, "verify", "--root", root); code != 0 {
				t.Errorf("verify after place --apply: exit %d\n%s", code, out)
			}
			if out, code, _ := dbhost(t, nil, "rollback", "--root", root); code != 0 {
				t.Fatalf("rollback: exit %d\n%s", code, out)
			}
			if d := diffTrees(before, treeState(t, root, state)); len(d) > 0 {
				t.Fatalf("after rollback:\n%s", strings.Join(d, "\n"))
			}
		})
	}
}

// TestCgroupOutsideTheMounts: a cgroup change whose group is not directly
// under a cgroup mount of the tree's /proc/mounts is refused, wherever it
// is: /sys/fs/cgroup on a host whose cpuset is at /cgroup/cpuset too.
func TestCgroupOutsideTheMounts(t *testing.T) {
	root := cgroupLayouts[1].build(t) // cgconfig: cpuset at /cgroup/cpuset
	o := opts(root)
	res, err := Apply([]change.Change{
		cg(change.CgroupDir, "/sys/fs/cgroup/cpuset/dbhost_x", "present"),
		cg(change.CgroupDir, "/cgroup/dbhost_x", "present"),
		cg(change.CgroupDir, "/cgroup/cpuset/dbhost_x", "present"),
	}, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := statuses(res); got != "failed failed applied" {
		t.Fatalf("%s: %+v", got, res.Items)
	}
	if !strings.Contains(res.Items[0].Message, "/cgroup/cpuset") {
		t.Errorf("the refusal does not name the mounts: %s", res.Items[0].Message)
	}
}
