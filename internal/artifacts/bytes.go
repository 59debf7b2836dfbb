package artifacts

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// ParseBytes parses an Oracle-style memory size: a plain number of bytes
// ("8192") or a number with a K, M, G, T or P suffix (powers of 1024),
// optionally followed by "B" and separated by blanks ("2104G", "1536M",
// "64 KB", "2 GB"). It rejects negative, fractional and overflowing values.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	t = strings.Trim(t, `"'`)
	t = strings.TrimSpace(t)
	if t == "" {
		return 0, fmt.Errorf("expected a size, got an empty value")
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("expected a size like 8192, 64K, 1536M or 2G, got %q", trunc(s, 40))
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q is out of range", trunc(s, 40))
	}
	unit := strings.ToUpper(strings.TrimSpace(t[i:]))
	unit = strings.TrimSuffix(unit, "B")
	var mult int64
	switch unit {
	case "":
		mult = 1
	case "K":
		mult = 1 << 10
	case "M":
		mult = 1 << 20
	case "G":
		mult = 1 << 30
	case "T":
		mult = 1 << 40
	case "P":
		mult = 1 << 50
	default:
		return 0, fmt.Errorf("expected a size like 8192, 64K, 1536M or 2G, got %q", trunc(s, 40))
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q is out of range", trunc(s, 40))
	}
	return n * mult, nil
}

// trunc shortens user text quoted in an error message.
func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}

func ptr[T any](v T) *T { return &v }

func sortStrings(s []string) { sort.Strings(s) }
