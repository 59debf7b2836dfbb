package rules

import (
	"strings"
	"testing"
)

func TestPGTHP(t *testing.T) {
	const id = "db.pg-thp"
	s := liveHost(0, 0)
	pgLive(s)
	s.Memory.THP.Enabled = ptr("always")
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Evidence, "up to 100 backends") {
		t.Fatalf("%+v", f)
	}
	s.Memory.THP.Enabled = ptr("madvise")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	s.Memory.THP.Enabled = nil
	absent(s, "memory.thp.enabled", "not present on this host")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "memory.thp.enabled")
}
