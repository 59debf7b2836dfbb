//go:build linux

package bench

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Memory policy modes and flags (linux/mempolicy.h); x/sys has no
// set_mempolicy/mbind wrappers.
const (
	mpolDefault   = 0
	mpolBind      = 2
	mpolMFStrict  = 1 << 0
	mpolMFMove    = 1 << 1
	nodemaskWords = 16 // 1024 nodes
)

func nodemask(nodes []int) (*[nodemaskWords]uint64, error) {
	var m [nodemaskWords]uint64
	for _, n := range nodes {
		if n < 0 || n >= nodemaskWords*64 {
			return nil, fmt.Errorf("node %d: out of range", n)
		}
		m[n/64] |= 1 << (uint(n) % 64)
	}
	return &m, nil
}

// setMempolicy binds the calling thread's future allocations to nodes
// (MPOL_BIND), or back to the default with no nodes.
func setMempolicy(nodes []int) error {
	if len(nodes) == 0 {
		_, _, e := unix.Syscall(unix.SYS_SET_MEMPOLICY, mpolDefault, 0, 0)
		if e != 0 {
			return fmt.Errorf("set_mempolicy(MPOL_DEFAULT): %w", e)
		}
		return nil
	}
	m, err := nodemask(nodes)
	if err != nil {
		return err
	}
	_, _, e := unix.Syscall(unix.SYS_SET_MEMPOLICY, mpolBind, uintptr(unsafe.Pointer(m)), nodemaskWords*64+1)
	if e != 0 {
		return fmt.Errorf("set_mempolicy(MPOL_BIND, %v): %w", nodes, e)
	}
	return nil
}

// mbind binds a mapping's pages to nodes (MPOL_BIND, strict, moving pages
// already there).
func mbind(b []byte, nodes []int) error {
	m, err := nodemask(nodes)
	if err != nil {
		return err
	}
	_, _, e := unix.Syscall6(unix.SYS_MBIND, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), mpolBind,
		uintptr(unsafe.Pointer(m)), nodemaskWords*64+1, mpolMFStrict|mpolMFMove)
	if e != 0 {
		return fmt.Errorf("mbind(MPOL_BIND, %v): %w", nodes, e)
	}
	return nil
}

// pageNodes asks the kernel (move_pages without target nodes) which node
// holds each of up to n pages spread over b; it returns pages per node.
func pageNodes(b []byte, n int) (map[int]int, error) {
	pg := unix.Getpagesize()
	pages := len(b) / pg
	if pages == 0 {
		return nil, nil
	}
	n = min(n, pages)
	addrs := make([]uintptr, n)
	for i := range addrs {
		addrs[i] = uintptr(unsafe.Pointer(&b[(i*pages/n)*pg]))
	}
	status := make([]int32, n)
	_, _, e := unix.Syscall6(unix.SYS_MOVE_PAGES, 0, uintptr(n), uintptr(unsafe.Pointer(&addrs[0])), 0,
		uintptr(unsafe.Pointer(&status[0])), 0)
	runtime.KeepAlive(b)
	if e != 0 {
		return nil, fmt.Errorf("move_pages: %w", e)
	}
	out := map[int]int{}
	for _, s := range status {
		out[int(s)]++ // negative: -errno (page not present...)
	}
	return out, nil
}

// pinThread locks the calling goroutine to its thread and binds the thread
// to cpus (nil: leaves the affinity) and its allocations to memNodes (nil:
// leaves the policy). The thread is not unlocked: when the goroutine ends
// the runtime ends the thread with its binding, so no other goroutine ever
// runs on a bound thread.
func pinThread(cpus, memNodes []int) error {
	runtime.LockOSThread()
	if len(cpus) > 0 {
		var set unix.CPUSet
		for _, c := range cpus {
			set.Set(c)
		}
		if err := unix.SchedSetaffinity(0, &set); err != nil {
			return fmt.Errorf("sched_setaffinity(%v): %w", cpus, err)
		}
	}
	if len(memNodes) > 0 {
		if err := setMempolicy(memNodes); err != nil {
			return err
		}
	}
	return nil
}

// mmapAnon maps size bytes of private anonymous memory, advised for
// transparent huge pages (where THP is "madvise" or "always"): the chase
// then measures memory, not page walks.
func mmapAnon(size int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, err
	}
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
	return b, nil
}

func munmap(b []byte) error { return unix.Munmap(b) }
