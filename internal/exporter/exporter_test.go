package exporter

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// slowAudit is an audit that takes d and records how many run at once.
type slowAudit struct {
	d                         time.Duration
	running, maxAtOnce, calls atomic.Int32
	fail                      atomic.Bool
}

func (s *slowAudit) audit() (report.Audit, error) {
	s.calls.Add(1)
	n := s.running.Add(1)
	defer s.running.Add(-1)
	for {
		m := s.maxAtOnce.Load()
		if n <= m || s.maxAtOnce.CompareAndSwap(m, n) {
			break
		}
	}
	time.Sleep(s.d)
	if s.fail.Load() {
		return report.Audit{}, errors.New("the host went away")
	}
	snap := &snapshot.Snapshot{Host: snapshot.Host{Hostname: "h1", Kernel: "6.1"}}
	r := rules.Report{Host: "h1", Workload: "mixed", DB: "none", Findings: []rules.Finding{
		{ID: "memory.swappiness", Severity: rules.SevWarning, Area: "memory", Setting: "vm.swappiness", Current: "60"},
	}}
	return report.Audit{Report: r, Snap: snap}, nil
}

func scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err)
		return ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Errorf("status %d: %s", resp.StatusCode, b)
	}
	return string(b)
}

// Scrapes that arrive together never start audits together: with a cache
// interval, 16 concurrent scrapes of a cold exporter run one audit; with
// none (an audit per scrape), they run one after the other.
func TestConcurrentScrapesOneAuditAtATime(t *testing.T) {
	for _, interval := range []time.Duration{time.Hour, 0} {
		sa := &slowAudit{d: 50 * time.Millisecond}
		e := &Exporter{Audit: sa.audit, Interval: interval}
		srv := httptest.NewServer(e.Handler())
		var wg sync.WaitGroup
		bodies := make([]string, 16)
		for i := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				bodies[i] = scrape(t, srv.URL+"/metrics")
			}()
		}
		wg.Wait()
		srv.Close()
		if m := sa.maxAtOnce.Load(); m != 1 {
			t.Errorf("interval %s: %d audits ran at once", interval, m)
		}
		want := int32(1)
		if interval == 0 {
			want = 16
		}
		if c := sa.calls.Load(); c != want {
			t.Errorf("interval %s: %d audits for 16 scrapes, want %d", interval, c, want)
		}
		for _, b := range bodies {
			if !strings.Contains(b, `dbhost_finding{area="memory",rule="memory.swappiness",setting="vm.swappiness",severity="warning"} 1`) {
				t.Fatalf("interval %s: a scrape without the finding:\n%s", interval, b)
			}
		}
	}
}

// The cache serves an audit for Interval, then audits again; a failed audit
// is said (dbhost_audit_success 0) and the previous one still served.
func TestCacheInterval(t *testing.T) {
	sa := &slowAudit{}
	now := time.Unix(1_800_000_000, 0)
	e := &Exporter{Audit: sa.audit, Interval: time.Minute, now: func() time.Time { return now }}
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	b := scrape(t, srv.URL+"/metrics")
	for _, want := range []string{"dbhost_audits_total 1", "dbhost_audit_success 1", "dbhost_last_audit_timestamp_seconds 1.8e+09", "dbhost_audit_cache_age_seconds 0"} {
		if !strings.Contains(b, want) {
			t.Errorf("first scrape: no %q:\n%s", want, b)
		}
	}
	now = now.Add(59 * time.Second)
	if b = scrape(t, srv.URL+"/metrics"); !strings.Contains(b, "dbhost_audits_total 1\n") || !strings.Contains(b, "dbhost_audit_cache_age_seconds 59") {
		t.Errorf("within the interval: not from the cache:\n%s", b)
	}
	now = now.Add(time.Second)
	if b = scrape(t, srv.URL+"/metrics"); !strings.Contains(b, "dbhost_audits_total 2\n") || !strings.Contains(b, "dbhost_last_audit_timestamp_seconds 1.80000006e+09") {
		t.Errorf("after the interval: no new audit:\n%s", b)
	}
	sa.fail.Store(true)
	now = now.Add(time.Minute)
	b = scrape(t, srv.URL+"/metrics")
	for _, want := range []string{"dbhost_audits_total 3\n", "dbhost_audit_errors_total 1\n", "dbhost_audit_success 0\n", "dbhost_audit_cache_age_seconds 60\n", "dbhost_finding{"} {
		if !strings.Contains(b, want) {
			t.Errorf("failed audit: no %q:\n%s", want, b)
		}
	}
	if b := scrape(t, srv.URL+"/"); !strings.Contains(b, `href="/metrics"`) {
		t.Errorf("landing page: %s", b)
	}
}

// TestAuditPanic: a bug that panics in an audit runs in client_golang's
// collector goroutine, where it would end the exporter with Go's stack
// dump. It is a failed audit instead (logged as an internal error naming
// the file its stack was saved to), the previous audit is served, and the
// next audit runs.
func TestAuditPanic(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	sa := &slowAudit{}
	var boom atomic.Bool
	now := time.Unix(1_800_000_000, 0)
	var log strings.Builder
	var logMu sync.Mutex
	e := &Exporter{Audit: func() (report.Audit, error) {
		if boom.Load() {
			panic("test panic in the audit")
		}
		return sa.audit()
	}, Interval: time.Minute, now: func() time.Time { return now }, Log: lockedWriter{&logMu, &log}}
	srv := httptest.NewServer(e.Handler())
	defer srv.Close()
	scrape(t, srv.URL+"/metrics")
	boom.Store(true)
	now = now.Add(time.Minute)
	b := scrape(t, srv.URL+"/metrics")
	for _, want := range []string{"dbhost_audits_total 2\n", "dbhost_audit_errors_total 1\n", "dbhost_audit_success 0\n", "dbhost_finding{"} {
		if !strings.Contains(b, want) {
			t.Errorf("panicking audit: no %q:\n%s", want, b)
		}
	}
	logMu.Lock()
	l := log.String()
	logMu.Unlock()
	if !strings.Contains(l, "audit failed: internal error: test panic in the audit") || !strings.Contains(l, "dbhost-internal-error-") {
		t.Errorf("log: %q", l)
	}
	boom.Store(false)
	now = now.Add(time.Minute)
	if b = scrape(t, srv.URL+"/metrics"); !strings.Contains(b, "dbhost_audits_total 3\n") || !strings.Contains(b, "dbhost_audit_success 1\n") {
		t.Errorf("after the panic: no new audit:\n%s", b)
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
