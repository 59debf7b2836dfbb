package bench

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LinkOptions describe an emulated link: one-way delay (each direction),
// an optional rate limit and a random loss.
type LinkOptions struct {
	Delay      time.Duration
	RateBps    int64   // bits per second; 0: no limit
	LossPct    float64 // 0..100
	QueueBytes int64   // the rate limiter's queue; 0: one bandwidth-delay product, at least 256 KiB
	Method     string  // auto (netem where the kernel has it), netem, tun
}

// Wanted: does the user ask for a link at all?
func (o LinkOptions) Wanted() bool {
	return o.Delay > 0 || o.RateBps > 0 || o.LossPct > 0 || o.Method == "netem" || o.Method == "tun"
}

// Validate checks the ranges.
func (o LinkOptions) Validate() error {
	switch {
	case o.Delay < 0 || o.Delay > 10*time.Second:
		return fmt.Errorf("--delay %v: expected 0 to 10s", o.Delay)
	case o.RateBps < 0:
		return fmt.Errorf("--rate: expected a positive rate")
	case o.LossPct < 0 || o.LossPct >= 100:
		return fmt.Errorf("--loss %g: expected a percentage from 0 to below 100", o.LossPct)
	case o.QueueBytes < 0:
		return fmt.Errorf("--queue: expected a positive size")
	}
	switch o.Method {
	case "", "auto", "netem", "tun":
	default:
		return fmt.Errorf("--link %q: expected auto, netem or tun", o.Method)
	}
	return nil
}

func (o LinkOptions) queueBytes() int64 {
	if o.QueueBytes > 0 {
		return o.QueueBytes
	}
	bdp := int64(float64(o.RateBps) / 8 * 2 * o.Delay.Seconds())
	return max(bdp, 256<<10)
}

// Describe is the link in a few words: "delay 6ms each way, 100 Mbit/s, 0.1 % loss".
func (o LinkOptions) Describe() string {
	parts := []string{fmt.Sprintf("delay %v each way", o.Delay)}
	if o.RateBps > 0 {
		parts = append(parts, FormatRate(o.RateBps))
	}
	if o.LossPct > 0 {
		parts = append(parts, fmt.Sprintf("%g %% loss", o.LossPct))
	}
	return strings.Join(parts, ", ")
}

// ParseRate reads a rate like tc's: "100mbit", "1gbit", "500kbit",
// "10mbps" (bytes), or bits per second.
func ParseRate(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{
		{"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1},
		{"gbps", 8e9}, {"mbps", 8e6}, {"kbps", 8e3}, {"bps", 8},
	}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSuffix(t, u.suffix), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v <= 0 || v*mult > 1e13 || v*mult < 8 {
		return 0, fmt.Errorf("rate %q: expected a positive rate like 100mbit, 1gbit or 10mbps (bytes), up to 10 Tbit", s)
	}
	return int64(v * mult), nil
}

// FormatRate writes bits per second for people.
func FormatRate(bps int64) string {
	switch {
	case bps >= 1e9:
		return fmt.Sprintf("%g Gbit/s", float64(bps)/1e9)
	case bps >= 1e6:
		return fmt.Sprintf("%g Mbit/s", float64(bps)/1e6)
	default:
		return fmt.Sprintf("%g kbit/s", float64(bps)/1e3)
	}
}
