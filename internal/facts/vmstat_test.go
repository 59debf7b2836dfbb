package facts

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseVmstat(t *testing.T) {
	m, err := parseVmstat(strings.NewReader("nr_free_pages 838045\n\nnuma_hit 1\nnr_foo -3\n"))
	if err != nil || !reflect.DeepEqual(m, map[string]int64{"nr_free_pages": 838045, "numa_hit": 1, "nr_foo": -3}) {
		t.Errorf("parseVmstat = %v, %v", m, err)
	}
	for _, bad := range []string{"", "\n\n", "numa_hit\n", "numa_hit 1 2\n", "numa_hit x\n", "numa_hit 99999999999999999999\n", "MemTotal: 5\n"} {
		if m, err := parseVmstat(strings.NewReader(bad)); err == nil {
			t.Errorf("parseVmstat(%q) = %v, want error", bad, m)
		}
	}
}

func FuzzParseVmstat(f *testing.F) {
	f.Add([]byte("nr_free_pages 838045\nnuma_hit 1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseVmstat(strings.NewReader(string(b)))
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || m != nil {
				t.Fatalf("error %v (%T) with %v", err, err, m)
			}
			return
		}
		if len(m) == 0 {
			t.Fatal("ok with no counters")
		}
		for k := range m {
			if k == "" || strings.ContainsAny(k, " \t\n:") {
				t.Fatalf("bad name %q", k)
			}
		}
	})
}
