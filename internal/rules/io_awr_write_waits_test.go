package rules

import (
	"strings"
	"testing"
)

func TestAWRWriteWaits(t *testing.T) {
	const id = "io.awr-write-waits"
	r := awrTestReport(t, "awrrpt_1_3301_3302_10205.html") // free buffer waits 36.9 %, log buffer space 10.7 %
	rep := awrRun(t, id, nil, r)
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep)
	}
	f := rep.Findings[0]
	if !strings.HasPrefix(f.Setting, "DBWR write path") {
		f = rep.Findings[1]
	}
	wantIn(t, "current", f.Current, "free buffer waits 36.9 % of DB time with filesystemio_options=none")
	wantIn(t, "evidence", f.Evidence, "db file parallel write: 401210 waits", "disk_asynch_io = TRUE", "db_writer_processes = 1", "no host given")
	wantIn(t, "fix", strings.Join(f.Fix.Persistent, " "), "filesystemio_options=SETALL")
	lb := rep.Findings[0]
	if lb.Setting == f.Setting {
		lb = rep.Findings[1]
	}
	wantIn(t, "log buffer space", lb.Evidence, "log buffer space: 41220 waits", "log_buffer = 2097152", "log file parallel write: 398114 waits")

	// With the host: its asynchronous I/O limit.
	h := host()
	h.Sysctl["fs.aio-nr"] = "65536"
	h.Sysctl["fs.aio-max-nr"] = "65536"
	rep = awrRun(t, id, h, r)
	found := false
	for _, f := range rep.Findings {
		if strings.Contains(f.Evidence, "this host: fs.aio-nr 65536 of fs.aio-max-nr 65536") {
			found = true
		}
	}
	if !found {
		t.Errorf("no aio evidence: %+v", rep.Findings)
	}
	// 9i: free buffer waits 8.87 %, log buffer space 3.59 % of elapsed time; filesystemio_options unset.
	rep = awrRun(t, id, nil, awrTestReport(t, "sp_8811_8812_9208.lst"))
	if len(rep.Findings) != 2 || !strings.Contains(rep.Findings[0].Evidence+rep.Findings[1].Evidence, "none on Linux file systems, ASYNCH on AIX") {
		t.Errorf("9i: %+v", rep)
	}
	awrOutcome(t, id, "passed", "no free buffer waits or log buffer space", nil, awrTestReport(t, "awrrpt_1_412_413_12102.txt"))
	// 19c: free buffer waits at 0.02 % of DB time.
	awrOutcome(t, id, "passed", "free buffer waits 0.02 %", nil, awrTestReport(t, "awrrpt_2_2201_2202_19c_rac.html"))
}
