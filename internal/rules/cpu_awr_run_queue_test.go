package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAWRRunQueue(t *testing.T) {
	const id = "cpu.awr-run-queue"
	binding := awrTestReport(t, "awrrpt_1_34_35_12102_binding.txt") // 001 TEST 3: 9 sessions on a 6-CPU cpuset
	// Bound: the host's load says nothing of the cpuset.
	awrOutcome(t, id, "cannot", "the instance is bound (processor_group_name)", nil, binding)
	h := numaHost(8, 20)
	h.Host.Hostname = "bdtsrv"
	h.Processes = []snapshot.Process{oracleProc(77, "BDT12C1", cpuRange(1, 6), []int{0})}
	f := awrFires(t, id, h, binding)
	wantIn(t, "current", f.Current, "about 34.3 % of DB time runnable but waiting for a CPU")
	wantIn(t, "evidence", f.Evidence, "DB CPU and the wait classes account for 65.7 % of DB time",
		"8.9 average active sessions for 6 CPUs (its processes' CPUs 1-6 on this host): 2.9 sessions wait for a CPU")
	if f.Recommended != "9 CPUs or more for the instance (its average active sessions), or fewer concurrent sessions" {
		t.Errorf("recommended %q", f.Recommended)
	}

	// 000 Table 10: 35 % unaccounted but the host had 38 % idle: not the run queue.
	awrOutcome(t, id, "passed", "not run-queue time", nil, awrTestReport(t, "awrrpt_1_412_413_12102.txt"))
	// Caging accounts for its waiting (resmgr:cpu quantum): nothing unaccounted.
	awrOutcome(t, id, "passed", "0 % unaccounted", nil, awrTestReport(t, "awrrpt_1_30_31_12102_caging.txt"))
	// 10g percentages are of call time: they always add up.
	awrOutcome(t, id, "n/a", "call time", nil, awrTestReport(t, "awrrpt_1_1211_1212_10204.txt"))

	// A saturated host in the report itself: fires without a host.
	cpu, idle, load, cpus := 70.0, 4.0, 60.0, int64(48)
	aas := 61.0
	r := &artifacts.AWRReport{File: "sat.txt", TopEventsPctOf: "db time",
		TopEvents:   []artifacts.AWREvent{{Event: "DB CPU", TimeS: ptr(1000.0), PctDBTime: &cpu}},
		HostCPU:     &artifacts.AWRHostCPU{PctIdle: &idle, LoadEnd: &load},
		Host:        artifacts.AWRHost{CPUs: &cpus},
		LoadProfile: artifacts.AWRLoad{DBTimePerS: &aas}}
	f = awrFires(t, id, nil, r)
	wantIn(t, "evidence", f.Evidence, "Host CPU: load average 60 at the end for 48 CPUs, host 4 % idle", "the top events (the events below them")
	// No load in the report, no host: cannot tell.
	r.HostCPU = nil
	awrOutcome(t, id, "cannot", "no host given", nil, r)
}
