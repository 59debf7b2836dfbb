package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers that build a finding's Changes (the machine-actionable form of its
// Fix) for plan and apply. Current is read from the snapshot ("" when absent).

// SysctlChange is the change that sets a sysctl.
func (in *Input) SysctlChange(rule, key, value, why string) change.Change {
	cur, _ := in.Sysctl(key)
	return change.Change{Kind: change.Sysctl, Key: key, Value: value, Current: cur, Rule: rule, Why: why}
}

// BlockChange is the change that sets a block device's queue (or device)
// attribute ("queue/scheduler"), with the udev match of its device class.
func blockChange(v *blockView, d *snapshot.BlockDevice, attr, value, current, rule, why string) change.Change {
	return change.Change{Kind: change.Sysfs, Key: sysBlock(d.Name, attr), Value: value, Current: current,
		Device: d.Name, Match: udevMatch(v, d), Rule: rule, Why: why}
}

// BootArgChange adds a boot argument ("intel_idle.max_cstate", "1"); value "" is a flag.
func BootArgChange(rule, key, value, current, why string) change.Change {
	return change.Change{Kind: change.BootArg, Key: key, Value: value, Current: current, Rule: rule, Why: why}
}

// RemoveBootArgChange removes a boot argument.
func RemoveBootArgChange(rule, key, current, why string) change.Change {
	return change.Change{Kind: change.BootArg, Key: key, Remove: true, Current: current, Rule: rule, Why: why}
}

// SysfsChange sets any other sysfs file.
func SysfsChange(rule, path, value, current, why string) change.Change {
	return change.Change{Kind: change.Sysfs, Key: path, Value: value, Current: current, Rule: rule, Why: why}
}

// LimitChange sets a limits.conf line ("oracle soft memlock").
func LimitChange(rule, domain, typ, item, value, current, why string) change.Change {
	return change.Change{Kind: change.Limit, Key: domain + " " + typ + " " + item, Value: value, Current: current, Rule: rule, Why: why}
}

// optInt is an optional number's text, "" when absent.
func optInt(p *int64) string {
	if p == nil {
		return ""
	}
	return fmt.Sprint(*p)
}
