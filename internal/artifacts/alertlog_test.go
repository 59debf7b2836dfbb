package artifacts

import (
	"os"
	"strings"
	"testing"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func noErrors(t *testing.T, errs []error) {
	t.Helper()
	for _, e := range errs {
		t.Errorf("unexpected error: %v", e)
	}
}

func i64(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

func TestAlertLogTwoStartups(t *testing.T) {
	a, errs := ParseAlertLog(readTestdata(t, "alert_ORCL.log"))
	noErrors(t, errs)
	if len(a.Startups) != 2 {
		t.Fatalf("startups = %d, want 2", len(a.Startups))
	}
	first := a.Startups[0]
	if first.Line != 2 || first.Time != "Tue Mar 10 09:12:01 2015" || first.Mode != "normal" {
		t.Errorf("first startup at line %d time %q mode %q", first.Line, first.Time, first.Mode)
	}
	if first.Version != "11.2.0.4.0" || !strings.Contains(first.Banner, "11g Enterprise Edition") {
		t.Errorf("version %q banner %q", first.Version, first.Banner)
	}
	if first.CPUs == nil || *first.CPUs != 240 || first.Cores == nil || *first.Cores != 120 || first.Sockets == nil || *first.Sockets != 8 {
		t.Errorf("cpus/cores/sockets = %v %v %v", first.CPUs, first.Cores, first.Sockets)
	}
	if first.ParamSource != "server-side spfile /u01/app/oracle/product/11.2.0/dbhome_1/dbs/spfileORCL.ora" {
		t.Errorf("param source = %q", first.ParamSource)
	}
	lp := first.LargePages
	if lp == nil {
		t.Fatal("no Large Pages information")
	}
	if i64(lp.TotalSGAInLargeMB) != 0 || i64(lp.TotalSGAPercent) != 0 || i64(lp.InUse) != 0 || i64(lp.Unused) != 0 ||
		i64(lp.Configured) != 0 || i64(lp.PageSizeKB) != 2048 || i64(lp.Required) != 1537 || i64(lp.TotalSGAMB) != 3074 {
		t.Errorf("large pages = %+v", *lp)
	}
	if first.SGA != nil {
		t.Errorf("11.2 startup has no SGA dump, got %+v", first.SGA)
	}
	if n := first.NUMA; n == nil || n.Nodes == nil || *n.Nodes != 8 || n.Enabled == nil || *n.Enabled {
		t.Errorf("first NUMA = %+v", n)
	}
	p := first.Params
	if p["processes"] != "3000" || p["sga_target"] != "3G" || p["use_large_pages"] != "TRUE" || p["cpu_count"] != "24" ||
		p["filesystemio_options"] != "SETALL" || p["db_name"] != "ORCL" {
		t.Errorf("params = %v", p)
	}
	if p["control_files"] != "/u02/oradata/ORCL/control01.ctl, /u03/fra/ORCL/control02.ctl" {
		t.Errorf("repeated control_files = %q", p["control_files"])
	}
	if _, ok := p["pmon started with pid"]; ok || len(p) != 9 {
		t.Errorf("param block did not end where it should: %d params %v", len(p), p)
	}
	if first.ParamLine["processes"] != 45 {
		t.Errorf("processes line = %d", first.ParamLine["processes"])
	}

	last := a.Last()
	if last != a.Startups[1] || last.Time != "Wed Mar 11 14:05:10 2015" || last.Version != "12.1.0.2.0" {
		t.Fatalf("last = %+v", last)
	}
	if last.SID != "ORCL" {
		t.Errorf("SID from instance_name = %q", last.SID)
	}
	if last.Params["_enable_numa_support"] != "TRUE" || last.Params["use_large_pages"] != "ONLY" {
		t.Errorf("last params = %v", last.Params)
	}
	n := last.NUMA
	if n == nil || n.Enabled == nil || !*n.Enabled || len(n.Mappings) != 8 {
		t.Fatalf("last NUMA = %+v", n)
	}
	if m := n.Mappings[5]; m.OSNode != 0 || m.OracleNode != 5 || m.CPUs == nil || *m.CPUs != 30 {
		t.Errorf("mapping 5 = %+v", m)
	}
	s := last.SGA
	if s == nil {
		t.Fatal("no SGA dump")
	}
	if !s.MemlockUnlimited || s.MemlockSoft != "UNLIMITED" || s.MemlockSoftBytes != nil {
		t.Errorf("memlock = %q %v", s.MemlockSoft, s.MemlockSoftBytes)
	}
	if s.ExpectedMemlock != "2104G" || i64(s.ExpectedMemlockBytes) != 2104<<30 {
		t.Errorf("expected memlock = %q %d", s.ExpectedMemlock, i64(s.ExpectedMemlockBytes))
	}
	if len(s.AvailablePageSizesKB) != 2 || s.AvailablePageSizesKB[0] != 4 || s.AvailablePageSizesKB[1] != 2048 {
		t.Errorf("available page sizes = %v", s.AvailablePageSizesKB)
	}
	if len(s.PageSizes) != 1 {
		t.Fatalf("page size rows = %+v", s.PageSizes)
	}
	r := s.PageSizes[0]
	if r.PageSizeKB != 2048 || i64(r.Available) != 1536000 || i64(r.Expected) != 1077250 || i64(r.Allocated) != 1077250 || r.Error != "NONE" {
		t.Errorf("row = %+v", r)
	}
	if s.Unsupported[4] != "Large pagesizes only" {
		t.Errorf("unsupported = %v", s.Unsupported)
	}
	if last.LargePages != nil {
		t.Errorf("12c startup has no 11.2 large pages block, got %+v", last.LargePages)
	}
}

func TestAlertLog19cStampedLines(t *testing.T) {
	a, errs := ParseAlertLog(readTestdata(t, "alert_cdb19.log"))
	noErrors(t, errs)
	if len(a.Startups) != 1 {
		t.Fatalf("startups = %d", len(a.Startups))
	}
	s := a.Last()
	if s.CPUs == nil || *s.CPUs != 2 || s.Sockets == nil || *s.Sockets != 1 {
		t.Errorf("cpus %v sockets %v", s.CPUs, s.Sockets)
	}
	if s.Time != "2023-06-01T08:00:01.123456+00:00" || s.Version != "19.18.0.0.0" {
		t.Errorf("time %q version %q", s.Time, s.Version)
	}
	d := s.SGA
	if d == nil {
		t.Fatal("no SGA dump")
	}
	if d.MemlockUnlimited || i64(d.MemlockSoftBytes) != 64<<10 || i64(d.ExpectedMemlockBytes) != 4100<<20 {
		t.Errorf("memlock %d expected %d", i64(d.MemlockSoftBytes), i64(d.ExpectedMemlockBytes))
	}
	if len(d.PageSizes) != 2 {
		t.Fatalf("rows = %+v", d.PageSizes)
	}
	r4, r2m := d.PageSizes[0], d.PageSizes[1]
	if r4.PageSizeKB != 4 || r4.Available != nil || r4.AvailableText != "Configured" || i64(r4.Expected) != 1049604 {
		t.Errorf("4K row = %+v", r4)
	}
	if r2m.PageSizeKB != 2048 || i64(r2m.Available) != 100 || i64(r2m.Expected) != 2050 || i64(r2m.Allocated) != 0 {
		t.Errorf("2M row = %+v", r2m)
	}
	if len(d.Recommendations) != 2 || !strings.Contains(d.Recommendations[1], "at least 4100MB to lock 100%") {
		t.Errorf("recommendations = %q", d.Recommendations)
	}
	if s.NUMA == nil || s.NUMA.Enabled == nil || *s.NUMA.Enabled || s.NUMA.Nodes != nil {
		t.Errorf("NUMA = %+v", s.NUMA)
	}
	if len(s.Errors) != 1 || s.Errors[0].Code != "ORA-27125" || s.Errors[0].Line != 77 || !strings.Contains(s.Errors[0].Text, "shared memory") {
		t.Errorf("errors = %+v", s.Errors)
	}
	if s.Params["memory_target"] != "4G" || s.Params["enable_pluggable_database"] != "TRUE" || len(s.Params) != 8 {
		t.Errorf("params = %v", s.Params)
	}
}

func TestAlertLogMidStartupAndErrors(t *testing.T) {
	in := "Per process nothing\nDump of system resources acquired for SHARED GLOBAL AREA (SGA)\n" +
		"Per process system memlock (soft) limit = lots\n" +
		"Supported system pagesize(s):\n  PAGESIZE AVAILABLE\n  2048K garbage\n*****\n"
	a, errs := ParseAlertLog([]byte(in))
	if len(a.Startups) != 1 || a.Startups[0].Line != 2 {
		t.Fatalf("startups = %+v", a.Startups)
	}
	if len(errs) != 2 {
		t.Fatalf("errors = %v", errs)
	}
	if !strings.Contains(errs[0].Error(), "line 3:") || !strings.Contains(errs[1].Error(), "line 6:") {
		t.Errorf("errors = %v", errs)
	}
	if a.Last().SGA.MemlockSoftBytes != nil || a.Last().SGA.MemlockUnlimited {
		t.Errorf("bad memlock must not be guessed: %+v", a.Last().SGA)
	}
}

func TestAlertLogEmpty(t *testing.T) {
	a, errs := ParseAlertLog(nil)
	if len(errs) != 0 || a.Last() != nil {
		t.Errorf("empty log: %+v %v", a, errs)
	}
}

func FuzzParseAlertLog(f *testing.F) {
	f.Add([]byte("Starting ORACLE instance (normal)\nNUMA system with 2 nodes detected\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, _ := ParseAlertLog(b)
		if a == nil {
			t.Fatal("nil result")
		}
		for _, s := range a.Startups {
			if s.Line < 1 {
				t.Fatalf("startup line %d", s.Line)
			}
		}
		if a.AIOEAgainCount < len(a.AIOEAgain) || len(a.AIOEAgain) > maxAlertEvents {
			t.Fatalf("AIO EAGAIN: count %d, kept %d", a.AIOEAgainCount, len(a.AIOEAgain))
		}
		if want := strings.Count(string(b), "lio_listio returned EAGAIN"); a.AIOEAgainCount > want {
			t.Fatalf("AIO EAGAIN: counted %d, the text holds %d", a.AIOEAgainCount, want)
		}
	})
}

func TestAlertLogRedoMembers(t *testing.T) {
	log := "Starting ORACLE instance (normal)\nORACLE_SID = ORCL\nCompleted: ALTER DATABASE OPEN\n" +
		"Thread 1 opened at log sequence 5\n  Current log# 2 seq# 5 mem# 0: /u02/oradata/ORCL/redo02a.log\r\n" +
		"  Current log# 2 seq# 5 mem# 1: /u03/oradata/ORCL/redo02b.log\n" +
		"Thread 1 advanced to log sequence 6 (LGWR switch)\n  Current log# 3 seq# 6 mem# 0: +REDO/ORCL/ONLINELOG/group_3.263.1096\n" +
		"Thread 1 advanced to log sequence 7 (LGWR switch)\n  Current log# 2 seq# 7 mem# 0: /u02/oradata/ORCL/redo02a.log\n" +
		"  Current log# garbled\n"
	a, errs := ParseAlertLog([]byte(log))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "line 11") {
		t.Fatalf("errors %v", errs)
	}
	r := a.Last().RedoLogs
	if len(r) != 3 || r[0].Path != "/u02/oradata/ORCL/redo02a.log" || r[0].Line != 5 || r[1].Member != 1 || r[2].Group != 3 ||
		r[2].Path != "+REDO/ORCL/ONLINELOG/group_3.263.1096" {
		t.Fatalf("%+v", r)
	}
}

func TestAlertLogAIOEAgain(t *testing.T) {
	log := "Mon Nov 23 02:10:11 2026\r\nWarning: lio_listio returned EAGAIN\r\nPerformance degradation may be seen.\r\n" +
		"Starting ORACLE instance (normal)\nORACLE_SID = ORCL\nTue Nov 24 03:00:00 2026\nWarning: lio_listio returned EAGAIN\n" +
		"Performance degradation may be seen.\n"
	a, errs := ParseAlertLog([]byte(log))
	noErrors(t, errs)
	if a.AIOEAgainCount != 2 || len(a.AIOEAgain) != 2 || a.AIOEAgain[0].Line != 2 || a.AIOEAgain[0].Time != "Mon Nov 23 02:10:11 2026" ||
		a.AIOEAgain[1].Line != 7 || a.AIOEAgain[1].Text != "Warning: lio_listio returned EAGAIN" {
		t.Fatalf("%+v", a)
	}
	if Recognize([]byte("Warning: lio_listio returned EAGAIN\nPerformance degradation may be seen.\n")) != KindAlertLog {
		t.Error("an excerpt holding only the AIO warning is not recognised as an alert log")
	}
	var many strings.Builder
	for i := 0; i < 40; i++ {
		many.WriteString("Warning: lio_listio returned EAGAIN\n")
	}
	if a, _ := ParseAlertLog([]byte(many.String())); a.AIOEAgainCount != 40 || len(a.AIOEAgain) != maxAlertEvents {
		t.Fatalf("count %d kept %d", a.AIOEAgainCount, len(a.AIOEAgain))
	}
}
