//go:build linux

package bench

import (
	"net"
	"syscall"

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
