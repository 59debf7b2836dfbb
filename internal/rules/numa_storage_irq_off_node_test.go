package rules

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// fcIRQHost is host() (node 0: CPUs 0-3, node 1: 4-7) with 000's blade
// HBA, a QMH2672 port on node 1, its vectors 90-93 on node 1's CPUs as
// irqbalance places them, and 50000 interrupts each since boot.
func fcIRQHost(cpus ...int) *snapshot.Snapshot {
	s := pciHost()
	s.PCIDevices[0].NUMANode = ptr(1)
	s.PCIDevices[0].IRQs = []int{90, 91, 92, 93}
	s.IRQs.CPUs = []int{0, 1, 2, 3, 4, 5, 6, 7}
	f := false
	s.IRQs.IrqbalanceRunning = &f
	for i, n := range []int{90, 91, 92, 93} {
		c := 4 + i
		if cpus != nil {
			c = cpus[i%len(cpus)]
		}
		counts := make([]uint64, 8)
		counts[c] = 50000
		s.IRQs.IRQs = append(s.IRQs.IRQs, snapshot.IRQ{IRQ: strconv.Itoa(n), Actions: "qla2xxx (rsp_q)", Counts: counts, Total: 50000,
			Affinity: []int{c}, EffectiveAffinity: []int{c}})
	}
	return s
}

func TestStorageIRQOffNode(t *testing.T) {
	// 000's blade HBA with every vector pinned to CPU 0, on node 0.
	s := fcIRQHost(0)
	f := fires(t, "numa.storage-irq-off-node", s, WorkloadOLTP, DBNone)
	if !strings.Contains(f.Current, "vectors 90-93 served on CPUs of other nodes") || f.Fix.Runtime[0] != "for q in 90 91 92 93; do echo 4-7 > /proc/irq/$q/smp_affinity_list; done" ||
		!strings.Contains(f.Fix.Persistent[0], "systemctl enable --now irqbalance") || f.Pending != PendingManual || !strings.Contains(f.Evidence, "node0 200000") {
		t.Fatalf("%+v", f)
	}
	// The fix followed by a new audit: the same counts since boot, the
	// vectors now on node 1's CPUs: quiet.
	after := fcIRQHost(0)
	for i := range after.IRQs.IRQs {
		after.IRQs.IRQs[i].Affinity = []int{4, 5, 6, 7}
		after.IRQs.IRQs[i].EffectiveAffinity = []int{4 + i}
	}
	quiet(t, "numa.storage-irq-off-node", after, WorkloadOLTP, DBNone)
}

func TestStorageIRQQuiet(t *testing.T) {
	rep := quiet(t, "numa.storage-irq-off-node", fcIRQHost(), WorkloadOLTP, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "on node 1: vectors on CPUs 90→4") {
		t.Fatalf("%+v", rep)
	}
	// Managed vectors (a multi-queue driver): disjoint sets covering every
	// CPU, the kernel's to place: reported, not a finding.
	s := fcIRQHost(0)
	for i := range s.IRQs.IRQs {
		s.IRQs.IRQs[i].Affinity = []int{2 * i, 2*i + 1}
	}
	s.Topology.CPUsOnline = []int{0, 1, 2, 3, 4, 5, 6, 7}
	rep = quiet(t, "numa.storage-irq-off-node", s, WorkloadOLTP, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "managed") {
		t.Fatalf("%+v", rep)
	}
	// NVMe: managed by the kernel whatever the affinity says.
	n := fcIRQHost(0)
	n.PCIDevices[0].Kind, n.PCIDevices[0].FCHosts, n.PCIDevices[0].NVMe = "nvme", nil, []string{"nvme0"}
	quiet(t, "numa.storage-irq-off-node", n, WorkloadOLTP, DBNone)
	// Few interrupts off node: an idle port.
	idle := fcIRQHost(0)
	for i := range idle.IRQs.IRQs {
		idle.IRQs.IRQs[i].Total = 100
	}
	quiet(t, "numa.storage-irq-off-node", idle, WorkloadOLTP, DBNone)
}

func TestStorageIRQCannot(t *testing.T) {
	// The card's node unknown (numa_node -1): no verdict.
	s := fcIRQHost(0)
	s.PCIDevices[0].NUMANode = nil
	cannot(t, "numa.storage-irq-off-node", s, WorkloadOLTP, DBNone, "node unknown")
	s = host()
	absent(s, "pci_devices", "not present on this host")
	cannot(t, "numa.storage-irq-off-node", s, WorkloadOLTP, DBNone, "pci_devices")
	s = fcIRQHost(0)
	s.IRQs = snapshot.IRQs{}
	absent(s, "irqs", "permission denied")
	cannot(t, "numa.storage-irq-off-node", s, WorkloadOLTP, DBNone, "irqs")
}
