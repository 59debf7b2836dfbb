package bench

import (
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
