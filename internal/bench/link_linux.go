//go:build linux

package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"

	"github.com/dbhost/dbhost/internal/crash"
)

// Link is an emulated network link between two network namespaces this
// process created, A (the server side, 10.213.0.1) and B (the client side,
// 10.213.0.2): veth with tc netem where the kernel has netem, otherwise two
// TUN devices joined by a userspace forwarder that delays, rate-limits and
// drops packets. Real TCP runs over it and sees a real RTT and
// bandwidth-delay product.
//
// The namespaces are never named or bind-mounted and the TUN devices are
// not persistent: they live as long as this process holds their file
// descriptors, so the kernel removes everything when the process ends,
// also on SIGKILL.
type Link struct {
	opt     LinkOptions
	method  string // "netem" or "tun"
	why     string // why netem was not used
	nsA     netns.NsHandle
	nsB     netns.NsHandle
	tunA    *os.File
	tunB    *os.File
	stop    chan struct{}
	wg      sync.WaitGroup
	closing atomic.Bool
	stats   [2]linkStats
}

type linkStats struct {
	packets, dropped, lost atomic.Uint64
}

// Link addresses.
const (
	LinkAddrA = "10.213.0.1"
	LinkAddrB = "10.213.0.2"
)

// NewLink builds the link. It needs root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and
// /dev/net/tun for the userspace method.
func NewLink(o LinkOptions) (*Link, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	l := &Link{opt: o, stop: make(chan struct{}), nsA: netns.None(), nsB: netns.None()}
	var err error
	// New namespaces are made from a locked thread that is put back in the
	// original namespace; if that fails the thread stays locked and dies
	// with its goroutine.
	done := make(chan error, 1)
	crash.Go(func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			done <- err
			return
		}
		defer orig.Close()
		e := l.makeNamespaces()
		if err := netns.Set(orig); err != nil {
			done <- errors.Join(e, fmt.Errorf("back to the original network namespace: %w", err))
			return // the thread stays locked: the runtime ends it
		}
		runtime.UnlockOSThread()
		done <- e
	})
	if err = <-done; err != nil {
		l.Close()
		return nil, err
	}
	switch o.Method {
	case "", "auto":
		if err = l.setupNetem(); err != nil {
			l.why = err.Error()
			err = l.setupTUN()
		}
	case "netem":
		err = l.setupNetem()
	case "tun":
		l.why = "--link tun"
		err = l.setupTUN()
	}
	if err != nil {
		l.Close()
		return nil, err
	}
	if err := l.waitUp(); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// makeNamespaces creates A and B (the calling thread ends in B).
func (l *Link) makeNamespaces() error {
	var err error
	if l.nsA, err = netns.New(); err != nil {
		return fmt.Errorf("new network namespace: %w (needs root)", err)
	}
	if l.nsB, err = netns.New(); err != nil {
		return fmt.Errorf("new network namespace: %w", err)
	}
	return nil
}

// Method says how the link is emulated, for the output.
func (l *Link) Method() string {
	if l.method == "netem" {
		return "tc netem on a veth pair between two private network namespaces"
	}
	s := "userspace: two private network namespaces joined by TUN devices through dbhost's forwarder"
	if l.why != "" {
		s += " (netem not used: " + l.why + ")"
	}
	return s
}

// MethodName is "netem" or "tun".
func (l *Link) MethodName() string { return l.method }

// setupNetem: a veth pair A<->B, netem on both ends.
func (l *Link) setupNetem() error {
	ha, err := netlink.NewHandleAt(l.nsA)
	if err != nil {
		return err
	}
	defer ha.Close()
	hb, err := netlink.NewHandleAt(l.nsB)
	if err != nil {
		return err
	}
	defer hb.Close()
	veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "dbh0"}, PeerName: "dbh1", PeerNamespace: netlink.NsFd(l.nsB)}
	if err := ha.LinkAdd(veth); err != nil {
		return fmt.Errorf("veth: %w", err)
	}
	del := func() {
		if a, err := ha.LinkByName("dbh0"); err == nil {
			_ = ha.LinkDel(a)
		}
	}
	for i, side := range []struct {
		h    *netlink.Handle
		name string
	}{{ha, "dbh0"}, {hb, "dbh1"}} {
		ln, err := side.h.LinkByName(side.name)
		if err != nil {
			del()
			return err
		}
		q := netlink.NewNetem(netlink.QdiscAttrs{LinkIndex: ln.Attrs().Index, Handle: netlink.MakeHandle(1, 0), Parent: netlink.HANDLE_ROOT},
			netlink.NetemQdiscAttrs{Latency: uint32(l.opt.Delay.Microseconds()), Loss: float32(l.opt.LossPct), Rate64: uint64(l.opt.RateBps / 8), Limit: 100000})
		if err := side.h.QdiscAdd(q); err != nil {
			del()
			return fmt.Errorf("tc qdisc add netem: %w", err)
		}
		if err := l.addr(side.h, ln, i == 0); err != nil {
			del()
			return err
		}
	}
	l.method = "netem"
	return nil
}

func (l *Link) addr(h *netlink.Handle, ln netlink.Link, isA bool) error {
	local, peer := LinkAddrA, LinkAddrB
	if !isA {
		local, peer = peer, local
	}
	a := &netlink.Addr{IPNet: &net.IPNet{IP: net.ParseIP(local), Mask: net.CIDRMask(32, 32)},
		Peer: &net.IPNet{IP: net.ParseIP(peer), Mask: net.CIDRMask(32, 32)}}
	if err := h.AddrAdd(ln, a); err != nil {
		return fmt.Errorf("address %s: %w", local, err)
	}
	if err := h.LinkSetUp(ln); err != nil {
		return fmt.Errorf("link up: %w", err)
	}
	if lo, err := h.LinkByName("lo"); err == nil {
		_ = h.LinkSetUp(lo)
	}
	return nil
}

// openTUN creates a TUN device "dbh0" in namespace ns (non-persistent: it
// goes with the file).
func openTUN(ns netns.NsHandle) (*os.File, error) {
	var f *os.File
	err := inNamespace(ns, func() error {
		fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("/dev/net/tun: %w", err)
		}
		ifr, err := unix.NewIfreq("dbh0")
		if err != nil {
			unix.Close(fd)
			return err
		}
		ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
		if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
			unix.Close(fd)
			return fmt.Errorf("TUNSETIFF: %w", err)
		}
		f = os.NewFile(uintptr(fd), "tun")
		return nil
	})
	return f, err
}

// setupTUN: a TUN device in each namespace, and the forwarder.
func (l *Link) setupTUN() error {
	var err error
	if l.tunA, err = openTUN(l.nsA); err != nil {
		return err
	}
	if l.tunB, err = openTUN(l.nsB); err != nil {
		return err
	}
	for i, ns := range []netns.NsHandle{l.nsA, l.nsB} {
		h, err := netlink.NewHandleAt(ns)
		if err != nil {
			return err
		}
		ln, err := h.LinkByName("dbh0")
		if err == nil {
			err = l.addr(h, ln, i == 0)
		}
		h.Close()
		if err != nil {
			return err
		}
	}
	l.method = "tun"
	l.forward(l.tunA, l.tunB, &l.stats[0], int64(1))
	l.forward(l.tunB, l.tunA, &l.stats[1], int64(2))
	return nil
}

// waitUp waits until a UDP datagram crosses the link (both ways).
func (l *Link) waitUp() error {
	pc, err := l.ListenPacketA("udp4", LinkAddrA+":0")
	if err != nil {
		return err
	}
	defer pc.Close()
	crash.Go(func() {
		buf := make([]byte, 64)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo(buf[:n], from)
		}
	})
	c, err := l.DialB(context.Background(), "udp4", pc.LocalAddr().String())
	if err != nil {
		return err
	}
	defer c.Close()
	buf := make([]byte, 64)
	deadline := time.Now().Add(5*time.Second + 4*l.opt.Delay)
	for time.Now().Before(deadline) {
		_, _ = c.Write([]byte("up?"))
		_ = c.SetReadDeadline(time.Now().Add(2*l.opt.Delay + 100*time.Millisecond))
		if _, err := c.Read(buf); err == nil {
			return nil
		}
	}
	return fmt.Errorf("the emulated link (%s) carries no packets after 5 s", l.method)
}

// inNamespace runs f on a locked thread inside ns, then puts the thread
// back (or lets it die if that fails). Sockets created by f stay in ns.
func inNamespace(ns netns.NsHandle, f func() error) error {
	done := make(chan error, 1)
	crash.Go(func() {
		runtime.LockOSThread()
		orig, err := netns.Get()
		if err != nil {
			done <- err
			return
		}
		defer orig.Close()
		if err := netns.Set(ns); err != nil {
			done <- fmt.Errorf("setns: %w", err)
			return
		}
		e := f()
		if err := netns.Set(orig); err != nil {
			done <- errors.Join(e, err)
			return // stays locked: the runtime ends the thread
		}
		runtime.UnlockOSThread()
		done <- e
	})
	return <-done
}

// ListenA listens in namespace A.
func (l *Link) ListenA(lc net.ListenConfig, network, addr string) (net.Listener, error) {
	var ln net.Listener
	err := inNamespace(l.nsA, func() (err error) {
		ln, err = lc.Listen(context.Background(), network, addr)
		return err
	})
	return ln, err
}

// ListenPacketA opens a datagram socket in namespace A.
func (l *Link) ListenPacketA(network, addr string) (net.PacketConn, error) {
	var pc net.PacketConn
	err := inNamespace(l.nsA, func() (err error) {
		pc, err = net.ListenPacket(network, addr)
		return err
	})
	return pc, err
}

// DialB connects from namespace B (the socket is created there; the
// connect may complete on any thread).
func (l *Link) DialB(ctx context.Context, network, addr string) (net.Conn, error) {
	return l.DialBWith(ctx, net.Dialer{}, network, addr)
}

// DialBWith is DialB with a dialer (socket options in its Control).
func (l *Link) DialBWith(ctx context.Context, d net.Dialer, network, addr string) (net.Conn, error) {
	var c net.Conn
	err := inNamespace(l.nsB, func() (err error) {
		c, err = d.DialContext(ctx, network, addr)
		return err
	})
	return c, err
}

// Stats: packets forwarded, dropped by the queue limit, lost on purpose.
func (l *Link) Stats() (packets, dropped, lost uint64) {
	for i := range l.stats {
		packets += l.stats[i].packets.Load()
		dropped += l.stats[i].dropped.Load()
		lost += l.stats[i].lost.Load()
	}
	return
}

// Close stops the forwarder and releases the devices and namespaces (the
// kernel removes them with the last reference).
func (l *Link) Close() error {
	if l == nil || l.closing.Swap(true) {
		return nil
	}
	close(l.stop)
	l.wg.Wait() // the reader sees stop within its 100 ms poll
	if l.tunA != nil {
		l.tunA.Close()
	}
	if l.tunB != nil {
		l.tunB.Close()
	}
	if l.nsA.IsOpen() {
		l.nsA.Close()
	}
	if l.nsB.IsOpen() {
		l.nsB.Close()
	}
	return nil
}

// packet is one datagram in flight with its release time (CLOCK_MONOTONIC ns).
type packet struct {
	data    []byte
	release int64
}

func monoNow() int64 {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return ts.Nano()
}

// forward moves packets from in to out: serialised at the rate (if any),
// queued up to the limit (tail drop), lost with the probability, and
// released after the delay. A reader thread stamps packets as they arrive;
// a writer thread (timer slack 1 ns, absolute clock_nanosleep) releases
// them on time, in order. Both run SCHED_FIFO where allowed (root), as the
// kernel's netem runs in softirq: on a busy host an ordinary thread would
// wait for a time slice and stretch the delay.
func (l *Link) forward(in, out *os.File, st *linkStats, seed int64) {
	q := make(chan packet, 1<<16)
	delay := l.opt.Delay.Nanoseconds()
	rate := l.opt.RateBps
	limit := l.opt.queueBytes()
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(time.Now().UnixNano())))
	inFd, outFd := int(in.Fd()), int(out.Fd()) // Fd() makes them blocking: reads poll with a timeout
	l.wg.Add(2)
	crash.Go(func() {
		defer l.wg.Done()
		defer close(q)
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		realtime()
		var txEnd int64 // when the link is free again (rate limiting)
		buf := make([]byte, 65536)
		pfd := []unix.PollFd{{Fd: int32(inFd), Events: unix.POLLIN}}
		for {
			select {
			case <-l.stop:
				return
			default:
			}
			k, err := unix.Poll(pfd, 100)
			if err == unix.EINTR || k == 0 {
				continue
			}
			if err != nil || pfd[0].Revents&(unix.POLLERR|unix.POLLHUP|unix.POLLNVAL) != 0 {
				return
			}
			n, err := unix.Read(inFd, buf)
			if err == unix.EAGAIN || err == unix.EINTR {
				continue
			}
			if err != nil {
				return
			}
			now := monoNow()
			st.packets.Add(1)
			if l.opt.LossPct > 0 && rng.Float64()*100 < l.opt.LossPct {
				st.lost.Add(1)
				continue
			}
			rel := now + delay
			if rate > 0 {
				start := max(now, txEnd)
				if backlog := float64(start-now) * float64(rate) / 8e9; int64(backlog) > limit {
					st.dropped.Add(1)
					continue
				}
				txEnd = start + int64(float64(n)*8e9/float64(rate))
				rel = txEnd + delay
			}
			p := packet{data: append([]byte(nil), buf[:n]...), release: rel}
			select {
			case q <- p:
			default:
				st.dropped.Add(1)
			}
		}
	})
	crash.Go(func() {
		defer l.wg.Done()
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		realtime()
		_ = unix.Prctl(unix.PR_SET_TIMERSLACK, 1, 0, 0, 0)
		for p := range q {
			for {
				now := monoNow()
				if now >= p.release {
					break
				}
				ts := unix.NsecToTimespec(p.release)
				err := unix.ClockNanosleep(unix.CLOCK_MONOTONIC, unix.TIMER_ABSTIME, &ts, nil)
				if err != nil && err != unix.EINTR {
					break
				}
			}
			_, _ = unix.Write(outFd, p.data)
		}
	})
}

// realtime makes the calling thread SCHED_FIFO priority 1 where allowed.
func realtime() {
	type schedParam struct{ prio int32 }
	p := schedParam{1}
	const schedFIFO = 1
	_, _, _ = unix.RawSyscall(unix.SYS_SCHED_SETSCHEDULER, 0, schedFIFO, uintptr(unsafe.Pointer(&p)))
}
