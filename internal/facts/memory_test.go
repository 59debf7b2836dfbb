package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

const meminfoA = `MemTotal:       16303460 kB
MemFree:         3356180 kB
MemAvailable:   12006468 kB
Shmem:            266420 kB
HugePages_Total:     512
HugePages_Free:      500
HugePages_Rsvd:       10
HugePages_Surp:        0
Hugepagesize:       2048 kB
Hugetlb:         1048576 kB
DirectMap1G:    15728640 kB
`

const shmHeaderA = "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n"

// shmA is /proc/sysvipc/shm with an Oracle-like SGA (huge), a small segment and
// one marked for destruction (perms 1600), out of shmid order.
const shmA = shmHeaderA +
	"         0      32769  1600              12288000 20751 20800      1  1001  1001  1001  1001 1795326531 1795326531 1795326531              12288000                     0\n" +
	"-134716033          0   644               2097152 20752     0      0     0     0     0     0          0          0 1795326531                     0                  4096\n" +
	" 987654321      65538   640            1073741824 30000 30001     42  54321 54321  1001  1001 1795326531          0 1795326531            1073741824                     0\n"

const passwdA = `root:x:0:0:root:/root:/bin/bash
toor:x:0:0:second root:/root:/bin/sh
# comment
+nisuser::::::
oracle:x:1001:1001::/home/oracle:/bin/bash
garbage line
postgres:x:notanumber:1::/:/bin/false
`

func memoryTreeA() map[string]string {
	return map[string]string{
		"/proc/meminfo": meminfoA,
		"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages":               "512\n",
		"/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages":             "500\n",
		"/sys/kernel/mm/hugepages/hugepages-2048kB/surplus_hugepages":          "0\n",
		"/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages":             "10\n",
		"/sys/kernel/mm/hugepages/hugepages-2048kB/nr_overcommit_hugepages":    "0\n",
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages":            "2\n",
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages":          "1\n",
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/surplus_hugepages":       "0\n",
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/resv_hugepages":          "0\n",
		"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_overcommit_hugepages": "3\n",
		"/sys/kernel/mm/hugepages/README":                                      "not a pool\n",
		"/sys/kernel/mm/transparent_hugepage/enabled":                          "always [madvise] never\n",
		"/sys/kernel/mm/transparent_hugepage/defrag":                           "always defer defer+madvise [madvise] never\n",
		"/sys/kernel/mm/transparent_hugepage/shmem_enabled":                    "always within_size advise [never] deny force\n",
		"/sys/kernel/mm/transparent_hugepage/khugepaged/defrag":                "1\n",
		"/proc/vmstat":      "nr_free_pages 838045\nnuma_hit 123456789\nnuma_miss 0\nnuma_foreign 0\nnuma_pages_migrated 42\npgmigrate_success 40\npgmigrate_fail 2\nnuma_hint_faults 7\n",
		"/proc/sysvipc/shm": shmA,
		"/etc/passwd":       passwdA,
	}
}

func i64A(v int64) *int64 { return &v }

func TestReadMemory(t *testing.T) {
	c := collectorA(fakeRootA(t, memoryTreeA()))
	readMemory(c)
	m := c.Snap.Memory
	if len(c.Snap.Absent) != 0 {
		t.Errorf("unexpected absences: %+v", c.Snap.Absent)
	}
	if m.Meminfo["MemTotal"] != 16303460 || m.Meminfo["HugePages_Rsvd"] != 10 || len(m.Meminfo) != 11 {
		t.Errorf("meminfo = %v", m.Meminfo)
	}
	wantHP := []snapshot.Hugepages{
		{SizeKB: 2048, Total: 512, Free: 500, Surplus: 0, Reserved: 10, Overcommit: 0, Default: true},
		{SizeKB: 1048576, Total: 2, Free: 1, Surplus: 0, Reserved: 0, Overcommit: 3, Default: false},
	}
	if !reflect.DeepEqual(m.Hugepages, wantHP) {
		t.Errorf("hugepages = %+v\nwant %+v", m.Hugepages, wantHP)
	}
	th := m.THP
	if th.Enabled == nil || *th.Enabled != "madvise" || !reflect.DeepEqual(th.EnabledOptions, []string{"always", "madvise", "never"}) {
		t.Errorf("thp enabled = %v %v", th.Enabled, th.EnabledOptions)
	}
	if th.Defrag == nil || *th.Defrag != "madvise" || len(th.DefragOptions) != 5 {
		t.Errorf("thp defrag = %v %v", th.Defrag, th.DefragOptions)
	}
	if th.ShmemEnabled == nil || *th.ShmemEnabled != "never" {
		t.Errorf("thp shmem_enabled = %v", th.ShmemEnabled)
	}
	if th.KhugepagedDefrag == nil || *th.KhugepagedDefrag != 1 {
		t.Errorf("khugepaged defrag = %v", th.KhugepagedDefrag)
	}
	if m.Vmstat["numa_hit"] != 123456789 || m.Vmstat["pgmigrate_fail"] != 2 || len(m.Vmstat) != 8 {
		t.Errorf("vmstat = %v", m.Vmstat)
	}
	wantShm := []snapshot.ShmSegment{
		{Key: "-134716033", ShmID: 0, Perms: "644", SizeBytes: 2097152, CPID: 20752, LPID: 0, Nattch: 0, UID: 0, User: "root", RSSBytes: i64A(0), SwapBytes: i64A(4096)},
		{Key: "0", ShmID: 32769, Perms: "1600", SizeBytes: 12288000, CPID: 20751, LPID: 20800, Nattch: 1, UID: 1001, User: "oracle", RSSBytes: i64A(12288000), SwapBytes: i64A(0)},
		{Key: "987654321", ShmID: 65538, Perms: "640", SizeBytes: 1073741824, CPID: 30000, LPID: 30001, Nattch: 42, UID: 54321, User: "", RSSBytes: i64A(1073741824), SwapBytes: i64A(0)},
	}
	if !reflect.DeepEqual(m.SysVShm, wantShm) {
		t.Errorf("shm =\n%+v\nwant\n%+v", m.SysVShm, wantShm)
	}
	for _, s := range m.SysVShm {
		if s.Huge != nil {
			t.Errorf("segment %d: Huge = %v, want unknown (nil)", s.ShmID, *s.Huge)
		}
	}
}

func TestReadMemoryAbsent(t *testing.T) {
	c := collectorA(fakeRootA(t, map[string]string{"/etc/hostname": "x\n"}))
	readMemory(c)
	m := c.Snap.Memory
	if m.Meminfo != nil || m.Hugepages != nil || m.Vmstat != nil || m.SysVShm != nil {
		t.Errorf("absent sources gave values: %+v", m)
	}
	if m.THP.Enabled != nil || m.THP.Defrag != nil || m.THP.ShmemEnabled != nil || m.THP.KhugepagedDefrag != nil {
		t.Errorf("absent THP gave values: %+v", m.THP)
	}
	for _, f := range []string{"memory.meminfo", "memory.hugepages", "memory.thp.enabled", "memory.thp.defrag",
		"memory.thp.shmem_enabled", "memory.thp.khugepaged_defrag", "memory.vmstat", "memory.sysv_shm"} {
		a := absenceA(c, f)
		if a == nil || a.Reason != "not present on this host" {
			t.Errorf("absence %s = %+v", f, a)
		}
	}
}

func TestReadMemoryMalformed(t *testing.T) {
	files := memoryTreeA()
	files["/proc/meminfo"] = "MemTotal: lots kB\n"
	files["/proc/vmstat"] = "nr_free_pages 1\nnuma_hit\n"
	files["/proc/sysvipc/shm"] = shmHeaderA + "    0  1  600  4096  1  2\n" // truncated line
	files["/sys/kernel/mm/transparent_hugepage/enabled"] = "always madvise never\n"
	files["/sys/kernel/mm/transparent_hugepage/khugepaged/defrag"] = "maybe\n"
	files["/sys/kernel/mm/hugepages/hugepages-1048576kB/free_hugepages"] = "-1\n"
	// Unreadable (a directory in place of the file).
	delete(files, "/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages")
	files["/sys/kernel/mm/hugepages/hugepages-2048kB/resv_hugepages/"] = ""
	c := collectorA(fakeRootA(t, files))
	readMemory(c)
	m := c.Snap.Memory
	if m.Meminfo != nil || m.Vmstat != nil || m.SysVShm != nil || m.THP.Enabled != nil || m.THP.KhugepagedDefrag != nil {
		t.Errorf("malformed sources gave values: %+v", m)
	}
	if len(m.Hugepages) != 0 || m.Hugepages == nil {
		t.Errorf("hugepages = %#v, want an empty list (both pools unreadable)", m.Hugepages)
	}
	for f, want := range map[string]string{
		"memory.meminfo":               "malformed: line 1",
		"memory.vmstat":                "malformed: line 2",
		"memory.sysv_shm":              "malformed: line 2",
		"memory.thp.enabled":           "malformed",
		"memory.thp.khugepaged_defrag": "malformed",
		"memory.hugepages[1048576kB]":  "malformed",
		"memory.hugepages[2048kB]":     "directory",
	} {
		a := absenceA(c, f)
		if a == nil || !strings.Contains(a.Reason, want) {
			t.Errorf("absence %s = %+v, want reason containing %q", f, a, want)
		}
	}
	// Defrag was fine and is still read.
	if m.THP.Defrag == nil || *m.THP.Defrag != "madvise" {
		t.Errorf("defrag = %v", m.THP.Defrag)
	}
}

func TestReadMemoryRHEL6(t *testing.T) {
	c := collectorA(fakeRootA(t, map[string]string{
		"/proc/meminfo": "MemTotal: 1000 kB\nHugepagesize: 2048 kB\n",
		"/sys/kernel/mm/redhat_transparent_hugepage/enabled":           "[always] madvise never\n",
		"/sys/kernel/mm/redhat_transparent_hugepage/defrag":            "[always] madvise never\n",
		"/sys/kernel/mm/redhat_transparent_hugepage/khugepaged/defrag": "yes [no]\n",
		// Before 4.5 there are no rss/swap columns.
		"/proc/sysvipc/shm": "       key      shmid perms       size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime\n" +
			"         0      32769   600   12288000 20751 20800      1  1001  1001  1001  1001 1795326531 1795326531 1795326531\n",
		"/sys/kernel/mm/hugepages/": "",
	}))
	readMemory(c)
	th := c.Snap.Memory.THP
	if th.Enabled == nil || *th.Enabled != "always" || th.KhugepagedDefrag == nil || *th.KhugepagedDefrag != 0 {
		t.Errorf("RHEL6 THP = %+v", th)
	}
	if a := absenceA(c, "memory.thp.shmem_enabled"); a == nil || a.Path != "/sys/kernel/mm/redhat_transparent_hugepage/shmem_enabled" {
		t.Errorf("shmem_enabled absence = %+v", a)
	}
	shm := c.Snap.Memory.SysVShm
	if len(shm) != 1 || shm[0].RSSBytes != nil || shm[0].SwapBytes != nil || shm[0].SizeBytes != 12288000 || shm[0].User != "" {
		t.Errorf("old-format shm = %+v", shm)
	}
	if a := absenceA(c, "memory.sysv_shm.user"); a == nil {
		t.Errorf("no absence for the unreadable /etc/passwd")
	}
	if hp := c.Snap.Memory.Hugepages; hp == nil || len(hp) != 0 {
		t.Errorf("empty hugepages dir = %#v, want []", hp)
	}
}

func boolA(v bool) *bool { return &v }

func TestHugepagePool(t *testing.T) {
	for _, c := range []struct {
		p    string
		node int
		size string
		ok   bool
	}{
		{"/proc/sys/vm/nr_hugepages", -1, "2048kB", true},
		{"/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", -1, "1048576kB", true},
		{"/sys/devices/system/node/node12/hugepages/hugepages-2048kB/nr_hugepages", 12, "2048kB", true},
		{"/sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages", 0, "", false},
		{"/sys/devices/system/node/node01/hugepages/hugepages-2048kB/nr_hugepages", 0, "", false},
		{"/sys/devices/system/node/node-1/hugepages/hugepages-2048kB/nr_hugepages", 0, "", false},
		{"/sys/devices/system/node/node0/hugepages/hugepages-2048/nr_hugepages", 0, "", false},
		{"/sys/kernel/mm/hugepages/hugepages-2048kB/x/nr_hugepages", 0, "", false},
		{"/proc/sys/vm/nr_overcommit_hugepages", 0, "", false},
	} {
		node, size, ok := HugepagePool(c.p)
		if ok != c.ok || (ok && (node != c.node || size != c.size)) {
			t.Errorf("HugepagePool(%s) = %d %q %v, want %d %q %v", c.p, node, size, ok, c.node, c.size, c.ok)
		}
	}
}
