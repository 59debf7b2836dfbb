package plan

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

// udevLineOK is what a rule line of udev/60-dbhost-block.rules may be: match
// clauses only (udevMatchOnly), then one assignment, ATTR{attr}="plain
// words" or RUN+="/bin/sh -c 'echo plain words > /sys$devpath/attr'".
func udevLineOK(line string) bool {
	line = strings.TrimPrefix(line, "# (risky: uncomment only after checking the RISK above) ")
	i := strings.LastIndex(line, ", ")
	if i < 0 || !udevMatchOnly(line[:i]) {
		return false
	}
	last := line[i+2:]
	if a, ok := strings.CutPrefix(last, "ATTR{"); ok {
		attr, v, ok := strings.Cut(a, `}="`)
		return ok && change.SafeWord(attr) && strings.HasSuffix(v, `"`) && plainWords(strings.TrimSuffix(v, `"`))
	}
	r, ok := strings.CutPrefix(last, `RUN+="/bin/sh -c 'echo `)
	if !ok || !strings.HasSuffix(r, `'"`) {
		return false
	}
	v, attr, ok := strings.Cut(strings.TrimSuffix(r, `'"`), " > /sys$devpath/")
	return ok && plainWords(v) && change.SafeWord(strings.ReplaceAll(attr, "*", "x"))
}

// A plan.json from someone else (or a host's device names) must not put a
// " or a shell command into the rules file root installs: every line is a
// comment or a well-formed match-then-assign rule of plain words.
func TestUdevRulesHostile(t *testing.T) {
	p := &Plan{SchemaVersion: SchemaVersion, Changes: []change.Change{
		{Kind: change.Sysfs, Key: "/sys/block/sdk;touch IWASHERE;/queue/scheduler", Value: "mq-deadline", Rule: "io.scheduler"},
		{Kind: change.Sysfs, Key: "/sys/block/sda/queue/scheduler", Value: `none", RUN+="/bin/touch /PWNED`, Rule: "io.scheduler"},
		{Kind: change.Sysfs, Key: "/sys/block/sda/queue/nr_requests", Value: "1024", Match: `KERNEL=="sd*", RUN+="/bin/touch /PWNED"`, Rule: "io.nr-requests"},
		{Kind: change.Sysfs, Key: "/sys/block/sdb/device/scsi_disk/*/cache_type", Value: "x'; touch /PWNED; '", Rule: "io.cache-type"},
		{Kind: change.Sysfs, Key: "/sys/block/sdc/queue/nomerges", Value: "$(touch /PWNED)", Rule: "io.nomerges\nRUN+=\"/bin/touch /PWNED\""},
		{Kind: change.Sysfs, Key: "/sys/block/sdd/queue/rotational", Value: "0", Match: `KERNEL=="sd*", ENV{DEVTYPE}=="disk"`, Rule: "io.rotational"},
	}}
	out := string(p.UdevRules())
	rules := 0
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "# (risky") {
			continue
		}
		rules++
		if !udevLineOK(l) {
			t.Errorf("a rule line that is not match-then-assign of plain words:\n%s", l)
		}
	}
	if rules != 1 || !strings.Contains(out, `KERNEL=="sd*", ENV{DEVTYPE}=="disk", ATTR{queue/rotational}="0"`) {
		t.Errorf("want the one ordinary rule kept and the five hostile ones left as comments:\n%s", out)
	}
	if strings.Count(out, "# dbhost: no udev rule for") != 5 {
		t.Errorf("each hostile setting is named in a comment:\n%s", out)
	}
}

// FuzzUdevRules: whatever a plan's sysfs change holds (key, value, match,
// rule), the rules file has only comments and well-formed rules.
func FuzzUdevRules(f *testing.F) {
	f.Add("/sys/block/sda/queue/scheduler", "mq-deadline", "", "io.scheduler")
	f.Add("/sys/block/sdk;touch IWASHERE;/queue/scheduler", "none", `KERNEL=="sd*"`, "r")
	f.Add("/sys/block/sda/device/scsi_disk/*/cache_type", "write back", `KERNEL=="sd*", ENV{DEVTYPE}=="disk"`, "r")
	f.Add("/sys/block/sda/queue/x", `a", RUN+="/bin/x`, `KERNEL=="sd*", RUN+="x"`, "r\nRUN")
	f.Fuzz(func(t *testing.T, key, value, match, rule string) {
		p := &Plan{SchemaVersion: SchemaVersion, Changes: []change.Change{{Kind: change.Sysfs, Key: key, Value: value, Match: match, Rule: rule}}}
		if checkChange(p.Changes[0], false) != nil {
			return // Parse refuses it before a file is written
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(p.UdevRules()), "\n"), "\n") {
			if strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "# (risky") {
				continue
			}
			if !udevLineOK(l) {
				t.Fatalf("key %q value %q match %q: rule line %q", key, value, match, l)
			}
		}
	})
}
