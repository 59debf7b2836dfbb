//go:build linux

package bench

import (
	"os"
	"runtime"
	"sort"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	for in, want := range map[string]int64{"100mbit": 100e6, "1gbit": 1e9, "1.5Gbit": 1.5e9, "10mbps": 80e6, "64000": 64000, "500kbit": 500e3} {
		got, err := ParseRate(in)
		if err != nil || got != want {
			t.Errorf("ParseRate(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "fast", "-1mbit", "0", "1e20gbit"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q): no error", bad)
		}
	}
}

// needLink skips a test that needs to create network namespaces and TUN
// devices unless this is Linux and root.
func needLink(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("emulated links need Linux")
	}
	if os.Geteuid() != 0 {
		t.Skip("emulated links need root (network namespaces, TUN devices); CI runs as root")
	}
	if _, err := os.Stat("/dev/net/tun"); err != nil {
		t.Skip("no /dev/net/tun")
	}
}

// linkRTT measures the smallest round trip of n small UDP datagrams across
// the link: an echo server in A and the client in B, both on locked
// SCHED_FIFO threads with blocking syscalls, so that the time slices of a
// busy shared machine do not hide what the link itself does.
func linkRTT(t *testing.T, l *Link, n int) time.Duration {
	t.Helper()
	rtts, err := rawPing(l, n)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(rtts, func(i, j int) bool { return rtts[i] < rtts[j] })
	// A busy machine only ever adds time (the kernel defers packet
	// processing to ksoftirqd, an ordinary thread, when softirqs pile up):
	// the smallest round trip, as ping's "min", shows what the link does.
	return rtts[0]
}

// The round trip the emulated link adds is within 10 % of twice the
// one-way delay asked for, from 1 to 50 ms (the smallest of 30 round
// trips, as ping's min: scheduling noise only ever adds; the forwarder
// never releases a packet early, so the minimum cannot undercut the delay). The base RTT of the same path
// with no delay (the endpoints' and the forwarder's own wake-ups: tens of
// µs idle, a few hundred on a loaded 2-CPU machine) is measured in the
// same test and subtracted.
func TestLinkRTT(t *testing.T) {
	needLink(t)
	base := func() time.Duration {
		l, err := NewLink(LinkOptions{Method: "tun"})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		return linkRTT(t, l, 30)
	}
	for _, d := range []time.Duration{time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond} {
		b0 := base()
		l, err := NewLink(LinkOptions{Delay: d})
		if err != nil {
			t.Fatal(err)
		}
		rtt := linkRTT(t, l, 30)
		l.Close()
		b1 := base()
		b := min(b0, b1)
		added := rtt - b
		t.Logf("delay %v each way (%s): min RTT %v, base RTT %v, added %v", d, l.MethodName(), rtt, b, added)
		if want := 2 * d; added < want*9/10 || added > want*11/10 {
			t.Errorf("delay %v each way: the link added %v (min RTT %v − base %v), want %v ± 10 %%", d, added, rtt, b, want)
		}
	}
}
