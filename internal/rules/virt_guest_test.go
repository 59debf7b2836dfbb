package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtGuest(t *testing.T) {
	const id = "virt.guest"
	s := host()
	s.Host.Virt = snapshot.Virt{Hypervisor: true, Guest: true, Type: "kvm", Evidence: "cpuinfo flag hypervisor; DMI QEMU Standard PC"}
	f := fires(t, id, s, WorkloadMixed, DBNone)
	if f.Severity != SevInfo || !strings.HasPrefix(f.Current, "kvm guest") || f.Fix.Runtime[0] != "tuned-adm profile virtual-guest" {
		t.Fatalf("%+v", f)
	}
	for _, r := range []string{"cpu.deep-cstates-latency", "cpu.governor-not-performance", "cpu.smt-off", "dbhost audit --libvirt"} {
		if !strings.Contains(f.Why, r) {
			t.Errorf("why does not name %s: %s", r, f.Why)
		}
	}
	// Every CPU power rule it names as the host's is indeed not
	// applicable in this guest.
	for _, r := range []string{"cpu.deep-cstates-latency", "cpu.governor-not-performance", "cpu.intel-pstate-min-perf", "cpu.energy-perf-bias", "cpu.smt-off"} {
		if rep := run(t, r, s, WorkloadLatency, DBNone); len(rep.NotApplicable) != 1 {
			t.Errorf("%s in a guest: %+v", r, rep)
		}
	}
	quiet(t, id, host(), WorkloadMixed, DBNone)
	unknown := host()
	absent(unknown, "host.virt.hypervisor", "permission denied")
	cannot(t, id, unknown, WorkloadMixed, DBNone, "permission denied")
}
