package facts

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// fakeRootA writes a host tree under t.TempDir(): each key is a host path,
// each value the file's content; a key ending in "/" creates a directory
// (used to make a file unreadable without needing a non-root user).
func fakeRootA(t testing.TB, files map[string]string) Root {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Root{Dir: dir}
}

// collectorA returns a collector over root with an empty snapshot, the way
// Collect prepares it.
func collectorA(root Root) *Collector {
	return &Collector{Root: root, Snap: &snapshot.Snapshot{Sysctl: map[string]string{}, Absent: []snapshot.Absence{}}}
}

// absenceA returns the absence recorded for fact, or nil.
func absenceA(c *Collector, fact string) *snapshot.Absence {
	for i := range c.Snap.Absent {
		if c.Snap.Absent[i].Fact == fact {
			return &c.Snap.Absent[i]
		}
	}
	return nil
}

func TestSysctlPath(t *testing.T) {
	for key, want := range map[string]string{
		"vm.swappiness":                     "/proc/sys/vm/swappiness",
		"fs.file-max":                       "/proc/sys/fs/file-max",
		"net.ipv4.conf.all.arp_filter":      "/proc/sys/net/ipv4/conf/all/arp_filter",
		"net.ipv4.conf.eth0/100.arp_filter": "/proc/sys/net/ipv4/conf/eth0.100/arp_filter",
	} {
		if got := SysctlPath(key); got != want {
			t.Errorf("SysctlPath(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestSysctlKeysCurated(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range SysctlKeys {
		if seen[k] {
			t.Errorf("duplicate key %q", k)
		}
		seen[k] = true
		if k != strings.TrimSpace(k) || strings.Count(k, ".") < 1 {
			t.Errorf("badly spelled key %q", k)
		}
	}
	// The ones the brief and the seeds require by name.
	for _, k := range []string{
		"vm.swappiness", "vm.dirty_ratio", "vm.dirty_background_ratio", "vm.zone_reclaim_mode", "vm.nr_hugepages",
		"vm.hugetlb_shm_group", "vm.max_map_count", "vm.overcommit_memory", "vm.min_free_kbytes",
		"kernel.numa_balancing", "kernel.shmmax", "kernel.shmall", "kernel.sem", "kernel.sched_migration_cost_ns",
		"kernel.sched_min_granularity_ns", "kernel.sched_wakeup_granularity_ns", "kernel.panic_on_oops",
		"fs.file-max", "fs.aio-max-nr", "net.core.rmem_max", "net.core.wmem_max", "net.core.somaxconn",
		"net.core.busy_read", "net.core.busy_poll", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.ipv4.tcp_fastopen",
		"net.ipv4.ip_local_port_range", "net.ipv4.conf.all.arp_filter", "net.ipv4.conf.default.rp_filter",
	} {
		if !seen[k] {
			t.Errorf("SysctlKeys lacks %q", k)
		}
	}
}

func TestReadSysctl(t *testing.T) {
	files := map[string]string{}
	for _, k := range SysctlKeys {
		files[SysctlPath(k)] = "1\n"
	}
	files["/proc/sys/vm/swappiness"] = "10\n"
	files["/proc/sys/kernel/sem"] = "32000\t1024000000\t500\t32000\n"
	files["/proc/sys/net/ipv4/tcp_rmem"] = "4096\t131072  6291456\n"
	files["/proc/sys/net/ipv4/ip_local_port_range"] = "9000 \t65500\n"
	files["/proc/sys/vm/hugetlb_shm_group"] = "" // empty file: present, empty value
	// Missing on this kernel (moved to debugfs in 5.13).
	delete(files, "/proc/sys/kernel/sched_min_granularity_ns")
	// Unreadable: a directory in place of the file.
	delete(files, "/proc/sys/net/core/busy_poll")
	files["/proc/sys/net/core/busy_poll/"] = ""
	c := collectorA(fakeRootA(t, files))
	readSysctl(c)

	want := map[string]string{
		"vm.swappiness":                "10",
		"kernel.sem":                   "32000 1024000000 500 32000",
		"net.ipv4.tcp_rmem":            "4096 131072 6291456",
		"net.ipv4.ip_local_port_range": "9000 65500",
		"vm.hugetlb_shm_group":         "",
		"vm.dirty_ratio":               "1",
	}
	for k, v := range want {
		got, ok := c.Snap.Sysctl[k]
		if !ok || got != v {
			t.Errorf("Sysctl[%q] = %q (present %v), want %q", k, got, ok, v)
		}
	}
	if len(c.Snap.Sysctl) != len(SysctlKeys)-2 {
		t.Errorf("got %d keys, want %d", len(c.Snap.Sysctl), len(SysctlKeys)-2)
	}
	for _, k := range []string{"kernel.sched_min_granularity_ns", "net.core.busy_poll"} {
		if _, ok := c.Snap.Sysctl[k]; ok {
			t.Errorf("%s should be absent from the map", k)
		}
	}
	a := absenceA(c, "sysctl.kernel.sched_min_granularity_ns")
	if a == nil || a.Reason != "not present on this host" || a.Path != "/proc/sys/kernel/sched_min_granularity_ns" {
		t.Errorf("missing key absence = %+v", a)
	}
	a = absenceA(c, "sysctl.net.core.busy_poll")
	if a == nil || !strings.Contains(a.Reason, "directory") {
		t.Errorf("unreadable key absence = %+v", a)
	}
	if len(c.Snap.Absent) != 2 {
		t.Errorf("absences = %+v, want 2", c.Snap.Absent)
	}
}

func TestReadSysctlNoProcSys(t *testing.T) {
	c := collectorA(fakeRootA(t, map[string]string{"/etc/hostname": "x\n"}))
	readSysctl(c)
	if len(c.Snap.Sysctl) != 0 {
		t.Errorf("Sysctl = %v, want empty", c.Snap.Sysctl)
	}
	if len(c.Snap.Absent) != len(SysctlKeys) {
		t.Errorf("%d absences, want one per key (%d)", len(c.Snap.Absent), len(SysctlKeys))
	}
}

func TestParseSysctlA(t *testing.T) {
	in := "abi.vsyscall32 = 1\n" +
		"sysctl: permission denied on key 'fs.protected_hardlinks'\n" +
		"dev.cdrom.info = CD-ROM information, Id: cdrom.c 3.20 2003/12/17\n" +
		"dev.cdrom.info = \n" +
		"dev.cdrom.info = drive name:\n" +
		"kernel.domainname = (none)\n" +
		"kernel.sem = 32000\t1024000000\t500\t32000\n" +
		"\n" +
		"error: permission denied on key 'net.ipv4.route.flush'\n" +
		"net.ipv4.conf.all.tag = \n" +
		"net.ipv4.conf.eth0/100.arp_filter = 1\r\n" +
		"kernel.core_pattern = |/usr/lib/systemd/systemd-coredump %P %u = x\n" +
		"vm.swappiness=60\n"
	got, err := ParseSysctlA(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"abi.vsyscall32":                    "1",
		"dev.cdrom.info":                    "CD-ROM information, Id: cdrom.c 3.20 2003/12/17 drive name:",
		"kernel.domainname":                 "(none)",
		"kernel.sem":                        "32000 1024000000 500 32000",
		"net.ipv4.conf.all.tag":             "",
		"net.ipv4.conf.eth0/100.arp_filter": "1",
		"kernel.core_pattern":               "|/usr/lib/systemd/systemd-coredump %P %u = x",
		"vm.swappiness":                     "60",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseSysctlA =\n%v\nwant\n%v", got, want)
	}
}

func TestParseSysctlAMalformed(t *testing.T) {
	for _, in := range []string{
		"vm.swappiness = 60\nthis is not a sysctl line\n",
		"= 5\n",
		"vm swappiness = 60\n",
		"vm.swappiness = 1\n" + strings.Repeat("x", 2<<20) + "\n",
	} {
		m, err := ParseSysctlA(strings.NewReader(in))
		var pe *ParseError
		if err == nil || !errors.As(err, &pe) || m != nil {
			t.Errorf("ParseSysctlA(%q) = %v, %v; want nil and a *ParseError", trunc(in, 40), m, err)
		}
	}
	if _, err := ParseSysctlA(strings.NewReader("vm.a = 1\nbad\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("error %v does not name line 2", err)
	}
	// Empty input is a valid, empty listing.
	if m, err := ParseSysctlA(strings.NewReader("")); err != nil || len(m) != 0 {
		t.Errorf("empty input: %v, %v", m, err)
	}
}

func FuzzParseSysctlA(f *testing.F) {
	f.Add([]byte("vm.swappiness = 60\nkernel.sem = 32000\t1024000000\t500\t32000\n"))
	f.Add([]byte("dev.cdrom.info = a\ndev.cdrom.info = \ndev.cdrom.info = b\n"))
	f.Add([]byte("sysctl: permission denied on key 'x'\nnet.ipv4.conf.all.tag = \n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseSysctlA(strings.NewReader(string(b)))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || m != nil {
				t.Fatalf("error %v (%T) with map %v", err, err, m)
			}
			return
		}
		for k, v := range m {
			if k == "" || strings.ContainsAny(k, " \t\n\r=") {
				t.Fatalf("bad key %q", k)
			}
			if v != strings.TrimSpace(v) || strings.Contains(v, "  ") || strings.ContainsAny(v, "\t\n\r") {
				t.Fatalf("value of %q not collapsed: %q", k, v)
			}
		}
	})
}

func FuzzCollapseSpace(f *testing.F) {
	f.Add("4096\t131072  6291456\n")
	f.Add("")
	f.Add(" a \v b\f")
	f.Fuzz(func(t *testing.T, s string) {
		got := collapseSpace(s)
		if want := strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}
