package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/dbhost/dbhost/internal/crash"
)

// PoolOptions: seed 002's experiment. A connection pool; one request is
// borrow + one INSERT + return, one request at a time (ApacheBench with
// concurrency 1); the pool validates a connection with a query on every
// borrow (foreground, the default of many pools) or in the background.
type PoolOptions struct {
	Options
	DSN         string
	Size        int           // connections at most; 0: 10
	Modes       []string      // foreground, background (default both)
	Requests    int           // per mode and repeat; 0: as many as fit in Duration
	Validate    string        // the validation query; "": SELECT 1
	BgInterval  time.Duration // background validation period; 0: 1s
	Concurrency int           // parallel requesters; 0: 1 (as the seed)
	Link        LinkOptions
}

func init() { cleaners[KindTable] = dropRecordedTable }

// RedactDSN replaces a DSN's password by xxxxx (crash.RedactDSN, the
// redactor of the crash file: URL, ?password=, key=value, quoted), for
// results and output.
func RedactDSN(dsn string) string {
	return crash.RedactDSN(dsn)
}

// ScratchName is a scratch object name: dbhost_bench_<what>_<pid>_<random>.
func ScratchName(what string) string {
	return fmt.Sprintf("dbhost_bench_%s_%d_%d", what, os.Getpid(), rand.IntN(1e6))
}

// dropRecordedTable drops a leftover scratch table (name must be one of
// dbhost's) through the recorded DSN (its password is not recorded: PGPASSWORD
// or ~/.pgpass must supply one if the server wants it).
func dropRecordedTable(x Resource) error {
	if !strings.HasPrefix(x.Name, "dbhost_bench_") || strings.ContainsAny(x.Name, " \"';") {
		return fmt.Errorf("not a dbhost scratch table name: refusing")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, x.Detail)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP TABLE IF EXISTS "+pgx.Identifier{x.Name}.Sanitize())
	return err
}

// relay forwards connections accepted in the link's namespace A to a
// target reached from this host's namespace: the client in B then talks to
// the real server across the emulated link.
type relay struct {
	ln   net.Listener
	wg   sync.WaitGroup
	done chan struct{}
}

func newRelay(l *Link, network, target string) (*relay, error) {
	ln, err := l.ListenA(net.ListenConfig{}, "tcp4", LinkAddrA+":0")
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, done: make(chan struct{})}
	r.wg.Add(1)
	crash.Go(func() {
		defer r.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.wg.Add(1)
			crash.Go(func() {
				defer r.wg.Done()
				defer c.Close()
				u, err := net.DialTimeout(network, target, 10*time.Second)
				if err != nil {
					return
				}
				defer u.Close()
				crash.Go(func() {
					<-r.done
					c.Close()
					u.Close()
				})
				crash.Go(func() { _, _ = io.Copy(u, c); u.Close() })
				_, _ = io.Copy(c, u)
			})
		}
	})
	return r, nil
}

func (r *relay) close() {
	close(r.done)
	r.ln.Close()
	r.wg.Wait()
}

// benchPool is the pool under test: idle connections, created up to size.
type benchPool struct {
	cfg   *pgx.ConnConfig
	size  int
	idle  chan *pgx.Conn
	mu    sync.Mutex
	open  int
	query string
	all   []*pgx.Conn
}

func (p *benchPool) borrow(ctx context.Context, foreground bool) (*pgx.Conn, error) {
	for {
		var c *pgx.Conn
		select {
		case c = <-p.idle:
		default:
			p.mu.Lock()
			if p.open < p.size {
				p.open++
				p.mu.Unlock()
				nc, err := pgx.ConnectConfig(ctx, p.cfg)
				if err != nil {
					p.mu.Lock()
					p.open--
					p.mu.Unlock()
					return nil, err
				}
				p.mu.Lock()
				p.all = append(p.all, nc)
				p.mu.Unlock()
				return nc, nil // a new connection is not validated
			}
			p.mu.Unlock()
			select {
			case c = <-p.idle:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if !foreground {
			return c, nil
		}
		if _, err := c.Exec(ctx, p.query); err == nil {
			return c, nil
		}
		p.discard(c)
	}
}

func (p *benchPool) give(c *pgx.Conn) { p.idle <- c }

func (p *benchPool) discard(c *pgx.Conn) {
	_ = c.Close(context.Background())
	p.mu.Lock()
	p.open--
	p.mu.Unlock()
}

// background validates idle connections every interval until ctx ends.
func (p *benchPool) background(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n := len(p.idle)
		for i := 0; i < n; i++ {
			select {
			case c := <-p.idle:
				if _, err := c.Exec(ctx, p.query); err != nil && ctx.Err() == nil {
					p.discard(c)
					continue
				}
				p.idle <- c
			default:
			}
		}
	}
}

func (p *benchPool) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.all {
		_ = c.Close(context.Background())
	}
	p.all = nil
}

// RunPool measures request latency with foreground and with background
// validation, against a real PostgreSQL (a scratch table, dropped at the
// end), optionally across an emulated link (--delay: the seed's 6 ms one
// way).
func RunPool(ctx context.Context, o PoolOptions) (*Result, error) {
	if o.DSN == "" {
		return nil, fmt.Errorf("--dsn: a PostgreSQL connection string is needed (e.g. host=/var/run/postgresql dbname=postgres)")
	}
	base, err := pgx.ParseConfig(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %v", err)
	}
	res := NewResult("pool", o.Options)
	if o.Size <= 0 {
		o.Size = 10
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 1
	}
	if o.Concurrency > o.Size {
		return nil, fmt.Errorf("--concurrency %d: more than the pool's %d connections", o.Concurrency, o.Size)
	}
	if len(o.Modes) == 0 {
		o.Modes = []string{"foreground", "background"}
	}
	if o.Validate == "" {
		o.Validate = "SELECT 1"
	}
	if o.BgInterval <= 0 {
		o.BgInterval = time.Second
	}
	res.Params["dsn"] = RedactDSN(o.DSN)
	res.Params["pool_size"] = o.Size
	res.Params["concurrency"] = o.Concurrency
	res.Params["validation_query"] = o.Validate
	res.Params["background_interval"] = o.BgInterval.String()
	res.Params["requests"] = o.Requests
	cfg := base.Copy()
	if o.Link.Wanted() {
		l, err := NewLink(o.Link)
		if err != nil {
			return nil, err
		}
		defer l.Close()
		relays := map[string]*relay{}
		var rmu sync.Mutex
		defer func() {
			for _, r := range relays {
				r.close()
			}
		}()
		cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
			rmu.Lock()
			r := relays[network+" "+addr]
			if r == nil {
				var err error
				if r, err = newRelay(l, network, addr); err != nil {
					rmu.Unlock()
					return nil, err
				}
				relays[network+" "+addr] = r
			}
			rmu.Unlock()
			return l.DialB(ctx, "tcp4", r.ln.Addr().String())
		}
		res.Params["link"] = l.MethodName()
		res.Params["link_delay"] = o.Link.Delay.String()
		res.Note("emulated link between the pool and PostgreSQL (%s): %s", o.Link.Describe(), l.Method())
	}
	// The scratch table, recorded before it is created.
	admin, err := pgx.ConnectConfig(ctx, base)
	if err != nil {
		return nil, fmt.Errorf("connect %s: %w", RedactDSN(o.DSN), err)
	}
	defer admin.Close(context.Background())
	table := ScratchName("pool")
	tid, err := o.Registry.Add(KindTable, table, o.DSN)
	if err != nil {
		return nil, err
	}
	if strings.Contains(strings.ToLower(o.DSN), "password") {
		// The record keeps the DSN to drop the table after a kill; a
		// password in it stays in the 0600 record of root's state dir.
		res.Note("the DSN's password is kept in the bench record until the scratch table is dropped")
	}
	qt := pgx.Identifier{table}.Sanitize()
	if _, err := admin.Exec(ctx, "CREATE TABLE "+qt+" (id bigserial PRIMARY KEY, payload text, at timestamptz DEFAULT now())"); err != nil {
		_ = o.Registry.Done(tid)
		return nil, fmt.Errorf("creating the scratch table: %w", err)
	}
	defer func() {
		if _, err := admin.Exec(context.Background(), "DROP TABLE IF EXISTS "+qt); err == nil {
			_ = o.Registry.Done(tid)
		}
	}()
	insert := "INSERT INTO " + qt + " (payload) VALUES ($1)"
	for _, mode := range o.Modes {
		if mode != "foreground" && mode != "background" {
			return nil, fmt.Errorf("--mode %q: expected foreground or background", mode)
		}
		var hAll Histogram
		var rates []float64
		for rep := 1; rep <= o.repeat(); rep++ {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			o.Progress.Step(fmt.Sprintf("%s run %d", mode, rep), o.Duration)
			h, n, el, err := poolRun(ctx, cfg, o, mode, insert)
			if err != nil {
				return res, fmt.Errorf("%s: %w", mode, err)
			}
			lat := h.LatencyUS()
			rate := float64(n) / el.Seconds()
			rates = append(rates, rate)
			res.Samples = append(res.Samples, Sample{Case: mode, Repeat: rep, Seconds: el.Seconds(), MeanUS: F(lat.Mean), P99US: F(lat.P99), OpsPerSec: F(rate), Count: uint64(n)})
			hAll.Merge(h)
		}
		res.Results = append(res.Results, Row{Case: mode, OpsPerSec: F(Median(rates)), OpsUnit: "req/s", LatencyUS: hAll.LatencyUS(), Histogram: hAll.Buckets(1e3)})
	}
	if f, b := res.Row("foreground"), res.Row("background"); f != nil && b != nil && b.LatencyUS.Mean > 0 {
		b.Extra = map[string]float64{"mean_latency_foreground_over_background": f.LatencyUS.Mean / b.LatencyUS.Mean}
	}
	res.Note("a request is borrow + one INSERT + return (seed 002: 17.9 ms foreground vs 9.9 ms background at 6 ms one-way delay, 1.8x); %d requester(s), pool of %d; samples are per repeat; latency percentiles from every request", o.Concurrency, o.Size)
	res.Finish()
	return res, nil
}

// poolRun runs one mode: a fresh pool, warmed (every connection opened),
// then requests until Requests or Duration.
func poolRun(ctx context.Context, cfg *pgx.ConnConfig, o PoolOptions, mode, insert string) (*Histogram, int, time.Duration, error) {
	p := &benchPool{cfg: cfg, size: o.Size, idle: make(chan *pgx.Conn, o.Size), query: o.Validate}
	defer p.closeAll()
	// Warm: open every connection (a new one is not validated) and prepare
	// the INSERT on each, so that the measurement sees steady state.
	var warm []*pgx.Conn
	for i := 0; i < o.Size; i++ {
		c, err := p.borrow(ctx, false)
		if err != nil {
			return nil, 0, 0, err
		}
		if _, err := c.Exec(ctx, p.query); err != nil {
			return nil, 0, 0, err
		}
		if _, err := c.Prepare(ctx, "ins", insert); err != nil {
			return nil, 0, 0, err
		}
		warm = append(warm, c)
	}
	for _, c := range warm {
		p.give(c)
	}
	bctx, stop := context.WithCancel(ctx)
	bgDone := make(chan struct{})
	if mode == "background" {
		crash.Go(func() { p.background(bctx, o.BgInterval); close(bgDone) })
	} else {
		close(bgDone)
	}
	defer func() { stop(); <-bgDone }() // before closeAll: a pgx.Conn serves one goroutine
	hs := make([]Histogram, o.Concurrency)
	counts := make([]int, o.Concurrency)
	errs := make([]error, o.Concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(o.Duration)
	per := 0
	if o.Requests > 0 {
		per = (o.Requests + o.Concurrency - 1) / o.Concurrency
	}
	for w := 0; w < o.Concurrency; w++ {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				if per > 0 && i >= per || per == 0 && time.Now().After(end) {
					return
				}
				t0 := time.Now()
				c, err := p.borrow(ctx, mode == "foreground")
				if err != nil {
					errs[w] = err
					return
				}
				if _, err := c.Exec(ctx, "ins", "dbhost"); err != nil {
					p.discard(c)
					errs[w] = err
					return
				}
				p.give(c)
				hs[w].Record(time.Since(t0).Nanoseconds())
				counts[w]++
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	if err := ctx.Err(); err != nil {
		return nil, 0, 0, err
	}
	var h Histogram
	n := 0
	for w := range hs {
		if errs[w] != nil {
			var pe *pgconn.PgError
			if errors.As(errs[w], &pe) {
				return nil, 0, 0, fmt.Errorf("PostgreSQL: %s (%s)", pe.Message, pe.Code)
			}
			return nil, 0, 0, errs[w]
		}
		h.Merge(&hs[w])
		n += counts[w]
	}
	if n == 0 {
		return nil, 0, 0, fmt.Errorf("no request completed in %v", o.Duration)
	}
	return &h, n, el, nil
}
