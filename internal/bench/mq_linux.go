//go:build linux

package bench

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/crash"
	"golang.org/x/sys/unix"
)

const (
	ipcCreat  = 0o1000
	ipcExcl   = 0o2000
	ipcRmid   = 0
	mtypeStop = 1 << 30
)

func init() { cleaners[KindMsgQueue] = removeRecordedQueue }

// msgQueue is one SysV message queue dbhost created.
type msgQueue struct {
	id    int
	key   int64
	regID int
}

// newQueue records a random dbhost key, then creates the queue with it
// (IPC_EXCL: never another program's queue).
func newQueue(reg *Registry) (*msgQueue, error) {
	for try := 0; try < 50; try++ {
		key := int64(mqKeyPrefix)<<24 | int64(rand.IntN(1<<24))
		if int32(key) < 0 {
			key = int64(int32(key)) // the kernel shows keys as signed ints
		}
		rid, err := reg.Add(KindMsgQueue, strconv.FormatInt(key, 10), "")
		if err != nil {
			return nil, err
		}
		id, _, e := unix.Syscall(unix.SYS_MSGGET, uintptr(int32(key)), ipcCreat|ipcExcl|0o600, 0)
		if e == unix.EEXIST {
			_ = reg.Done(rid)
			continue
		}
		if e != 0 {
			_ = reg.Done(rid)
			return nil, fmt.Errorf("msgget: %w", e)
		}
		return &msgQueue{id: int(id), key: key, regID: rid}, nil
	}
	return nil, fmt.Errorf("msgget: no free key after 50 tries")
}

func (q *msgQueue) remove(reg *Registry) error {
	_, _, e := unix.Syscall(unix.SYS_MSGCTL, uintptr(q.id), ipcRmid, 0)
	if e != 0 && e != unix.EINVAL && e != unix.EIDRM {
		return fmt.Errorf("msgctl(IPC_RMID): %w", e)
	}
	return reg.Done(q.regID)
}

// removeRecordedQueue removes a leftover queue by its recorded key, when a
// queue with that key exists and was created by this user.
func removeRecordedQueue(x Resource) error {
	key, err := strconv.ParseInt(x.Name, 10, 64)
	if err != nil || uint32(key)>>24 != mqKeyPrefix {
		return fmt.Errorf("key %q is not one of dbhost's (0x%x......): refusing", x.Name, mqKeyPrefix)
	}
	s, err := readSmall("/proc/sysvipc/msg")
	if err != nil {
		return err
	}
	qs, err := ParseSysVMsg(s)
	if err != nil {
		return err
	}
	for _, q := range qs {
		if q.Key == key && q.CUID == os.Geteuid() {
			_, _, e := unix.Syscall(unix.SYS_MSGCTL, uintptr(q.MsqID), ipcRmid, 0)
			if e != 0 && e != unix.EINVAL && e != unix.EIDRM {
				return fmt.Errorf("msgctl(%d, IPC_RMID): %w", q.MsqID, e)
			}
		}
	}
	return nil
}

// msgbuf is struct msgbuf: a long type, then the text.
func msgSend(q int, buf []byte, mtype int64) error {
	binary.NativeEndian.PutUint64(buf, uint64(mtype))
	for {
		_, _, e := unix.Syscall6(unix.SYS_MSGSND, uintptr(q), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)-8), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return e
		}
		return nil
	}
}

func msgRecv(q int, buf []byte) (int64, error) {
	for {
		_, _, e := unix.Syscall6(unix.SYS_MSGRCV, uintptr(q), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)-8), 0, 0, 0)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int64(binary.NativeEndian.Uint64(buf)), nil
	}
}

// RunMQ runs the message-passing test unbound, then bound to one node (or
// --cpus): msgs/s (round trips through the receiver) and the round-trip
// latency percentiles of every message.
func RunMQ(ctx context.Context, o MQOptions) (*Result, error) {
	nodes, err := OnlineNodes()
	if err != nil {
		return nil, err
	}
	res := NewResult("mq", o.Options)
	n := o.senders(runtime.NumCPU())
	size := o.Size
	if size <= 0 {
		size = 128
	}
	if size > 8192 {
		return nil, fmt.Errorf("--size %d: at most 8192 bytes (the kernel's msgmax default)", size)
	}
	cpuNode := max(o.CPUNode, 0)
	memNode := o.MemNode
	if memNode < 0 {
		memNode = cpuNode
	}
	bound := o.CPUs
	boundName := "bound-cpus-" + cpulist.Format(o.CPUs)
	if len(bound) == 0 {
		cn, ok := NodeByID(nodes, cpuNode)
		if !ok || len(cn.CPUs) == 0 {
			return nil, fmt.Errorf("--cpu-node %d: not an online node with CPUs", cpuNode)
		}
		bound = cn.CPUs
		boundName = fmt.Sprintf("bound-node%d", cpuNode)
		if memNode != cpuNode {
			boundName = fmt.Sprintf("bound-cpu%d-mem%d", cpuNode, memNode)
		}
	}
	if _, ok := NodeByID(nodes, memNode); !ok {
		return nil, fmt.Errorf("--mem-node %d: not an online node", memNode)
	}
	res.Params["senders"] = n
	res.Params["size"] = size
	res.Params["bound_cpus"] = cpulist.Format(bound)
	res.Params["bound_mem_node"] = memNode
	if len(nodes) == 1 && len(o.CPUs) == 0 {
		res.Note("one NUMA node: binding to it changes no locality (the bound case shows the cost of the binding alone)")
	}
	type variant struct {
		name string
		cpus []int
		mems []int
	}
	variants := []variant{{"unbound", nil, nil}, {boundName, bound, []int{memNode}}}
	for _, v := range variants {
		var hAll Histogram
		var rates []float64
		for rep := 1; rep <= o.repeat(); rep++ {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			o.Progress.Step(fmt.Sprintf("%s run %d", v.name, rep), o.Duration)
			h, msgs, el, err := mqRun(ctx, o.Registry, n, size, v.cpus, v.mems, o.Duration)
			if err != nil {
				return res, fmt.Errorf("%s: %w", v.name, err)
			}
			rate := float64(msgs) / el.Seconds()
			rates = append(rates, rate)
			lat := h.LatencyUS()
			res.Samples = append(res.Samples, Sample{Case: v.name, Repeat: rep, Seconds: el.Seconds(), OpsPerSec: F(rate), MeanUS: F(lat.Mean), P99US: F(lat.P99), Count: msgs})
			hAll.Merge(h)
		}
		row := Row{Case: v.name, OpsPerSec: F(Median(rates)), OpsUnit: "msgs/s", LatencyUS: hAll.LatencyUS(), Histogram: hAll.Buckets(1e3)}
		if v.cpus != nil {
			row.Labels = map[string]string{"cpus": cpulist.Format(v.cpus), "mem_node": strconv.Itoa(memNode)}
		}
		res.Results = append(res.Results, row)
	}
	if a, b := res.Results[0].OpsPerSec, res.Results[1].OpsPerSec; *a > 0 {
		res.Results[1].Extra = map[string]float64{"vs_unbound": *b / *a}
	}
	res.Note("%d senders, one receiver, %d-byte messages over SysV message queues; msgs/s are round trips (request + reply), medians over the repeats; latency from every message", n, size)
	res.Finish()
	return res, nil
}

// mqRun runs one measurement: the receiver and n senders, for d.
func mqRun(ctx context.Context, reg *Registry, n, size int, cpus, mems []int, d time.Duration) (*Histogram, uint64, time.Duration, error) {
	queues := make([]*msgQueue, n+1)
	defer func() {
		for _, q := range queues {
			if q != nil {
				_ = q.remove(reg)
			}
		}
	}()
	for i := range queues {
		q, err := newQueue(reg)
		if err != nil {
			return nil, 0, 0, err
		}
		queues[i] = q
	}
	var wg, senders sync.WaitGroup
	errc := make(chan error, n+1)
	// The receiver: every request names its sender in mtype; the reply goes
	// to that sender's queue.
	wg.Add(1)
	crash.Go(func() {
		defer wg.Done()
		if err := pinThread(cpus, mems); err != nil {
			errc <- err
			return
		}
		buf := make([]byte, 8+size)
		for {
			t, err := msgRecv(queues[0].id, buf)
			if err != nil || t == mtypeStop {
				if err != nil && !errors.Is(err, unix.EIDRM) && !errors.Is(err, unix.EINVAL) {
					errc <- fmt.Errorf("receiver: msgrcv: %w", err)
				}
				return
			}
			if t < 1 || int(t) > n {
				errc <- fmt.Errorf("receiver: message of unknown sender %d", t)
				return
			}
			if err := msgSend(queues[t].id, buf, 1); err != nil {
				if !errors.Is(err, unix.EIDRM) && !errors.Is(err, unix.EINVAL) {
					errc <- fmt.Errorf("receiver: msgsnd: %w", err)
				}
				return
			}
		}
	})
	hs := make([]Histogram, n)
	counts := make([]uint64, n)
	start := make(chan struct{})
	stop := make(chan struct{})
	var ready sync.WaitGroup
	for i := 1; i <= n; i++ {
		senders.Add(1)
		ready.Add(1)
		crash.Go(func() {
			defer senders.Done()
			err := pinThread(cpus, mems)
			ready.Done()
			if err != nil {
				errc <- err
				return
			}
			buf := make([]byte, 8+size)
			<-start
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				if err := msgSend(queues[0].id, buf, int64(i)); err != nil {
					return
				}
				if _, err := msgRecv(queues[i].id, buf); err != nil {
					return
				}
				hs[i-1].Record(time.Since(t0).Nanoseconds())
				counts[i-1]++
			}
		})
	}
	ready.Wait()
	t0 := time.Now()
	close(start)
	select {
	case <-time.After(d):
	case <-ctx.Done():
	}
	close(stop)
	el := time.Since(t0)
	// Every sender finishes its round trip (the receiver still serves), then
	// the receiver gets the stop message.
	sendersDone := make(chan struct{})
	crash.Go(func() { senders.Wait(); close(sendersDone) })
	select {
	case <-sendersDone:
		_ = msgSend(queues[0].id, make([]byte, 8+size), mtypeStop)
		wg.Wait()
	case <-time.After(10 * time.Second):
		// Something is stuck in msgrcv: removing the queues wakes it (EIDRM).
		for _, q := range queues {
			_, _, _ = unix.Syscall(unix.SYS_MSGCTL, uintptr(q.id), ipcRmid, 0)
		}
		<-sendersDone
		wg.Wait()
	}
	close(errc)
	for err := range errc {
		return nil, 0, 0, err
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, 0, err
	}
	var h Histogram
	var total uint64
	for i := range hs {
		h.Merge(&hs[i])
		total += counts[i]
	}
	return &h, total, el, nil
}
