package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/cpulist"
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
	fl.StringVar(&f.format, "format", "text", "output format: [text json]")
	fl.StringVarP(&f.out, "output", "o", "", "write the result to FILE instead of standard output")
}

func (f *benchFlags) validate() error {
	if f.format != "text" && f.format != "json" {
		return usageErr("--format %q: expected one of [text json]", f.format)
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

Every bench takes --duration, --repeat and --format text|json (JSON: schema_version 1, the
host, the parameters, the results and every raw sample; latencies in µs, throughput in Gb/s
as throughput_gbps). A progress bar is drawn on a terminal.

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
	c.AddCommand(newBenchNumaCmd(&stateDir), newBenchMQCmd(&stateDir))
	return c
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
func runBench(c *cobra.Command, f *benchFlags, stateDir string, planned time.Duration, measure func(ctx context.Context, o bench.Options) (*bench.Result, error), text func(*bench.Result) []byte) error {
	if err := f.validate(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reg, cleaned, err := bench.OpenRegistry(registryDir(stateDir), strings.Join(os.Args, " "))
	printCleaned(c, cleaned)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return usageErr("%v: give a writable --state-dir", err)
		}
		return err
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
	if err := writeResult(c, f.format, f.out, res, func() []byte { return text(res) }); err != nil {
		return err
	}
	if cerr != nil {
		return &exitError{code: exitInternal, err: fmt.Errorf("the bench could not remove everything it created")}
	}
	return nil
}

// writeResult writes a result (or anything with a text form) to -o FILE or
// standard output.
func writeResult(c *cobra.Command, format, out string, v any, text func() []byte) error {
	var b []byte
	if format == "json" {
		var err error
		if b, err = report.JSON(v); err != nil {
			return err
		}
	} else {
		b = text()
	}
	if out == "" {
		_, err := c.OutOrStdout().Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return usageErr("-o %s: %v", out, err)
	}
	return nil
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
  dbhost bench numa --cpu-node 0 --mem-node 0,1 --duration 4s --repeat 3`,
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
				return usageErr("--size-mb %d / --threads %d: expected 0 (automatic) or a positive size/count", sizeMB, threads)
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
			}, bench.NumaText)
		},
	}
	f.add(c, 2*time.Second)
	c.Flags().StringVar(&cpuNodes, "cpu-node", "", "measure from these CPU nodes only (default: every node with CPUs)")
	c.Flags().StringVar(&memNodes, "mem-node", "", "measure these memory nodes only (default: every node with memory)")
	c.Flags().IntVar(&sizeMB, "size-mb", 0, "buffer per pair in MiB (default: 8x the LLC, 64 MiB to 1 GiB, at most a quarter of the node's free memory)")
	c.Flags().IntVar(&threads, "threads", 0, "streaming threads per pair (default: one per CPU of the CPU node)")
	return c
}

// bindFlags are --cpu-node, --mem-node and --cpus.
type bindFlags struct {
	cpuNode, memNode int
	cpus             string
}

func (b *bindFlags) add(c *cobra.Command, what string) {
	c.Flags().IntVar(&b.cpuNode, "cpu-node", -1, "bind "+what+" to this node's CPUs (default: node 0)")
	c.Flags().IntVar(&b.memNode, "mem-node", -1, "bind "+what+"'s memory to this node (default: the CPU node)")
	c.Flags().StringVar(&b.cpus, "cpus", "", "bind "+what+" to these CPUs instead of a node's (e.g. 0-3,8)")
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
			if senders < 0 || senders > 1024 || size < 0 || size > 8192 {
				return usageErr("--senders %d / --size %d: expected 1..1024 senders and 1..8192 bytes (0: default)", senders, size)
			}
			return runBench(c, &f, *stateDir, 2*time.Duration(f.repeat)*f.duration, func(ctx context.Context, o bench.Options) (*bench.Result, error) {
				return bench.RunMQ(ctx, bench.MQOptions{Options: o, Senders: senders, Size: size, CPUNode: b.cpuNode, MemNode: b.memNode, CPUs: cpus})
			}, (*bench.Result).Text)
		},
	}
	f.add(c, 5*time.Second)
	b.add(c, "the bound run")
	c.Flags().IntVar(&senders, "senders", 0, "sender threads (default: 2 per CPU, 2 to 32)")
	c.Flags().IntVar(&size, "size", 128, "message payload in bytes")
	return c
}
