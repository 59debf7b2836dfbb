package main

import "testing"

// A change several rules want carries "a,b" as its rule: --only matches any of them.
func TestOnlyRule(t *testing.T) {
	cases := []struct {
		rule string
		only []string
		want bool
	}{
		{"memory.swappiness", nil, true},
		{"memory.swappiness", []string{"memory"}, true},
		{"memory.swappiness", []string{"io"}, false},
		{"io.scheduler, io.nr-requests", []string{"io.nr-requests"}, true},
		{"numa.balancing-with-db-shm,numa.migration-storm", []string{"numa.migration-storm"}, true},
		{"numa.balancing-with-db-shm,numa.migration-storm", []string{"memory"}, false},
		{"memory.swappinessX", []string{"memory.swappiness"}, false},
	}
	for _, c := range cases {
		if got := onlyRule(c.rule, c.only); got != c.want {
			t.Errorf("onlyRule(%q, %v) = %v, want %v", c.rule, c.only, got, c.want)
		}
	}
}
