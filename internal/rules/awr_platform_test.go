package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// aixAWR is an AWR report of an AIX instance: 002's 11.2.0.3 report with
// its platform, instance and host those of the AIX 7.2 test bundle (ORCL
// on db1), free buffer waits in place of direct path write, and
// filesystemio_options SETALL with memory_target set (as the report has).
func aixAWR(t *testing.T) *artifacts.AWRReport {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "artifacts", "testdata", "awr", "awrrpt_1_205_206_11203.txt"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, p := range [][2]string{
		{"labdb02.example. Linux x86 64-bit          ", "db1              AIX-Based Systems (64-bit)"},
		{"LOBTEST       1936027165 lobtest     ", "ORCL          1936027165 ORCL        "},
		{"direct path write                    93,156         277      3    9.7 User I/O",
			"free buffer waits                    93,156         277      3    9.7 Configurat"},
	} {
		if !strings.Contains(s, p[0]) {
			t.Fatalf("no %q", p[0])
		}
		s = strings.Replace(s, p[0], p[1], 1)
	}
	r, errs := artifacts.ParseAWR([]byte(s))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	r.File = "awrrpt_aix.txt"
	if !strings.Contains(r.Host.Platform, "AIX") || r.Instance != "ORCL" {
		t.Fatalf("platform %q instance %q", r.Host.Platform, r.Instance)
	}
	return r
}

// TestAWRAdviceOnAIX: issue 27 item 1. The AIX 7.2 bundle, an AIX AWR
// report and the instance's alert log audited together: the report
// diagnoses give AIX's advice (004: ASYNCH with cio mounts, 16 MB large
// pages), agreeing with the AIX rules of the same run, and no Linux advice
// (SETALL, /dev/shm, use_large_pages, vm.nr_hugepages, cgroups, C-states,
// NUMA balancing).
func TestAWRAdviceOnAIX(t *testing.T) {
	snap, err := snapshot.Load(filepath.Join("..", "facts", "aix", "testdata", "golden", "aix72.json"))
	if err != nil {
		t.Fatal(err)
	}
	alert := "alert_ORCL.log=Starting ORACLE instance (normal)\nORACLE_SID = ORCL\nSystem parameters with non-default values:\n" +
		"  processes                = 300\n  filesystemio_options     = \"SETALL\"\n  memory_target            = 2560M\n" +
		"Completed: ALTER DATABASE OPEN\n"
	set := artSet(t, alert)
	set.AWR = append(set.AWR, aixAWR(t))
	rep := Run(&Input{Snap: snap, Workload: WorkloadOLTP, DB: DBOracle, Artifacts: set})

	byID := map[string][]Finding{}
	for _, f := range rep.Findings {
		byID[f.ID] = append(byID[f.ID], f)
	}
	// The same run: db.aix-filesystemio-options says ASYNCH for SETALL.
	if fs := byID["db.aix-filesystemio-options"]; len(fs) == 0 || !strings.Contains(fs[0].Recommended, "ASYNCH") {
		t.Fatalf("db.aix-filesystemio-options: %+v", fs)
	}
	ww := byID["io.awr-write-waits"]
	if len(ww) != 1 {
		t.Fatalf("io.awr-write-waits: %+v", ww)
	}
	w := ww[0]
	all := w.Recommended + " " + w.Why + " " + strings.Join(append(w.Fix.Runtime, w.Fix.Persistent...), " ")
	wantIn(t, "write waits", all, "filesystemio_options=ASYNCH", "mounted cio", "let the system managed CIO via mount option")
	wantIn(t, "write waits current", w.Current, "with filesystemio_options=SETALL (004 on AIX: ASYNCH")
	wantIn(t, "write waits evidence", w.Evidence, "the report's platform: AIX-Based Systems (64-bit)")
	if strings.Contains(all, "=SETALL") || strings.Contains(all, "advises asynchronous I/O and SETALL") || strings.Contains(w.Evidence, "fs.aio") {
		t.Errorf("Linux advice on AIX: %s\n%s", all, w.Evidence)
	}

	sga := byID["memory.awr-sga-hugepages"]
	if len(sga) != 1 {
		t.Fatalf("memory.awr-sga-hugepages: %+v", sga)
	}
	g := sga[0]
	gAll := g.Current + " " + g.Recommended + " " + g.Why + " " + g.Risk + " " + strings.Join(append(g.Fix.Runtime, g.Fix.Persistent...), " ")
	wantIn(t, "sga", gAll, "16 MB large pages", "lgpg_regions", "ORACLE_SGA_PGSZ=16M")
	for _, linux := range []string{"/dev/shm", "use_large_pages", "vm.nr_hugepages", "4 kB pages"} {
		if strings.Contains(gAll, linux) {
			t.Errorf("memory.awr-sga-hugepages on AIX says %q: %s", linux, gAll)
		}
	}
	// No report diagnosis gives a Linux-only fix for this AIX instance.
	for _, f := range rep.Findings {
		if !strings.Contains(f.ID, "awr-") {
			continue
		}
		fix := strings.Join(append(f.Fix.Runtime, f.Fix.Persistent...), " ")
		for _, linux := range []string{"sysctl", "/etc/sysctl.d", "cgconfig", "cpuset.", "cpupower", "intel_idle", "numa_balancing", "iostat -dmxz", "/dev/shm"} {
			if strings.Contains(fix, linux) {
				t.Errorf("%s fixes an AIX instance with %q: %s", f.ID, linux, fix)
			}
		}
	}
}

// TestAWRPlatformEachRule: each report diagnosis with advice of one
// system reads the platform: an AIX report gets no Linux remedy, a Linux
// report keeps its own.
func TestAWRPlatformEachRule(t *testing.T) {
	// NUMA balancing does not exist on AIX.
	mutex := awrTestReport(t, "awrrpt_1_412_413_12102.txt")
	mutex.Host.Platform = "AIX-Based Systems (64-bit)"
	awrOutcome(t, "numa.awr-mutex-numa-balancing", "n/a", "automatic NUMA balancing", nil, mutex)

	// The redo CPU side: no C-states on AIX.
	f := awrFires(t, "io.awr-redo-latency", nil, redoTestReport("AIX-Based Systems (64-bit)", 9, 12, 0.8))
	if fix := strings.Join(append(f.Fix.Runtime, f.Fix.Persistent...), " "); strings.Contains(fix, "cpupower") || strings.Contains(fix, "intel_idle") ||
		strings.Contains(f.Recommended, "C-states") {
		t.Errorf("C-states on AIX: %+v", f)
	}
	f = awrFires(t, "io.awr-redo-latency", nil, redoTestReport("Linux x86 64-bit", 9, 12, 0.8))
	wantIn(t, "linux fix", strings.Join(f.Fix.Runtime, " "), "cpupower")

	// A report without a platform (10g) on an AIX host: AIX's redo advice.
	tenG := awrTestReport(t, "awrrpt_1_1211_1212_10204.txt")
	aix := aixHost()
	f = awrFires(t, "io.awr-redo-latency", aix, tenG)
	wantIn(t, "10g on AIX", f.Recommended, "agblksize=512")
	wantIn(t, "10g on AIX", f.Evidence, "the report names no platform; the audited host runs AIX")

	// The caged instance on AIX: no cgconfig binding.
	caging := awrTestReport(t, "awrrpt_1_30_31_12102_caging.txt")
	caging.Host.Platform = "AIX-Based Systems (64-bit)"
	f = awrFires(t, "db.awr-resmgr-cpu-quantum", nil, caging)
	if fix := strings.Join(f.Fix.Persistent, " "); strings.Contains(fix, "cgconfig") || strings.Contains(fix, "processor_group_name") ||
		strings.Contains(f.Recommended, "processor_group_name") {
		t.Errorf("Linux binding on AIX: %q %+v", f.Recommended, f.Fix)
	}
}
