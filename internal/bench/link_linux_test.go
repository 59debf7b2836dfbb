package bench

import (
	"fmt"
	"net"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// udpSocket makes a blocking UDP socket bound to addr:0 in namespace ns.
func udpSocket(l *Link, a bool, addr string) (int, *unix.SockaddrInet4, error) {
	fd := -1
	var sa unix.SockaddrInet4
	ns := l.nsB
	if a {
		ns = l.nsA
	}
	err := inNamespace(ns, func() error {
		var err error
		fd, err = unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return err
		}
		copy(sa.Addr[:], net.ParseIP(addr).To4())
		if err := unix.Bind(fd, &sa); err != nil {
			return err
		}
		got, err := unix.Getsockname(fd)
		if err != nil {
			return err
		}
		sa = *got.(*unix.SockaddrInet4)
		return nil
	})
	return fd, &sa, err
}

// rawPing sends n pings from B to an echo in A, each side on a locked
// SCHED_FIFO thread, and returns the round trips.
func rawPing(l *Link, n int) ([]time.Duration, error) {
	sfd, saddr, err := udpSocket(l, true, LinkAddrA)
	if err != nil {
		return nil, err
	}
	defer unix.Close(sfd)
	cfd, _, err := udpSocket(l, false, LinkAddrB)
	if err != nil {
		return nil, err
	}
	defer unix.Close(cfd)
	tv := unix.NsecToTimeval(int64(2 * time.Second))
	_ = unix.SetsockoptTimeval(sfd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	_ = unix.SetsockoptTimeval(cfd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	go func() {
		runtime.LockOSThread() // ends with the goroutine
		realtime()
		buf := make([]byte, 2048)
		for i := 0; i < n; i++ {
			k, from, err := unix.Recvfrom(sfd, buf, 0)
			if err != nil {
				return
			}
			_ = unix.Sendto(sfd, buf[:k], 0, from)
		}
	}()
	type res struct {
		rtts []time.Duration
		err  error
	}
	ch := make(chan res, 1)
	go func() {
		runtime.LockOSThread()
		realtime()
		var r res
		buf := make([]byte, 2048)
		for i := 0; i < n; i++ {
			t0 := time.Now()
			if err := unix.Sendto(cfd, []byte("ping"), 0, saddr); err != nil {
				r.err = err
				break
			}
			if _, _, err := unix.Recvfrom(cfd, buf, 0); err != nil {
				r.err = fmt.Errorf("ping %d: %w", i, err)
				break
			}
			r.rtts = append(r.rtts, time.Since(t0))
		}
		ch <- r
	}()
	r := <-ch
	return r.rtts, r.err
}
