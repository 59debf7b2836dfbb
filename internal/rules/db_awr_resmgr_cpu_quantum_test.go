package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAWRResmgrCPUQuantum(t *testing.T) {
	const id = "db.awr-resmgr-cpu-quantum"
	caging := awrTestReport(t, "awrrpt_1_30_31_12102_caging.txt")   // 001 TEST 2
	binding := awrTestReport(t, "awrrpt_1_34_35_12102_binding.txt") // 001 TEST 3

	// The report alone: caging throttles, the host decides whether binding fits.
	f := awrFires(t, id, nil, caging)
	wantIn(t, "current", f.Current, "39.4 % of DB time", "caged at cpu_count 6 of the report's 160 CPUs", "8.9 average active sessions")
	wantIn(t, "evidence", f.Evidence, "resmgr:cpu quantum: 16005 waits", "awrrpt_1_30_31_12102_caging.txt:35", "cpu_count = 6",
		"resource_manager_plan = default_plan", "no host given")
	if len(f.Fix.Runtime) != 1 || f.Fix.Runtime[0] != "ALTER SYSTEM SET cpu_count=9 SCOPE=BOTH SID='BDT12C1';" {
		t.Errorf("fix: %+v", f.Fix)
	}
	awrOutcome(t, id, "passed", "below 5 %", nil, binding)

	// With the host: a node of 10 CPUs holds a 9-CPU cpuset.
	h := numaHost(8, 20)
	h.Host.Hostname = "bdtsrv"
	h.Processes = append(h.Processes, oracleProc(4242, "BDT12C1", cpuRange(0, 159), []int{0, 1, 2, 3, 4, 5, 6, 7}))
	f = awrFires(t, id, h, caging)
	wantIn(t, "evidence", f.Evidence, "this host: 160 CPU threads, 8 NUMA node(s)", "node 0 has 20 CPUs: a cpuset of 9 CPUs (0-8) with cpuset.mems=0")
	if strings.Contains(f.Evidence, "no host given") || !strings.Contains(strings.Join(f.Fix.Persistent, " "), `cpuset.cpus = "0-8"; cpuset.mems = "0"`) {
		t.Errorf("host fix: %+v\n%s", f.Fix, f.Evidence)
	}
	// Already bound: caging on top of binding.
	h.Processes = []snapshot.Process{oracleProc(4242, "BDT12C1", cpuRange(1, 9), []int{0})}
	f = awrFires(t, id, h, caging)
	wantIn(t, "evidence", f.Evidence, "already runs on CPUs 1-9 (9 of 160): caging on top of binding")
	// Small nodes: no node holds the cpuset; another host's name is said.
	small := numaHost(2, 4)
	f = awrFires(t, id, small, caging)
	wantIn(t, "evidence", f.Evidence, "no NUMA node of this host has 9 CPUs", "the report was taken on host bdtsrv, the facts below are of db1",
		"no process of instance BDT12C1 on this host")

	// The global RAC report: cluster-wide resmgr:cpu quantum.
	g := awrTestReport(t, "awrgrpt_510_511_23ai.html")
	f = awrFires(t, id, nil, g)
	wantIn(t, "current", f.Current, "29.72 % of DB time")
	// Instance CPU alone (no event): "%DB time waiting for CPU (Resource Manager)".
	rm := 12.0
	ic := &artifacts.AWRReport{File: "x.txt", InstanceCPU: &artifacts.AWRInstanceCPU{PctDBTimeWaitingCPURM: &rm}}
	f = awrFires(t, id, nil, ic)
	wantIn(t, "evidence", f.Evidence, "12 % of DB time waiting for CPU (Resource Manager)")
	awrOutcome(t, id, "cannot", "no top events", nil, &artifacts.AWRReport{File: "empty.txt"})
}
