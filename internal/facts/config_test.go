package facts

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// writeHostFiles creates a fake host tree: host path → content. A content
// starting with "->" makes a symlink to the rest.
func writeHostFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newTestCollector returns a collector over a fresh fake tree.
func newTestCollector(t testing.TB, files map[string]string) *Collector {
	t.Helper()
	dir := t.TempDir()
	writeHostFiles(t, dir, files)
	return &Collector{Root: Root{Dir: dir}, Snap: &snapshot.Snapshot{Absent: []snapshot.Absence{}}}
}

func absentFor(c *Collector, fact string) []snapshot.Absence {
	var out []snapshot.Absence
	for _, a := range c.Snap.Absent {
		if a.Fact == fact {
			out = append(out, a)
		}
	}
	return out
}

func TestReadConfig(t *testing.T) {
	c := newTestCollector(t, map[string]string{
		"/etc/security/limits.conf":         "oracle soft nofile 1024\noracle hard nofile 65536\n",
		"/etc/security/limits.d/90-db.conf": "oracle - memlock unlimited\nbad line here\n",
		"/etc/security/limits.d/README":     "not a conf file\n",
		"/usr/lib/sysctl.d/50-default.conf": "vm.swappiness = 60\nkernel.pid_max = 4194304\n",
		"/etc/sysctl.d/50-default.conf":     "vm.swappiness = 30\n",
		"/etc/sysctl.d/10-early.conf":       "vm.swappiness = 5\nkernel.shmmax = 1\n",
		"/run/sysctl.d/60-run.conf":         "kernel.shmmax = 2\nnot an assignment\n",
		"/usr/lib/sysctl.d/70-masked.conf":  "vm.nr_hugepages = 99\n",
		"/etc/sysctl.d/70-masked.conf":      "->/dev/null",
		"/etc/sysctl.d/99-sysctl.conf":      "->../sysctl.conf",
		"/etc/sysctl.conf":                  "vm.dirty_ratio = 15\n",
		"/lib":                              "->usr/lib",
		"/etc/tuned/active_profile":         "throughput-performance\n",
		"/etc/tuned/profile_mode":           "manual\n",
		"/etc/cgconfig.conf":                "group db { cpuset { cpuset.cpus = \"0-1\"; } }\n",
		"/etc/cgconfig.d/broken.conf":       "group x {\n",
		"/etc/passwd":                       "root:x:0:0::/:\noracle:x:54321:54321::/:\npostgres:x:105:110::/:\n",
	})
	readConfig(c)
	cf := c.Snap.Config
	if len(cf.Limits) != 3 || cf.Limits[2].File != "/etc/security/limits.d/90-db.conf" || cf.Limits[2].Line != 1 {
		t.Errorf("limits = %+v", cf.Limits)
	}
	if a := absentFor(c, "config.limits"); len(a) != 1 || a[0].Path != "/etc/security/limits.d/90-db.conf:2" {
		t.Errorf("limits absences = %+v", a)
	}
	type eff struct {
		file, key, value string
		effective        bool
	}
	var got []eff
	for _, e := range cf.SysctlFiles {
		got = append(got, eff{e.File, e.Key, e.Value, e.Effective})
	}
	want := []eff{
		{"/etc/sysctl.d/10-early.conf", "vm.swappiness", "5", false},
		{"/etc/sysctl.d/10-early.conf", "kernel.shmmax", "1", false},
		{"/etc/sysctl.d/50-default.conf", "vm.swappiness", "30", true},
		{"/usr/lib/sysctl.d/50-default.conf", "vm.swappiness", "60", false},
		{"/usr/lib/sysctl.d/50-default.conf", "kernel.pid_max", "4194304", false},
		{"/run/sysctl.d/60-run.conf", "kernel.shmmax", "2", true},
		{"/usr/lib/sysctl.d/70-masked.conf", "vm.nr_hugepages", "99", false},
		{"/etc/sysctl.d/99-sysctl.conf", "vm.dirty_ratio", "15", true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sysctl files:\n got %+v\nwant %+v", got, want)
	}
	if a := absentFor(c, "config.sysctl_files"); len(a) != 1 || a[0].Path != "/run/sysctl.d/60-run.conf:2" {
		t.Errorf("sysctl absences = %+v", a)
	}
	if !cf.Tuned.Installed || cf.Tuned.ActiveProfile == nil || *cf.Tuned.ActiveProfile != "throughput-performance" || cf.Tuned.ProfileMode != "manual" {
		t.Errorf("tuned = %+v", cf.Tuned)
	}
	if len(cf.Cgconfig) != 1 || cf.Cgconfig[0] != (snapshot.CgconfigEntry{File: "/etc/cgconfig.conf", Line: 1, Group: "db", Key: "cpuset.cpus", Value: "0-1"}) {
		t.Errorf("cgconfig = %+v", cf.Cgconfig)
	}
	if a := absentFor(c, "config.cgconfig"); len(a) != 1 || a[0].Path != "/etc/cgconfig.d/broken.conf:1" {
		t.Errorf("cgconfig absences = %+v", a)
	}
	if !reflect.DeepEqual(cf.Users, map[string]int{"oracle": 54321, "postgres": 105}) {
		t.Errorf("users = %v", cf.Users)
	}
}

func TestReadConfigEmptyRoot(t *testing.T) {
	c := newTestCollector(t, map[string]string{})
	readConfig(c)
	cf := c.Snap.Config
	if len(cf.Limits) != 0 || len(cf.SysctlFiles) != 0 || cf.Cgconfig != nil || cf.Users != nil {
		t.Errorf("config from an empty root = %+v", cf)
	}
	if cf.Tuned.Installed || cf.Tuned.ActiveProfile != nil {
		t.Errorf("tuned = %+v", cf.Tuned)
	}
	for _, f := range []string{"config.limits", "config.users", "config.tuned.active_profile"} {
		if len(absentFor(c, f)) != 1 {
			t.Errorf("want one absence for %s, have %+v", f, c.Snap.Absent)
		}
	}
	// Optional files (sysctl.conf, cgconfig.conf) missing are not absences.
	for _, f := range []string{"config.sysctl_files", "config.cgconfig"} {
		if a := absentFor(c, f); len(a) != 0 {
			t.Errorf("unexpected absences %+v", a)
		}
	}
}
