package lab

import (
	"fmt"
	"strconv"
	"strings"
)

// VMFiles are the host files one VM uses.
type VMFiles struct {
	Kernel  string // uncompressed vmlinux (PVH entry) or bzImage
	Initrd  string // base initramfs with the scenario's files appended
	SRAT    string // own ACPI tables (OwnACPI only)
	SLIT    string
	Console string // serial 0: kernel console (ttyS0)
	Data    string // serial 1: the results channel (ttyS1)
}

// baseKernelArgs: console on ttyS0; an /init that exits or a panic ends the
// VM at once (panic=-1 reboots, -no-reboot turns that into QEMU exiting).
// lpj presets the delay-loop calibration: under TCG on busy cores every
// socket's first CPU otherwise retries calibrate_delay_direct() ("Probably due
// to long platform interrupts"), which took 19 of 34 s of the 8-node boot; the
// value is what the boot CPU computes from a 2.1 GHz TSC (it only scales udelay).
// no_timer_check: the IO-APIC timer check (check_timer) counts PIT ticks
// over a few busy-waited jiffies; a TCG vCPU descheduled by a loaded host
// misses them and the kernel reports "MP-BIOS bug: 8254 timer not connected
// to IO-APIC", then reroutes IRQ0 through fallbacks (virtual wire, ExtINT);
// the timer is fine, as in every QEMU/KVM guest that boots with this option.
var baseKernelArgs = []string{"console=ttyS0", "panic=-1", "rdinit=/init", "quiet", "loglevel=4", "lpj=8384100", "no_timer_check"}

// KernelCmdline is the guest's kernel command line.
func KernelCmdline(s *Scenario) string {
	return strings.Join(append(append([]string{}, baseKernelArgs...), s.KernelArgs...), " ")
}

// compactList prints sorted ids as QEMU's cpus= ranges: [0 1 2 5] → ["0-2" "5"].
func compactList(ids []int) []string {
	var out []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if i == j {
			out = append(out, strconv.Itoa(ids[i]))
		} else {
			out = append(out, fmt.Sprintf("%d-%d", ids[i], ids[j]))
		}
		i = j + 1
	}
	return out
}

// QEMUArgs maps a scenario to qemu-system-x86_64's arguments (without the
// program name). TCG only (KVM is not usable on these machines), no default
// devices, two serial ports to files, no display.
func QEMUArgs(s *Scenario, f VMFiles) ([]string, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	cpu := s.CPUModel
	if cpu == "" {
		cpu = "max"
	}
	a := []string{
		"-nodefaults", "-no-user-config", "-no-reboot", "-display", "none", "-monitor", "none",
		"-machine", "pc", "-accel", "tcg,thread=multi", "-cpu", cpu,
		"-smp", fmt.Sprintf("%d,sockets=%d,cores=%d,threads=%d", s.NumCPUs(), s.Sockets, s.Cores, s.Threads),
		"-m", fmt.Sprintf("%dM", s.TotalMemMB()),
		"-kernel", f.Kernel, "-initrd", f.Initrd, "-append", KernelCmdline(s),
		"-serial", "file:" + f.Console, "-serial", "file:" + f.Data,
	}
	switch {
	case s.OwnACPI:
		// Our SRAT/SLIT replace -numa entirely: QEMU builds neither table
		// without -numa, so the guest sees exactly ours.
		a = append(a, "-acpitable", "file="+f.SRAT, "-acpitable", "file="+f.SLIT)
	case len(s.Nodes) == 1 && !s.hasDistances():
		// One node: no SRAT at all, the common case of a small host.
	default:
		for _, n := range s.Nodes {
			node := fmt.Sprintf("node,nodeid=%d", n.ID)
			for _, r := range compactList(n.CPUs) {
				node += ",cpus=" + r
			}
			if n.MemMB > 0 {
				a = append(a, "-object", fmt.Sprintf("memory-backend-ram,id=m%d,size=%dM", n.ID, n.MemMB))
				node += fmt.Sprintf(",memdev=m%d", n.ID)
			}
			a = append(a, "-numa", node)
		}
		if s.hasDistances() {
			// One entry per pair i<j is mirrored by QEMU; asymmetric pairs need both.
			for i := range s.Nodes {
				for j := range s.Nodes {
					if i == j || (i > j && s.distance(i, j) == s.distance(j, i)) {
						continue
					}
					a = append(a, "-numa", fmt.Sprintf("dist,src=%d,dst=%d,val=%d", s.Nodes[i].ID, s.Nodes[j].ID, s.distance(i, j)))
				}
			}
		}
	}
	return a, nil
}
