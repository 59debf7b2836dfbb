package facts

import (
	"strings"
	"testing"
)

func TestVirtFromDMI(t *testing.T) {
	cases := map[[2]string]string{
		{"QEMU", "Standard PC (Q35 + ICH9, 2009)"}:   "qemu",
		{"Red Hat", "KVM"}:                           "kvm",
		{"VMware, Inc.", "VMware Virtual Platform"}:  "vmware",
		{"Microsoft Corporation", "Virtual Machine"}: "hyperv",
		{"HPE", "Superdome Flex"}:                    "",
		{"HP", "Superdome X"}:                        "",
	}
	for in, want := range cases {
		if got := virtFromDMI(in[0], in[1]); got != want {
			t.Errorf("virtFromDMI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHostVirtAndOS(t *testing.T) {
	dir := topoTree(t, map[string]string{
		"/proc/sys/kernel/hostname":      "db1\n",
		"/proc/sys/kernel/osrelease":     "5.15.0-200.el8uek.x86_64\n",
		"/usr/lib/os-release":            "PRETTY_NAME=\"Oracle Linux Server 8.9\"\nID=ol\n",
		"/proc/cpuinfo":                  "processor\t: 0\nflags\t\t: fpu vme hypervisor lm\n\nprocessor\t: 1\n",
		"/sys/class/dmi/id/sys_vendor":   "VMware, Inc.\n",
		"/sys/class/dmi/id/product_name": "VMware Virtual Platform\n",
	})
	s := topoCollect(t, dir)
	h := s.Host
	if h.Hostname != "db1" || h.Kernel != "5.15.0-200.el8uek.x86_64" || h.OS != "Oracle Linux Server 8.9" {
		t.Errorf("host = %+v", h)
	}
	if !h.Virt.Guest || !h.Virt.Hypervisor || h.Virt.Type != "vmware" || !strings.Contains(h.Virt.Evidence, "DMI VMware") {
		t.Errorf("virt = %+v", h.Virt)
	}
	if h.Arch != "" {
		t.Errorf("arch %q guessed for a root tree without /proc/sys/kernel/arch", h.Arch)
	}
}

func TestVirtQEMUvsKVM(t *testing.T) {
	base := map[string]string{"/sys/class/dmi/id/sys_vendor": "QEMU\n", "/sys/class/dmi/id/product_name": "Standard PC (i440FX + PIIX, 1996)\n"}
	s := topoCollect(t, topoTree(t, base))
	if s.Host.Virt.Type != "qemu" || !s.Host.Virt.Guest {
		t.Errorf("TCG guest: virt = %+v, want qemu", s.Host.Virt)
	}
	base["/sys/devices/system/clocksource/clocksource0/available_clocksource"] = "kvm-clock tsc hpet acpi_pm \n"
	s = topoCollect(t, topoTree(t, base))
	if s.Host.Virt.Type != "kvm" || !strings.Contains(s.Host.Virt.Evidence, "kvm-clock") {
		t.Errorf("KVM guest: virt = %+v, want kvm", s.Host.Virt)
	}
}
