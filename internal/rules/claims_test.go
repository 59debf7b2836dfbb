package rules

import (
	"strings"
	"testing"
)

// Issue 26, "Claims the seeds do not make": a rule cites a seed only for
// what the seed says about the rule's setting. 000's libaio jobs are Oracle
// DB *writers* (effective_io_concurrency is read prefetch); 003's "low
// latency / high bandwidth devices for hot spots" is a file-layout tip (not
// innodb_io_capacity nor random_page_cost); 000's "page table entries are a
// per-user construct" is about Oracle's many processes mapping one SGA,
// while mysqld is one process with one page table.
func TestClaimsTheSeedsMake(t *testing.T) {
	for _, c := range []struct{ rule, quote string }{
		{"db.pg-effective-io-concurrency", "similar to Oracle DB Writers"},
		{"db.mysql-io-capacity", "low latency / high bandwidth devices for hot spots"},
		{"db.pg-random-page-cost", "low latency / high bandwidth devices for hot spots"},
		{"db.mysql-large-pages", "page table entries are a per-user construct"},
	} {
		r, ok := Lookup(c.rule)
		if !ok {
			t.Fatalf("no rule %s", c.rule)
		}
		for _, s := range r.Sources {
			if strings.Contains(s.Quote, c.quote) {
				t.Errorf("%s cites %s %q for a claim the seed does not make", c.rule, s.Doc, s.Quote)
			}
		}
	}
	// mysql-large-pages argues from the TLB (003, 000 Scenario 2), which a
	// threaded server shares, not from per-process page tables.
	r, _ := Lookup("db.mysql-large-pages")
	tlb := false
	for _, s := range r.Sources {
		tlb = tlb || strings.Contains(s.Quote, "TLB")
	}
	if !tlb {
		t.Errorf("db.mysql-large-pages cites no TLB argument: %+v", r.Sources)
	}
}
