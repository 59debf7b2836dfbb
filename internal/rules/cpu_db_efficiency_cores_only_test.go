package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

const effRule = "cpu.db-efficiency-cores-only"

// hybridHost: host() with CPUs 0-3 performance cores (cpu_core) and 4-7
// efficiency cores (cpu_atom), and a PostgreSQL postmaster allowed cpus.
func hybridHost(cpus ...int) *snapshot.Snapshot {
	s := host()
	s.Topology.CoreTypes = &snapshot.CoreTypes{Kind: snapshot.CoreKindHybrid, Evidence: "Intel hybrid PMUs: /sys/devices/cpu_core/cpus (0-3), /sys/devices/cpu_atom/cpus (4-7)",
		Types: []snapshot.CoreType{
			{Class: snapshot.CoreClassPerformance, Name: "cpu_core", Source: "/sys/devices/cpu_core/cpus", CPUs: []int{0, 1, 2, 3}},
			{Class: snapshot.CoreClassEfficiency, Name: "cpu_atom", Source: "/sys/devices/cpu_atom/cpus", CPUs: []int{4, 5, 6, 7}},
		}}
	s.Processes = []snapshot.Process{{PID: 2200, Comm: "postgres", Engine: "postgres", Role: "postmaster", Instance: "/var/lib/pgsql/16/data", CPUsAllowed: cpus},
		{PID: 2230, Comm: "postgres", Engine: "postgres", Role: "backend", Instance: "/var/lib/pgsql/16/data", CPUsAllowed: cpus}}
	return s
}

func TestDBEfficiencyCoresOnly(t *testing.T) {
	f := fires(t, effRule, hybridHost(4, 5, 6, 7), WorkloadOLTP, DBPostgres)
	if !strings.Contains(f.Current, "2200, 2230") || !strings.Contains(f.Current, "4-7") || !strings.Contains(f.Recommended, "0-3") {
		t.Errorf("finding %+v: both processes, their CPUs 4-7, the performance cores 0-3", f)
	}
	if !strings.Contains(f.Why, "dbhost's own") {
		t.Errorf("why %q does not mark the advice as dbhost's own", f.Why)
	}
	// One performance core allowed: fine.
	rep := quiet(t, effRule, hybridHost(3, 4, 5, 6, 7), WorkloadOLTP, DBPostgres)
	if len(rep.Passed) != 1 {
		t.Errorf("want passed, got %+v", rep)
	}
	// ARM: the middle capacity is not an efficiency core.
	s := hybridHost(2)
	s.Topology.CoreTypes = &snapshot.CoreTypes{Kind: snapshot.CoreKindHybrid, Evidence: "cpuN/cpu_capacity: ...", Types: []snapshot.CoreType{
		{Class: snapshot.CoreClassPerformance, Name: "capacity 1024", CPUs: []int{0}},
		{Class: snapshot.CoreClassIntermediate, Name: "capacity 871", CPUs: []int{1, 2}},
		{Class: snapshot.CoreClassEfficiency, Name: "capacity 260", CPUs: []int{3, 4, 5, 6, 7}}}}
	quiet(t, effRule, s, WorkloadOLTP, DBPostgres)
	s.Processes[0].CPUsAllowed, s.Processes[1].CPUsAllowed = []int{3, 4}, []int{3, 4}
	fires(t, effRule, s, WorkloadOLTP, DBPostgres)
	// One core type.
	s = hybridHost(4, 5)
	s.Topology.CoreTypes = &snapshot.CoreTypes{Kind: snapshot.CoreKindUniform, Evidence: "every online CPU's cpuN/cpu_capacity is 1024"}
	quiet(t, effRule, s, WorkloadOLTP, DBPostgres)
}

func TestDBEfficiencyCoresOnlyCannotCheck(t *testing.T) {
	// Core types unknown: could not check, never a finding.
	s := hybridHost(4, 5, 6, 7)
	s.Topology.CoreTypes = &snapshot.CoreTypes{Kind: snapshot.CoreKindUnknown, Evidence: "no file tells"}
	absent(s, "topology.core_types", "no file tells")
	cannot(t, effRule, s, WorkloadOLTP, DBPostgres, "topology.core_types")
	// A snapshot of an older dbhost: no core types at all.
	s = hybridHost(4, 5, 6, 7)
	s.Topology.CoreTypes = nil
	cannot(t, effRule, s, WorkloadOLTP, DBPostgres, "topology.core_types")
	// An allowed CPU no type file names: its type is unknown.
	s = hybridHost(4, 5, 6, 7, 8)
	cannot(t, effRule, s, WorkloadOLTP, DBPostgres, "no known core type")
	// Allowed CPUs not read.
	s = hybridHost()
	cannot(t, effRule, s, WorkloadOLTP, DBPostgres, "allowed CPUs not read")
	// No database: not applicable.
	s = hybridHost(4)
	s.Processes = nil
	rep := quiet(t, effRule, s, WorkloadOLTP, DBPostgres)
	if len(rep.NotApplicable) != 1 {
		t.Errorf("want not applicable, got %+v", rep)
	}
}
