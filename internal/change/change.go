// Package change is the machine-actionable form of a fix: what a rule
// recommends (rules.Finding.Changes), what a plan holds (internal/plan), and
// what apply writes, reads back, journals and rolls back (internal/apply).
// It is a leaf package: rules, plan and apply all import it, it imports none.
package change

import "strings"

// Kind says how a change is carried out.
type Kind string

const (
	// Sysctl: Key is the sysctl name ("vm.swappiness"), written at runtime to
	// /proc/sys/vm/swappiness and persisted in sysctl.d/90-dbhost.conf.
	Sysctl Kind = "sysctl"
	// Sysfs: Key is the host path ("/sys/block/sda/queue/scheduler",
	// "/sys/kernel/mm/transparent_hugepage/enabled",
	// "/sys/devices/system/node/node1/hugepages/hugepages-2048kB/nr_hugepages"),
	// written at runtime and persisted by a udev rule (block queues) or the
	// tuned profile (THP, hugepages).
	Sysfs Kind = "sysfs"
	// BootArg: Key is a kernel argument name ("numa", "intel_idle.max_cstate",
	// "transparent_hugepage"); Value its value ("" for a flag); Remove drops it.
	// Never applied at runtime: printed as a grubby command, pending reboot.
	BootArg Kind = "bootarg"
	// Limit: a limits.conf line; Key is "DOMAIN TYPE ITEM" ("oracle soft
	// memlock"), Value the limit. Takes effect at the user's next login.
	Limit Kind = "limit"
	// TunedProfile: Key "profile", Value the base profile the exported tuned.conf includes.
	TunedProfile Kind = "tuned"

	// The cgroup kinds (dbhost place --apply, see docs/apply.md). A group is
	// always created directly under its hierarchy's mount: v2 the unified
	// mount ("/sys/fs/cgroup/dbhost-erp"), v1 the cpuset hierarchy's
	// ("/sys/fs/cgroup/cpuset/dbhost-erp"); the mount is the group's parent.

	// CgroupDir: Key is the group's directory, created when missing (Value
	// "present"). Rollback removes it only when apply created it.
	CgroupDir Kind = "cgroup"
	// CgroupController: Key is a v2 parent's cgroup.subtree_control, Value
	// "+cpuset"; rollback writes "-cpuset" when it was not enabled before.
	CgroupController Kind = "cgroup-controller"
	// CgroupFile: Key is a group's cpuset.cpus, cpuset.mems or (v1)
	// cpuset.memory_migrate. Read back, and for cpus/mems the effective
	// list must equal the value (a mems that falls back is failed).
	CgroupFile Kind = "cgroup-file"
	// CgroupProcs: Key is a group's cgroup.procs, Value one PID to move into
	// it; the journal keeps the PID's old cgroup and rollback moves it back.
	CgroupProcs Kind = "cgroup-procs"

	// LibvirtDomain: Key is a libvirt domain's name, Value the placement
	// elements of its definition (dbhost place's kvm-guest fragments:
	// <vcpu>, <memory>, <memoryBacking>, <cputune>, <numatune>, <cpu>).
	// Apply edits the domain's persistent definition with them and defines
	// it (virsh); the journal keeps the whole old definition, which
	// rollback defines back. Takes effect at the guest's next start.
	LibvirtDomain Kind = "libvirt-domain"
)

// Cgroup reports whether a kind is one of the cgroup kinds.
func (k Kind) Cgroup() bool {
	switch k {
	case CgroupDir, CgroupController, CgroupFile, CgroupProcs:
		return true
	}
	return false
}

// Change is one setting to bring to a value.
type Change struct {
	Kind  Kind   `json:"kind"`
	Key   string `json:"key"`
	Value string `json:"value"`
	// Remove is true for a boot argument to take off the command line.
	Remove bool `json:"remove,omitempty"`
	// Current is the value read when the change was computed ("" when absent).
	Current string `json:"current,omitempty"`
	// Device, for block-queue sysfs changes, is the device name ("sda") and
	// Match the udev match that persists it for its class
	// (`KERNEL=="sd*", ATTR{queue/rotational}=="0"`), when known.
	Device string `json:"device,omitempty"`
	Match  string `json:"match,omitempty"`
	// Rule is the finding's rule id; Why one line for the dry-run diff.
	Rule string `json:"rule"`
	Why  string `json:"why,omitempty"`
	// Risk, when not empty, quotes the source's warning: apply refuses the
	// change without --accept-risk.
	Risk string `json:"risk,omitempty"`
	// InPlace: the host already has the value (Current equals Value). A
	// plan keeps it — it is part of the desired state its artifacts
	// persist — but lists it apart from the runtime changes.
	InPlace bool `json:"in_place,omitempty"`
}

// AtValue reports whether the current value read (Current) is already the
// value wanted, blanks collapsed as the kernel prints lists ("4096\t87380"
// is "4096 87380"); an unknown current value ("") is not. Not for boot
// arguments, whose Current is the argument's value on the command line.
func (c Change) AtValue() bool {
	return c.Current != "" && strings.Join(strings.Fields(c.Current), " ") == strings.Join(strings.Fields(c.Value), " ")
}

// Runtime reports whether apply writes the change to the running kernel.
func (c Change) Runtime() bool {
	return c.Kind == Sysctl || c.Kind == Sysfs || c.Kind.Cgroup() || c.Kind == LibvirtDomain
}

// SysctlPath is the /proc/sys path of a sysctl key ("vm.swappiness" →
// "/proc/sys/vm/swappiness"). Keys holding a '/' (interface names with dots
// are written with '/' by sysctl) keep it as a dot in the path.
func SysctlPath(key string) string {
	b := []byte("/proc/sys/")
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case '.':
			b = append(b, '/')
		case '/':
			b = append(b, '.')
		default:
			b = append(b, key[i])
		}
	}
	return string(b)
}

// Path is the host path a runtime change writes; "" for other kinds.
func (c Change) Path() string {
	switch c.Kind {
	case Sysctl:
		return SysctlPath(c.Key)
	case Sysfs, CgroupDir, CgroupController, CgroupFile, CgroupProcs:
		return c.Key
	}
	return ""
}
