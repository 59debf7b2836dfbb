package exporter

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/goccy/go-yaml"
)

// Limits bound what the exporter's clients may hold: every connection ends
// after a bounded time unless it is serving a scrape, and no more than
// MaxConns are open at once. Without them, clients that connect and stay
// idle (after a 401, or sending nothing) kept a descriptor each until the
// process ran out of them, and an authorised scrape could no longer
// connect.
type Limits struct {
	// ReadHeaderTimeout: a new connection's request headers (and its TLS
	// handshake) must arrive within it.
	ReadHeaderTimeout time.Duration
	// ReadTimeout: the whole request, body included.
	ReadTimeout time.Duration
	// WriteTimeout: from the end of the request headers to the end of the
	// response; sized for a scrape that waits for an audit.
	WriteTimeout time.Duration
	// IdleTimeout: a kept-alive connection waiting for its next request.
	IdleTimeout time.Duration
	// MaxConns: connections open at once. One more arriving closes the
	// connection idle (or not yet past its request headers) the longest;
	// when every one is serving a request, the new one is closed.
	MaxConns int
}

// DefaultLimits are the exporter's (docs/limits.md, docs/fleet.md): a
// Prometheus server keeps one connection per target and scrapes every 15 s
// to 1 min, within a timeout of at most its interval.
var DefaultLimits = Limits{
	ReadHeaderTimeout: 10 * time.Second,
	ReadTimeout:       30 * time.Second,
	WriteTimeout:      2 * time.Minute,
	IdleTimeout:       90 * time.Second,
	MaxConns:          512,
}

// NewServer is the exporter's HTTP server with lim's timeouts, and the
// Guard that enforces lim.MaxConns: serve on g.Listener(ln).
func NewServer(h http.Handler, lim Limits, log io.Writer) (*http.Server, *Guard) {
	g := &Guard{max: lim.MaxConns, log: log, conns: map[net.Conn]*tracked{}}
	s := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: lim.ReadHeaderTimeout,
		ReadTimeout:       lim.ReadTimeout,
		WriteTimeout:      lim.WriteTimeout,
		IdleTimeout:       lim.IdleTimeout,
		ConnState:         g.connState,
	}
	return s, g
}

// Guard counts the server's connections and keeps them under a cap.
type Guard struct {
	max int
	log io.Writer

	mu      sync.Mutex
	conns   map[net.Conn]*tracked // by the accepted (raw) connection
	seq     uint64
	evicted int
	warned  bool
}

// tracked is one open connection.
type tracked struct {
	busy  bool   // serving a request (http.StateActive)
	since uint64 // order of its last change of state: the oldest idle goes first
}

// Open is the number of connections open now.
func (g *Guard) Open() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// Evicted is the number of connections closed to make room for a new one.
func (g *Guard) Evicted() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.evicted
}

// Listener wraps ln: each connection it accepts is counted, and one beyond
// the cap closes the connection idle the longest (or, all busy, itself).
func (g *Guard) Listener(ln net.Listener) net.Listener { return &guardListener{Listener: ln, g: g} }

type guardListener struct {
	net.Listener
	g *Guard
}

func (l *guardListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.g.admit(c) {
			return &guardConn{Conn: c, g: l.g}, nil
		}
		c.Close()
	}
}

// admit counts c, making room first when the cap is reached; false: every
// connection is serving a request, c is not taken.
func (g *Guard) admit(c net.Conn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.max > 0 && len(g.conns) >= g.max {
		var oldest net.Conn
		var at uint64
		for oc, t := range g.conns {
			if !t.busy && (oldest == nil || t.since < at) {
				oldest, at = oc, t.since
			}
		}
		if oldest == nil {
			g.warn("every one of the %d connections is serving a request: a new connection was closed", g.max)
			return false
		}
		delete(g.conns, oldest)
		oldest.Close() // the raw connection: no TLS close_notify to wait on
		g.evicted++
		g.warn("%d connections open (the limit): the longest idle is closed for each new one", g.max)
	}
	g.seq++
	g.conns[c] = &tracked{since: g.seq}
	return true
}

// warn says once that the cap was reached (a flood is not logged per
// connection).
func (g *Guard) warn(format string, args ...any) {
	if g.warned || g.log == nil {
		return
	}
	g.warned = true
	fmt.Fprintf(g.log, "dbhost exporter: "+format+" (said once)\n", args...)
}

// connState follows the server's view of each connection.
func (g *Guard) connState(c net.Conn, s http.ConnState) {
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	gc, ok := c.(*guardConn)
	if !ok {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.conns[gc.Conn]
	if t == nil {
		return
	}
	switch s {
	case http.StateActive:
		t.busy = true
	case http.StateIdle, http.StateNew:
		t.busy = false
		g.seq++
		t.since = g.seq
	case http.StateClosed, http.StateHijacked:
		delete(g.conns, gc.Conn)
	}
}

// guardConn uncounts its connection when closed.
type guardConn struct {
	net.Conn
	g    *Guard
	once sync.Once
}

func (c *guardConn) Close() error {
	c.once.Do(func() {
		c.g.mu.Lock()
		delete(c.g.conns, c.Conn)
		c.g.mu.Unlock()
	})
	return c.Conn.Close()
}

// Exposed says what is wrong with serving on addr given the web
// configuration webConfig (its YAML; nil: none): "" when addr is loopback
// or when the configuration sets both TLS and basic authentication;
// otherwise a warning naming what is missing. The metrics name the host's
// settings and weaknesses, and an audit costs the host CPU.
func Exposed(addr net.Addr, webConfig []byte) string {
	if ta, ok := addr.(*net.TCPAddr); ok && ta.IP.IsLoopback() {
		return ""
	}
	var c struct {
		TLS struct {
			CertFile string `yaml:"cert_file"`
			Cert     string `yaml:"cert"`
		} `yaml:"tls_server_config"`
		Users map[string]string `yaml:"basic_auth_users"`
	}
	if len(webConfig) > 0 {
		_ = yaml.Unmarshal(webConfig, &c) // exporter-toolkit validated it
	}
	tls := c.TLS.CertFile != "" || c.TLS.Cert != ""
	auth := len(c.Users) > 0
	var missing string
	switch {
	case tls && auth:
		return ""
	case tls:
		missing = "no basic authentication"
	case auth:
		missing = "no TLS: the passwords cross the network in clear"
	default:
		missing = "neither TLS nor basic authentication"
	}
	return fmt.Sprintf("serving %s, not a loopback address, with %s: anyone who can reach the port reads this host's audit "+
		"and makes it run audits; set tls_server_config and basic_auth_users in --web-config (docs/fleet.md)", addr, missing)
}
