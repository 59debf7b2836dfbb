package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtHostKSMTHPScan(t *testing.T) {
	const id = "virt.host-ksm-thp-scan"
	ksm := func(run int64, ds ...snapshot.Domain) *snapshot.Snapshot {
		s := kvmHost(ds...)
		s.Memory.Meminfo = map[string]int64{"MemTotal": 128 << 20}
		s.Libvirt.KSM = &snapshot.KSM{Run: ptr(run), PagesSharing: ptr(int64(1200))}
		return s
	}
	f := fires(t, id, ksm(1, guest("db1"), guest("db2")), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "/sys/kernel/mm/ksm/run = 1 (ksmd merging, 1200 pages sharing)") || !strings.Contains(f.Evidence, "32.0 GiB of memory together on a host of 128.0 GiB") {
		t.Errorf("%+v", f)
	}
	quiet(t, id, ksm(0, guest("db1")), WorkloadMixed, DBNone)
	// Overcommitted: KSM is what 003 keeps it for.
	big := guest("db3")
	m := int64(200 << 20)
	big.MemoryKB = &m
	if rep := quiet(t, id, ksm(1, big), WorkloadMixed, DBNone); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "overcommitted") {
		t.Errorf("%+v", rep)
	}
	// THP always while every guest is in hugepages.
	thp := ksm(0, guest("db1"))
	thp.Memory.THP = snapshot.THP{Dir: "/sys/kernel/mm/transparent_hugepage", Enabled: ptr("always")}
	if f := fires(t, id, thp, WorkloadMixed, DBNone); !strings.Contains(f.Current, "THP enabled = always") {
		t.Errorf("%+v", f)
	}
	noMem := ksm(1, guest("db1"))
	noMem.Memory.Meminfo = nil
	absent(noMem, "memory.meminfo", "permission denied")
	cannot(t, id, noMem, WorkloadMixed, DBNone, "permission denied")
	// Guests given as files: the host is not known to be theirs.
	g := guest("db1")
	if rep := runWith(t, id, host(), &artifacts.Set{Domains: []*snapshot.Domain{&g}}); len(rep.NotApplicable) != 1 {
		t.Errorf("%+v", rep)
	}
	virtNoGuests(t, id)
}
