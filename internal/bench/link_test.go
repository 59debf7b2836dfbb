package bench

import (
	"os"
	"runtime"
	"testing"
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
