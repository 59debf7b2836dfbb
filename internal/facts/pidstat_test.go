package facts

import (
	"strings"
	"testing"
)

func TestParsePIDStat(t *testing.T) {
	cpu, err := parsePIDStat(pidStatText(42, "odd) (name ) x", 17))
	if err != nil || cpu != 17 {
		t.Errorf("got %d %v", cpu, err)
	}
	for _, bad := range []string{"", "42 (x) S 1 2 3", "no paren at all", strings.Replace(pidStatText(1, "x", 5), " 5 ", " -5 ", 1)} {
		if _, err := parsePIDStat(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzParsePIDStat(f *testing.F) {
	f.Add(pidStatText(1, "x", 3))
	f.Fuzz(func(t *testing.T, s string) {
		cpu, err := parsePIDStat(s)
		if err == nil && (cpu < 0 || cpu > 1<<16) {
			t.Fatalf("cpu %d", cpu)
		}
	})
}
