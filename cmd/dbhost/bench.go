package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/crash"
	"github.com/dbhost/dbhost/internal/report"
	"github.com/spf13/cobra"
)

// benchFlags are the flags every bench takes.
type benchFlags struct {
	duration time.Duration
	repeat   int
	format   string
	out      string
	stateDir string
}

func (f *benchFlags) add(c *cobra.Command, dur time.Duration) {
	fl := c.Flags()
	fl.DurationVar(&f.duration, "duration", dur, "how long each measurement runs (per case and repeat)")
	fl.IntVar(&f.repeat, "repeat", 1, "repeat every measurement N times (the samples keep each one)")
	atLeast(c, "repeat", 1, "expected 1 to 1000")
	fl.StringVar(&f.format, "format", "text", "output format: "+resultFormats)
	fl.StringVarP(&f.out, "output", "o", "", "write the result to FILE instead of standard output")
}

func (f *benchFlags) validate() error {
	if f.format != "text" && f.format != "json" && f.format != "markdown" {
		return usageErr("--format %q: expected one of %s", f.format, resultFormats)
	}
	if f.duration <= 0 || f.duration > 24*time.Hour {
		return usageErr("--duration %v: expected more than 0 and at most 24h", f.duration)
	}
	if f.repeat < 1 || f.repeat > 1000 {
		return usageErr("--repeat %d: expected 1 to 1000", f.repeat)
	}
	return nil
}

// registryDir is where runs record what they create.
func registryDir(stateDir string) string {
	if stateDir != "" {
		return filepath.Join(stateDir, "bench")
	}
	return bench.DefaultRegistryDir()
}

func newBenchCmd() *cobra.Command {
	var cleanup bool
	var stateDir string
	c := &cobra.Command{
		Use:   "bench",
		Short: "Measure this host: numa, mq, net, io, db, pool (see 'dbhost experiment', 'dbhost compare')",
		Long: `Bench measures what the seed documents measured, on this host: memory latency and
bandwidth per NUMA node pair (numa), message passing between threads (mq), TCP stream and
UDP request/response (net), an Oracle-like fio workload (io), pgbench (db) and a connection
pool with foreground vs background validation (pool).

Every bench takes --duration, --repeat and --format text|json|markdown (JSON: schema_version
1, the host, the parameters, the results and every raw sample; latencies in µs, throughput in
Gb/s as throughput_gbps; Markdown: the text's cases, or numa's matrices, as tables). A
progress bar is drawn on a terminal.

Everything a bench creates (scratch files and directories, message queues, child processes,
scratch databases and tables) is recorded in --state-dir before it is created and removed
when the bench ends, also on Ctrl-C or SIGTERM; after a SIGKILL the next bench run, or
'dbhost bench --cleanup', removes what the killed run recorded. Network namespaces and TUN
devices of emulated links are never named or persisted: the kernel removes them with the
process.`,
		Example: `  dbhost bench numa
  dbhost bench net --duration 5s --repeat 3 --format json -o net.json
  dbhost bench --cleanup`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if !cleanup {
				return usageErr("name a bench (numa, mq, net, io, db, pool) or give --cleanup; see 'dbhost help bench'")
			}
			dir := registryDir(stateDir)
			if _, err := os.Stat(dir); os.IsNotExist(err) {
				fmt.Fprintf(c.OutOrStdout(), "nothing recorded in %s: nothing to clean up\n", dir)
				return nil
			}
			cleaned, err := bench.CleanupLeftovers(dir)
			if err != nil {
				return err
			}
			failed := printCleaned(c, cleaned)
			if len(cleaned) == 0 {
				fmt.Fprintf(c.OutOrStdout(), "no leftovers of dead bench runs in %s\n", dir)
			}
			if failed > 0 {
				return &exitError{code: exitInternal, err: fmt.Errorf("%d leftover(s) could not be removed (listed above); they stay recorded", failed)}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&cleanup, "cleanup", false, "remove what killed bench runs left behind (recorded in --state-dir), then exit")
	c.PersistentFlags().StringVar(&stateDir, "state-dir", "", "where runs record what they create (default /var/lib/dbhost as root, else ~/.local/state/dbhost), in its bench/ directory")
	c.AddCommand(newBenchNumaCmd(&stateDir), newBenchMQCmd(&stateDir), newBenchNetCmd(&stateDir), newBenchIOCmd(&stateDir), newBenchPoolCmd(&stateDir), newBenchDBCmd(&stateDir))
	return c
}

// redactedCommandLine is dbhost's command line as a bench registry
// records it (the record, a file in the state directory, outlives the
// run): the passwords of --dsn and experiment's --bench replaced
// (crash.RedactArgs).
func redactedCommandLine() string {
	return strings.Join(append([]string{os.Args[0]}, crash.RedactArgs(os.Args[1:])...), " ")
}

func printCleaned(c *cobra.Command, cleaned []bench.Cleaned) int {
	failed := 0
	for _, x := range cleaned {
		if x.Error != "" {
			failed++
			fmt.Fprintf(c.ErrOrStderr(), "dbhost: leftover of %s: %s %s: NOT removed: %s\n", x.Run, x.Resource.Kind, x.Resource.Name, x.Error)
		} else {
			fmt.Fprintf(c.ErrOrStderr(), "dbhost: removed a leftover of a killed bench run (%s): %s %s\n", x.Run, x.Resource.Kind, x.Resource.Name)
		}
	}
	return failed
}

// runBench is what every bench subcommand does around its measurement:
// signals, the registry, the progress bar, the output.
func runBench(c *cobra.Command, f *benchFlags, stateDir string, planned time.Duration, measure func(ctx context.Context, o bench.Options) (*bench.Result, error)) error {
	if err := f.validate(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	regDir := registryDir(stateDir)
	created := missing(filepath.Dir(regDir))
	reg, cleaned, err := bench.OpenRegistry(regDir, redactedCommandLine())
	printCleaned(c, cleaned)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return usageErr("%v: give a writable --state-dir", err)
		}
		return err
	}
	sayCreated(c, filepath.Dir(regDir), created)
	if stateDir != "" {
		crash.AddHint("what the bench had created is recorded: 'dbhost bench --cleanup --state-dir " + change.Quote(stateDir) + "' removes it")
	} else {
		crash.AddHint("what the bench had created is recorded: 'dbhost bench --cleanup' removes it")
	}
	o := bench.Options{Duration: f.duration, Repeat: f.repeat, Version: version, Registry: reg}
	if ef, ok := c.ErrOrStderr().(*os.File); ok && bench.IsTerminal(ef) && planned > 0 {
		o.Progress = bench.NewProgress(ef, planned)
	}
	res, merr := measure(ctx, o)
	o.Progress.Done()
	cerr := reg.Close()
	if cerr != nil {
		fmt.Fprintf(c.ErrOrStderr(), "dbhost: cleanup: %v (recorded in %s: 'dbhost bench --cleanup' retries)\n", cerr, reg.Dir())
	}
	if merr != nil {
		if ctx.Err() != nil {
			return &exitError{code: exitInternal, err: fmt.Errorf("interrupted: %v; everything the bench created was removed", merr)}
		}
		return merr
	}
	if err := writeResult(c, f.format, f.out, res, func() []byte { return report.BenchText(res) }, func() []byte { return report.BenchMarkdown(res) }); err != nil {
		return err
	}
	if cerr != nil {
		return &exitError{code: exitInternal, err: fmt.Errorf("the bench could not remove everything it created")}
	}
	return nil
}

// resultFormats are the formats of bench, compare and experiment.
const resultFormats = "[text json markdown]"

// writeResult writes a result (bench, compare, experiment, apply, verify,
// rollback) as JSON, text or Markdown to -o FILE or standard output.
func writeResult(c *cobra.Command, format, out string, v any, text, markdown func() []byte) error {
	var b []byte
	switch format {
	case "json":
		var err error
		if b, err = report.JSON(v); err != nil {
			return err
		}
	case "markdown":
		if markdown == nil {
			return fmt.Errorf("--format markdown: no Markdown view of this output")
		}
		b = markdown()
	default:
		b = text()
	}
	return writeOutput(c, out, b)
}

// nodeList parses --cpu-node/--mem-node style lists ("0", "0,2", "0-3").
func nodeList(flag, s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	v, err := cpulist.Parse(s)
	if err != nil {
		return nil, usageErr("--%s %q: %v (expected node ids, e.g. 0 or 0,2 or 0-3)", flag, s, err)
	}
	return v, nil
}

func newBenchNumaCmd(stateDir *string) *cobra.Command {
	var f benchFlags
	var cpuNodes, memNodes string
	var sizeMB, threads int
	c := &cobra.Command{
		Use:   "numa",
		Short: "Memory latency (pointer chase) and bandwidth for every CPU node × memory node pair",
		Long: `Numa measures, for every pair of a CPU node and a memory node, the latency of dependent
loads (a pointer chase over a random cycle of cache lines in a buffer far larger than the
last-level cache: ns/load) and the streaming read bandwidth of one thread per CPU of the
CPU node. Threads are bound with sched_setaffinity, the buffer with mbind (MPOL_BIND,
strict) and set_mempolicy; move_pages checks where its pages really are. The matrices are
printed next to the SLIT distances and each remote/local latency ratio next to the SLIT
ratio (seed 001 measured 2.15x at distance 22 vs 10).

On a host with one node only local memory exists: it is measured, and said so.
--duration is per pair and repeat (half chase, half streaming).`,
		Example: `  dbhost bench numa
  dbhost bench numa --cpu-node 0 --mem-node 0,1 --duration 4s --repeat 3
  dbhost bench numa --format markdown -o numa.md`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cn, err := nodeList("cpu-node", cpuNodes)
			if err != nil {
				return err
			}
			mn, err := nodeList("mem-node", memNodes)
			if err != nil {
				return err
			}
			if sizeMB < 0 || sizeMB > 1<<20 || threads < 0 || threads > 4096 {
				return usageErr("--size-mb %d / --threads %d: expected at most 1048576 MiB and 4096 threads", sizeMB, threads)
			}
			pairs := 1
			if nodes, err := bench.OnlineNodes(); err == nil {
				pairs = len(nodes) * len(nodes)
				if len(cn) > 0 {
					pairs = len(cn) * len(nodes)
				}
				if len(mn) > 0 {
					pairs = pairs / len(nodes) * len(mn)
				}
			}
			return runBench(c, &f, *stateDir, time.Duration(pairs*f.repeat)*f.duration, func(ctx context.Context, o bench.Options) (*bench.Result, error) {
				return bench.RunNuma(ctx, bench.NumaOptions{Options: o, CPUNodes: cn, MemNodes: mn, SizeMB: sizeMB, Threads: threads})
			})
		},
	}
	f.add(c, 2*time.Second)
	c.Flags().StringVar(&cpuNodes, "cpu-node", "", "measure from these CPU nodes only (default: every node with CPUs)")
	c.Flags().StringVar(&memNodes, "mem-node", "", "measure these memory nodes only (default: every node with memory)")
	c.Flags().IntVar(&sizeMB, "size-mb", 0, "buffer per pair in MiB (default: 8x the LLC, 64 MiB to 1 GiB, at most a quarter of the node's free memory)")
	c.Flags().IntVar(&threads, "threads", 0, "streaming threads per pair (default: one per CPU of the CPU node)")
	atLeast(c, "size-mb", 1, "expected a buffer size in MiB, 1 or more")
	atLeast(c, "threads", 1, "expected 1 or more threads")
	return c
}

// bindFlags are --cpu-node, --mem-node and --cpus.
type bindFlags struct {
	cpuNode, memNode int
	cpus             string
}

func (b *bindFlags) add(c *cobra.Command, what, def string) {
	c.Flags().IntVar(&b.cpuNode, "cpu-node", -1, "bind "+what+" to this node's CPUs ("+def+")")
	c.Flags().IntVar(&b.memNode, "mem-node", -1, "bind "+what+"'s memory to this node (default: the CPU node)")
	c.Flags().StringVar(&b.cpus, "cpus", "", "bind "+what+" to these CPUs instead of a node's (e.g. 0-3,8)")
	atLeast(c, "cpu-node", 0, "expected a node number (0, 1, ...)")
	atLeast(c, "mem-node", 0, "expected a node number (0, 1, ...)")
}

// resolve checks the flags against this host: nil when none was given; a
// usage error (exit 2) for a node or CPU that does not exist here.
func (b *bindFlags) resolve() (*bench.Binding, error) {
	cpus, err := b.cpuList()
	if err != nil {
		return nil, err
	}
	if b.cpuNode < -1 || b.memNode < -1 {
		return nil, usageErr("--cpu-node %d / --mem-node %d: a node number (0, 1, ...)", b.cpuNode, b.memNode)
	}
	bind, err := bench.ResolveBinding(b.cpuNode, b.memNode, cpus)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return bind, nil
}

func (b *bindFlags) cpuList() ([]int, error) {
	if b.cpus == "" {
		return nil, nil
	}
	v, err := cpulist.Parse(b.cpus)
	if err != nil || len(v) == 0 {
		return nil, usageErr("--cpus %q: expected a CPU list (e.g. 0-3,8)", b.cpus)
	}
	return v, nil
}

func newBenchMQCmd(stateDir *string) *cobra.Command {
	var f benchFlags
	var b bindFlags
	var senders, size int
	c := &cobra.Command{
		Use:   "mq",
		Short: "Seed 000's message-passing test: one receiver, N senders, request/reply queues",
		Long: `Mq is seed 000's latency-sensitive message-passing micro-benchmark: one receiver thread
takes every request from a single queue (a designed bottleneck) and answers each sender on
the sender's own queue; each sender sends a request and waits for its reply. The queues are
SysV message queues (removed at the end, also after a kill: see 'dbhost bench --cleanup').

It runs twice: unbound, then with every thread bound to one node's CPUs (sched_setaffinity)
and memory (set_mempolicy), or to --cpus: msgs/s (round trips) and the latency percentiles
of every round trip. C-states, P-states and placement show here (seed 000, Tables 2-4).`,
		Example: `  dbhost bench mq
  dbhost bench mq --senders 32 --cpu-node 1 --duration 10s --repeat 3`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			cpus, err := b.cpuList()
			if err != nil {
				return err
			}
			if _, err := b.resolve(); err != nil {
				return err
			}
			if senders < 0 || senders > 1024 || size < 0 || size > 8192 {
				return usageErr("--senders %d / --size %d: expected 1..1024 senders and 1..8192 bytes", senders, size)
			}
			return runBench(c, &f, *stateDir, 2*time.Duration(f.repeat)*f.duration, func(ctx context.Context, o bench.Options) (*bench.Result, error) {
				return bench.RunMQ(ctx, bench.MQOptions{Options: o, Senders: senders, Size: size, CPUNode: b.cpuNode, MemNode: b.memNode, CPUs: cpus})
			})
		},
	}
	f.add(c, 5*time.Second)
	b.add(c, "the bound run", "default: node 0")
	c.Flags().IntVar(&senders, "senders", 0, "sender threads (default: 2 per CPU, 2 to 32)")
	c.Flags().IntVar(&size, "size", 128, "message payload in bytes")
	atLeast(c, "senders", 1, "expected 1 to 1024 senders")
	atLeast(c, "size", 1, "expected a payload of 1 to 8192 bytes")
	return c
}

// linkFlags are --delay, --rate, --loss and --link.
type linkFlags struct {
	delay  time.Duration
	rate   string
	loss   float64
	method string
}

func (l *linkFlags) add(c *cobra.Command) {
	fl := c.Flags()
	fl.DurationVar(&l.delay, "delay", 0, "emulate a link with this one-way delay (each direction; tc netem where the kernel has it, else dbhost's TUN forwarder; needs root)")
	fl.StringVar(&l.rate, "rate", "", "and this rate limit (e.g. 100mbit, 1gbit)")
	fl.Float64Var(&l.loss, "loss", 0, "and this random loss in % (each direction)")
	fl.StringVar(&l.method, "link", "auto", "how to emulate the link: [auto netem tun]")
}

func (l *linkFlags) options() (bench.LinkOptions, error) {
	o := bench.LinkOptions{Delay: l.delay, LossPct: l.loss, Method: l.method}
	if l.rate != "" {
		r, err := bench.ParseRate(l.rate)
		if err != nil {
			return o, usageErr("--rate: %v", err)
		}
		o.RateBps = r
	}
	if o.Method == "auto" && !(o.Delay > 0 || o.RateBps > 0 || o.LossPct > 0) {
		o.Method = ""
	}
	if err := o.Validate(); err != nil {
		return o, usageErr("%v", err)
	}
	return o, nil
}

func newBenchNetCmd(stateDir *string) *cobra.Command {
	var f benchFlags
	var lf linkFlags
	var serve bool
	var listen, connect string
	var tests []string
	var msg, sndbuf, rembuf, streams, request, response string
	var b bindFlags
	c := &cobra.Command{
		Use:   "net",
		Short: "TCP stream and UDP request/response, like netperf TCP_STREAM and UDP_RR",
		Long: `Net measures what seed 000 measured with netperf: TCP_STREAM (bulk throughput, Gb/s, with
the send size -m, the socket buffers -s (local) and -S (remote) set before connect and
listen as netperf does, and parallel --streams) and UDP_RR (a 300-byte request answered by
an 8000-byte reply, like RAC cache fusion: transactions/s and the latency of every one).

By default both ends run in this process over loopback. 'dbhost bench net --serve' on one
host and '--connect HOST' on another measure the network between them (port 12865 by
default, netperf's). --delay (with --rate and --loss) puts both ends in two private
network namespaces joined by an emulated link (tc netem on a veth pair where the kernel
has netem, otherwise dbhost's own forwarder between two TUN devices: real TCP sees a real
RTT and bandwidth-delay product); the output says which. TCP's own view (RTT from
TCP_INFO, retransmissions, congestion window) is reported with the stream.`,
		Example: `  dbhost bench net
  dbhost bench net --test tcp_stream -m 16K -s 4M -S 4M --streams 4
  dbhost bench net --delay 10ms -s 128K -S 128K     # seed 000: fixed buffers over a WAN-like link
  dbhost bench net --serve                          # on the server
  dbhost bench net --connect db2.example --repeat 5 --format json -o net.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			lo, err := lf.options()
			if err != nil {
				return err
			}
			bind, err := b.resolve()
			if err != nil {
				return err
			}
			sizes := map[string]*string{"msg-size": &msg, "sndbuf": &sndbuf, "rembuf": &rembuf, "streams": &streams, "request": &request, "response": &response}
			vals := map[string]int{}
			for name, p := range sizes {
				if *p == "" {
					continue
				}
				v, err := bench.ParseSize(*p)
				if err != nil || v < 0 || v > 1<<30 {
					return usageErr("--%s %q: expected a size like 300, 16K or 4M (at most 1G)", name, *p)
				}
				vals[name] = int(v)
			}
			if vals["streams"] > 1024 {
				return usageErr("--streams %d: at most 1024", vals["streams"])
			}
			for _, t := range tests {
				if t != "tcp_stream" && t != "udp_rr" {
					return usageErr("--test %q: expected tcp_stream or udp_rr", t)
				}
			}
			if serve {
				if connect != "" || lo.Wanted() {
					return usageErr("--serve takes no --connect, --delay, --rate or --loss")
				}
				return serveNet(c, listen, bind)
			}
			o := bench.NetOptions{Tests: tests, Connect: connect, MsgSize: vals["msg-size"], SndBuf: vals["sndbuf"], RemBuf: vals["rembuf"],
				Streams: vals["streams"], Request: vals["request"], Response: vals["response"], Link: lo}
			n := len(tests)
			if n == 0 {
				n = 2
			}
			return runBench(c, &f, *stateDir, time.Duration(n*f.repeat)*f.duration, func(ctx context.Context, bo bench.Options) (*bench.Result, error) {
				o.Options = bo
				o.Bind = bind
				return bench.RunNet(ctx, o)
			})
		},
	}
	f.add(c, 5*time.Second)
	lf.add(c)
	fl := c.Flags()
	fl.BoolVar(&serve, "serve", false, "answer 'dbhost bench net --connect' clients until interrupted")
	fl.StringVar(&listen, "listen", fmt.Sprintf(":%d", bench.NetDefaultPort), "with --serve: the address to listen on")
	fl.StringVar(&connect, "connect", "", "measure against a 'dbhost bench net --serve' at HOST[:PORT] (default: both ends here)")
	fl.StringSliceVar(&tests, "test", nil, "tests to run: tcp_stream, udp_rr (default both)")
	fl.StringVarP(&msg, "msg-size", "m", "", "TCP send size (netperf -m; default 128K)")
	fl.StringVarP(&sndbuf, "sndbuf", "s", "", "local socket buffers, set before connect (netperf -s; default: autotuning)")
	fl.StringVarP(&rembuf, "rembuf", "S", "", "remote socket buffers, set before listen (netperf -S; default: autotuning)")
	fl.StringVar(&streams, "streams", "", "parallel TCP streams / UDP request-response flows (default 1)")
	fl.StringVar(&request, "request", "", "UDP request size (default 300)")
	fl.StringVar(&response, "response", "", "UDP response size (default 8000)")
	b.add(c, "the threads moving the data", "default: not bound")
	return c
}

// serveNet answers clients until Ctrl-C or SIGTERM.
func serveNet(c *cobra.Command, listen string, bind *bench.Binding) error {
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv, err := bench.StartNetServer(bench.HostEnv(), listen)
	if err != nil {
		return usageErr("--listen %s: %v", listen, err)
	}
	srv.Bind = bind
	fmt.Fprintf(c.OutOrStdout(), "dbhost bench net: serving on %s (Ctrl-C stops)\n", srv.Addr())
	return srv.Serve(ctx)
}

func newBenchIOCmd(stateDir *string) *cobra.Command {
	var f benchFlags
	var o bench.IOOptions
	var sizeMB, scale int
	var ramp time.Duration
	var printJob bool
	var b bindFlags
	c := &cobra.Command{
		Use:   "io",
		Short: "Seed 000's Oracle-like fio workload (readers, DB writers, parallel query, redo), per role",
		Long: `Io writes a fio job file after seed 000's appendix (8K random readers like shadow
processes, 8K random DB writers with libaio, 1M sequential parallel-query reads with libaio,
and the redo log writer's 1K-300K sequential sync writes), with the seed's jobs per core
scaled to this host (480 readers, 32 writers, 8 parallel query on its 120 cores), runs fio
--output-format=json and reports each role's IOPS, throughput and completion-latency
percentiles exactly as fio gives them.

The target is a scratch file under --dir (default /var/tmp, removed at the end), a --file
you name, or a block --device. A device is never used by default; one that holds a mounted
filesystem (itself or a partition), swap, or is held by LVM/MD/multipath is refused, and
the writing roles need --destroy-data. --print-job prints the job file and runs nothing.`,
		Example: `  dbhost bench io
  dbhost bench io --dir /u01/scratch --size-mb 4096 --duration 30s --ramp 15s
  dbhost bench io --device /dev/sdx --role readers,parallel_query
  dbhost bench io --print-job`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if sizeMB < 0 || sizeMB > 1<<24 || scale < 0 || scale > 10000 || ramp < 0 || ramp > time.Hour {
				return usageErr("--size-mb %d, --scale %d, --ramp %v: expected a positive size, 0..10000 jobs and a ramp up to 1h", sizeMB, scale, ramp)
			}
			for _, r := range o.Roles {
				ok := false
				for _, n := range bench.IORoleNames() {
					ok = ok || r == n
				}
				if !ok {
					return usageErr("--role %q: expected %s", r, strings.Join(bench.IORoleNames(), ", "))
				}
			}
			o.SizeMB, o.Scale, o.Ramp = sizeMB, scale, ramp
			bind, err := b.resolve()
			if err != nil {
				return err
			}
			if printJob {
				size := int64(sizeMB) << 20
				if size == 0 {
					size = 256 << 20
				}
				target := o.File
				if o.Device != "" {
					target = o.Device
				}
				if target == "" {
					target = "/var/tmp/" + bench.ScratchPrefix + "PID/data"
				}
				cpus := runtime.NumCPU()
				if bind != nil && len(bind.CPUs) > 0 {
					cpus = len(bind.CPUs)
				}
				job, err := bench.IOJobFile(target, size, f.duration, ramp, o.Roles, cpus, scale)
				if err != nil {
					return usageErr("%v", err)
				}
				_, err = fmt.Fprint(c.OutOrStdout(), job)
				return err
			}
			if o.Device != "" {
				if err := bench.CheckDevice(o.Device); err != nil {
					return usageErr("%v", err)
				}
			}
			return runBench(c, &f, *stateDir, time.Duration(f.repeat)*(f.duration+ramp), func(ctx context.Context, bo bench.Options) (*bench.Result, error) {
				o.Options = bo
				o.Bind = bind
				return bench.RunIO(ctx, o)
			})
		},
	}
	f.add(c, 10*time.Second)
	fl := c.Flags()
	fl.StringVar(&o.Dir, "dir", "", "directory for the scratch file (default /var/tmp)")
	fl.StringVar(&o.File, "file", "", "use this file (fio creates it if missing; kept)")
	fl.StringVar(&o.Device, "device", "", "use this block device (refused when mounted, swap or held)")
	fl.BoolVar(&o.DestroyOK, "destroy-data", false, "allow the writing roles to overwrite --device")
	fl.IntVar(&sizeMB, "size-mb", 0, "MiB of the file or device used (default 256 for a file, 1024 for a device)")
	fl.IntVar(&scale, "scale", 0, "jobs per role (default: the seed's jobs per core times this host's CPUs)")
	atLeast(c, "size-mb", 1, "expected a size in MiB, 1 or more")
	atLeast(c, "scale", 1, "expected 1 to 10000 jobs per role")
	fl.StringSliceVar(&o.Roles, "role", nil, "roles to run: readers, parallel_query, writers, redolog (default all)")
	b.add(c, "fio and its jobs", "default: not bound")
	fl.DurationVar(&ramp, "ramp", 0, "fio ramp_time before measuring (the seed used 15s)")
	fl.StringVar(&o.KeepFioOut, "fio-json", "", "also keep fio's own JSON output in FILE")
	fl.BoolVar(&printJob, "print-job", false, "print the fio job file and run nothing")
	return c
}

func newBenchPoolCmd(stateDir *string) *cobra.Command {
	var f benchFlags
	var lf linkFlags
	var o bench.PoolOptions
	c := &cobra.Command{
		Use:   "pool",
		Short: "Seed 002: a connection pool validating on every borrow vs in the background, against PostgreSQL",
		Long: `Pool reproduces seed 002's experiment against a real PostgreSQL (--dsn): a pool of --size
connections; one request is borrow + one INSERT (into a scratch table, dropped at the end)
+ return, --concurrency requests at a time (1, like the seed's ApacheBench). With
foreground validation the pool runs the validation query (SELECT 1) on every borrow, one
more round trip per request; with background validation it checks idle connections every
--interval instead. The seed measured 17.9 ms vs 9.9 ms mean per request at 6 ms one-way
delay (1.8x): --delay 6ms puts the pool and the server on the two ends of an emulated link
(see 'dbhost help bench net'; needs root).

Each mode runs --requests requests, or for --duration.`,
		Example: `  dbhost bench pool --dsn "host=/var/run/postgresql dbname=postgres" --delay 6ms --requests 1000
  dbhost bench pool --dsn postgres://bench@db1/app --repeat 3 --format json -o pool.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			lo, err := lf.options()
			if err != nil {
				return err
			}
			o.Link = lo
			if o.DSN == "" {
				return usageErr("--dsn: a PostgreSQL connection string is needed (e.g. \"host=/var/run/postgresql dbname=postgres\")")
			}
			if o.Size < 0 || o.Size > 10000 || o.Requests < 0 || o.Concurrency < 0 || o.Concurrency > 10000 || o.BgInterval < 0 {
				return usageErr("--size, --requests, --concurrency, --interval: expected positive values")
			}
			for _, m := range o.Modes {
				if m != "foreground" && m != "background" {
					return usageErr("--mode %q: expected foreground or background", m)
				}
			}
			return runBench(c, &f, *stateDir, 2*time.Duration(f.repeat)*f.duration, func(ctx context.Context, bo bench.Options) (*bench.Result, error) {
				o.Options = bo
				return bench.RunPool(ctx, o)
			})
		},
	}
	f.add(c, 10*time.Second)
	lf.add(c)
	fl := c.Flags()
	fl.StringVar(&o.DSN, "dsn", "", "PostgreSQL connection string (key=value or postgres:// URL)")
	fl.IntVar(&o.Size, "size", 10, "connections in the pool")
	fl.IntVar(&o.Requests, "requests", 0, "requests per mode and repeat (default: for --duration)")
	fl.IntVar(&o.Concurrency, "concurrency", 1, "requests at a time")
	atLeast(c, "size", 1, "expected 1 or more connections")
	atLeast(c, "requests", 1, "expected 1 or more requests")
	atLeast(c, "concurrency", 1, "expected 1 or more requests at a time")
	fl.StringSliceVar(&o.Modes, "mode", nil, "validation modes: foreground, background (default both)")
	fl.StringVar(&o.Validate, "validation-query", "SELECT 1", "the validation query")
	fl.DurationVar(&o.BgInterval, "interval", time.Second, "background validation period")
	return c
}

func newBenchDBCmd(stateDir *string) *cobra.Command {
	var f benchFlags
	var o bench.DBOptions
	var b bindFlags
	c := &cobra.Command{
		Use:   "db",
		Short: "pgbench against a PostgreSQL DSN (a scratch database only with --init)",
		Long: `Db runs pgbench -c -j -T --log against --dsn: transactions per second from pgbench's own
summary (without initial connection time) and the latency percentiles of every transaction
from its log. With --init it creates a scratch database (dbhost_bench_db_*), runs pgbench -i
-s --scale in it and drops it at the end (also after a kill: 'dbhost bench --cleanup');
without --init the DSN's database must hold pgbench's tables already.`,
		Example: `  dbhost bench db --dsn "host=/var/run/postgresql user=postgres" --init --scale 50 --duration 30s
  dbhost bench db --dsn postgres://bench@db1/pgbench --clients 32 --jobs 8 --repeat 3`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if o.DSN == "" {
				return usageErr("--dsn: a PostgreSQL connection string is needed")
			}
			if o.Clients < 0 || o.Clients > 10000 || o.Jobs < 0 || o.Jobs > 10000 || o.Scale < 0 || o.Scale > 100000 {
				return usageErr("--clients, --jobs, --scale: expected positive values")
			}
			switch o.Builtin {
			case "tpcb-like", "simple-update", "select-only":
			default:
				return usageErr("--builtin %q: expected tpcb-like, simple-update or select-only", o.Builtin)
			}
			bind, err := b.resolve()
			if err != nil {
				return err
			}
			return runBench(c, &f, *stateDir, time.Duration(f.repeat)*f.duration, func(ctx context.Context, bo bench.Options) (*bench.Result, error) {
				o.Options = bo
				o.Bind = bind
				return bench.RunDB(ctx, o)
			})
		},
	}
	f.add(c, 30*time.Second)
	fl := c.Flags()
	fl.StringVar(&o.DSN, "dsn", "", "PostgreSQL connection string (key=value or postgres:// URL)")
	fl.BoolVar(&o.Init, "init", false, "create a scratch database and pgbench -i it (dropped at the end)")
	fl.IntVar(&o.Scale, "scale", 10, "pgbench -s for --init")
	fl.IntVar(&o.Clients, "clients", 0, "pgbench -c (default 2 per CPU)")
	fl.IntVar(&o.Jobs, "jobs", 0, "pgbench -j (default: the CPUs, at most --clients)")
	atLeast(c, "scale", 1, "expected a pgbench scale of 1 or more")
	atLeast(c, "clients", 1, "expected 1 or more clients")
	atLeast(c, "jobs", 1, "expected 1 or more jobs")
	fl.StringVar(&o.Builtin, "builtin", "tpcb-like", "pgbench -b: tpcb-like, simple-update, select-only")
	fl.StringVar(&o.Protocol, "protocol", "prepared", "pgbench -M: simple, extended, prepared")
	b.add(c, "pgbench (the client; not the server)", "default: not bound")
	return c
}
