//go:build linux

package bench

import (
	"errors"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

func setSockBufs(fd uintptr, size int) error {
	if err := unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_SNDBUF, size); err != nil {
		return err
	}
	return unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, size)
}

func sockOpt(c net.Conn, opt int) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	v := 0
	_ = rc.Control(func(fd uintptr) {
		v, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, opt)
	})
	return v
}

// sockRcvBuf and sockSndBuf are the effective sizes (the kernel doubles
// what was asked for, for its bookkeeping, and autotuning grows them).
func sockRcvBuf(c net.Conn) int { return sockOpt(c, unix.SO_RCVBUF) }
func sockSndBuf(c net.Conn) int { return sockOpt(c, unix.SO_SNDBUF) }

type tcpInfoT struct {
	RTTus    float64
	Retrans  uint32
	CwndSegs uint32
}

// tcpInfo reads TCP_INFO: the smoothed RTT the kernel measured, the
// retransmissions, the congestion window.
func tcpInfo(c net.Conn) *tcpInfoT {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	var out *tcpInfoT
	_ = rc.Control(func(fd uintptr) {
		if ti, err := unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			out = &tcpInfoT{RTTus: float64(ti.Rtt), Retrans: ti.Total_retrans, CwndSegs: ti.Snd_cwnd}
		}
	})
	return out
}

// processCPU is the CPU time (user + system) this process has used so far,
// in seconds (what netperf -c/-C and iperf3's cpu_utilization_percent
// count: the process, not the whole host).
func processCPU() float64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// The TCP stream's data path is blocking send()/recv() loops on the
// socket, as netperf and iperf3 have, not Go's non-blocking writes that
// park on the poller at every full buffer (that costs extra syscalls,
// wake-ups and runtime threads: the bench would measure Go's scheduler as
// much as the network). A send or receive timeout of 200 ms lets the loops
// see the end of the test and a cancelled run.
const streamPoll = 200 * time.Millisecond

// streamSend writes buf with blocking sends until end or stop(); the
// bytes the kernel accepted.
func streamSend(c net.Conn, buf []byte, end time.Time, stop func() bool) (int64, error) {
	var n int64
	var werr error
	err := blockingFD(c, unix.SO_SNDTIMEO, func(fd int) {
		for !stop() && time.Now().Before(end) {
			k, err := unix.Write(fd, buf)
			if k > 0 {
				n += int64(k)
			}
			if err == unix.EINTR || err == unix.EAGAIN {
				continue
			}
			if err != nil {
				werr = err
				return
			}
		}
	})
	if err != nil {
		return goSend(c, buf, end, stop)
	}
	return n, werr
}

// streamRecv reads into buf with blocking receives until the peer closes
// (or stop()); the bytes received.
func streamRecv(c net.Conn, buf []byte, stop func() bool) (int64, error) {
	var n int64
	var rerr error
	err := blockingFD(c, unix.SO_RCVTIMEO, func(fd int) {
		for {
			k, err := unix.Read(fd, buf)
			if k > 0 {
				n += int64(k)
				continue
			}
			if err == unix.EINTR || err == unix.EAGAIN {
				if stop() {
					return
				}
				continue
			}
			rerr = err // nil at EOF
			return
		}
	})
	if err != nil {
		return goRecv(c, buf)
	}
	return n, rerr
}

// blockingFD runs f on c's descriptor switched to blocking mode with the
// timeout opt (SO_SNDTIMEO or SO_RCVTIMEO) set to streamPoll.
func blockingFD(c net.Conn, opt int, f func(fd int)) error {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return errors.New("not a socket")
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	err = rc.Control(func(fd uintptr) {
		tv := unix.NsecToTimeval(streamPoll.Nanoseconds())
		if serr = unix.SetsockoptTimeval(int(fd), unix.SOL_SOCKET, opt, &tv); serr != nil {
			return
		}
		if serr = unix.SetNonblock(int(fd), false); serr != nil {
			return
		}
		f(int(fd))
	})
	if err != nil {
		return err
	}
	return serr
}
