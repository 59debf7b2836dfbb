//go:build !linux

package bench

import (
	"context"
	"fmt"
	"runtime"
)

// RunMQ needs Linux (SysV message queues through raw syscalls, thread binding).
func RunMQ(ctx context.Context, o MQOptions) (*Result, error) {
	return nil, fmt.Errorf("bench mq needs Linux; this is %s", runtime.GOOS)
}
