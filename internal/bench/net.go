package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/dbhost/dbhost/internal/crash"
)

// NetOptions: netperf's TCP_STREAM and UDP_RR, between --serve and
// --connect, or both ends in this process over loopback or an emulated
// link.
type NetOptions struct {
	Options
	Tests    []string // tcp_stream, udp_rr
	Connect  string   // HOST[:PORT] of a `dbhost bench net --serve`; "": both ends here
	MsgSize  int      // TCP send size (netperf -m); 0: 128 KiB
	SndBuf   int      // local socket buffers (netperf -s); 0: the kernel's autotuning
	RemBuf   int      // remote socket buffers (netperf -S)
	Streams  int      // parallel TCP streams / UDP request-response flows
	Request  int      // UDP request size; 0: 300
	Response int      // UDP response size; 0: 8000
	Link     LinkOptions
}

// NetDefaultPort is where --serve listens unless told.
const NetDefaultPort = 12865 // netperf's netserver port: the same firewall hole

// netReq is one test the client asks the server to take part in (one JSON
// line on the control connection); the server answers with netResp.
type netReq struct {
	Test     string `json:"test"` // tcp_stream, udp_rr, bye
	RcvBuf   int    `json:"rcvbuf,omitempty"`
	RecvSize int    `json:"recv_size,omitempty"` // read size (iperf3 -l, netperf -M)
	Response int    `json:"response,omitempty"`
	Streams  int    `json:"streams,omitempty"`
}

type netResp struct {
	Port     int    `json:"port,omitempty"`
	Bytes    int64  `json:"bytes,omitempty"`
	Error    string `json:"error,omitempty"`
	RcvBuf   int    `json:"rcvbuf,omitempty"`   // effective, as the kernel reports it
	Received int64  `json:"received,omitempty"` // datagrams
	// CPUSec is the CPU time the server process used during the test (for
	// a server in the client's process it counts both ends).
	CPUSec float64 `json:"cpu_s,omitempty"`
}

// netEnv creates sockets: the server side and the client side (the same
// host, or the two ends of an emulated link).
type netEnv struct {
	listen       func(lc net.ListenConfig, network, addr string) (net.Listener, error)
	listenPacket func(network, addr string) (net.PacketConn, error)
	dial         func(ctx context.Context, d net.Dialer, network, addr string) (net.Conn, error)
	serverHost   string
}

// HostEnv is this host's network namespace (for --serve).
func HostEnv() netEnv { return hostEnv("") }

func hostEnv(host string) netEnv {
	return netEnv{
		listen: func(lc net.ListenConfig, network, addr string) (net.Listener, error) {
			return lc.Listen(context.Background(), network, addr)
		},
		listenPacket: func(network, addr string) (net.PacketConn, error) { return net.ListenPacket(network, addr) },
		dial: func(ctx context.Context, d net.Dialer, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		serverHost: host,
	}
}

func linkEnv(l *Link) netEnv {
	return netEnv{listen: l.ListenA, listenPacket: l.ListenPacketA, dial: l.DialBWith, serverHost: LinkAddrA}
}

// bufControl sets SO_SNDBUF and SO_RCVBUF (when > 0) on a socket before it
// connects or listens, as netperf -s/-S do (after connect the window scale
// is already fixed).
func bufControl(size int) func(network, address string, c syscall.RawConn) error {
	if size <= 0 {
		return nil
	}
	return func(network, address string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) {
			serr = setSockBufs(fd, size)
		})
		if err != nil {
			return err
		}
		return serr
	}
}

// NetServer answers clients on a control listener until ctx ends.
type NetServer struct {
	env netEnv
	ln  net.Listener
	wg  sync.WaitGroup
	// Bind: the threads moving the data (receivers, UDP responder) are
	// bound here; nil: unbound.
	Bind *Binding
}

// StartNetServer listens for control connections on addr.
func StartNetServer(env netEnv, addr string) (*NetServer, error) {
	ln, err := env.listen(net.ListenConfig{}, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &NetServer{env: env, ln: ln}, nil
}

// Addr is the control address.
func (s *NetServer) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts clients until ctx ends or Close.
func (s *NetServer) Serve(ctx context.Context) error {
	crash.Go(func() {
		<-ctx.Done()
		s.ln.Close()
	})
	for {
		c, err := s.ln.Accept()
		if err != nil {
			s.wg.Wait()
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		s.wg.Add(1)
		crash.Go(func() {
			defer s.wg.Done()
			s.session(ctx, c)
		})
	}
}

// Close stops accepting and waits for the sessions.
func (s *NetServer) Close() error {
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

// maxCtlLine bounds one control message.
const maxCtlLine = 4096

func (s *NetServer) session(ctx context.Context, c net.Conn) {
	defer c.Close()
	crash.Go(func() {
		<-ctx.Done()
		c.Close()
	})
	r := bufio.NewReaderSize(io.LimitReader(c, 1<<20), maxCtlLine)
	enc := json.NewEncoder(c)
	host, _, _ := net.SplitHostPort(c.LocalAddr().String())
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		var q netReq
		if err := json.Unmarshal(line, &q); err != nil {
			_ = enc.Encode(netResp{Error: "bad request: " + err.Error()})
			return
		}
		switch q.Test {
		case "tcp_stream":
			s.tcpStream(ctx, c, r, enc, host, q)
		case "udp_rr":
			s.udpRR(ctx, r, enc, host, q)
		case "bye":
			return
		default:
			_ = enc.Encode(netResp{Error: fmt.Sprintf("unknown test %q", q.Test)})
			return
		}
	}
}

// tcpStream: a data listener; accept q.Streams connections, count bytes
// to EOF on all, answer the total.
func (s *NetServer) tcpStream(ctx context.Context, ctl net.Conn, r *bufio.Reader, enc *json.Encoder, host string, q netReq) {
	if q.Streams < 1 || q.Streams > 1024 || q.RcvBuf < 0 || q.RcvBuf > 1<<30 || q.RecvSize < 0 || q.RecvSize > 64<<20 {
		_ = enc.Encode(netResp{Error: "streams 1..1024, rcvbuf up to 1 GiB, recv_size up to 64 MiB"})
		return
	}
	rs := q.RecvSize
	if rs == 0 {
		rs = 128 << 10
	}
	ln, err := s.env.listen(net.ListenConfig{Control: bufControl(q.RcvBuf)}, "tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		_ = enc.Encode(netResp{Error: err.Error()})
		return
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	cpu0 := processCPU()
	if err := enc.Encode(netResp{Port: port}); err != nil {
		return
	}
	var total, eff int64
	var bindErr error
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := make(chan net.Conn, q.Streams)
	crash.Go(func() { <-ctx.Done(); ln.Close() })
	for i := 0; i < q.Streams; i++ {
		_ = ln.(*net.TCPListener).SetDeadline(time.Now().Add(30 * time.Second))
		c, err := ln.Accept()
		if err != nil {
			break
		}
		conns <- c
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			defer c.Close()
			if v := sockRcvBuf(c); v > 0 {
				mu.Lock()
				eff = int64(v)
				mu.Unlock()
			}
			// Reads of the client's send size, as iperf3 does (io.Copy to
			// io.Discard would read 8 KiB at a time).
			buf, free, err := bindData(s.Bind, rs)
			if err != nil {
				mu.Lock()
				bindErr = err
				mu.Unlock()
				return
			}
			defer free()
			n, _ := streamRecv(c, buf, func() bool { return ctx.Err() != nil })
			mu.Lock()
			total += n
			mu.Unlock()
		})
	}
	close(conns)
	wg.Wait()
	if bindErr != nil {
		_ = enc.Encode(netResp{Error: "binding the receiver: " + bindErr.Error()})
		return
	}
	_ = enc.Encode(netResp{Bytes: total, RcvBuf: int(eff), CPUSec: processCPU() - cpu0})
}

// udpRR: a datagram socket answering every request with q.Response bytes
// (the request's first 8 bytes, its sequence number, echoed), until the
// client says done on the control connection.
func (s *NetServer) udpRR(ctx context.Context, r *bufio.Reader, enc *json.Encoder, host string, q netReq) {
	if q.Response < 8 || q.Response > 65000 {
		_ = enc.Encode(netResp{Error: "response size 8..65000"})
		return
	}
	pc, err := s.env.listenPacket("udp", net.JoinHostPort(host, "0"))
	if err != nil {
		_ = enc.Encode(netResp{Error: err.Error()})
		return
	}
	defer pc.Close()
	var received int64
	done := make(chan struct{})
	crash.Go(func() {
		defer close(done)
		in, free, err := bindData(s.Bind, 65536)
		if err != nil {
			in = make([]byte, 65536) // the client sees no answers: its error says so
			pc.Close()
		} else {
			defer free()
		}
		out := make([]byte, q.Response)
		for {
			n, from, err := pc.ReadFrom(in)
			if err != nil {
				return
			}
			received++
			if n >= 8 {
				copy(out, in[:8])
			}
			_, _ = pc.WriteTo(out, from)
		}
	})
	if err := enc.Encode(netResp{Port: pc.LocalAddr().(*net.UDPAddr).Port}); err != nil {
		return
	}
	// The client's next line ends the test.
	_, _ = r.ReadSlice('\n')
	pc.Close()
	<-done
	_ = enc.Encode(netResp{Received: received})
}

// RunNet runs the tests against --connect, or against a server in this
// process on loopback (or across an emulated link).
func RunNet(ctx context.Context, o NetOptions) (*Result, error) {
	res := NewResult("net", o.Options)
	if len(o.Tests) == 0 {
		o.Tests = []string{"tcp_stream", "udp_rr"}
	}
	if o.MsgSize <= 0 {
		o.MsgSize = 128 << 10
	}
	if o.Streams <= 0 {
		o.Streams = 1
	}
	if o.Request <= 0 {
		o.Request = 300
	}
	if o.Response <= 0 {
		o.Response = 8000
	}
	if o.Request < 8 || o.Request > 65000 || o.Response < 8 || o.Response > 65000 {
		return nil, fmt.Errorf("--request/--response: 8 to 65000 bytes")
	}
	res.Params["tests"] = o.Tests
	res.Params["msg_size"] = o.MsgSize
	res.Params["sndbuf_local"] = o.SndBuf
	res.Params["sockbuf_remote"] = o.RemBuf
	res.Params["streams"] = o.Streams
	res.Params["request"] = o.Request
	res.Params["response"] = o.Response
	ctl := o.Connect
	env := hostEnv("")
	var link *Link
	switch {
	case ctl != "":
		if o.Link.Wanted() {
			return nil, fmt.Errorf("--delay/--rate/--loss emulate a link between two ends in this process: not with --connect")
		}
		if _, _, err := net.SplitHostPort(ctl); err != nil {
			ctl = net.JoinHostPort(ctl, strconv.Itoa(NetDefaultPort))
		}
		res.Params["remote"] = ctl
	default:
		if o.Link.Wanted() {
			var err error
			if link, err = NewLink(o.Link); err != nil {
				return nil, err
			}
			defer link.Close()
			env = linkEnv(link)
			res.Params["link"] = link.MethodName()
			res.Params["link_delay"] = o.Link.Delay.String()
			if o.Link.RateBps > 0 {
				res.Params["link_rate_bps"] = o.Link.RateBps
			}
			if o.Link.LossPct > 0 {
				res.Params["link_loss_pct"] = o.Link.LossPct
			}
			res.Note("emulated link (%s): %s", o.Link.Describe(), link.Method())
		} else {
			env = hostEnv("127.0.0.1")
			res.Params["remote"] = "loopback (both ends in this process)"
		}
		srv, err := StartNetServer(env, net.JoinHostPort(env.serverHost, "0"))
		if err != nil {
			return nil, err
		}
		srv.Bind = o.Bind
		sctx, cancel := context.WithCancel(ctx)
		crash.Go(func() { _ = srv.Serve(sctx) })
		defer func() { cancel(); srv.Close() }()
		ctl = srv.Addr().String()
	}
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	c, err := env.dial(dctx, net.Dialer{}, "tcp", ctl)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("control connection to %s: %w", ctl, err)
	}
	defer c.Close()
	crash.Go(func() { <-ctx.Done(); c.Close() })
	cl := &netClient{env: env, ctl: c, r: bufio.NewReaderSize(c, maxCtlLine), host: hostOf(ctl), o: o}
	for _, test := range o.Tests {
		var row Row
		var hAll Histogram
		var vals []float64
		var lost int64
		for rep := 1; rep <= o.repeat(); rep++ {
			if err := ctx.Err(); err != nil {
				return res, err
			}
			o.Progress.Step(fmt.Sprintf("%s run %d", test, rep), o.Duration)
			var s Sample
			var err error
			switch test {
			case "tcp_stream":
				s, row, err = cl.tcpStream(ctx)
				if err == nil {
					vals = append(vals, *s.ThroughputGbps)
				}
			case "udp_rr":
				var h *Histogram
				var l int64
				s, h, l, err = cl.udpRR(ctx)
				lost += l
				if err == nil {
					vals = append(vals, *s.OpsPerSec)
					hAll.Merge(h)
				}
			default:
				return nil, fmt.Errorf("--test %q: expected tcp_stream or udp_rr", test)
			}
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				return res, fmt.Errorf("%s: %w", test, err)
			}
			s.Case, s.Repeat = test, rep
			res.Samples = append(res.Samples, s)
		}
		row.Case = test
		if test == "tcp_stream" {
			row.ThroughputGbps = F(Median(vals))
		} else {
			row = Row{Case: test, OpsPerSec: F(Median(vals)), OpsUnit: "trans/s", LatencyUS: hAll.LatencyUS(), Histogram: hAll.Buckets(1e3),
				Extra: map[string]float64{"request_bytes": float64(o.Request), "response_bytes": float64(o.Response), "timeouts": float64(lost)}}
			// Payload throughput of the transactions, as netperf shows it for UDP_RR.
			row.ThroughputGbps = F(Median(vals) * float64(o.Request+o.Response) * 8 / 1e9)
		}
		res.Results = append(res.Results, row)
	}
	if o.Bind != nil {
		what := "the threads moving the data at both ends (TCP senders and receivers, UDP flows and responder), each buffer first touched on its bound thread"
		if o.Connect != "" {
			what = "this end's data threads (TCP senders, UDP flows), each buffer first touched on its bound thread; the --serve end binds its own with the same flags"
		}
		res.Params["binding"] = o.Bind.Params(what)
	}
	_ = json.NewEncoder(c).Encode(netReq{Test: "bye"})
	if link != nil {
		p, d, l := link.Stats()
		if link.MethodName() == "tun" {
			res.Note("link forwarder: %d packets, %d dropped by the queue limit, %d lost on purpose", p, d, l)
		}
	}
	res.Finish()
	return res, nil
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}

type netClient struct {
	env  netEnv
	ctl  net.Conn
	r    *bufio.Reader
	host string
	o    NetOptions
}

func (cl *netClient) ask(q netReq) (netResp, error) {
	if err := json.NewEncoder(cl.ctl).Encode(q); err != nil {
		return netResp{}, err
	}
	return cl.answer()
}

func (cl *netClient) answer() (netResp, error) {
	line, err := cl.r.ReadSlice('\n')
	if err != nil {
		return netResp{}, fmt.Errorf("control connection: %w", err)
	}
	var p netResp
	if err := json.Unmarshal(line, &p); err != nil {
		return p, fmt.Errorf("control connection: %v: not a dbhost bench net server", err)
	}
	if p.Error != "" {
		return p, fmt.Errorf("server: %s", p.Error)
	}
	return p, nil
}

// tcpStream: Streams connections send MsgSize writes for Duration, then
// close; the throughput is what the server received over the time from the
// first write to the server's count (all data drained).
func (cl *netClient) tcpStream(ctx context.Context) (Sample, Row, error) {
	var s Sample
	row := Row{Extra: map[string]float64{}}
	p, err := cl.ask(netReq{Test: "tcp_stream", RcvBuf: cl.o.RemBuf, Streams: cl.o.Streams, RecvSize: cl.o.MsgSize})
	if err != nil {
		return s, row, err
	}
	addr := net.JoinHostPort(cl.host, strconv.Itoa(p.Port))
	d := net.Dialer{Control: bufControl(cl.o.SndBuf), Timeout: 10 * time.Second}
	conns := make([]net.Conn, 0, cl.o.Streams)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < cl.o.Streams; i++ {
		c, err := cl.env.dial(ctx, d, "tcp", addr)
		if err != nil {
			return s, row, err
		}
		conns = append(conns, c)
	}
	var wg sync.WaitGroup
	var sent int64
	var bindErr error
	var mu sync.Mutex
	cpu0 := processCPU()
	start := time.Now()
	end := start.Add(cl.o.Duration)
	for _, c := range conns {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			buf, free, err := bindData(cl.o.Bind, cl.o.MsgSize)
			if err != nil {
				mu.Lock()
				bindErr = err
				mu.Unlock()
				return
			}
			defer free()
			n, _ := streamSend(c, buf, end, func() bool { return ctx.Err() != nil })
			mu.Lock()
			sent += n
			mu.Unlock()
		})
	}
	wg.Wait()
	info := tcpInfo(conns[0])
	for _, c := range conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.CloseWrite()
		}
	}
	p, err = cl.answer()
	el := time.Since(start)
	cpu := processCPU() - cpu0
	if bindErr != nil {
		return s, row, fmt.Errorf("binding the sender: %w", bindErr)
	}
	if err != nil {
		return s, row, err
	}
	if ctx.Err() != nil {
		return s, row, ctx.Err()
	}
	gbps := float64(p.Bytes) * 8 / el.Seconds() / 1e9
	s.Seconds, s.ThroughputGbps, s.Count = el.Seconds(), F(gbps), uint64(p.Bytes)
	row.Extra["bytes_received"] = float64(p.Bytes)
	if p.RcvBuf > 0 {
		row.Extra["rcvbuf_remote_bytes"] = float64(p.RcvBuf)
	}
	if v := sockSndBuf(conns[0]); v > 0 {
		row.Extra["sndbuf_local_bytes"] = float64(v)
	}
	// CPU as netperf -c/-C shows it: % of one CPU over the test, and the
	// service demand (CPU µs per KiB received). Both ends in this process:
	// one figure for the two (and a link forwarder's work).
	if cpu > 0 && p.Bytes > 0 {
		row.Extra["cpu_local_pct"] = cpu / el.Seconds() * 100
		row.Extra["service_demand_local_us_per_kb"] = cpu * 1e6 / (float64(p.Bytes) / 1024)
		s.CPUSec = F(cpu)
	}
	if cl.o.Connect != "" && p.CPUSec > 0 && p.Bytes > 0 {
		row.Extra["cpu_remote_pct"] = p.CPUSec / el.Seconds() * 100
		row.Extra["service_demand_remote_us_per_kb"] = p.CPUSec * 1e6 / (float64(p.Bytes) / 1024)
		s.CPURemoteSec = F(p.CPUSec)
	}
	if info != nil {
		row.Extra["rtt_ms"] = info.RTTus / 1e3
		row.Extra["retransmits"] = float64(info.Retrans)
		if info.CwndSegs > 0 {
			row.Extra["cwnd_segments"] = float64(info.CwndSegs)
		}
	}
	return s, row, nil
}

// udpRR: each flow sends a Request-byte datagram carrying a sequence
// number and waits for the Response-byte reply with it (a lost datagram is
// resent after 200 ms or 4 RTTs, and counted); the transaction latency of
// every round trip goes in the histogram.
func (cl *netClient) udpRR(ctx context.Context) (Sample, *Histogram, int64, error) {
	var s Sample
	p, err := cl.ask(netReq{Test: "udp_rr", Response: cl.o.Response})
	if err != nil {
		return s, nil, 0, err
	}
	addr := net.JoinHostPort(cl.host, strconv.Itoa(p.Port))
	flows := cl.o.Streams
	hs := make([]Histogram, flows)
	errs := make([]error, flows)
	var lost int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(cl.o.Duration)
	for f := 0; f < flows; f++ {
		wg.Add(1)
		crash.Go(func() {
			defer wg.Done()
			c, err := cl.env.dial(ctx, net.Dialer{Control: bufControl(cl.o.SndBuf)}, "udp", addr)
			if err != nil {
				errs[f] = err
				return
			}
			defer c.Close()
			req := make([]byte, cl.o.Request)
			in, free, err := bindData(cl.o.Bind, 65536)
			if err != nil {
				errs[f] = fmt.Errorf("binding the flow: %w", err)
				return
			}
			defer free()
			timeout := 200 * time.Millisecond
			var seq uint64
			var l int64
			for time.Now().Before(end) && ctx.Err() == nil {
				seq++
				binary.BigEndian.PutUint64(req, seq)
				t0 := time.Now()
				if _, err := c.Write(req); err != nil {
					errs[f] = err
					return
				}
				for {
					_ = c.SetReadDeadline(time.Now().Add(timeout))
					n, err := c.Read(in)
					if err != nil {
						var ne net.Error
						if errors.As(err, &ne) && ne.Timeout() {
							l++
							break // resend with a new sequence number
						}
						errs[f] = err
						return
					}
					if n >= 8 && binary.BigEndian.Uint64(in) == seq {
						d := time.Since(t0)
						hs[f].Record(d.Nanoseconds())
						timeout = max(200*time.Millisecond, 4*d)
						break
					}
				}
			}
			mu.Lock()
			lost += l
			mu.Unlock()
		})
	}
	wg.Wait()
	el := time.Since(start)
	if _, err := cl.ctl.Write([]byte("{\"test\":\"done\"}\n")); err != nil {
		return s, nil, 0, err
	}
	if _, err := cl.answer(); err != nil {
		return s, nil, 0, err
	}
	for _, err := range errs {
		if err != nil {
			return s, nil, 0, err
		}
	}
	var h Histogram
	for i := range hs {
		h.Merge(&hs[i])
	}
	rate := float64(h.Count()) / el.Seconds()
	lat := h.LatencyUS()
	s.Seconds, s.OpsPerSec, s.MeanUS, s.P99US, s.Count = el.Seconds(), F(rate), F(lat.Mean), F(lat.P99), h.Count()
	return s, &h, lost, nil
}

// goSend and goRecv are the stream's data path through Go's own
// non-blocking I/O (where the socket's descriptor is not reachable).
func goSend(c net.Conn, buf []byte, end time.Time, stop func() bool) (int64, error) {
	_ = c.SetWriteDeadline(end)
	var n int64
	for !stop() {
		k, err := c.Write(buf)
		n += int64(k)
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) {
				err = nil
			}
			return n, err
		}
	}
	return n, nil
}

func goRecv(c net.Conn, buf []byte) (int64, error) {
	var n int64
	for {
		k, err := c.Read(buf)
		n += int64(k)
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return n, err
		}
	}
}
