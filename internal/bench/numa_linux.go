//go:build linux

package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/dbhost/dbhost/internal/crash"
)

// RunNuma measures, for every CPU node × memory node pair, the latency of
// dependent loads over a buffer far larger than the LLC (a random cycle of
// cache lines: every load misses) and the streaming read bandwidth, with
// the measuring threads bound to the CPU node (sched_setaffinity) and the
// buffer to the memory node (mbind, MPOL_BIND strict; set_mempolicy on the
// threads). Where the pages really are is checked with move_pages.
func RunNuma(ctx context.Context, o NumaOptions) (*Result, error) {
	nodes, err := OnlineNodes()
	if err != nil {
		return nil, fmt.Errorf("NUMA nodes: %v", err)
	}
	res := NewResult("numa", o.Options)
	cpuNodes, memNodes, err := numaPairs(nodes, o.CPUNodes, o.MemNodes)
	if err != nil {
		return nil, err
	}
	if len(nodes) == 1 {
		res.Note("one NUMA node: only local memory can be measured (no remote pair exists on this host)")
	}
	for _, m := range memNodes {
		if mn, _ := NodeByID(nodes, m); mn.MemKind() != "dram" {
			res.Note("memory node %d has no CPUs (%s): measured for what it is (NVM, CXL, HBM, a far tier or device memory), not a database's local memory", m, mn.MemKind())
		}
	}
	minFree := int64(0)
	for _, m := range memNodes {
		if f := nodeMemFree(m); f > 0 && (minFree == 0 || f < minFree) {
			minFree = f
		}
	}
	llc := LLCBytes()
	size := int64(o.SizeMB) << 20
	if size == 0 {
		size = numaBufferBytes(llc, minFree)
	}
	if llc > 0 && size < 4*llc {
		res.Note("the buffer (%d MiB) is less than 4x the last-level cache (%d KiB): part of the loads hit the cache", size>>20, llc>>10)
	}
	res.Params["size_mb"] = size >> 20
	res.Params["llc_kb"] = llc >> 10
	res.Params["cpu_nodes"] = cpuNodes
	res.Params["mem_nodes"] = memNodes
	res.Params["threads"] = o.Threads
	chaseDur, streamDur := numaTiming(o.Duration)
	next := ChaseCycle(int(size/(lineWords*8)), rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 11)))

	for _, c := range cpuNodes {
		cn, _ := NodeByID(nodes, c)
		for _, m := range memNodes {
			cas := fmt.Sprintf("cpu%d-mem%d", c, m)
			var nsLoads, gbps []float64
			placed := ""
			for rep := 1; rep <= o.repeat(); rep++ {
				if err := ctx.Err(); err != nil {
					return res, err
				}
				o.Progress.Step(fmt.Sprintf("%s run %d", cas, rep), chaseDur+streamDur)
				s, where, err := numaPair(ctx, cn.CPUs, m, size, next, chaseDur, streamDur, o.Threads)
				if err != nil {
					return res, fmt.Errorf("%s: %w", cas, err)
				}
				placed = where
				s.Case, s.Repeat = cas, rep
				res.Samples = append(res.Samples, s)
				nsLoads = append(nsLoads, *s.NsPerLoad)
				gbps = append(gbps, *s.ThroughputGbps)
			}
			mn, _ := NodeByID(nodes, m)
			row := Row{Case: cas, Labels: map[string]string{"cpu_node": strconv.Itoa(c), "mem_node": strconv.Itoa(m), "mem_kind": mn.MemKind(), "pages": placed},
				NsPerLoad: F(Median(nsLoads)), ThroughputGbps: F(Median(gbps)),
				Extra: map[string]float64{"slit_distance": float64(Distance(nodes, c, m))}}
			res.Results = append(res.Results, row)
		}
	}
	numaRatios(res)
	res.Note("figures are medians over %d repeat(s); each pair: %v of pointer chase, %v of streaming reads", o.repeat(), chaseDur, streamDur)
	res.Finish()
	return res, nil
}

// numaRatios adds each pair's latency against its CPU node's local pair.
func numaRatios(res *Result) {
	local := map[string]float64{}
	for _, row := range res.Results {
		if row.Labels["cpu_node"] == row.Labels["mem_node"] && row.NsPerLoad != nil {
			local[row.Labels["cpu_node"]] = *row.NsPerLoad
		}
	}
	for i := range res.Results {
		row := &res.Results[i]
		if l := local[row.Labels["cpu_node"]]; l > 0 && row.NsPerLoad != nil {
			row.Extra["latency_vs_local"] = *row.NsPerLoad / l
		}
	}
}

// numaPairs picks the CPU nodes (with CPUs) and memory nodes (with memory).
func numaPairs(nodes []Node, wantCPU, wantMem []int) ([]int, []int, error) {
	var cpuNodes, memNodes []int
	for _, n := range nodes {
		if len(n.CPUs) > 0 {
			cpuNodes = append(cpuNodes, n.ID)
		}
		if n.MemKB > 0 || len(nodes) == 1 {
			memNodes = append(memNodes, n.ID)
		}
	}
	pick := func(want, have []int, what string) ([]int, error) {
		if len(want) == 0 {
			return have, nil
		}
		for _, w := range want {
			found := false
			for _, h := range have {
				found = found || h == w
			}
			if !found {
				return nil, fmt.Errorf("--%s-node %d: not an online node with %s (have %v)", what, w, map[string]string{"cpu": "CPUs", "mem": "memory"}[what], have)
			}
		}
		out := append([]int(nil), want...)
		sort.Ints(out)
		return out, nil
	}
	c, err := pick(wantCPU, cpuNodes, "cpu")
	if err != nil {
		return nil, nil, err
	}
	m, err := pick(wantMem, memNodes, "mem")
	if err != nil {
		return nil, nil, err
	}
	if len(c) == 0 || len(m) == 0 {
		return nil, nil, fmt.Errorf("no node with CPUs or none with memory online")
	}
	return c, m, nil
}

func nodeMemFree(id int) int64 {
	b, err := readSmall(fmt.Sprintf("%s/node%d/meminfo", nodeDir, id))
	if err != nil {
		return 0
	}
	for _, l := range splitLines(b) {
		var n int
		var v int64
		if k, _ := fmt.Sscanf(l, "Node %d MemFree: %d kB", &n, &v); k == 2 {
			return v
		}
	}
	return 0
}

// numaPair measures one pair once.
func numaPair(ctx context.Context, cpus []int, mem int, size int64, next []uint32, chaseDur, streamDur time.Duration, threads int) (Sample, string, error) {
	var s Sample
	buf, err := mmapAnon(int(size))
	if err != nil {
		return s, "", fmt.Errorf("mmap %d MiB: %w", size>>20, err)
	}
	defer munmap(buf)
	if err := mbind(buf, []int{mem}); err != nil {
		return s, "", err
	}
	words := unsafe.Slice((*uint64)(unsafe.Pointer(&buf[0])), len(buf)/8)

	type out struct {
		ns    float64
		where string
		err   error
	}
	ch := make(chan out, 1)
	crash.Go(func() {
		var o out
		if err := pinThread(cpus, []int{mem}); err != nil {
			o.err = err
			ch <- o
			return
		}
		fillChase(words, next) // first touch, from the CPU node
		if pn, err := pageNodes(buf, 256); err == nil {
			o.where = describePages(pn, mem)
		}
		// Warm up (TLB, page tables), then chase in slices until the time is up.
		p := chase(words, 0, 1<<16)
		var loads int
		start := time.Now()
		for time.Since(start) < chaseDur && ctx.Err() == nil {
			p = chase(words, p, 1<<18)
			loads += 1 << 18
		}
		el := time.Since(start)
		sink.Store(p)
		o.ns = float64(el.Nanoseconds()) / float64(loads)
		ch <- o
	})
	r := <-ch
	if r.err != nil {
		return s, "", r.err
	}
	if err := ctx.Err(); err != nil {
		return s, "", err
	}
	// Streaming reads: one thread per CPU (or --threads), each over its
	// share of the buffer, for streamDur.
	if threads <= 0 {
		threads = len(cpus)
	}
	threads = max(threads, 1)
	chunk := len(words) / threads
	var wg sync.WaitGroup
	bytes := make([]int64, threads)
	errs := make([]error, threads)
	startC := make(chan struct{})
	var elapsed time.Duration
	for t := 0; t < threads; t++ {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			cpu := []int{cpus[t%len(cpus)]}
			if err := pinThread(cpu, []int{mem}); err != nil {
				errs[t] = err
				return
			}
			part := words[t*chunk : (t+1)*chunk]
			sink.Store(sumWords(part)) // warm
			<-startC
			start := time.Now()
			var n int64
			for time.Since(start) < streamDur && ctx.Err() == nil {
				sink.Store(sumWords(part))
				n += int64(len(part)) * 8
			}
			bytes[t] = n
		})
	}
	time.Sleep(10 * time.Millisecond)
	t0 := time.Now()
	close(startC)
	wg.Wait()
	elapsed = time.Since(t0)
	var total int64
	for t := range bytes {
		if errs[t] != nil {
			return s, "", errs[t]
		}
		total += bytes[t]
	}
	s.Seconds = (chaseDur + elapsed).Seconds()
	s.NsPerLoad = F(r.ns)
	s.ThroughputGbps = F(float64(total) * 8 / elapsed.Seconds() / 1e9)
	return s, r.where, nil
}

// describePages says where the sampled pages are: "100% node1" or
// "97% node1, 3% node0".
func describePages(pn map[int]int, want int) string {
	total := 0
	for _, c := range pn {
		total += c
	}
	if total == 0 {
		return ""
	}
	var keys []int
	for k := range pn {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if (keys[i] == want) != (keys[j] == want) {
			return keys[i] == want
		}
		return keys[i] < keys[j]
	})
	s := ""
	for _, k := range keys {
		if s != "" {
			s += ", "
		}
		name := fmt.Sprintf("node%d", k)
		if k < 0 {
			name = fmt.Sprintf("not present (errno %d)", -k)
		}
		s += fmt.Sprintf("%.0f%% %s", 100*float64(pn[k])/float64(total), name)
	}
	return s
}
