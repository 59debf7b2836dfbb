//go:build !linux

package bench

import (
	"context"
	"fmt"
	"net"
	"runtime"
)

// Link needs Linux network namespaces.
type Link struct{}

// NewLink is not available here.
func NewLink(o LinkOptions) (*Link, error) {
	return nil, fmt.Errorf("emulated links need Linux network namespaces; this is %s", runtime.GOOS)
}

func (l *Link) Method() string             { return "" }
func (l *Link) MethodName() string         { return "" }
func (l *Link) Close() error               { return nil }
func (l *Link) Stats() (p, d, lost uint64) { return }
func (l *Link) ListenA(lc net.ListenConfig, network, addr string) (net.Listener, error) {
	return nil, fmt.Errorf("no link")
}
func (l *Link) ListenPacketA(network, addr string) (net.PacketConn, error) {
	return nil, fmt.Errorf("no link")
}
func (l *Link) DialB(ctx context.Context, network, addr string) (net.Conn, error) {
	return nil, fmt.Errorf("no link")
}
func (l *Link) DialBWith(ctx context.Context, d net.Dialer, network, addr string) (net.Conn, error) {
	return nil, fmt.Errorf("no link")
}

// Link addresses.
const (
	LinkAddrA = "10.213.0.1"
	LinkAddrB = "10.213.0.2"
)
