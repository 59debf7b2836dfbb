package main

import "testing"

// A change several rules want carries "a,b" as its rule: --only matches any of them.
func TestOnlyRule(t *testing.T) {
	cases := []struct {
		rule string
		only []string
		skip []string
		want bool
	}{
		{"memory.swappiness", nil, nil, true},
		{"memory.swappiness", []string{"memory"}, nil, true},
		{"memory.swappiness", []string{"io"}, nil, false},
		{"io.scheduler, io.nr-requests", []string{"io.nr-requests"}, nil, true},
		{"numa.balancing-with-db-shm,numa.migration-storm", []string{"numa.migration-storm"}, nil, true},
		{"numa.balancing-with-db-shm,numa.migration-storm", []string{"memory"}, nil, false},
		{"memory.swappinessX", []string{"memory.swappiness"}, nil, false},
		{"memory.swappiness", nil, []string{"memory"}, false},
		{"memory.swappiness", nil, []string{"memory.swappiness"}, false},
		{"memory.swappiness", nil, []string{"memory.swap"}, true},
		{"memory.swappiness", []string{"memory"}, []string{"io"}, true},
		{"numa.balancing-with-db-shm,numa.migration-storm", nil, []string{"numa.migration-storm"}, true},
		{"numa.balancing-with-db-shm,numa.migration-storm", nil, []string{"numa"}, false},
		{"numa.balancing-with-db-shm,numa.migration-storm", []string{"numa.migration-storm"}, []string{"numa.migration-storm"}, false},
	}
	for _, c := range cases {
		if got := onlyRule(c.rule, c.only, c.skip); got != c.want {
			t.Errorf("onlyRule(%q, %v, %v) = %v, want %v", c.rule, c.only, c.skip, got, c.want)
		}
	}
}
