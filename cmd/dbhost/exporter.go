package main

import (
	"context"
	"errors"
	"fmt"
	buildversion "github.com/dbhost/dbhost/internal/version"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/exporter"
	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/dbhost/dbhost/internal/testhooks"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/spf13/cobra"
)

func newExporterCmd() *cobra.Command {
	var src sourceFlags
	var scope scopeFlags
	var live liveDBFlags
	var listen, webConfig string
	var interval time.Duration
	c := &cobra.Command{
		Use:   "exporter",
		Short: "Serve this host's audit as Prometheus metrics",
		Long: `Exporter serves the audit of this host (or --root, --sosreport, --snapshot) at /metrics
for Prometheus: dbhost_finding{rule,severity,area,setting} = 1 per finding, dbhost_findings by
severity, dbhost_rules by result, per-node memory and hugepages, NUMA counters (numa_miss,
numa_foreign, pages migrated), per-node CPU time and busy share between the last two audits,
dbhost_last_audit_timestamp_seconds, and the exporter's own dbhost_audits_total.
With --pg, --mysql or --db postgres|mysql (as root) every audit reads those servers too:
dbhost_database_up{engine,instance} is 1 for a server read, 0 for one that could not be
(refused, wrong password, timeout; its rules could not check).

An audit reads every fact of the host: it runs at most once per --cache-interval, and never
twice at once (scrapes arriving during an audit wait for it and share its result). The first
audit runs before the port is opened: bad input stops the exporter with exit 2.

It listens on loopback unless told otherwise (--listen :9591 for every address).
--web-config takes the Prometheus exporter-toolkit's web configuration file: TLS
(tls_server_config: cert_file, key_file, client CAs) and basic authentication (basic_auth_users:
user → bcrypt hash), https://prometheus.io/docs/prometheus/latest/configuration/https/.
On an address that is not loopback without both, it warns on stderr at start.

Clients are bounded (docs/limits.md): request headers within 10 s, a request within 30 s, a
response within 120 s, a kept-alive connection idle 90 s is closed, and at most 512 connections
are open (one more closes the one idle the longest).
For node_exporter's textfile collector use 'dbhost audit --format prometheus' instead.`,
		Example: `  dbhost exporter
  dbhost exporter --listen 0.0.0.0:9591 --web-config /etc/dbhost/web.yml --cache-interval 5m
  dbhost exporter --workload oltp --db oracle`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := scope.validate(); err != nil {
				return err
			}
			if err := live.check(&src); err != nil {
				return err
			}
			if interval < 0 {
				return usageErr("--cache-interval %s: expected a duration of 0 or more", interval)
			}
			if webConfig != "" {
				if err := web.Validate(webConfig); err != nil {
					return usageErr("--web-config %s: %v", webConfig, err)
				}
			}
			set, errs := scope.loadArtifacts(c)
			if len(errs) > 0 {
				return usageErr("%d problem(s) with --artifact files (listed above): the exporter did not start", len(errs))
			}
			e := &exporter.Exporter{Audit: exporterAudit(c, &src, &scope, &live, set), Interval: interval, Log: c.ErrOrStderr()}
			// The first audit before listening: bad input is exit 2 now, not
			// an error on every scrape.
			e.Log = nil // the first audit's error is the command's
			if err := e.Refresh(); err != nil {
				return err
			}
			e.Log = c.ErrOrStderr()
			ln, err := net.Listen("tcp", listen)
			if err != nil {
				return usageErr("--listen %s: %v", listen, err)
			}
			return serveExporter(c, e, ln, listen, webConfig)
		},
	}
	src.add(c)
	src.addAIX(c)
	scope.add(c)
	live.add(c)
	fl := c.Flags()
	fl.StringVar(&listen, "listen", "127.0.0.1:9591", "address to listen on (loopback unless told: :9591 listens on every address)")
	fl.StringVar(&webConfig, "web-config", "", "exporter-toolkit web configuration file: TLS and basic authentication")
	fl.DurationVar(&interval, "cache-interval", time.Minute, "serve an audit from the cache for this long (0: audit on every scrape, one at a time)")
	return c
}

// exporterAudit is one audit of the host src names, timed, with its live
// database servers read again (a server not read is dbhost_database_up 0,
// not an error of the audit).
func exporterAudit(c *cobra.Command, src *sourceFlags, scope *scopeFlags, live *liveDBFlags, set *artifacts.Set) func() (report.Audit, error) {
	spec := src.spec()
	return func() (report.Audit, error) {
		t0 := time.Now()
		s, err := hostsrc.One(spec, "exporter")
		if err != nil {
			return report.Audit{}, err
		}
		live.attach(c, s, src, scope.db)
		r := auditOne(s, "", scope, set)
		return report.Audit{Report: r, Snap: s, At: time.Now(), Duration: time.Since(t0), Version: version,
			Revision: buildversion.Get().Revision, GoVersion: buildversion.Get().GoVersion}, nil
	}
}

// serveExporter serves until SIGINT or SIGTERM, then shuts down cleanly.
func serveExporter(c *cobra.Command, e *exporter.Exporter, ln net.Listener, listen, webConfig string) error {
	lim, err := exporterLimits()
	if err != nil {
		return err
	}
	server, guard := exporter.NewServer(e.Handler(), lim, c.ErrOrStderr())
	ln = guard.Listener(ln)
	var cfg []byte
	if webConfig != "" {
		// exporter-toolkit read and validated it already.
		if cfg, err = os.ReadFile(webConfig); err != nil {
			return usageErr("--web-config %s: %v", webConfig, err)
		}
	}
	if w := exporter.Exposed(ln.Addr(), cfg); w != "" {
		fmt.Fprintf(c.ErrOrStderr(), "dbhost exporter: warning: %s\n", w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	crash.Go(func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		server.Shutdown(sctx)
	})
	fmt.Fprintf(c.ErrOrStderr(), "dbhost exporter: listening on %s (/metrics; audit cached %s)\n", ln.Addr(), e.Interval)
	systemd := false
	flags := &web.FlagConfig{WebListenAddresses: &[]string{listen}, WebSystemdSocket: &systemd, WebConfigFile: &webConfig}
	logger := slog.New(slog.NewTextHandler(c.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	err = web.Serve(ln, server, flags, logger)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// exporterLimits are exporter.DefaultLimits; a -tags testhooks build takes
// DBHOST_TEST_EXPORTER_LIMITS=conns=N,timeout=D (every timeout D) so that
// a test reaches the cap and the timeouts cheaply.
func exporterLimits() (exporter.Limits, error) {
	lim := exporter.DefaultLimits
	v := testhooks.Getenv(testhooks.ExporterLimits)
	if v == "" {
		return lim, nil
	}
	for _, kv := range strings.Split(v, ",") {
		k, val, _ := strings.Cut(kv, "=")
		switch k {
		case "conns":
			n, err := strconv.Atoi(val)
			if err != nil {
				return lim, usageErr("%s: %q: expected conns=N", testhooks.ExporterLimits, kv)
			}
			lim.MaxConns = n
		case "timeout":
			d, err := time.ParseDuration(val)
			if err != nil {
				return lim, usageErr("%s: %q: expected timeout=DURATION", testhooks.ExporterLimits, kv)
			}
			lim.ReadHeaderTimeout, lim.ReadTimeout, lim.WriteTimeout, lim.IdleTimeout = d, d, d, d
		default:
			return lim, usageErr("%s: %q: expected conns=N or timeout=DURATION", testhooks.ExporterLimits, kv)
		}
	}
	return lim, nil
}
