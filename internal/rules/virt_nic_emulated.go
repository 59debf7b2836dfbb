package rules

import (
	"fmt"
	"strings"
)

// virt.nic-emulated: a guest's network interface is an emulated NIC
// (e1000, rtl8139), user-mode networking, or virtio with vhost turned off
// (driver name='qemu'): 003 "Virtualization Tuning – Network".
func init() {
	Register(Rule{
		ID:       "virt.nic-emulated",
		Area:     AreaVirt,
		Severity: SevWarning,
		Title:    "A KVM guest's NIC is emulated, or virtio without vhost",
		Sources: []Source{
			{Doc: Seed003, Section: "Virtualization Tuning – Network",
				Quote: "VirtIO drivers for network"},
			{Doc: Seed003, Section: "Virtualization Tuning – Network",
				Quote: "vhost_net (low latency – close to line speed)"},
			{Doc: Seed003, Section: "Virtualization Tuning – Network",
				Quote: "Bypass the qemu layer"},
			{Doc: Seed003, Section: "Virtualization Tuning – Network",
				Quote: "Can be shared among multiple guests"},
			{Doc: libvirtDocs + "#network-interfaces",
				Section: "Network interfaces — model type; driver name (qemu: userspace, vhost: in the kernel, the default when vhost_net is available)"},
		},
		Scope: Scope{
			Kernels: "KVM hosts with the vhost_net module (RHEL 6+); SR-IOV (interface type hostdev) and PCI pass-through bypass the host and pass",
			Note:    "a virtio NIC without a driver element gets vhost when /dev/vhost-net exists on the host",
		},
		Pending: PendingRestart,
		Check:   checkVirtNIC,
	})
}

func checkVirtNIC(in *Input) Outcome {
	ds, skip := in.guests()
	if skip != nil {
		return *skip
	}
	var out []Finding
	checked, passthrough := 0, 0
	for _, d := range ds {
		var cur []string
		passthrough += len(d.Hostdevs)
		for _, n := range d.Interfaces {
			checked++
			where := fmt.Sprintf("interface %s (type %s", n.MAC, n.Type)
			if n.Source != "" {
				where += " " + n.Source
			}
			where += fmt.Sprintf(", line %d)", n.Line)
			switch {
			case n.Type == "hostdev" || n.Type == "vhostuser" || n.Type == "vdpa":
				passthrough++
			case n.Type == "user":
				cur = append(cur, where+": user-mode networking (slirp), every packet copied by QEMU")
			case n.Model == "virtio" && n.DriverName == "qemu":
				cur = append(cur, where+": virtio with driver name='qemu' (vhost off: packets go through QEMU)")
			case n.Model == "virtio":
			case n.Model == "":
				cur = append(cur, where+": no model (the hypervisor's default NIC, emulated: rtl8139 or e1000)")
			default:
				cur = append(cur, where+": model "+n.Model+" (emulated)")
			}
		}
		if len(cur) == 0 {
			continue
		}
		out = append(out, Finding{
			Setting:     fmt.Sprintf("domain %s: <interface><model>/<driver name>", d.Name),
			Current:     strings.Join(cur, "; "),
			Recommended: "<model type='virtio'/> with vhost (<driver name='vhost' queues='N'/>, N = vCPUs up to 8), or SR-IOV (interface type='hostdev') for the lowest latency",
			Evidence:    fmt.Sprintf("domain %s: %s", domLabel(d), strings.Join(cur, "; ")),
			Why: "003: VirtIO drivers for the network, vhost_net (low latency, close to line speed) bypasses the QEMU layer, PCI " +
				"pass-through and SR-IOV bypass the host (SR-IOV can be shared among several guests). An emulated e1000 or rtl8139 costs " +
				"an exit to QEMU per register access, and user-mode networking copies every packet in QEMU.",
			Fix:  guestsFix([]string{d.Name}, "<model type='virtio'/> and <driver name='vhost'/> in each <interface> (modprobe vhost_net on the host)"),
			Risk: "The guest sees a new NIC (virtio_net driver; the interface name may change from ens3 to enp1s0, re-check its network configuration). The guest must be restarted.",
		})
	}
	if len(out) > 0 {
		return Found(out...)
	}
	if checked == 0 && passthrough == 0 {
		return NotApplicable("%d guest(s) without a network interface", len(ds))
	}
	return Passed("%d interface(s) virtio with vhost or passed through (%d pass-through or SR-IOV device(s))", checked, passthrough).
		Reading(domainsRead(ds, fmt.Sprintf("%d <interface> with <model type='virtio'/> on vhost, %d <hostdev> or SR-IOV", checked, passthrough)))
}
