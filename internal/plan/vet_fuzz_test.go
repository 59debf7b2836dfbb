package plan

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/rules"
)

// The property of a saved plan as apply takes it (Load): any mutation of a
// valid plan — a change's setting, value, rule, kind, removal or risk — is
// either refused, or leaves changes the rules they name can make, with the
// catalog's risk. The oracle below is a second reading of the declaration
// (its own key patterns as regular expressions) plus a list of what a plan
// must never reach, whatever a declaration says.

// dictionary gives the fuzzer meaningful strings besides its own.
var dictionary = []string{
	"kernel.core_pattern", "|/tmp/evil %p", "/sys/power/state", "mem", "/sys/bus/pci/devices/0000:00:1f.2/remove", "1",
	"memory.swappiness", "io.scheduler", "network.jumbo-frames", "cpu.tuned-profile", "memory.thp-enabled", "numa.disabled-at-boot",
	"vm.swappiness", "10", "60", "/sys/block/sda/queue/scheduler", "none", "bfq", "/sys/block/*/queue/scheduler",
	"/sys/block/sda/../../power/state", "/sys/class/net/eth0/mtu", "9000", "/sys/kernel/mm/transparent_hugepage/enabled", "never",
	"always", "/sys/fs/cgroup/x/cpuset.mems", "0-1", "/sys/fs/cgroup/../cpuset.mems", "oracle soft memlock", "root hard memlock",
	"* soft memlock", "unlimited", "numa", "off", "init", "/bin/sh", "", "low", "memory.swappiness,io.scheduler",
	"vm.nr_hugepages", "/sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "/sys/devices/system/cpu/cpu0/online",
	"0", "sysctl", "sysfs", "limit", "bootarg", "tuned",
}

// never are settings no plan may reach.
var never = regexp.MustCompile(`^(kernel\.(core_pattern|modprobe|hotplug|poweroff_cmd|sysrq)|/sys/(power|bus|firmware|module|kernel/kexec|kernel/debug)\b|.*/remove$|.*/\.\.?(/|$))`)

var declared = map[string]*regexp.Regexp{}

// declaredKey is the oracle's reading of an Emit key pattern.
func declaredKey(pat string) *regexp.Regexp {
	if re, ok := declared[pat]; ok {
		return re
	}
	name := `(?:[A-Za-z0-9_:@+!-][A-Za-z0-9_.:@+!-]*|\.[A-Za-z0-9_.:@+!-]+)`
	q := regexp.QuoteMeta(pat)
	q = strings.ReplaceAll(q, `\*\*`, `[^/*?\[\\]+(?:/[^/*?\[\\]+)*`)
	q = strings.ReplaceAll(q, `\{N\}`, `(?:0|[1-9][0-9]*)`)
	q = strings.ReplaceAll(q, `\{NAME\}`, name)
	q = strings.ReplaceAll(q, `\{USER\}`, `[A-Za-z_][A-Za-z0-9_.-]*\$?`)
	declared[pat] = regexp.MustCompile("^" + q + "$")
	return declared[pat]
}

func oracleAllows(t *testing.T, c change.Change) {
	t.Helper()
	if never.MatchString(c.Key) || strings.HasPrefix(c.Key, "root ") {
		t.Fatalf("accepted a setting no plan may reach: %+v", c)
	}
	risk := ""
	for _, id := range strings.Split(c.Rule, ",") {
		if _, ok := rules.Lookup(id); !ok {
			t.Fatalf("accepted a change of an unknown rule %q: %+v", id, c)
		}
		found := false
		for _, e := range rules.Emits(id) {
			if e.Kind != c.Kind || !declaredKey(e.Key).MatchString(c.Key) {
				continue
			}
			if c.Kind == change.BootArg && c.Remove {
				if !e.Remove {
					continue
				}
			} else if e.Remove || !e.Values.OK(c.Value) {
				continue
			}
			found = true
			if risk == "" {
				risk = e.Risk
			}
			break
		}
		if !found {
			t.Fatalf("accepted a change rule %s does not declare: %+v", id, c)
		}
	}
	if c.Risk != risk {
		t.Fatalf("accepted %s %s with risk %q; the catalog's is %q", c.Kind, c.Key, c.Risk, risk)
	}
}

func FuzzVetMutation(f *testing.F) {
	base := build(f, fixture(f, "laptop-2s"), Options{Workload: rules.WorkloadOLTP})
	base.Changes = append(base.Changes,
		change.Change{Kind: change.Sysfs, Key: "/sys/class/net/eth0/mtu", Value: "9000", Rule: "network.jumbo-frames"},
		change.Change{Kind: change.Limit, Key: "oracle soft memlock", Value: "1048576", Rule: "memory.memlock-below-sga"})
	base.PendingReboot = append(base.PendingReboot, change.Change{Kind: change.BootArg, Key: "numa", Remove: true, Rule: "numa.disabled-at-boot"})
	if len(base.Changes) < 3 {
		f.Fatalf("the laptop-2s plan has %d changes", len(base.Changes))
	}
	for i := range base.Changes {
		base.Changes[i].Risk, _ = rules.VetChange(base.Changes[i])
	}
	for _, s := range []struct {
		idx, field, pick uint8
		s                string
	}{{0, 0, 0, ""}, {1, 0, 2, ""}, {2, 0, 4, ""}, {0, 1, 1, ""}, {0, 2, 7, ""}, {uint8(len(base.Changes) - 2), 3, 37, ""},
		{0, 0, 255, "kernel.sched_min_granularity_ns"}, {1, 1, 255, "4096"}, {0, 4, 44, ""}, {0, 5, 0, ""}, {0, 0, 19, ""}} {
		f.Add(s.idx, s.field, s.pick, s.s)
	}
	f.Fuzz(func(t *testing.T, idx, field, pick uint8, s string) {
		p := *base
		p.Changes = append([]change.Change{}, base.Changes...)
		p.PendingReboot = append([]change.Change{}, base.PendingReboot...)
		list := p.Changes
		i := int(idx)
		if i >= len(p.Changes) {
			list, i = p.PendingReboot, i%len(p.PendingReboot)
		}
		v := s
		if int(pick) < len(dictionary) {
			v = dictionary[pick]
		}
		c := &list[i]
		switch field % 6 {
		case 0:
			c.Key = v
		case 1:
			c.Value = v
		case 2:
			c.Rule = v
		case 3:
			c.Risk = v
		case 4:
			c.Kind = change.Kind(v)
		case 5:
			c.Remove = !c.Remove
		}
		b, err := json.MarshalIndent(&p, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b)
		if err == nil {
			err = got.Vet(b)
		}
		if err != nil {
			return // refused
		}
		for _, c := range append(append([]change.Change{}, got.Changes...), got.PendingReboot...) {
			oracleAllows(t, c)
		}
	})
}
