package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// redoReport builds a report with log file sync and log file parallel write.
func redoTestReport(platform string, syncMS, syncPct, writeMS float64) *artifacts.AWRReport {
	w1, w2 := int64(100000), int64(120000)
	return &artifacts.AWRReport{File: "redo.html", TopEventsPctOf: "db time", Host: artifacts.AWRHost{Name: "db1", Platform: platform},
		TopEvents:        []artifacts.AWREvent{{Event: "log file sync", Waits: &w1, TimeS: ptr(syncMS * 100), AvgMS: &syncMS, PctDBTime: &syncPct}},
		BackgroundEvents: []artifacts.AWREvent{{Event: "log file parallel write", Waits: &w2, TimeS: ptr(writeMS * 120), AvgMS: &writeMS}}}
}

func TestAWRRedoLatency(t *testing.T) {
	const id = "io.awr-redo-latency"
	// 004: log file sync 28 ms with demoted redo I/O (10g prints no platform).
	tenG := awrTestReport(t, "awrrpt_1_1211_1212_10204.txt")
	f := awrFires(t, id, nil, tenG)
	if f.Severity != SevWarning || f.Setting != "redo log devices" {
		t.Errorf("%+v", f)
	}
	wantIn(t, "current", f.Current, "log file parallel write 24 ms, log file sync 28 ms")
	wantIn(t, "evidence", f.Evidence, "log file sync: 2229324 waits, 62628 s, avg 28 ms, 58.2 % of call time", "does not name its platform",
		"agblksize other than 512", "no host given")

	// AIX named by the report: the JFS2 block size.
	f = awrFires(t, id, nil, redoTestReport("AIX-Based Systems (64-bit)", 28, 40, 24))
	wantIn(t, "recommended", f.Recommended, "agblksize=512")
	wantIn(t, "fix", strings.Join(f.Fix.Persistent, " "), "mkfs -V jfs2 -o agblksize=512")

	// Linux with the host: the devices' schedulers.
	h := host()
	rot, ssd := true, false
	cfq, dl := "cfq", "mq-deadline"
	nr := int64(128)
	h.Storage.Devices = []snapshot.BlockDevice{{Name: "sda", Kind: "disk", Rotational: &rot, Scheduler: &cfq, NrRequests: &nr},
		{Name: "nvme0n1", Kind: "nvme", Rotational: &ssd, Scheduler: &dl}}
	f = awrFires(t, id, h, redoTestReport("Linux x86 64-bit", 12, 15, 9))
	wantIn(t, "evidence", f.Evidence, "fair-queuing scheduler (000 recommends deadline): sda (rotational, scheduler cfq, nr_requests 128)",
		"other devices: nvme0n1 (nvme, scheduler mq-deadline)", "does not say which of them holds the redo logs")
	if strings.Contains(f.Evidence, "no host given") {
		t.Error(f.Evidence)
	}

	// A fast write under a slow sync: the CPU side, C-states with the host.
	f = awrFires(t, id, nil, redoTestReport("Linux x86 64-bit", 9, 12, 0.8))
	wantIn(t, "setting", f.Setting, "LGWR scheduling")
	wantIn(t, "evidence", f.Evidence, "no host given", "C-states")
	h.CPUPower.Cpuidle = []snapshot.CPUIdle{{CPU: 0, States: []snapshot.IdleState{{Name: "POLL"}, {Name: "C1", LatencyUS: 2}, {Name: "C6", LatencyUS: 133}}}}
	f = awrFires(t, id, h, redoTestReport("Linux x86 64-bit", 9, 12, 0.8))
	wantIn(t, "evidence", f.Evidence, "this host allows deep C-states: C6 (133 µs exit latency)")
	if f.Severity != SevWarning {
		t.Errorf("severity %s", f.Severity)
	}
	// Issue 26: the C-state fix is cpu.deep-cstates-latency's, from this
	// host's exit latencies (C1E exits in 10 µs here: -D 10 keeps POLL and
	// C1, a fixed -D 2 would disable C1 too); without the host no value is
	// guessed.
	h.CPUPower.Cpuidle = []snapshot.CPUIdle{{CPU: 0, States: []snapshot.IdleState{{Index: 0, Name: "POLL"}, {Index: 1, Name: "C1", LatencyUS: 2},
		{Index: 2, Name: "C1E", LatencyUS: 10, Disabled: ptr(false)}, {Index: 3, Name: "C6", LatencyUS: 133, Disabled: ptr(false)}}}}
	f = awrFires(t, id, h, redoTestReport("Linux x86 64-bit", 9, 12, 0.8))
	fix := strings.Join(f.Fix.Runtime, "\n")
	wantIn(t, "fix", fix, "cpupower idle-set -D 10 ")
	if strings.Contains(fix, "-D 2") {
		t.Errorf("fixed -D 2 on a host whose C1 exits in 2 µs: %s", fix)
	}
	if c := fires(t, "cpu.deep-cstates-latency", h, WorkloadLatency, DBOracle); c.Fix.Runtime[0] != f.Fix.Runtime[0] {
		t.Errorf("redo's idle-set %q differs from cpu.deep-cstates-latency's %q", f.Fix.Runtime[0], c.Fix.Runtime[0])
	}
	f = awrFires(t, id, nil, redoTestReport("Linux x86 64-bit", 9, 12, 0.8))
	fix = strings.Join(f.Fix.Runtime, "\n")
	wantIn(t, "fix", fix, "on the database host: dbhost audit", "cpupower idle-info")
	if strings.Contains(fix, "-D 2") {
		t.Errorf("a -D value without the host's C-states: %s", fix)
	}

	// Quiet: 000's log file sync of 8.05 ms is 0.4 % of DB time; 19c's 2.45 ms sync over a 0.42 ms write.
	awrOutcome(t, id, "passed", "0.4 % of DB time", nil, awrTestReport(t, "awrrpt_1_412_413_12102.txt"))
	awrOutcome(t, id, "passed", "log file sync 2.45 ms, log file parallel write 0.42 ms", nil, awrTestReport(t, "awrrpt_2_2201_2202_19c_rac.html"))
	awrOutcome(t, id, "passed", "neither log file sync", nil, awrTestReport(t, "awrrpt_1_30_31_12102_caging.txt"))
}
