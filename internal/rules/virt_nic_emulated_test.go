package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestVirtNICEmulated(t *testing.T) {
	const id = "virt.nic-emulated"
	g := guest("db2")
	g.Interfaces = []snapshot.GuestNIC{
		{Type: "network", MAC: "52:54:00:a1:0e:2f", Source: "default", Model: "e1000", Line: 60},
		{Type: "direct", MAC: "52:54:00:a1:0e:30", Source: "ens2f0", Model: "virtio", DriverName: "qemu", Line: 66},
		{Type: "hostdev", MAC: "52:54:00:a1:0e:31", Source: "0000:3b:02.1", Line: 72},
	}
	f := fires(t, id, kvmHost(g), WorkloadMixed, DBNone)
	if !strings.Contains(f.Current, "model e1000 (emulated)") || !strings.Contains(f.Current, "vhost off") || strings.Contains(f.Current, "0000:3b:02.1") || !strings.Contains(f.Setting, "db2") {
		t.Errorf("%+v", f)
	}
	sriov := guest("db1")
	sriov.Interfaces = []snapshot.GuestNIC{{Type: "hostdev", MAC: "52:54:00:a1:0e:31", Source: "0000:3b:02.1", Line: 72}}
	quiet(t, id, kvmHost(sriov), WorkloadMixed, DBNone)
	plain := guest("db1")
	plain.Interfaces[0].DriverName = "" // vhost by default
	quiet(t, id, kvmHost(plain), WorkloadMixed, DBNone)
	virtNoGuests(t, id)
}
