package bench

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"host=/tmp password=secret dbname=x":  "host=/tmp password=xxxxx dbname=x",
		"postgres://u:secret@db:5432/x?ssl=1": "postgres://u:xxxxx@db:5432/x?ssl=1",
		"postgres://u@db/x":                   "postgres://u@db/x",
		"host=db user=u":                      "host=db user=u",
		// Before the crash redactor: "password = 'se cret'" came out as
		// "password = 'se cret'", ?password= as it was.
		"host=db password = 'se cret' user=u":        "host=db password = xxxxx user=u",
		"postgres://db/x?user=u&password=secret&a=1": "postgres://db/x?user=u&password=xxxxx&a=1",
		"postgres://u:sec ret@db/x":                  "postgres://u:xxxxx@db/x",
	} {
		if got := RedactDSN(in); got != want {
			t.Errorf("RedactDSN(%q) = %q, want %q", in, got, want)
		}
	}
}

func checkPoolShape(t *testing.T, r *Result) {
	t.Helper()
	if len(r.Results) != 2 || r.Results[0].Case != "foreground" || r.Results[1].Case != "background" {
		t.Fatalf("cases %v", r.Cases())
	}
	for _, row := range r.Results {
		if row.LatencyUS == nil || row.LatencyUS.Count == 0 || row.LatencyUS.Mean <= 0 || *row.OpsPerSec <= 0 {
			t.Errorf("%s: %+v", row.Case, row)
		}
	}
	if r.Results[1].Extra["mean_latency_foreground_over_background"] <= 0 {
		t.Errorf("no foreground/background ratio: %v", r.Results[1].Extra)
	}
}

func TestRunPool(t *testing.T) {
	dsn, _ := startPG(t)
	o := PoolOptions{Options: testOptions(t, 300*time.Millisecond), DSN: dsn, Size: 4, Requests: 50}
	r, err := RunPool(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkPoolShape(t, r)
	if n := r.Results[0].LatencyUS.Count; n != 50 {
		t.Errorf("%d requests, want 50", n)
	}
	if left := pgTables(t, dsn, "dbhost_bench_"); len(left) != 0 {
		t.Errorf("scratch tables left: %v", left)
	}
	// Across a link with 3 ms each way a request cannot take less than its
	// round trips (physics, not speed): background one (the INSERT),
	// foreground two (the validation query, then the INSERT). The means are
	// not compared: on a loaded machine one slow request swings 20 of them.
	needLink(t)
	o = PoolOptions{Options: testOptions(t, time.Second), DSN: dsn, Size: 4, Requests: 20, Link: LinkOptions{Delay: 3 * time.Millisecond}}
	r, err = RunPool(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkPoolShape(t, r)
	if b := r.Results[1].LatencyUS; b.Min < 5400 {
		t.Errorf("background min %v µs over a 3 ms each-way link: under one round trip", b.Min)
	}
	if f := r.Results[0].LatencyUS; f.Min < 10800 {
		t.Errorf("foreground min %v µs over a 3 ms each-way link: under two round trips (is the validation query sent?)", f.Min)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "emulated link between the pool and PostgreSQL") {
		t.Errorf("notes %v", r.Notes)
	}
	if left := pgTables(t, dsn, "dbhost_bench_"); len(left) != 0 {
		t.Errorf("scratch tables left: %v", left)
	}
}

func TestRunPoolBadDSN(t *testing.T) {
	o := PoolOptions{Options: testOptions(t, time.Second), DSN: "host=/nonexistent-dir port=1 dbname=x"}
	if _, err := RunPool(context.Background(), o); err == nil || !strings.Contains(err.Error(), "connect") {
		t.Errorf("bad DSN: %v", err)
	}
	o.DSN = ""
	if _, err := RunPool(context.Background(), o); err == nil || !strings.Contains(err.Error(), "--dsn") {
		t.Errorf("no DSN: %v", err)
	}
}
