package rules

import (
	"strings"
	"testing"
)

func TestVirtDiskIONative(t *testing.T) {
	const id = "virt.disk-io-native"
	g := guest("db1")
	g.Disks[0].IO = ""
	f := fires(t, id, kvmHost(g), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "vda (/dev/sdb, line 40): cache=none, no io attribute (QEMU's default: threads)") || !strings.Contains(f.Setting, "domain db1") {
		t.Errorf("%+v", f)
	}
	g.Disks[0].IO = "threads"
	fires(t, id, kvmHost(g), WorkloadMixed, DBNone)
	g.Disks[0].IO = "io_uring"
	quiet(t, id, kvmHost(g), WorkloadMixed, DBNone)
	quiet(t, id, kvmHost(guest("db1")), WorkloadMixed, DBNone)
	// A cached disk is virt.disk-cache's: nothing to say here.
	c := guest("db1")
	c.Disks[0].Cache, c.Disks[0].IO = "writeback", ""
	if rep := quiet(t, id, kvmHost(c), WorkloadMixed, DBNone); len(rep.NotApplicable) != 1 {
		t.Errorf("%+v", rep)
	}
	virtNoGuests(t, id)
}
