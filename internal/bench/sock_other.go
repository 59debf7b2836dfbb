//go:build !linux

package bench

import (
	"net"
	"syscall"
	"time"
)

func setSockBufs(fd uintptr, size int) error {
	if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, size); err != nil {
		return err
	}
	return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, size)
}

func sockRcvBuf(c net.Conn) int { return 0 }
func sockSndBuf(c net.Conn) int { return 0 }

type tcpInfoT struct {
	RTTus    float64
	Retrans  uint32
	CwndSegs uint32
}

func tcpInfo(c net.Conn) *tcpInfoT { return nil }

func processCPU() float64 { return 0 }

func streamSend(c net.Conn, buf []byte, end time.Time, stop func() bool) (int64, error) {
	return goSend(c, buf, end, stop)
}

func streamRecv(c net.Conn, buf []byte, stop func() bool) (int64, error) { return goRecv(c, buf) }
