package report

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/apply"
)

// sampleApply is an apply with every kind of line: changes grouped over
// CPUs, each status, a message, a reboot command, the kernel's own
// changes, a journal; and its warnings (for standard error).
func sampleApply() *apply.Result {
	r := &apply.Result{JournalID: "20261122T064512.123456789Z", Counts: map[string]int{}, Warnings: []string{"the plan was made for host \"db1\", this is \"db2\""}}
	add := func(it apply.Item) {
		r.Items = append(r.Items, it)
		r.Counts[it.Status]++
	}
	add(apply.Item{Kind: "sysctl", Setting: "vm.swappiness", Current: "60", New: "1", Status: apply.StatusApplied, Rule: "memory.swappiness", Why: "keep the SGA in memory"})
	for cpu := 0; cpu < 8; cpu++ {
		add(apply.Item{Kind: "sysfs", Setting: fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu), Current: "powersave", New: "performance",
			Status: apply.StatusApplied, Rule: "cpu.governor-not-performance", Why: "performance governor"})
	}
	add(apply.Item{Kind: "sysctl", Setting: "vm.nr_hugepages", Current: "0", New: "1024", Status: apply.StatusFailed, Rule: "memory.hugepages-sga",
		Message: "the kernel kept 512 (asked 1024): not enough free contiguous memory"})
	add(apply.Item{Kind: "sysfs", Setting: "/sys/kernel/mm/transparent_hugepage/enabled", Current: "always", New: "never", Status: apply.StatusApplied, Rule: "memory.thp-disabled",
		Side: []apply.Watched{{Path: "/proc/sys/vm/min_free_kbytes", Old: "67584", New: "45056"}}})
	add(apply.Item{Kind: "sysctl", Setting: "kernel.numa_balancing", Current: "0", New: "0", Status: apply.StatusUnchanged, Rule: "numa.balancing"})
	add(apply.Item{Kind: "sysfs", Setting: "/sys/block/sda/queue/scheduler", Current: "", New: "none", Status: apply.StatusRefused, Rule: "io.scheduler",
		Message: "risky: the source warns \"only on flash\"; pass --accept-risk"})
	add(apply.Item{Kind: "boot", Setting: "numa=off", Current: "present", New: "absent", Status: apply.StatusPending, Rule: "numa.disabled-at-boot",
		Command: "grubby --update-kernel=ALL --remove-args=numa=off"})
	add(apply.Item{Kind: "limit", Setting: "oracle memlock", Current: "64", New: "unlimited", Status: apply.StatusManual, Rule: "memory.memlock", Message: "set it in the unit file"})
	add(apply.Item{Kind: "sysfs", Setting: "/sys/block/nvme0n1/queue/nomerges", Current: "", New: "2", Status: apply.StatusAbsent, Rule: "io.nomerges"})
	add(apply.Item{Kind: "sysctl", Setting: "-weird.key|with pipe", Current: "a", New: "b", Status: apply.StatusApplied, Rule: "x.y"})
	return r
}

// sampleRollback is a rollback of three journals: one with values that
// could not be restored, a file removed and values restored over CPUs;
// one stopped at its damage with what it did not restore; one already
// rolled back and one empty.
func sampleRollback() *apply.RollbackResult {
	j1 := apply.RolledBack{ID: "J3", Legacy: true}
	for cpu := 0; cpu < 4; cpu++ {
		p := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu)
		j1.Restores = append(j1.Restores, apply.Restore{Path: p, Setting: p, Live: "performance", Old: "powersave", Status: apply.RestoreDone})
	}
	j1.Restores = append(j1.Restores,
		apply.Restore{Path: "/proc/sys/vm/swappiness", Setting: "vm.swappiness", Live: "1", Old: "60", Status: apply.RestoreDone},
		apply.Restore{Path: "/proc/sys/vm/nr_hugepages", Setting: "vm.nr_hugepages", Live: "512", Old: "0", Status: apply.RestoreFailed, Message: "could not restore: write /proc/sys/vm/nr_hugepages: device or resource busy"},
		apply.Restore{Path: "/etc/security/limits.d/90-dbhost.conf", Live: "(dbhost's)", Old: "(absent)", Status: apply.RestoreRemoved},
		apply.Restore{Path: "/proc/sys/kernel/numa_balancing", Setting: "kernel.numa_balancing", Live: "0", Old: "0", Status: apply.RestoreUnchanged})
	j2 := apply.RolledBack{ID: "J2", Restores: []apply.Restore{{Path: "/proc/sys/vm/dirty_ratio", Setting: "vm.dirty_ratio", Live: "10", Old: "20", Status: apply.RestoreDone}}, Lost: true}
	for i := 0; i < 11; i++ {
		j2.Damage = append(j2.Damage, apply.Damage{Line: 4 + i, Reason: "checksum mismatch"})
	}
	j2.NotRestored = []apply.Unrestored{
		{Line: 3, Kind: "sysctl", Setting: "vm.swappiness", Path: "/proc/sys/vm/swappiness", Old: "60", Verified: true},
		{Line: 2, Kind: "file", Path: "/etc/sysctl.d/90-dbhost.conf", Old: "vm.swappiness = 60\n", Verified: false},
		{Line: 2, Kind: "file", Path: "/etc/udev/rules.d/90-dbhost.rules", OldAbsent: true, Verified: true},
		{Line: 5, Unreadable: true},
		{Line: 1, Kind: "sysfs", Path: "/sys/kernel/mm/transparent_hugepage/enabled", Old: "always", Verified: true,
			Side: []apply.Watched{{Path: "/proc/sys/vm/min_free_kbytes", Old: "67584"}}},
	}
	return &apply.RollbackResult{Journals: []apply.RolledBack{j1, j2, {ID: "J1", Already: true}, {ID: "J0", Empty: true}}}
}
