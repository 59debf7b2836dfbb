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
	quiet(t, id, host(), WorkloadMixed, DBNone)
	unknown := host()
	absent(unknown, "host.virt.hypervisor", "permission denied")
	cannot(t, id, unknown, WorkloadMixed, DBNone, "permission denied")
}
