//go:build !linux

package bench

import (
	"context"
	"fmt"
	"runtime"
)

// RunNuma needs Linux's sched_setaffinity, mbind and move_pages.
func RunNuma(ctx context.Context, o NumaOptions) (*Result, error) {
	return nil, fmt.Errorf("bench numa needs Linux (sched_setaffinity, mbind); this is %s", runtime.GOOS)
}

func pinThread(cpus, memNodes []int) error {
	return fmt.Errorf("binding a thread needs Linux; this is %s", runtime.GOOS)
}

func mmapAnon(size int) ([]byte, error) {
	return nil, fmt.Errorf("anonymous mappings for bound buffers need Linux; this is %s", runtime.GOOS)
}

func munmap(b []byte) error { return nil }
