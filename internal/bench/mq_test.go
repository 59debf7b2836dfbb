package bench

import (
	"context"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestParseSysVMsg(t *testing.T) {
	in := "       key      msqid perms      cbytes       qnum lspid lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n" +
		"-620756992          3   600           0          0     0     0     0     0     0     0          0          0 1763962000\n" +
		"         0          4   644           0          0     0     0  1000  1000  1000  1000          0          0 1763962001\n"
	qs, err := ParseSysVMsg(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) != 2 || qs[0].Key != -620756992 || qs[0].MsqID != 3 || qs[1].CUID != 1000 {
		t.Errorf("got %+v", qs)
	}
	if uint32(qs[0].Key)>>24 != 0xdb {
		t.Errorf("key prefix of %d", qs[0].Key)
	}
	for _, bad := range []string{"key msqid\n1 2\n", "key msqid cuid lspid lrpid\n1 x 0 0 0\n", "key msqid cuid lspid lrpid\n1 2\n"} {
		if _, err := ParseSysVMsg(bad); err == nil {
			t.Errorf("ParseSysVMsg(%q): no error", bad)
		}
	}
}

func FuzzParseSysVMsg(f *testing.F) {
	f.Add("key msqid perms cbytes qnum lspid lrpid uid gid cuid cgid stime rtime ctime\n1 2 600 0 0 0 0 0 0 0 0 0 0 0\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseSysVMsg(s)
	})
}

func TestRunMQShort(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("linux only")
	}
	if _, err := os.Stat("/proc/sysvipc/msg"); err != nil {
		t.Skip("no SysV IPC")
	}
	o := MQOptions{Options: testOptions(t, 300*time.Millisecond), Senders: 3, CPUNode: -1, MemNode: -1}
	r, err := RunMQ(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 2 || r.Results[0].Case != "unbound" || r.Results[1].Case != "bound-node0" {
		t.Fatalf("cases %v", r.Cases())
	}
	for _, row := range r.Results {
		if row.OpsPerSec == nil || *row.OpsPerSec <= 0 || row.LatencyUS == nil || row.LatencyUS.Count == 0 {
			t.Errorf("%s: %+v", row.Case, row)
			continue
		}
		l := row.LatencyUS
		if !(l.Min <= l.P50 && l.P50 <= l.P99 && l.P99 <= l.Max) {
			t.Errorf("%s: percentiles out of order: %+v", row.Case, l)
		}
		var n uint64
		for _, b := range row.Histogram {
			n += b.Count
		}
		if n != l.Count {
			t.Errorf("%s: histogram holds %d samples, latency counts %d", row.Case, n, l.Count)
		}
	}
	if left := ourQueues(t); len(left) != 0 {
		t.Errorf("message queues left behind: %+v", left)
	}
}
