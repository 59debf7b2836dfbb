package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestIntelPstateMinPerf(t *testing.T) {
	const id = "cpu.intel-pstate-min-perf"
	mk := func(status string, min, max int64) *snapshot.Snapshot {
		s := host()
		s.CPUPower.IntelPstate = &snapshot.IntelPstate{Status: status, MinPerfPct: ptr(min), MaxPerfPct: ptr(max), NoTurbo: ptr(false)}
		return s
	}
	f := fires(t, id, mk("active", 25, 100), WorkloadOLTP, DBNone)
	if f.Current != "25" || f.Recommended != "100" || len(f.Changes) != 1 || f.Changes[0].Kind != change.Sysfs ||
		f.Changes[0].Key != "/sys/devices/system/cpu/intel_pstate/min_perf_pct" || f.Changes[0].Value != "100" || f.Changes[0].Current != "25" {
		t.Fatalf("%+v", f)
	}
	// max_perf_pct below 100 must be raised first.
	f = fires(t, id, mk("active", 25, 80), WorkloadLatency, DBNone)
	if len(f.Changes) != 2 || !strings.HasSuffix(f.Changes[0].Key, "/max_perf_pct") || f.Changes[1].Value != "100" {
		t.Fatalf("%+v", f.Changes)
	}
	// Old kernel without a status file: active.
	fires(t, id, mk("", 30, 100), WorkloadOLTP, DBNone)
	quiet(t, id, mk("active", 100, 100), WorkloadOLTP, DBNone)
	// Passive mode: the governor decides.
	if rep := quiet(t, id, mk("passive", 25, 100), WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// DSS/mixed: not in scope.
	if rep := quiet(t, id, mk("active", 25, 100), WorkloadDSS, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// Guest: not applicable.
	g := mk("active", 25, 100)
	g.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if rep := quiet(t, id, g, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	// No intel_pstate directory: not applicable; unreadable: cannot check.
	no := host()
	absent(no, "cpu_power.intel_pstate", "not present on this host (intel_pstate not in use)")
	if rep := quiet(t, id, no, WorkloadOLTP, DBNone); len(rep.NotApplicable) != 1 {
		t.Fatalf("%+v", rep)
	}
	unk := mk("active", 0, 100)
	unk.CPUPower.IntelPstate.MinPerfPct = nil
	absent(unk, "cpu_power.intel_pstate.min_perf_pct", "permission denied")
	cannot(t, id, unk, WorkloadOLTP, DBNone, "permission denied")
	cannot(t, id, host(), WorkloadOLTP, DBNone, "intel_pstate")
}
