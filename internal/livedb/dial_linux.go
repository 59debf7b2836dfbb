package livedb

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"syscall"

	"github.com/dbhost/dbhost/internal/crash"
)

// dialUnixAs connects a unix socket with the effective uid and gid of
// another user, so that the server's peer authentication (PostgreSQL
// "peer", MySQL/MariaDB unix_socket) sees that user. Only the one OS thread
// that connects takes the credentials (setresuid/setresgid act on the
// calling thread; Go's syscall.Setuid would change every thread): the
// goroutine locks its thread and exits without unlocking it, so the Go
// runtime ends that thread and its borrowed credentials with it. The socket
// keeps the credentials it was connected with (SO_PEERCRED) and is used
// from any thread afterwards. Needs root.
func dialUnixAs(ctx context.Context, path string, uid, gid int) (net.Conn, error) {
	type result struct {
		c   net.Conn
		err error
	}
	ch := make(chan result, 1)
	crash.Go(func() {
		runtime.LockOSThread() // never unlocked: this thread dies with the goroutine
		keep := ^uintptr(0)    // -1: leave that id as it is
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, keep, uintptr(gid), keep); e != 0 {
			ch <- result{err: fmt.Errorf("setresgid(%d): %v", gid, e)}
			return
		}
		if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, keep, uintptr(uid), keep); e != 0 {
			ch <- result{err: fmt.Errorf("setresuid(%d): %v", uid, e)}
			return
		}
		fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			ch <- result{err: err}
			return
		}
		if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
			syscall.Close(fd)
			ch <- result{err: &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: path, Net: "unix"}, Err: os.NewSyscallError("connect", err)}}
			return
		}
		f := os.NewFile(uintptr(fd), path)
		c, err := net.FileConn(f)
		f.Close()
		ch <- result{c, err}
	})
	select {
	case r := <-ch:
		return r.c, r.err
	case <-ctx.Done():
		crash.Go(func() {
			if r := <-ch; r.c != nil {
				r.c.Close()
			}
		})
		return nil, ctx.Err()
	}
}
