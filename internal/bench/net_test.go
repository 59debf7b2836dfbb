//go:build linux

package bench

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func checkNetShape(t *testing.T, r *Result) {
	t.Helper()
	if len(r.Results) != 2 || r.Results[0].Case != "tcp_stream" || r.Results[1].Case != "udp_rr" {
		t.Fatalf("cases %v", r.Cases())
	}
	ts, rr := r.Results[0], r.Results[1]
	if ts.ThroughputGbps == nil || *ts.ThroughputGbps <= 0 || ts.Extra["bytes_received"] <= 0 {
		t.Errorf("tcp_stream: %+v", ts)
	}
	if rr.OpsPerSec == nil || *rr.OpsPerSec <= 0 || rr.LatencyUS == nil || rr.LatencyUS.Count == 0 || rr.LatencyUS.P50 <= 0 {
		t.Errorf("udp_rr: %+v", rr)
	}
	if len(r.Samples) != 2 {
		t.Errorf("%d samples", len(r.Samples))
	}
}

func TestRunNetLoopback(t *testing.T) {
	o := NetOptions{Options: testOptions(t, 300*time.Millisecond)}
	r, err := RunNet(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkNetShape(t, r)
	if r.Params["remote"] != "loopback (both ends in this process)" {
		t.Errorf("remote %v", r.Params["remote"])
	}
}

func TestRunNetServeConnect(t *testing.T) {
	srv, err := StartNetServer(HostEnv(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	o := NetOptions{Options: testOptions(t, 200*time.Millisecond), Connect: srv.Addr().String(), MsgSize: 16 << 10, SndBuf: 256 << 10, RemBuf: 256 << 10, Streams: 2}
	r, err := RunNet(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkNetShape(t, r)
	// -s/-S: the kernel doubles the asked size for its bookkeeping.
	if got := r.Results[0].Extra["rcvbuf_remote_bytes"]; got != 512<<10 && got != 256<<10 {
		t.Errorf("remote rcvbuf %v, want 256 KiB (or the kernel's double)", got)
	}
	// The CPU of both processes (here one process serves both ends, so
	// each figure counts both): as netperf -c/-C, within one CPU per thread.
	for _, k := range []string{"cpu_local_pct", "cpu_remote_pct", "service_demand_local_us_per_kb", "service_demand_remote_us_per_kb"} {
		if v, ok := r.Results[0].Extra[k]; !ok || v <= 0 || (strings.HasPrefix(k, "cpu") && v > 100*float64(runtime.NumCPU())) {
			t.Errorf("%s = %v (present %v)", k, v, ok)
		}
	}
	if s := r.Samples[0]; s.CPUSec == nil || s.CPURemoteSec == nil {
		t.Errorf("sample without cpu_s/cpu_remote_s: %+v", s)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
	// Not a dbhost server: a clear error.
	o.Connect = "127.0.0.1:1"
	if _, err := RunNet(context.Background(), o); err == nil || !strings.Contains(err.Error(), "control connection") {
		t.Errorf("connect to a closed port: %v", err)
	}
}

// netnsOf lists the network namespaces this process's threads are in, and
// the file descriptors that hold a namespace or the TUN clone device.
func netnsLeftovers(t *testing.T) (threads map[string]int, fds []string) {
	t.Helper()
	threads = map[string]int{}
	tasks, _ := filepath.Glob("/proc/self/task/*/ns/net")
	for _, p := range tasks {
		if l, err := os.Readlink(p); err == nil {
			threads[l]++
		}
	}
	ents, _ := filepath.Glob("/proc/self/fd/*")
	for _, p := range ents {
		if l, err := os.Readlink(p); err == nil && (strings.HasPrefix(l, "net:") || l == "/dev/net/tun") {
			fds = append(fds, l)
		}
	}
	return threads, fds
}

func TestRunNetOverLink(t *testing.T) {
	needLink(t)
	self, _ := os.Readlink("/proc/self/ns/net")
	o := NetOptions{Options: testOptions(t, 500*time.Millisecond), Link: LinkOptions{Delay: 5 * time.Millisecond, RateBps: 200e6}, SndBuf: 128 << 10, RemBuf: 128 << 10}
	r, err := RunNet(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	checkNetShape(t, r)
	if r.Params["link"] != "tun" && r.Params["link"] != "netem" {
		t.Errorf("link method %v", r.Params["link"])
	}
	// TCP itself sees the RTT (2 × 5 ms); a request/response takes at least that.
	if rtt := r.Results[0].Extra["rtt_ms"]; rtt < 9 {
		t.Errorf("TCP_INFO RTT %v ms over a 5 ms each-way link", rtt)
	}
	if p50 := r.Results[1].LatencyUS.P50; p50 < 9000 {
		t.Errorf("udp_rr p50 %v µs over a 5 ms each-way link", p50)
	}
	// 128 KiB buffers over a 10 ms RTT: at most ~2 windows per RTT.
	if g := *r.Results[0].ThroughputGbps; g > 0.2 {
		t.Errorf("%v Gb/s with 128 KiB buffers over 10 ms RTT and a 200 Mbit/s limit", g)
	}
	wantIn(t, "notes", strings.Join(r.Notes, "\n"), "emulated link (delay 5ms each way, 200 Mbit/s)")
	// Nothing left: every thread back in this namespace, no namespace or TUN fd.
	threads, fds := netnsLeftovers(t)
	if len(threads) != 1 || threads[self] == 0 || len(fds) != 0 {
		t.Errorf("after the link: threads in %v (want only %s), fds %v", threads, self, fds)
	}
}
