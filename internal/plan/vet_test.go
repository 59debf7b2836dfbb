package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
)

// evilPlan is issue 24's tampered plan: settings no rule makes, labelled
// with a rule that exists, no risk.
const evilPlan = `{
  "schema_version": 1,
  "host": "db1",
  "changes": [
    {"kind": "sysctl", "key": "kernel.core_pattern", "value": "|/tmp/evil %p", "rule": "memory.swappiness"},
    {"kind": "sysfs", "key": "/sys/power/state", "value": "mem", "rule": "memory.swappiness"},
    {"kind": "sysfs", "key": "/sys/bus/pci/devices/0000:00:1f.2/remove", "value": "1", "rule": "memory.swappiness"},
    {"kind": "sysctl", "key": "vm.swappiness", "value": "10", "rule": "memory.swappiness"}
  ],
  "pending_reboot": []
}
`

func writePlan(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadRefusesWhatNoRuleMakes: every change no rule of the catalog makes
// is refused, named by place, line and setting; the plan is not returned
// (the good change with it: a plan is taken whole or not at all).
func TestLoadRefusesWhatNoRuleMakes(t *testing.T) {
	path := writePlan(t, evilPlan)
	p, err := Load(path)
	var re *RefusedError
	if p != nil || !errors.As(err, &re) || len(re.Refused) != 3 {
		t.Fatalf("Load: %v, %v", p, err)
	}
	for i, want := range []string{
		`changes[0] (line 5): sysctl kernel.core_pattern: rule memory.swappiness does not set sysctl "kernel.core_pattern"`,
		`changes[1] (line 6): sysfs /sys/power/state: rule memory.swappiness does not set sysfs "/sys/power/state"`,
		`changes[2] (line 7): sysfs /sys/bus/pci/devices/0000:00:1f.2/remove: rule memory.swappiness does not set`,
	} {
		if !strings.Contains(re.Refused[i], want) {
			t.Errorf("refusal %d: %q, want %q", i, re.Refused[i], want)
		}
	}
	if !strings.HasPrefix(err.Error(), path+": 3 change(s) refused") {
		t.Errorf("the error does not name the file first: %v", err)
	}
	for name, body := range map[string]string{
		"unknown rule":           `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"memory.evil"}]}`,
		"no rule":                `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10"}]}`,
		"one rule of two":        `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"memory.swappiness,io.scheduler"}]}`,
		"value":                  `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"100","rule":"memory.swappiness"}]}`,
		"value form":             `{"schema_version":1,"changes":[{"kind":"sysfs","key":"/sys/block/sda/queue/scheduler","value":"bfq","rule":"io.scheduler"}]}`,
		"path escape":            `{"schema_version":1,"changes":[{"kind":"sysfs","key":"/sys/block/./queue/scheduler","value":"none","rule":"io.scheduler"}]}`,
		"wildcard name":          `{"schema_version":1,"changes":[{"kind":"sysfs","key":"/sys/block/*/queue/scheduler","value":"none","rule":"io.scheduler"}]}`,
		"limit domain":           `{"schema_version":1,"changes":[{"kind":"limit","key":"* hard core","value":"unlimited","rule":"memory.memlock-below-sga"}]}`,
		"limit root":             `{"schema_version":1,"changes":[{"kind":"limit","key":"root soft memlock","value":"1","rule":"memory.memlock-below-sga"}]}`,
		"limit item":             `{"schema_version":1,"changes":[{"kind":"limit","key":"oracle soft nofile","value":"1","rule":"memory.memlock-below-sga"}]}`,
		"boot argument":          `{"schema_version":1,"pending_reboot":[{"kind":"bootarg","key":"init","value":"/tmp/evil","rule":"numa.disabled-at-boot"}]}`,
		"boot add":               `{"schema_version":1,"pending_reboot":[{"kind":"bootarg","key":"numa","value":"off","rule":"numa.disabled-at-boot"}]}`,
		"tuned profile":          `{"schema_version":1,"tuned_profile":"../../tmp/evil"}`,
		"a rule without changes": `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"numa.node-imbalance"}]}`,
	} {
		if _, err := Load(writePlan(t, body)); !errors.As(err, &re) {
			t.Errorf("%s: %v, want a refusal", name, err)
		}
	}
}

// TestLoadRiskIsTheCatalogs: a risky change whose risk was emptied is
// risky again, a change given a risk the catalog does not know loses it.
func TestLoadRiskIsTheCatalogs(t *testing.T) {
	p, err := Load(writePlan(t, `{"schema_version":1,"changes":[
		{"kind":"sysfs","key":"/sys/class/net/eth0/mtu","value":"9000","rule":"network.jumbo-frames","risk":""},
		{"kind":"sysfs","key":"/sys/block/sdb/device/scsi_disk/*/cache_type","value":"temporary write through","rule":"io.cache-type-write-through","risk":"low"},
		{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"memory.swappiness,cpu.tuned-profile","risk":"do not apply this"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range p.Changes {
		want := ""
		for _, e := range rules.Emits(strings.Split(c.Rule, ",")[0]) {
			if e.Kind == c.Kind && e.Risk != "" {
				want = e.Risk
			}
		}
		if (i < 2) != (want != "") || c.Risk != want {
			t.Errorf("changes[%d] %s: risk %q, want the catalog's %q", i, c.Key, c.Risk, want)
		}
	}
}

// TestParseDuplicateKeys: a key twice in one object (or twice but for case,
// as encoding/json matches fields) is refused with its line.
func TestParseDuplicateKeys(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"{\"schema_version\": 1, \"changes\": [\n{\"kind\": \"sysfs\", \"key\": \"/sys/class/net/eth0/mtu\", \"value\": \"9000\", \"rule\": \"network.jumbo-frames\",\n \"risk\": \"x\",\n \"risk\": \"\"}]}",
			`line 4: duplicate key "risk" in changes[0] (first on line 3)`},
		{"{\"schema_version\": 1,\n\"Schema_Version\": 1}", `line 2: duplicate key "Schema_Version" (first on line 1)`},
	} {
		if _, err := Parse([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}

// TestVetControlCharacters: a why with a terminal escape is refused.
func TestVetControlCharacters(t *testing.T) {
	_, err := Parse([]byte(`{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"memory.swappiness","why":"\u001b]0;owned\u0007"}]}`))
	if err == nil || !strings.Contains(err.Error(), "changes[0] (line 1): sysctl \"vm.swappiness\": its why holds a control character") {
		t.Fatalf("%v", err)
	}
}

// TestEveryPlanVets: every plan dbhost makes of a fixture host (every
// workload, every database) is taken by Load unchanged: the catalog's
// declarations (rules/emits.go) cover what the rules make.
func TestEveryPlanVets(t *testing.T) {
	ents, err := os.ReadDir(filepath.Join("..", "..", "testdata", "hosts"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		s := fixture(t, e.Name())
		for _, wl := range rules.Workloads {
			for _, db := range append([]string{"auto"}, rules.DBs...) {
				p := build(t, s, Options{Workload: wl, DB: db})
				b, err := p.JSON()
				if err != nil {
					t.Fatal(err)
				}
				q, err := Parse(b)
				if err == nil {
					err = q.Vet(b)
				}
				if err != nil {
					t.Errorf("%s --workload %s --db %s: %v", e.Name(), wl, db, err)
					continue
				}
				for i, c := range p.Changes {
					if q.Changes[i].Risk != c.Risk {
						t.Errorf("%s %s %s: %s risk %q, the catalog's %q", e.Name(), wl, db, c.Key, c.Risk, q.Changes[i].Risk)
					}
				}
				n += len(p.Changes) + len(p.PendingReboot)
			}
		}
	}
	if n == 0 {
		t.Fatal("no change in any plan")
	}
}
