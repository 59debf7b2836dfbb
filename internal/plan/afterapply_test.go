package plan

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// A live PostgreSQL on huge_pages try whose pool is empty: the plan raises
// vm.nr_hugepages to the server's own figure and pairs it with the steps
// without which the pages sit unused — huge_pages on and a restart, since
// PostgreSQL maps huge pages only at start (after_apply, in plan.json and
// in the summary's data).
func TestPlanPairsHugepagesWithRestart(t *testing.T) {
	s := *fixture(t, "laptop-2s")
	v := func(x string) *string { return &x }
	s.Databases = []snapshot.Database{{Engine: "postgres", Local: true, User: "postgres", Version: "15.4", VersionNum: 150004,
		Connection: "user=postgres host=/run/postgresql port=5432 dbname=postgres",
		Settings: []snapshot.DBSetting{
			{Name: "huge_pages", Value: v("try")}, {Name: "shared_buffers", Value: v("524288"), Unit: "8kB"},
			{Name: "shared_memory_size", Value: v("4300"), Unit: "MB"}, {Name: "shared_memory_size_in_huge_pages", Value: v("2150")},
			{Name: "huge_page_size", Value: v("0"), Unit: "kB"}, {Name: "max_connections", Value: v("100")},
		}}}
	p := build(t, &s, Options{DB: "postgres"})
	nr, ok := find(p, change.Sysctl, "vm.nr_hugepages")
	if !ok || nr.Rule != "db.pg-huge-pages-pool" {
		t.Fatalf("no vm.nr_hugepages from db.pg-huge-pages-pool: %+v", p.Changes)
	}
	if len(p.AfterApply) != 1 || p.AfterApply[0].Rule != "db.pg-huge-pages-pool" {
		t.Fatalf("after_apply: %+v", p.AfterApply)
	}
	steps := strings.Join(p.AfterApply[0].Steps, "\n")
	for _, want := range []string{"ALTER SYSTEM SET huge_pages = 'on'", "restart PostgreSQL: it maps huge pages only at start", "2150 pages (4.2 GiB) sit reserved and unused"} {
		if !strings.Contains(steps, want) {
			t.Errorf("after_apply lacks %q:\n%s", want, steps)
		}
	}
	b, err := p.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		AfterApply []Step `json:"after_apply"`
	}
	if err := json.Unmarshal(b, &back); err != nil || len(back.AfterApply) != 1 {
		t.Fatalf("plan.json after_apply: %v\n%s", err, b)
	}
	// Without a live server the plan has no after_apply.
	if q := build(t, fixture(t, "laptop-2s"), Options{DB: "postgres"}); len(q.AfterApply) != 0 {
		t.Errorf("after_apply without a server: %+v", q.AfterApply)
	}
}
