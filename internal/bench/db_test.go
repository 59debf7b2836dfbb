package bench

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestParsePgbench(t *testing.T) {
	out := `pgbench (15.10 (Debian 15.10-0+deb12u1))
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: prepared
number of clients: 2
number of threads: 2
maximum number of tries: 1
duration: 2 s
number of transactions actually processed: 1234
number of failed transactions: 0 (0.000%)
latency average = 3.241 ms
initial connection time = 4.567 ms
tps = 617.102938 (without initial connection time)
`
	s, err := ParsePgbenchSummary(out)
	if err != nil || s.TPS != 617.102938 || s.Transactions != 1234 || s.LatencyMs != 3.241 {
		t.Errorf("got %+v, %v", s, err)
	}
	// pgbench 13 and older.
	if s, err := ParsePgbenchSummary("tps = 99.5 (excluding connections establishing)\n"); err != nil || s.TPS != 99.5 {
		t.Errorf("old format: %+v %v", s, err)
	}
	if _, err := ParsePgbenchSummary("no summary"); err == nil {
		t.Error("no summary: no error")
	}
	var h Histogram
	n, err := ParsePgbenchLog(strings.NewReader("0 1 1500 0 1700000000 123456\n1 1 2500 0 1700000000 123999\n0 2 failed 0 1700000001 5 0\n"), &h)
	if err != nil || n != 2 || h.Percentile(100) != 2500000 {
		t.Errorf("log: n %d, max %d, %v", n, h.Percentile(100), err)
	}
	if _, err := ParsePgbenchLog(strings.NewReader("0 1 x 0 1 2\n"), &h); err == nil {
		t.Error("bad time: no error")
	}
}

func FuzzParsePgbenchLog(f *testing.F) {
	f.Add("0 1 1500 0 1700000000 123456\n")
	f.Fuzz(func(t *testing.T, s string) {
		var h Histogram
		_, _ = ParsePgbenchLog(strings.NewReader(s), &h)
	})
}

func TestRunDB(t *testing.T) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		t.Skip("pgbench not installed")
	}
	dsn, _ := startPG(t)
	o := DBOptions{Options: testOptions(t, time.Second), DSN: dsn, Init: true, Scale: 1, Clients: 2}
	r, err := RunDB(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 || *r.Results[0].OpsPerSec <= 0 || r.Results[0].LatencyUS.Count == 0 {
		t.Fatalf("results %+v", r.Results)
	}
	out, err := exec.Command("psql", dsn, "-Atc", "SELECT count(*) FROM pg_database WHERE datname LIKE 'dbhost_bench_%'").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "0" {
		t.Errorf("scratch databases left: %s %v", out, err)
	}
}
