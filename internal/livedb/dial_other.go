//go:build !linux

package livedb

import (
	"context"
	"errors"
	"net"
)

// dialUnixAs needs Linux's per-thread credentials.
func dialUnixAs(context.Context, string, int, int) (net.Conn, error) {
	return nil, errors.New("connecting as another OS user (peer authentication) is supported on Linux only; give a connection string")
}
