package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// DBOptions: pgbench against a PostgreSQL DSN.
type DBOptions struct {
	Options
	DSN      string
	Init     bool // create a scratch database, pgbench -i it, drop it at the end
	Scale    int  // pgbench -s for --init; 0: 10
	Clients  int  // -c; 0: 2 per CPU
	Jobs     int  // -j; 0: the CPUs, at most Clients
	Builtin  string
	Protocol string
}

func init() { cleaners[KindDatabase] = dropRecordedDatabase }

// PgbenchSummary is what pgbench prints at the end that dbhost reads.
type PgbenchSummary struct {
	TPS          float64 // without initial connection time
	Transactions int64
	Failed       int64
	LatencyMs    float64
}

var (
	reTPS    = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \((?:without|excluding) (?:initial )?connection`)
	reTx     = regexp.MustCompile(`(?m)^number of transactions actually processed: ([0-9]+)`)
	reFailed = regexp.MustCompile(`(?m)^number of failed transactions: ([0-9]+)`)
	reLat    = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
)

// ParsePgbenchSummary reads pgbench's closing report (versions 10 to 17:
// "tps = N (without initial connection time)" since 14, "(excluding
// connections establishing)" before).
func ParsePgbenchSummary(s string) (PgbenchSummary, error) {
	var p PgbenchSummary
	m := reTPS.FindStringSubmatch(s)
	if m == nil {
		return p, fmt.Errorf("pgbench output: no \"tps = N (without initial connection time)\" line")
	}
	p.TPS, _ = strconv.ParseFloat(m[1], 64)
	if m := reTx.FindStringSubmatch(s); m != nil {
		p.Transactions, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reFailed.FindStringSubmatch(s); m != nil {
		p.Failed, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := reLat.FindStringSubmatch(s); m != nil {
		p.LatencyMs, _ = strconv.ParseFloat(m[1], 64)
	}
	return p, nil
}

// ParsePgbenchLog reads pgbench --log lines ("client_id transaction_no
// time script_no time_epoch time_us [schedule_lag] [retries]"; time in µs)
// into h; it returns the transactions read. A failed transaction's time
// is "failed" or "skipped" (not recorded).
func ParsePgbenchLog(r io.Reader, h *Histogram) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	n, line := 0, 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if len(f) < 6 {
			return n, fmt.Errorf("pgbench log line %d: %d fields, expected at least 6 (client_id transaction_no time script_no time_epoch time_us)", line, len(f))
		}
		if f[2] == "failed" || f[2] == "skipped" {
			continue
		}
		us, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil || us < 0 {
			return n, fmt.Errorf("pgbench log line %d: time %q: expected microseconds", line, f[2])
		}
		h.Record(us * 1000)
		n++
	}
	return n, sc.Err()
}

// dropRecordedDatabase drops a leftover scratch database (its name must be
// one of dbhost's) through the recorded DSN.
func dropRecordedDatabase(x Resource) error {
	if !strings.HasPrefix(x.Name, "dbhost_bench_") || strings.ContainsAny(x.Name, " \"';") {
		return fmt.Errorf("not a dbhost scratch database name: refusing")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, x.Detail)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = c.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{x.Name}.Sanitize()+" WITH (FORCE)")
	return err
}

// RunDB runs pgbench -c -j -T against the DSN (or a scratch database it
// creates and initialises with --init), with --log: tps from pgbench's
// summary, latency percentiles from every transaction's time in its log.
func RunDB(ctx context.Context, o DBOptions) (*Result, error) {
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		return nil, fmt.Errorf("pgbench not found: install it (Debian postgresql-client, RHEL postgresql)")
	}
	if o.DSN == "" {
		return nil, fmt.Errorf("--dsn: a PostgreSQL connection string is needed (e.g. host=/var/run/postgresql dbname=postgres)")
	}
	cfg, err := pgx.ParseConfig(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("--dsn: %v", err)
	}
	res := NewResult("db", o.Options)
	cpus := o.cpuCount(max(res.Host.CPUs, 1))
	if o.Clients <= 0 {
		o.Clients = 2 * cpus
	}
	if o.Jobs <= 0 {
		o.Jobs = min(cpus, o.Clients)
	}
	if o.Scale <= 0 {
		o.Scale = 10
	}
	if o.Builtin == "" {
		o.Builtin = "tpcb-like"
	}
	if o.Protocol == "" {
		o.Protocol = "prepared"
	}
	res.Params["dsn"] = RedactDSN(o.DSN)
	res.Params["clients"] = o.Clients
	res.Params["jobs"] = o.Jobs
	res.Params["builtin"] = o.Builtin
	res.Params["protocol"] = o.Protocol
	dsn := o.DSN
	if o.Init {
		admin, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, fmt.Errorf("connect %s: %w", RedactDSN(o.DSN), err)
		}
		defer admin.Close(context.Background())
		name := ScratchName("db")
		id, err := o.Registry.Add(KindDatabase, name, o.DSN)
		if err != nil {
			return nil, err
		}
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
			_ = o.Registry.Done(id)
			return nil, fmt.Errorf("creating the scratch database: %w", err)
		}
		defer func() {
			if _, err := admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err == nil {
				_ = o.Registry.Done(id)
			}
		}()
		dsn = o.DSN + " dbname=" + name
		if strings.Contains(o.DSN, "://") {
			c2 := *cfg
			c2.Database = name
			dsn = c2.ConnString()
			if u, err := replaceURLDatabase(o.DSN, name); err == nil {
				dsn = u
			}
		}
		res.Params["scale"] = o.Scale
		res.Params["database"] = name + " (scratch, dropped at the end)"
		o.Progress.Step("pgbench -i", 0)
		if err := runChild(ctx, o.Registry, o.Bind, pgbench, "-i", "-q", "-s", strconv.Itoa(o.Scale), dsn); err != nil {
			return res, fmt.Errorf("pgbench -i: %w", err)
		}
	}
	scratch, sid, err := o.Registry.ScratchDir("")
	if err != nil {
		return nil, err
	}
	defer func() {
		if os.RemoveAll(scratch) == nil {
			_ = o.Registry.Done(sid)
		}
	}()
	var hAll Histogram
	var tps []float64
	for rep := 1; rep <= o.repeat(); rep++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		o.Progress.Step(fmt.Sprintf("pgbench run %d", rep), o.Duration)
		prefix := filepath.Join(scratch, fmt.Sprintf("r%d", rep))
		secs := max(int(o.Duration.Seconds()+0.5), 1)
		out, err := runChildOutput(ctx, o.Registry, o.Bind, pgbench, "-c", strconv.Itoa(o.Clients), "-j", strconv.Itoa(o.Jobs), "-T", strconv.Itoa(secs),
			"-b", o.Builtin, "-M", o.Protocol, "-n", "--log", "--log-prefix="+prefix, dsn)
		if err != nil {
			return res, err
		}
		sum, err := ParsePgbenchSummary(out)
		if err != nil {
			return res, err
		}
		var h Histogram
		logs, _ := filepath.Glob(prefix + ".*")
		for _, l := range logs {
			f, err := os.Open(l)
			if err != nil {
				return res, err
			}
			_, err = ParsePgbenchLog(f, &h)
			f.Close()
			if err != nil {
				return res, err
			}
		}
		lat := h.LatencyUS()
		tps = append(tps, sum.TPS)
		res.Samples = append(res.Samples, Sample{Case: o.Builtin, Repeat: rep, Seconds: float64(secs), OpsPerSec: F(sum.TPS), MeanUS: F(lat.Mean), P99US: F(lat.P99), Count: h.Count()})
		hAll.Merge(&h)
	}
	res.Results = append(res.Results, Row{Case: o.Builtin, OpsPerSec: F(Median(tps)), OpsUnit: "tps", LatencyUS: hAll.LatencyUS(), Histogram: hAll.Buckets(1e3)})
	res.Note("tps from pgbench's summary (without initial connection time), median over repeats; latency percentiles from every transaction in pgbench's --log")
	if o.Bind != nil {
		res.Params["binding"] = o.Bind.Params("pgbench (the client) and its threads, inherited; the PostgreSQL server is not dbhost's to bind (place it with 'dbhost place' or numactl)")
	}
	res.Finish()
	return res, nil
}

func replaceURLDatabase(u, db string) (string, error) {
	i := strings.Index(u, "://")
	if i < 0 {
		return "", fmt.Errorf("not a URL")
	}
	rest := u[i+3:]
	q := ""
	if k := strings.IndexByte(rest, '?'); k >= 0 {
		rest, q = rest[:k], rest[k:]
	}
	if k := strings.IndexByte(rest, '/'); k >= 0 {
		rest = rest[:k]
	}
	return u[:i+3] + rest + "/" + db + q, nil
}
