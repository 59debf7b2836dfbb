package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/place"
)

// TestApplyTextGroupsCPUs: 240 identical governor changes print as one
// line naming the CPUs as a range; a CPU whose change differs keeps its own
// line; other settings are untouched.
func TestApplyTextGroupsCPUs(t *testing.T) {
	r := &apply.Result{DryRun: true, Counts: map[string]int{apply.StatusChange: 242}}
	r.Items = append(r.Items, apply.Item{Kind: "sysctl", Setting: "vm.swappiness", Current: "60", New: "10", Status: apply.StatusChange, Rule: "memory.swappiness"})
	for cpu := 0; cpu < 240; cpu++ {
		cur := "powersave"
		if cpu == 7 {
			cur = "ondemand"
		}
		r.Items = append(r.Items, apply.Item{Kind: "sysfs", Setting: fmt.Sprintf("/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", cpu),
			Current: cur, New: "performance", Status: apply.StatusChange, Rule: "cpu.governor-not-performance", Why: "performance governor"})
	}
	r.Items = append(r.Items, apply.Item{Kind: "sysfs", Setting: "/sys/block/sda/queue/nomerges", Current: "0", New: "1", Status: apply.StatusChange, Rule: "io.nomerges"})
	out := string(ApplyText(r))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	want := []string{
		"dbhost apply --dry-run: nothing is changed",
		"~ vm.swappiness: 60 → 10  [memory.swappiness]",
		"~ /sys/devices/system/cpu/cpu*/cpufreq/scaling_governor (239 CPUs: 0-6,8-239): powersave → performance  [cpu.governor-not-performance] performance governor",
		"~ /sys/devices/system/cpu/cpu7/cpufreq/scaling_governor: ondemand → performance  [cpu.governor-not-performance] performance governor",
		"~ /sys/block/sda/queue/nomerges: 0 → 1  [io.nomerges]",
		"242 to change",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got:\n%s\nwant:\n%s", out, strings.Join(want, "\n"))
	}
}

func TestVerifyAndRollbackGroupCPUs(t *testing.T) {
	var checks []apply.Check
	var restores []apply.Restore
	for cpu := 0; cpu < 8; cpu++ {
		p := fmt.Sprintf("/sys/devices/system/cpu/cpu%d/power/energy_perf_bias", cpu)
		checks = append(checks, apply.Check{Kind: "sysfs", Setting: p, Want: "0", Live: "0", Status: "ok", Rule: "cpu.energy-perf-bias"})
		restores = append(restores, apply.Restore{Path: p, Setting: p, Live: "0", Old: "6", Status: apply.RestoreDone})
	}
	v := string(VerifyText("journal X", checks))
	if want := "= /sys/devices/system/cpu/cpu*/power/energy_perf_bias (8 CPUs: 0-7): live 0, applied 0  [cpu.energy-perf-bias] ok\nverify journal X: 8 of 8 setting(s) as applied\n"; v != want {
		t.Errorf("verify:\n%s\nwant:\n%s", v, want)
	}
	rb := &apply.RollbackResult{Journals: []apply.RolledBack{{ID: "J", Legacy: true, Restores: restores}}}
	out := string(RollbackText(rb))
	if want := "+ /sys/devices/system/cpu/cpu*/power/energy_perf_bias (8 CPUs: 0-7): 0 → 6\njournal J: 8 value(s) restored, 0 already at their old value\n"; out != want {
		t.Errorf("rollback:\n%s\nwant:\n%s", out, want)
	}
	// The legacy warning is for standard error, not in the text.
	if w := RollbackWarnings(rb); len(w) != 1 || !strings.Contains(w[0], "legacy format") || strings.Contains(out, "legacy") {
		t.Errorf("warnings %q, text %q", w, out)
	}
}

// verify's text for a damaged, interrupted journal says both, after the
// checks; a sound one says neither.
func TestVerifyJournalText(t *testing.T) {
	checks := []apply.Check{{Kind: "sysctl", Setting: "vm.swappiness", Want: "1", Live: "1", Status: "ok", Rule: "memory.swappiness"}}
	sound := string(VerifyJournalText("journal J", checks, nil, false))
	if sound != string(VerifyText("journal J", checks)) {
		t.Errorf("a sound journal: %q", sound)
	}
	out := string(VerifyJournalText("journal J", checks, []apply.Damage{{Line: 3, Reason: "checksum mismatch"}}, true))
	for _, want := range []string{sound, "journal J is DAMAGED (1 place(s)):\n", "cannot be verified: NOT as applied\n", "journal J was INTERRUPTED"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Index(out, "DAMAGED") < strings.Index(out, "vm.swappiness") {
		t.Errorf("the damage comes before the checks:\n%s", out)
	}
}

// place --apply's text: the placement, the hierarchy, the notes, then the
// apply's lines, in that order.
func TestPlaceApplyText(t *testing.T) {
	res := &apply.Result{Items: []apply.Item{{Kind: "cgroup-dir", Setting: "/sys/fs/cgroup/dbhost_pg", Current: "(absent)", New: "present", Status: apply.StatusApplied, Rule: "place-binding"}}}
	r := &place.Result{Strategy: "binding", Errors: []place.Problem{{Message: "no room"}}}
	out := string(PlaceApplyText(r, "v2 /sys/fs/cgroup", []string{"dbhost_pad: no running process"}, res))
	want := []string{"Placement (binding): INFEASIBLE\nerror: plan: no room\n\n", "cgroup hierarchy: v2 /sys/fs/cgroup\n", "note: dbhost_pad: no running process\n", string(ApplyText(res))}
	at := 0
	for _, w := range want {
		i := strings.Index(out[at:], w)
		if i < 0 {
			t.Fatalf("lacks %q after byte %d:\n%s", w, at, out)
		}
		at += i + len(w)
	}
}
