package plan

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
	hosttree "github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/rules"
)

// copyHost copies a fixture tree into a temporary root.
func copyHost(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	if err := hosttree.CopyTree(filepath.Join("..", "..", "testdata", "hosts", name), dst, nil); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestPlanAfterApplyKeepsTheDesiredState is the story on every
// fixture tree and workload: plan, apply the plan to a copy of the tree,
// plan again. The second plan must still carry every setting the first
// one applied, at the same value (in place: persisted by its artifacts,
// not listed as a runtime change), and no runtime change of either plan
// may be a no-op (current = new).
func TestPlanAfterApplyKeepsTheDesiredState(t *testing.T) {
	// Each fixture once, the workloads spread over them (a tree copy and two
	// collections each take a few seconds here).
	for _, c := range []struct{ host, wl string }{
		{"laptop-2s", rules.WorkloadOLTP}, {"numa-off", rules.WorkloadDSS}, {"interleaved-4n", rules.WorkloadDSS},
		{"cgroup-v2", rules.WorkloadMixed}, {"cgroup-v1", rules.WorkloadDSS}, {"memoryless", rules.WorkloadLatency},
		{"odd-8n", rules.WorkloadOLTP}, {"nosmt", rules.WorkloadLatency},
	} {
		host, wl := c.host, c.wl
		t.Run(host+"/"+wl, func(t *testing.T) {
			t.Parallel()
			root := copyHost(t, host)
			snap := facts.Collect(facts.Root{Dir: root}, facts.Options{Now: epoch, Kind: "root", Path: host})
			p1 := build(t, snap, Options{Workload: wl})
			noNoOps(t, "first plan", p1)
			res, err := apply.Apply(append(append([]change.Change{}, p1.Changes...), p1.PendingReboot...), apply.Options{
				Root: facts.Root{Dir: root}, StateDir: filepath.Join(root, "var/lib/dbhost"),
				Sys: apply.TreeSys{Root: facts.Root{Dir: root}}, AcceptRisk: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			snap2 := facts.Collect(facts.Root{Dir: root}, facts.Options{Now: epoch, Kind: "root", Path: host})
			p2 := build(t, snap2, Options{Workload: wl})
			noNoOps(t, "second plan", p2)
			byKey := map[string]change.Change{}
			for _, c := range append(append([]change.Change{}, p2.Changes...), p2.PendingReboot...) {
				byKey[string(c.Kind)+" "+c.Key] = c
			}
			for i, it := range res.Items {
				if it.Status != apply.StatusApplied {
					continue
				}
				c := p1.Changes[i]
				got, ok := byKey[string(c.Kind)+" "+c.Key]
				switch {
				case !ok:
					t.Errorf("%s %s = %s [%s] was applied, and the next plan drops it: it would not survive a reboot", c.Kind, c.Key, c.Value, c.Rule)
				case !got.InPlace || got.Value != c.Value:
					t.Errorf("%s %s: applied %s, the next plan has %s (in place %v)", c.Kind, c.Key, c.Value, got.Value, got.InPlace)
				}
			}
			// Every artifact kind carries what the first plan wanted, in
			// place or not: sysctl.d, udev or tuned for sysfs, limits.d,
			// and the boot arguments (pending reboot until the command line
			// has them: apply never changes it).
			for _, c := range p1.Changes {
				if c.Risk == "" && !persisted(p2, c) {
					t.Errorf("%s %s = %s [%s]: in no artifact of the plan after apply", c.Kind, c.Key, c.Value, c.Rule)
				}
			}
			boot := string(p2.BootArgs())
			for _, c := range p1.PendingReboot {
				got, ok := byKey[string(c.Kind)+" "+c.Key]
				if !ok || got.Value != c.Value || got.Remove != c.Remove {
					t.Errorf("boot argument %s=%s (remove %v) [%s] is missing from the plan after apply (got %+v)", c.Key, c.Value, c.Remove, c.Rule, got)
					continue
				}
				if !got.InPlace && !strings.Contains(boot, BootArg(c)) {
					t.Errorf("boot-args.txt lacks %s:\n%s", BootArg(c), boot)
				}
			}
			// The artifacts carry them (sysctl.d for the sysctls).
			conf := string(p2.SysctlConf())
			for _, c := range p2.Changes {
				if c.Kind == change.Sysctl && c.InPlace && c.Risk == "" && !strings.Contains(conf, c.Key+" = "+c.Value) {
					t.Errorf("sysctl.d lacks %s = %s:\n%s", c.Key, c.Value, conf)
				}
			}
		})
	}
}

func noNoOps(t *testing.T, what string, p *Plan) {
	t.Helper()
	for _, c := range p.Changes {
		if !c.InPlace && c.AtValue() {
			t.Errorf("%s: a runtime change that changes nothing: %s %s: %s → %s [%s]", what, c.Kind, c.Key, c.Current, c.Value, c.Rule)
		}
	}
}

// persisted reports whether one of p's artifacts carries c at its value:
// sysctl.d for a sysctl, udev or tuned for a sysfs attribute, limits.d for
// a limit; a cgroup step is placement's, not the plan's artifacts.
func persisted(p *Plan, c change.Change) bool {
	switch c.Kind {
	case change.Sysctl:
		return strings.Contains(string(p.SysctlConf()), c.Key+" = "+c.Value)
	case change.Limit:
		return strings.Contains(string(p.LimitsConf()), strings.Join(strings.Fields(c.Key), " ")+" "+c.Value)
	case change.Sysfs:
		all := string(p.UdevRules()) + string(p.TunedConf())
		if _, _, attr, ok := blockAttr(c.Key); ok {
			return strings.Contains(all, attr) && strings.Contains(all, c.Value)
		}
		if opt, ok := thpOption[c.Key]; ok {
			return strings.Contains(all, opt+"="+c.Value)
		}
		if opt, val, ok := cpuOption(c); ok {
			return strings.Contains(all, opt+"="+val)
		}
		return strings.Contains(all, c.Key+"="+c.Value) || strings.Contains(all, strings.TrimPrefix(c.Key, "/sys")+"="+c.Value)
	}
	return true
}
