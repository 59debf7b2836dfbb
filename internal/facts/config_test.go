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

func TestParseLimits(t *testing.T) {
	in := `# /etc/security/limits.conf
*               soft    core            0
oracle   soft   nofile  1024   # trailing comment
oracle   HARD   memlock unlimited

@dba     -      nproc   16384
oracle   soft   bogus   1
oracle   soft
grid     maybe  nofile  1
grid     soft   nofile  lots
grid     soft   nice    -5
`
	got, errs := parseLimits(strings.NewReader(in))
	want := []snapshot.LimitEntry{
		{Line: 2, Domain: "*", Type: "soft", Item: "core", Value: "0"},
		{Line: 3, Domain: "oracle", Type: "soft", Item: "nofile", Value: "1024"},
		{Line: 4, Domain: "oracle", Type: "hard", Item: "memlock", Value: "unlimited"},
		{Line: 6, Domain: "@dba", Type: "-", Item: "nproc", Value: "16384"},
		{Line: 11, Domain: "grid", Type: "soft", Item: "nice", Value: "-5"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", got, want)
	}
	var lines []int
	for _, e := range errs {
		pe, ok := e.(*ParseError)
		if !ok {
			t.Fatalf("error %v is not a *ParseError", e)
		}
		lines = append(lines, pe.Line)
	}
	if !reflect.DeepEqual(lines, []int{7, 8, 9, 10}) {
		t.Errorf("bad lines = %v, want [7 8 9 10]", lines)
	}
}

func TestParseSysctlConf(t *testing.T) {
	in := `# comment
; also a comment
vm.swappiness = 10
kernel.shmmax=68719476736
-net.core.busy_poll = 50
net/ipv4/conf/eth0.100/rp_filter = 2
net.ipv4.ip_local_port_range = 9000    65500
this line is wrong
 = 5
vm.empty =
`
	got, errs := parseSysctlConf(strings.NewReader(in))
	want := []sysctlLine{
		{Line: 3, Key: "vm.swappiness", Value: "10"},
		{Line: 4, Key: "kernel.shmmax", Value: "68719476736"},
		{Line: 5, Key: "net.core.busy_poll", Value: "50", IgnoreError: true},
		{Line: 6, Key: "net.ipv4.conf.eth0/100.rp_filter", Value: "2"},
		{Line: 7, Key: "net.ipv4.ip_local_port_range", Value: "9000    65500"},
		{Line: 10, Key: "vm.empty", Value: ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("lines:\n got %+v\nwant %+v", got, want)
	}
	if len(errs) != 2 || errs[0].(*ParseError).Line != 8 || errs[1].(*ParseError).Line != 9 {
		t.Errorf("errors = %v, want lines 8 and 9", errs)
	}
}

func TestSysctlDotted(t *testing.T) {
	for in, want := range map[string]string{
		"vm.swappiness":                    "vm.swappiness",
		"vm/swappiness":                    "vm.swappiness",
		"/proc/sys/vm/x":                   "proc.sys.vm.x",
		"net.ipv4.conf.eth0/100.rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"net/ipv4/conf/eth0.100/rp_filter": "net.ipv4.conf.eth0/100.rp_filter",
		"kernel":                           "kernel",
	} {
		if got := sysctlDotted(in); got != want {
			t.Errorf("sysctlDotted(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseCgconfig(t *testing.T) {
	in := `# libcgroup configuration
mount {
	cpuset = /cgroup/cpuset;
	cpu = /cgroup/cpu;
}

group db/oracle {
	perm {
		task { uid = oracle; gid = dba; }
		admin { uid = root; gid = root; }
	}
	cpuset {
		cpuset.cpus = "0-3";
		cpuset.mems = "0";   # node 0 only
		cpuset.memory_migrate = 1;
	}
	cpu {
		cpu.shares = 512;
	}
}
template users/%u {
	cpuset { cpuset.cpus = "4-7"; }
}
default { perm { task { uid = root; } } }
namespace { cpu = /daemons; }
group . { cpu { } }
`
	got, err := ParseCgconfig(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []snapshot.CgconfigEntry{
		{Line: 13, Group: "db/oracle", Key: "cpuset.cpus", Value: "0-3"},
		{Line: 14, Group: "db/oracle", Key: "cpuset.mems", Value: "0"},
		{Line: 15, Group: "db/oracle", Key: "cpuset.memory_migrate", Value: "1"},
		{Line: 18, Group: "db/oracle", Key: "cpu.shares", Value: "512"},
		{Line: 22, Group: "template:users/%u", Key: "cpuset.cpus", Value: "4-7"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entries:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseCgconfigErrors(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
	}{
		{"group a {\n cpuset {\n cpuset.cpus = \"0\"\n }\n}\n", 4}, // missing ';'
		{"group a {\n cpuset {\n", 2},                              // unterminated
		{"bogus {}\n", 1},
		{"group a {\n cpuset { cpuset.cpus = \"0-1; }\n}\n", 2}, // unterminated string
		{"group {\n}\n", 1},
		{"mount {\n cpuset /cgroup;\n}\n", 2},
		{"default { perm {\n", 1},
	} {
		got, err := ParseCgconfig(strings.NewReader(tc.in))
		pe, ok := err.(*ParseError)
		if !ok || got != nil {
			t.Errorf("%q: got %v, %v; want nil and a *ParseError", tc.in, got, err)
			continue
		}
		if pe.Line != tc.line {
			t.Errorf("%q: error %v at line %d, want line %d", tc.in, pe, pe.Line, tc.line)
		}
	}
}

func TestParsePasswd(t *testing.T) {
	in := "root:x:0:0:root:/root:/bin/bash\n+nisuser::::::\noracle:x:54321:54321::/home/oracle:/bin/bash\nbroken\npostgres:x:abc:1::/:\n# c\noracle:x:1:1::/:\n"
	u, n, bad := parsePasswd(strings.NewReader(in))
	if !reflect.DeepEqual(u, map[string]int{"root": 0, "oracle": 54321}) || bad != 3 {
		t.Errorf("got %v bad=%d", u, bad)
	}
	if !reflect.DeepEqual(n, map[int]string{0: "root", 54321: "oracle", 1: "oracle"}) {
		t.Errorf("by uid: %v", n)
	}
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

func FuzzParseLimits(f *testing.F) {
	f.Add([]byte("oracle soft nofile 1024\n# c\n@dba - memlock unlimited\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, errs := parseLimits(strings.NewReader(string(b)))
		for _, e := range ents {
			if e.Line < 1 || e.Domain == "" || e.Value == "" {
				t.Fatalf("bad entry %+v", e)
			}
		}
		for _, e := range errs {
			if _, ok := e.(*ParseError); !ok {
				t.Fatalf("error %T", e)
			}
		}
	})
}

func FuzzParseSysctlConf(f *testing.F) {
	f.Add([]byte("vm.swappiness = 10\n-net/core/x=1\n; c\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		lines, _ := parseSysctlConf(strings.NewReader(string(b)))
		for _, l := range lines {
			if l.Key == "" || l.Line < 1 || strings.ContainsAny(l.Key, " \t=") {
				t.Fatalf("bad line %+v", l)
			}
			if sysctlDotted(l.Key) != l.Key {
				t.Fatalf("key %q not normalized", l.Key)
			}
		}
	})
}

func FuzzParseCgconfig(f *testing.F) {
	f.Add([]byte("group db { cpuset { cpuset.cpus = \"0-3\"; } }\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ents, err := ParseCgconfig(strings.NewReader(string(b)))
		if err != nil {
			if ents != nil {
				t.Fatal("entries returned with an error")
			}
			if _, ok := err.(*ParseError); !ok {
				t.Fatalf("error %T", err)
			}
			return
		}
		for _, e := range ents {
			if e.Line < 1 || e.Key == "" || e.Group == "" {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}

func FuzzParsePasswd(f *testing.F) {
	f.Add([]byte("root:x:0:0::/:\noracle:x:54321:1::/:\n"))
	f.Add([]byte(passwdA))
	f.Fuzz(func(t *testing.T, b []byte) {
		u, names, _ := parsePasswd(strings.NewReader(string(b)))
		for n, uid := range u {
			if n == "" || uid < 0 || names[uid] == "" {
				t.Fatalf("bad user %q %d", n, uid)
			}
		}
		for uid, name := range names {
			if uid < 0 || name == "" || strings.Contains(name, ":") {
				t.Fatalf("bad entry %d → %q", uid, name)
			}
		}
	})
}
