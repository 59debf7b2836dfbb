package facts

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

const mountsSample = `proc /proc proc rw,relatime 0 0
sysfs /sys sysfs rw,relatime 0 0
devtmpfs /dev devtmpfs rw,relatime,size=12334448k,mode=755 0 0
/dev/mapper/vg-root / xfs rw,relatime,attr2,inode64,noquota 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
tmpfs /dev/shm tmpfs rw,nosuid,nodev,size=24683620k 0 0
hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0
/dev/sdb1 /u01/app/ora\040data ext4 rw,noatime,nobarrier 0 0
nfs1:/export /mnt/back\134up nfs4 rw,vers=4.1,rsize=1048576,hard 0 0
binfmt_misc /proc/sys/fs/binfmt_misc binfmt_misc rw 0 0
systemd-1 /proc/sys/fs/binfmt_misc autofs rw 0 0
`

func TestParseMounts(t *testing.T) {
	ms, err := parseMounts(mountsSample)
	if err != nil {
		t.Fatal(err)
	}
	want := []snapshot.Mount{
		{Device: "devtmpfs", Path: "/dev", FSType: "devtmpfs", Options: []string{"rw", "relatime", "size=12334448k", "mode=755"}},
		{Device: "/dev/mapper/vg-root", Path: "/", FSType: "xfs", Options: []string{"rw", "relatime", "attr2", "inode64", "noquota"}},
		{Device: "tmpfs", Path: "/dev/shm", FSType: "tmpfs", Options: []string{"rw", "nosuid", "nodev", "size=24683620k"}},
		{Device: "hugetlbfs", Path: "/dev/hugepages", FSType: "hugetlbfs", Options: []string{"rw", "relatime", "pagesize=2M"}},
		{Device: "/dev/sdb1", Path: "/u01/app/ora data", FSType: "ext4", Options: []string{"rw", "noatime", "nobarrier"}},
		{Device: "nfs1:/export", Path: `/mnt/back\up`, FSType: "nfs4", Options: []string{"rw", "vers=4.1", "rsize=1048576", "hard"}},
	}
	if !reflect.DeepEqual(ms, want) {
		t.Errorf("parseMounts =\n%+v\nwant\n%+v", ms, want)
	}
}

func TestUnescapeMount(t *testing.T) {
	for in, want := range map[string]string{
		`a\040b`:    "a b",
		`a\011b`:    "a\tb",
		`a\012`:     "a\n",
		`\134`:      `\`,
		`a\04`:      `a\04`,
		`a\9999`:    `a\9999`,
		`\777`:      `\777`,
		`plain`:     "plain",
		`x\040\040`: "x  ",
	} {
		if got := unescapeMount(in); got != want {
			t.Errorf("unescapeMount(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseMountsMalformed(t *testing.T) {
	for _, in := range []string{
		"/dev/sda1 / ext4\n",
		"/dev/sda1 / ext4 rw 0 0 extra\n",
		"/dev/sda1 relative ext4 rw 0 0\n",
	} {
		if _, err := parseMounts(in); err == nil {
			t.Errorf("parseMounts(%q) succeeded", in)
		}
	}
	if ms, err := parseMounts("\n\n"); err != nil || ms == nil || len(ms) != 0 {
		t.Errorf("empty input: %v %v", ms, err)
	}
}

func TestReadMounts(t *testing.T) {
	s := newBTree(t).file("/proc/mounts", mountsSample).collect(readMounts)
	if len(s.Storage.Mounts) != 6 || len(s.Absent) != 0 {
		t.Errorf("Mounts=%+v Absent=%+v", s.Storage.Mounts, s.Absent)
	}
	s = newBTree(t).file("/proc/self/mounts", mountsSample).collect(readMounts)
	if len(s.Storage.Mounts) != 6 || len(s.Absent) != 0 {
		t.Errorf("self/mounts fallback: Mounts=%+v Absent=%+v", s.Storage.Mounts, s.Absent)
	}
	s = newBTree(t).collect(readMounts)
	if s.Storage.Mounts == nil || len(s.Storage.Mounts) != 0 || !hasAbsent(s, "storage.mounts", "not present") {
		t.Errorf("missing: Mounts=%+v Absent=%+v", s.Storage.Mounts, s.Absent)
	}
	s = newBTree(t).file("/proc/mounts", "proc /proc proc rw 0 0\nbad line\n").collect(readMounts)
	if len(s.Storage.Mounts) != 0 || !hasAbsent(s, "storage.mounts", "malformed: line 2") {
		t.Errorf("malformed: Mounts=%+v Absent=%+v", s.Storage.Mounts, s.Absent)
	}
}

func FuzzParseMounts(f *testing.F) {
	f.Add(mountsSample)
	f.Add(`a /b\040c ext4 rw\054x 0 0`)
	f.Fuzz(func(t *testing.T, in string) {
		ms, err := parseMounts(in)
		if err != nil {
			return
		}
		for _, m := range ms {
			if pseudoFS[m.FSType] {
				t.Fatalf("pseudo filesystem kept: %+v", m)
			}
			if !strings.HasPrefix(m.Path, "/") || len(m.Options) == 0 {
				t.Fatalf("bad mount %+v", m)
			}
		}
	})
}
