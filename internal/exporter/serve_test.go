package exporter

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// safety is how long a test waits for what must happen before calling it
// a hang: a safety net, never the property checked.
const safety = 30 * time.Second

// idleClients opens n connections to addr and leaves them idle: the even
// ones after one request and its response (a client that got its 401 and
// keeps the connection), the odd ones without sending a byte.
func idleClients(t *testing.T, addr string, n int) []*bufio.Reader {
	t.Helper()
	var rs []*bufio.Reader
	for i := range n {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		t.Cleanup(func() { c.Close() })
		c.SetDeadline(time.Now().Add(safety))
		r := bufio.NewReader(c)
		if i%2 == 0 {
			io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				// Evicted already by the cap: closed, which is what the
				// test wants of it in the end.
				rs = append(rs, r)
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		rs = append(rs, r)
	}
	return rs
}

// closedByServer waits (within safety) for the server to close r's
// connection: EOF or a reset, not the client's own deadline.
func closedByServer(r *bufio.Reader) error {
	_, err := io.Copy(io.Discard, r)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return errors.New("still open (the client's safety deadline passed)")
	}
	return nil // EOF (nil from Copy) or a reset: closed
}

// serve starts an exporter server with lim on a loopback port.
func serve(t *testing.T, lim Limits) (string, *Guard, *syncBuf) {
	t.Helper()
	sa := &slowAudit{}
	e := &Exporter{Audit: sa.audit, Interval: time.Hour}
	log := &syncBuf{}
	srv, g := NewServer(e.Handler(), lim, log)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(g.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String(), g, log
}

// scrapeOK is one authorised scrape on a new connection.
func scrapeOK(t *testing.T, addr string) {
	t.Helper()
	client := &http.Client{Timeout: safety}
	defer client.CloseIdleConnections()
	resp, err := client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("the scrape behind the idle clients: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "dbhost_audits_total 1") {
		t.Fatalf("scrape: %d\n%s", resp.StatusCode, b)
	}
}

// TestServerIdleClientsCannotStarve: more idle clients than the cap (some
// after a response, some silent) do not keep an authorised scrape out —
// the longest idle is closed for each new connection, so the server never
// holds more than MaxConns (timeouts long enough here that only the cap
// closes anything) — and, with short timeouts, every idle connection is
// closed by the server in the end (ReadHeaderTimeout, IdleTimeout).
func TestServerIdleClientsCannotStarve(t *testing.T) {
	addr, g, log := serve(t, Limits{ReadHeaderTimeout: safety, ReadTimeout: safety, WriteTimeout: safety, IdleTimeout: safety, MaxConns: 64})
	idleClients(t, addr, 100)
	scrapeOK(t, addr)
	// The scrape's connection was accepted after the 100 before it: at
	// least 101 - 64 were closed to make room, and never more than 64 open.
	if n := g.Evicted(); n < 101-64 {
		t.Errorf("%d connections closed for room; want at least %d", n, 101-64)
	}
	if n := g.Open(); n > 64 {
		t.Errorf("%d connections open; the cap is 64", n)
	}
	if !strings.Contains(log.String(), "64 connections open (the limit)") {
		t.Errorf("no word of the cap on the log: %q", log.String())
	}

	// Short timeouts, a cap above the clients: the timeouts alone close them.
	short := 300 * time.Millisecond
	addr, g, _ = serve(t, Limits{ReadHeaderTimeout: short, ReadTimeout: short, WriteTimeout: safety, IdleTimeout: short, MaxConns: 512})
	idle := idleClients(t, addr, 100)
	scrapeOK(t, addr)
	for i, r := range idle {
		if err := closedByServer(r); err != nil {
			t.Errorf("idle client %d: %v", i, err)
		}
	}
	if n := g.Evicted(); n != 0 {
		t.Errorf("%d evicted under the cap", n)
	}
	// Every connection is gone from the count (bounded wait: the server
	// uncounts a connection as its goroutine ends).
	for i := 0; g.Open() > 0 && i < 3000; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := g.Open(); n != 0 {
		t.Errorf("%d connections still counted after every client was closed", n)
	}
}

// TestServerCapAllBusy: when every connection is serving a request, a new
// one is closed instead of waiting: the cap holds.
func TestServerCapAllBusy(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
	})
	srv, g := NewServer(h, Limits{MaxConns: 2}, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(g.Listener(ln))
	defer srv.Close()
	defer close(release)
	addr := ln.Addr().String()
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		<-started
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(safety))
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if err := closedByServer(bufio.NewReader(c)); err != nil {
		t.Errorf("a third connection with two busy: %v", err)
	}
	if n := g.Open(); n != 2 {
		t.Errorf("%d connections open; want the 2 busy ones", n)
	}
}

// TestExposed: a warning for a non-loopback address unless the web
// configuration has both TLS and basic authentication.
func TestExposed(t *testing.T) {
	lo := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 9591}
	lo6 := &net.TCPAddr{IP: net.ParseIP("::1"), Port: 9591}
	any := &net.TCPAddr{IP: net.IPv4zero, Port: 9591}
	lan := &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 9591}
	both := []byte("tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\nbasic_auth_users:\n  prom: $2y$10$abc\n")
	tlsOnly := []byte("tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n")
	authOnly := []byte("basic_auth_users:\n  prom: $2y$10$abc\n")
	for _, c := range []struct {
		addr net.Addr
		cfg  []byte
		want string // "" none
	}{
		{lo, nil, ""},
		{lo6, nil, ""},
		{any, nil, "neither TLS nor basic authentication"},
		{lan, nil, "neither TLS nor basic authentication"},
		{any, tlsOnly, "no basic authentication"},
		{any, authOnly, "no TLS"},
		{any, both, ""},
		{lan, both, ""},
	} {
		got := Exposed(c.addr, c.cfg)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%v with %q: %q; want %q", c.addr, c.cfg, got, c.want)
		}
	}
}

// syncBuf is a log many goroutines write.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
