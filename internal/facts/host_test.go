package facts

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseCmdline(t *testing.T) {
	got := parseCmdline(`BOOT_IMAGE=/vmlinuz-5.14 root=/dev/mapper/rhel-root ro numa=off transparent-hugepage=never intel_idle.max_cstate=1 dyndbg="file x.c +p" quiet -- --init-arg numa=on`)
	want := map[string]string{"BOOT_IMAGE": "/vmlinuz-5.14", "root": "/dev/mapper/rhel-root", "ro": "", "numa": "off",
		"transparent_hugepage": "never", "intel_idle.max_cstate": "1", "dyndbg": "file x.c +p", "quiet": ""}
	if len(got) != len(want) {
		t.Errorf("got %d args %v, want %d", len(got), got, len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

func TestParseOSRelease(t *testing.T) {
	m := parseOSRelease(strings.NewReader("# comment\nNAME=\"Oracle Linux Server\"\nVERSION_ID='8.9'\nID=ol\nPRETTY_NAME=\"Oracle Linux Server 8.9\"\nbroken line\n"))
	if m["PRETTY_NAME"] != "Oracle Linux Server 8.9" || m["VERSION_ID"] != "8.9" || m["ID"] != "ol" {
		t.Errorf("got %v", m)
	}
}

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

func FuzzParseCmdline(f *testing.F) {
	for _, s := range []string{"ro numa=off", `a="b c" -- d`, `"`, "==", "x=1 x=2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for k := range parseCmdline(s) {
			// Quotes group words (the kernel allows "a b"=c) but never stay in a key.
			if strings.Contains(k, `"`) {
				t.Fatalf("key %q kept a quote (input %q)", k, s)
			}
		}
	})
}

// FuzzParseMeminfoNode: a node's meminfo as sysfs prints it ("Node N Key:
// value kB", the keys the words of the fuzzer's text, the values its
// bytes) parses back to that node and those values; the same lines without
// the "Node N" prefix are /proc/meminfo (node -1); lines of two nodes fail.
func FuzzParseMeminfoNode(f *testing.F) {
	for _, s := range []string{"Node 0 MemTotal: 10 kB\nNode 0 MemFree: 5 kB\n", "MemTotal: 1 kB\nHugePages_Total: 4\n", "Node 0 A: 1\nNode 1 A: 1\n", "Node x", ":"} {
		f.Add(s, uint16(1), []byte{1, 2, 3})
	}
	f.Fuzz(func(t *testing.T, s string, node uint16, vals []byte) {
		if m, n, err := parseMeminfo(strings.NewReader(s)); err == nil && (len(m) == 0 || n < -1) {
			t.Fatalf("parse of %q: %v %d", s, m, n)
		}
		want := map[string]int64{}
		var node0, global strings.Builder
		for i, k := range strings.Fields(strings.ReplaceAll(s, ":", " ")) {
			if _, dup := want[k]; dup || strings.HasPrefix(k, "Node") {
				continue
			}
			v := int64(i) * 4099
			if i < len(vals) {
				v = int64(vals[i]) << (i % 40)
			}
			want[k] = v
			unit := " kB"
			if strings.HasPrefix(k, "HugePages_") {
				unit = "" // counts, not sizes
			}
			fmt.Fprintf(&node0, "Node %d %-15s %8d%s\n", node, k+":", v, unit)
			fmt.Fprintf(&global, "%-15s %8d%s\n", k+":", v, unit)
		}
		if len(want) == 0 {
			return
		}
		if m, n, err := parseMeminfo(strings.NewReader(node0.String())); err != nil || n != int(node) || !reflect.DeepEqual(m, want) {
			t.Fatalf("%q → %v node %d %v, want %v node %d", node0.String(), m, n, err, want, node)
		}
		if m, n, err := parseMeminfo(strings.NewReader(global.String())); err != nil || n != -1 || !reflect.DeepEqual(m, want) {
			t.Fatalf("%q → %v node %d %v, want %v node -1", global.String(), m, n, err, want)
		}
		other := fmt.Sprintf("Node %d Extra: 1 kB\n", int(node)+1)
		if _, _, err := parseMeminfo(strings.NewReader(node0.String() + other)); err == nil {
			t.Fatalf("lines of nodes %d and %d accepted", node, node+1)
		}
	})
}
