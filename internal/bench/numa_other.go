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
