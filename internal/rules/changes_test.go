package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

// wantChange fails unless f carries a change of kind to key = value whose
// Current is current ("-" skips that check) and whose Rule is f's rule; it
// returns the change.
func wantChange(t *testing.T, f Finding, kind change.Kind, key, value, current string) change.Change {
	t.Helper()
	for _, c := range f.Changes {
		if c.Kind != kind || c.Key != key {
			continue
		}
		if c.Value != value || (current != "-" && c.Current != current) || c.Rule == "" || (f.ID != "" && c.Rule != f.ID) || c.Why == "" {
			t.Fatalf("change %s %s: got %+v, want value %q current %q rule %q", kind, key, c, value, current, f.ID)
		}
		return c
	}
	t.Fatalf("no %s change of %s in %+v", kind, key, f.Changes)
	return change.Change{}
}

func TestChangeHelpers(t *testing.T) {
	in := &Input{Snap: host()}
	in.Snap.Sysctl["vm.swappiness"] = "60"
	if c := in.SysctlChange("memory.swappiness", "vm.swappiness", "10", "why"); c.Current != "60" || c.Kind != change.Sysctl || c.Path() != "/proc/sys/vm/swappiness" {
		t.Fatalf("%+v", c)
	}
	if c := in.SysctlChange("x", "vm.nonexistent", "1", "why"); c.Current != "" {
		t.Fatalf("absent sysctl must have no current: %+v", c)
	}
	if c := RemoveBootArgChange("numa.disabled-at-boot", "numa", "off", "why"); !c.Remove || c.Kind != change.BootArg || c.Runtime() {
		t.Fatalf("%+v", c)
	}
	if c := LimitChange("r", "oracle", "soft", "memlock", "100", "", "why"); c.Key != "oracle soft memlock" || c.Kind != change.Limit {
		t.Fatalf("%+v", c)
	}
}
