package rules

import (
	"testing"
)

func TestPGOvercommit(t *testing.T) {
	const id = "db.pg-overcommit"
	s := liveHost(0, 0)
	pgLive(s)
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Recommended[:1] != "2" || f.Fix.Runtime[0] != "sysctl -w vm.overcommit_memory=2" {
		t.Fatalf("%+v", f)
	}
	s.Sysctl["vm.overcommit_memory"] = "2"
	s.Sysctl["vm.overcommit_ratio"] = "50"
	s.Memory.Meminfo["CommitLimit"] = 1000
	s.Memory.Meminfo["Committed_AS"] = 500
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	s.Memory.Meminfo["Committed_AS"] = 950
	if f = fires(t, id, s, WorkloadOLTP, DBPostgres); f.Setting != "vm.overcommit_ratio" {
		t.Fatalf("%+v", f)
	}
	delete(s.Sysctl, "vm.overcommit_memory")
	absent(s, "sysctl.vm.overcommit_memory", "permission denied")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "permission denied")
}
