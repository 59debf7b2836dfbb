package rules

import (
	"strings"
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

// The host: overcommit_memory 0, 32 GiB of RAM of which 16 GiB in
// hugepages (the SGA/shared_buffers pool), 4 GiB of swap, ratio 50: with 2
// the kernel's CommitLimit would be 4 + 16 × 50 % = 12 GiB against 24.7 GiB
// already committed (PostgreSQL's docs: the commit limit is swap plus
// overcommit_ratio % of RAM): 2 must not be proposed at that ratio.
func TestPGOvercommitSizedToCommitments(t *testing.T) {
	const id = "db.pg-overcommit"
	s := liveHost(0, 0)
	pgLive(s)
	s.Sysctl["vm.overcommit_memory"] = "0"
	s.Sysctl["vm.overcommit_ratio"] = "50"
	s.Memory.Meminfo["MemTotal"] = 32 << 20
	s.Memory.Meminfo["SwapTotal"] = 4 << 20
	s.Memory.Meminfo["HugePages_Total"] = 8192
	s.Memory.Meminfo["Hugepagesize"] = 2048
	s.Memory.Meminfo["Committed_AS"] = 25900000 // 24.7 GiB
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	for _, l := range append(f.Fix.Runtime, f.Fix.Lines()...) {
		if strings.Contains(l, "overcommit_memory") {
			t.Fatalf("2 proposed with CommitLimit 12 GiB under 24.7 GiB committed: %+v", f)
		}
	}
	if !strings.Contains(f.Recommended, "12.0 GiB") || !strings.Contains(f.Recommended, "24.7 GiB") {
		t.Fatalf("the refusal does not give the numbers: %q", f.Recommended)
	}

	// Without the hugepages, ratio 50 gives 20 GiB: 2 with a ratio that holds 24.7 GiB at 90 %.
	s.Memory.Meminfo["HugePages_Total"] = 0
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if len(f.Fix.Runtime) != 2 || f.Fix.Runtime[0] != "sysctl -w vm.overcommit_ratio=74" || f.Fix.Runtime[1] != "sysctl -w vm.overcommit_memory=2" {
		t.Fatalf("%+v", f.Fix)
	}

	// Commitments far below the limit: 2 as it stands.
	s.Memory.Meminfo["Committed_AS"] = 8 << 20
	f = fires(t, id, s, WorkloadOLTP, DBPostgres)
	if len(f.Fix.Runtime) != 1 || f.Fix.Runtime[0] != "sysctl -w vm.overcommit_memory=2" {
		t.Fatalf("%+v", f.Fix)
	}
}
