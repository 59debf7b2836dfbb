// Package exporter serves a host's audit as Prometheus metrics: the audit
// runs at most once per cache interval, whatever the number of scrapes, and
// never twice at once.
package exporter

import (
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Exporter caches the last audit and serves it.
type Exporter struct {
	// Audit runs one audit of the host (facts read, rules run).
	Audit func() (report.Audit, error)
	// Interval is how long an audit is served from the cache; 0 audits on
	// every scrape (still one at a time).
	Interval time.Duration
	// Log receives a line per failed audit.
	Log io.Writer

	now func() time.Time // time.Now; a test's clock

	mu      sync.Mutex // held while an audit runs: a concurrent scrape waits for it
	last    *report.Audit
	metrics []prometheus.Metric
	failed  bool // the last attempt failed (the previous audit is served)
	audits  int
	errors  int
}

var (
	descAudits      = prometheus.NewDesc("dbhost_audits_total", "Audits the exporter ran (a scrape within --cache-interval of the last audit is served from the cache).", nil, nil)
	descAuditErrors = prometheus.NewDesc("dbhost_audit_errors_total", "Audits that failed (the previous audit's metrics are served).", nil, nil)
	descSuccess     = prometheus.NewDesc("dbhost_audit_success", "Whether the last audit attempt succeeded (1) or failed (0).", nil, nil)
	descCacheAge    = prometheus.NewDesc("dbhost_audit_cache_age_seconds", "Age of the audit this scrape was served from.", nil, nil)
)

// Describe implements prometheus.Collector (unchecked: the series vary
// with the host).
func (e *Exporter) Describe(chan<- *prometheus.Desc) {}

// Collect implements prometheus.Collector: the cached audit, refreshed
// first when it is older than Interval. The lock is held across the audit,
// so scrapes arriving meanwhile wait and are then served the fresh result.
func (e *Exporter) Collect(ch chan<- prometheus.Metric) {
	e.mu.Lock()
	now := e.clock()
	if e.last == nil || e.Interval <= 0 || now.Sub(e.last.At) >= e.Interval {
		e.refresh(now)
		now = e.clock()
	}
	metrics, audits, errs, failed, have := e.metrics, e.audits, e.errors, e.failed, e.last != nil
	var age float64
	if have {
		age = now.Sub(e.last.At).Seconds()
	}
	e.mu.Unlock()
	for _, m := range metrics {
		ch <- m
	}
	success := 1.0
	if failed {
		success = 0
	}
	ch <- prometheus.MustNewConstMetric(descAudits, prometheus.CounterValue, float64(audits))
	ch <- prometheus.MustNewConstMetric(descAuditErrors, prometheus.CounterValue, float64(errs))
	ch <- prometheus.MustNewConstMetric(descSuccess, prometheus.GaugeValue, success)
	if have {
		ch <- prometheus.MustNewConstMetric(descCacheAge, prometheus.GaugeValue, max(age, 0))
	}
}

// Refresh runs an audit now and caches it (the exporter's first, before
// it listens: its error is the caller's).
func (e *Exporter) Refresh() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.refresh(e.clock())
}

// refresh runs one audit (e.mu held).
func (e *Exporter) refresh(now time.Time) error {
	e.audits++
	a, err := e.audit()
	if err != nil {
		e.errors++
		e.failed = true
		if e.Log != nil {
			fmt.Fprintf(e.Log, "dbhost exporter: audit failed: %v\n", err)
		}
		return err
	}
	if a.At.IsZero() {
		a.At = now
	}
	if e.last != nil && a.Prev == nil {
		a.Prev = e.last.Snap
	}
	e.failed = false
	e.metrics = a.Metrics()
	a.Prev = nil // keep one snapshot, not a chain
	e.last = &a
	return nil
}

// audit runs Audit; a panic in it (a bug) is a failed audit whose error
// names the file its stack was saved to: it runs in client_golang's
// collector goroutine, where it would end the exporter with Go's stack
// dump, and the cache keeps serving the previous audit.
func (e *Exporter) audit() (a report.Audit, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = crash.Error(p, debug.Stack())
		}
	}()
	return e.Audit()
}

func (e *Exporter) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// Handler serves /metrics (the audit, dbhost's own process and Go runtime
// metrics) and a short page at / pointing to it.
func (e *Exporter) Handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(e, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html><html><head><title>dbhost exporter</title></head><body><h1>dbhost exporter</h1><p>The host's audit as metrics: <a href=\"/metrics\">/metrics</a>.</p></body></html>\n")
	})
	return mux
}
