package rules

import (
	"os"
	"path/filepath"
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
	if strings.Contains(f.Evidence, "no host given") || !strings.Contains(strings.Join(f.Fix.Lines(), " "), `edit /etc/cgconfig.conf: binding instead of caging: add group oracle { cpuset { cpuset.cpus = "0-8"; cpuset.mems = "0"; } }, then run systemctl restart cgconfig`) {
		t.Errorf("host fix: %+v\n%s", f.Fix, f.Evidence)
	}
	if f.Severity != SevWarning || !strings.Contains(f.Why, "about 10 %") || strings.Contains(f.Why, "1.65") {
		t.Errorf("caged alone: %s %s", f.Severity, f.Why)
	}
	// Already in a cpuset on the host: caging on top of binding, 001's mix,
	// respected (no "bind instead", a cpu_count within the cpuset).
	h.Processes = []snapshot.Process{oracleProc(4242, "BDT12C1", cpuRange(1, 9), []int{0})}
	f = awrFires(t, id, h, caging)
	wantIn(t, "evidence", f.Evidence, "already runs on CPUs 1-9 (9 of 160): caging on top of binding")
	resmgrRespectsMix(t, f, "ALTER SYSTEM SET cpu_count=9 SCOPE=BOTH SID='BDT12C1';")
	// Small nodes: no node holds the cpuset; another host's name is said.
	small := numaHost(2, 4)
	f = awrFires(t, id, small, caging)
	wantIn(t, "evidence", f.Evidence, "no NUMA node of this host has 9 CPUs", "the report was taken on host bdtsrv, the facts below are of db1",
		"no process of instance BDT12C1 on this host")

	// The global RAC report: cluster-wide resmgr:cpu quantum, no parameters:
	// whether it is caging is unknown, so no cpu_count.
	g := awrTestReport(t, "awrgrpt_510_511_23ai.html")
	f = awrFires(t, id, nil, g)
	wantIn(t, "current", f.Current, "29.72 % of DB time", "no init.ora Parameters")
	resmgrNoCage(t, f)
	// Instance CPU alone (no event): "%DB time waiting for CPU (Resource Manager)".
	rm := 12.0
	ic := &artifacts.AWRReport{File: "x.txt", InstanceCPU: &artifacts.AWRInstanceCPU{PctDBTimeWaitingCPURM: &rm}}
	f = awrFires(t, id, nil, ic)
	wantIn(t, "evidence", f.Evidence, "12 % of DB time waiting for CPU (Resource Manager)")
	resmgrNoCage(t, f)
	awrOutcome(t, id, "cannot", "no top events", nil, &artifacts.AWRReport{File: "empty.txt"})
}

// resmgrNoCage: an info finding that never sets cpu_count (which would cage).
func resmgrNoCage(t *testing.T, f Finding) {
	t.Helper()
	if f.Severity != SevInfo || len(f.Fix.Runtime) != 0 || strings.Contains(strings.Join(f.Fix.Persistent, " "), "cpu_count=") ||
		strings.Contains(f.Recommended, "bind it") {
		t.Errorf("not caging, yet: %s %q %+v", f.Severity, f.Recommended, f.Fix)
	}
}

// resmgrRespectsMix: binding + caging is kept (info, no binding advice).
func resmgrRespectsMix(t *testing.T, f Finding, runtime ...string) {
	t.Helper()
	if f.Severity != SevInfo || strings.Contains(f.Recommended, "instead of caging") ||
		strings.Contains(strings.Join(f.Fix.Persistent, " "), "processor_group_name") || strings.Contains(f.Setting, "resource_manager_plan") {
		t.Errorf("mix not respected: %s %q %+v", f.Severity, f.Recommended, f.Fix)
	}
	if strings.Join(f.Fix.Runtime, "|") != strings.Join(runtime, "|") && !(len(runtime) == 1 && len(f.Fix.Runtime) == 1 && strings.HasPrefix(f.Fix.Runtime[0], runtime[0])) {
		t.Errorf("runtime fix %q, want %q", f.Fix.Runtime, runtime)
	}
}

// resmgrVariant is 001's caging report with its init.ora Parameters
// rewritten (cpu_count, resource_manager_plan, processor_group_name lines).
func resmgrVariant(t *testing.T, edit func(string) string) *artifacts.AWRReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "artifacts", "testdata", "awr", "awrrpt_1_30_31_12102_caging.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r, errs := artifacts.ParseAWR([]byte(edit(string(b))))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r.File = "variant.txt"
	return r
}

// TestAWRResmgrCagingNeedsCPUCountAndPlan: issue 27 item 2, 001's Facts
// (caging = cpu_count and a plan) and Test 4 (binding + caging).
func TestAWRResmgrCagingNeedsCPUCountAndPlan(t *testing.T) {
	const id = "db.awr-resmgr-cpu-quantum"
	const cc = "cpu_count                     6\n"
	// A custom plan, no cpu_count, on the 160-CPU host: never cpu_count=9.
	custom := resmgrVariant(t, func(s string) string {
		return strings.Replace(strings.Replace(s, cc, "", 1), "default_plan", "DAYTIME_PLAN", 1)
	})
	f := awrFires(t, id, nil, custom)
	resmgrNoCage(t, f)
	wantIn(t, "current", f.Current, "resource_manager_plan DAYTIME_PLAN without cpu_count", "not instance caging")
	wantIn(t, "fix", strings.Join(f.Fix.Persistent, " "), "dba_rsrc_plan_directives WHERE plan = 'DAYTIME_PLAN'")
	f = awrFires(t, id, numaHost(8, 20), custom)
	resmgrNoCage(t, f)
	// cpu_count without a plan: not caging either.
	f = awrFires(t, id, nil, resmgrVariant(t, func(s string) string {
		return strings.Replace(s, "resource_manager_plan         default_plan\n", "", 1)
	}))
	resmgrNoCage(t, f)
	wantIn(t, "current", f.Current, "cpu_count 6 and no resource_manager_plan")
	// An empty plan ('') is no plan.
	f = awrFires(t, id, nil, resmgrVariant(t, func(s string) string {
		return strings.Replace(s, "default_plan", "''", 1)
	}))
	resmgrNoCage(t, f)

	// 001 Test 4: bound (processor_group_name) and caged at 6 in a 9-CPU
	// cpuset: the mix is respected, no "bind instead of caging".
	test4 := resmgrVariant(t, func(s string) string {
		return strings.Replace(s, cc, cc+"processor_group_name          oracle\n", 1)
	})
	f = awrFires(t, id, nil, test4)
	resmgrRespectsMix(t, f, "ALTER SYSTEM SET cpu_count=9 SCOPE=BOTH SID='BDT12C1';")
	wantIn(t, "current", f.Current, "on top of binding (processor_group_name oracle)")
	wantIn(t, "why", f.Why, "5.1 M", "5.8 M", "about 10 %")
	h := numaHost(8, 20)
	h.Processes = []snapshot.Process{oracleProc(4242, "BDT12C1", cpuRange(1, 6), []int{0})}
	f = awrFires(t, id, h, test4)
	// The cpuset holds 6 CPUs: cpu_count 6 is already all of it, nothing to raise.
	resmgrRespectsMix(t, f)
	wantIn(t, "current", f.Current, "processor_group_name oracle, CPUs 1-6")
}
