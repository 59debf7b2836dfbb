package apply

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// verify understands the cgroup steps of place --apply: all ok right after,
// a PID moved elsewhere or a changed cpuset is drift, an exited PID absent.
func TestVerifyCgroupSteps(t *testing.T) {
	root := cgFixture(t, "cgroup-v2")
	o := opts(root)
	g := "/sys/fs/cgroup/dbhost_pg"
	cs := []change.Change{
		cg(change.CgroupDir, g, "present"),
		cg(change.CgroupFile, g+"/cpuset.cpus", "2-3"),
		cg(change.CgroupFile, g+"/cpuset.mems", "0"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "812"),
		cg(change.CgroupProcs, g+"/cgroup.procs", "1501"),
	}
	res, err := Apply(cs, o)
	if err != nil || res.JournalID == "" {
		t.Fatalf("apply: %v %+v", err, res)
	}
	vo := VerifyOptions{Root: o.Root, Sys: o.Sys}
	verify := func() map[string]Check {
		j, err := LoadJournal(o.StateDir, res.JournalID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]Check{}
		for _, c := range VerifyJournal(j, vo) {
			if change.Kind(c.Kind).Cgroup() {
				out[c.Setting+" "+c.Want] = c
			}
		}
		return out
	}
	for k, c := range verify() {
		if c.Status != "ok" {
			t.Errorf("right after apply: %s: %+v", k, c)
		}
	}
	// Another agent puts cpus back to 0-3; process 1501 exits.
	os.WriteFile(filepath.Join(root, "sys/fs/cgroup/dbhost_pg/cpuset.cpus"), []byte("0-3\n"), 0o644)
	os.WriteFile(filepath.Join(root, "sys/fs/cgroup/dbhost_pg/cpuset.cpus.effective"), []byte("0-3\n"), 0o644)
	os.RemoveAll(filepath.Join(root, "proc/1501"))
	got := verify()
	if c := got[g+"/cpuset.cpus 2-3"]; c.Status != "drift" || !strings.Contains(c.Cause, "another agent") {
		t.Errorf("cpus changed: %+v", c)
	}
	if c := got[g+"/cgroup.procs 1501"]; c.Status != "absent" || !strings.Contains(c.Cause, "exited") {
		t.Errorf("exited pid: %+v", c)
	}
	if c := got[g+"/cgroup.procs 812"]; c.Status != "ok" {
		t.Errorf("pid 812 still in place: %+v", c)
	}
}

// TestTunedCause: the cause comes from the active profile as facts merged
// it (the including profile wins, with file and line); a profile facts
// could not read is said to be unknown, not taken for "no tuned".
func TestTunedCause(t *testing.T) {
	active := "dbprof"
	s := &snapshot.Snapshot{}
	s.Config.Tuned.ActiveProfile = &active
	s.Config.Tuned.Profile = []snapshot.TunedSetting{
		{Unit: "vm", Option: "transparent_hugepages", Value: "always", File: "/etc/tuned/dbprof/tuned.conf", Line: 4},
		{Unit: "sysfs", Option: "/sys/block/sd*/queue/nr_requests", Value: "64", File: "/etc/tuned/dbprof/tuned.conf", Line: 7},
	}
	if got, want := tunedCause(change.Sysfs, "", "/sys/kernel/mm/transparent_hugepage/enabled", "never", s), "tuned profile dbprof (/etc/tuned/dbprof/tuned.conf line 4) sets [vm] transparent_hugepages = always"; got != want {
		t.Errorf("thp: %q, want %q", got, want)
	}
	if got := tunedCause(change.Sysfs, "", "/sys/block/sda/queue/nr_requests", "128", s); !strings.Contains(got, "line 7) sets [sysfs] /sys/block/sd*/queue/nr_requests = 64") {
		t.Errorf("sysfs glob: %q", got)
	}
	if got := tunedCause(change.Sysfs, "", "/sys/kernel/mm/transparent_hugepage/enabled", "always", s); got != "" {
		t.Errorf("tuned sets the applied value: %q", got)
	}
	s.Config.Tuned.Profile = nil
	s.Absent = []snapshot.Absence{{Fact: "config.tuned.profile", Path: "/usr/lib/tuned/x/tuned.conf", Reason: "profile x not found"}}
	if got := tunedCause(change.Sysfs, "", "/sys/kernel/mm/transparent_hugepage/enabled", "never", s); !strings.Contains(got, "tuned's active profile dbprof could not be read") || !strings.Contains(got, "unknown") {
		t.Errorf("unreadable profile: %q", got)
	}
}
