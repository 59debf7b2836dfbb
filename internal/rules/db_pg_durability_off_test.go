package rules

import (
	"strings"
	"testing"
)

func TestPGDurabilityOff(t *testing.T) {
	const id = "db.pg-durability-off"
	s := liveHost(0, 0)
	d := pgLive(s, "fsync=on", "full_page_writes=on", "synchronous_commit=on")
	quiet(t, id, s, WorkloadOLTP, DBPostgres)
	// fsync off: critical, fixed with ALTER SYSTEM and a reload.
	setLive(d, "fsync=off")
	f := fires(t, id, s, WorkloadOLTP, DBPostgres)
	if f.Severity != SevCritical || f.Setting != "fsync" || !strings.Contains(strings.Join(f.Fix.Runtime, "\n"), "ALTER SYSTEM SET fsync = 'on'") {
		t.Fatalf("%+v", f)
	}
	// full_page_writes off: critical too; synchronous_commit off alone: info, a trade-off.
	setLive(d, "fsync=on", "full_page_writes=off")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Severity != SevCritical || f.Setting != "full_page_writes" {
		t.Fatalf("%+v", f)
	}
	setLive(d, "full_page_writes=on", "synchronous_commit=off")
	if f := fires(t, id, s, WorkloadOLTP, DBPostgres); f.Severity != SevInfo || !strings.Contains(f.Recommended, "trade-off") || len(f.Changes) != 0 {
		t.Fatalf("%+v", f)
	}
	// A setting not read: could not check, never a finding.
	setLive(d, "synchronous_commit=on", "fsync=!could not check (permission): denied")
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "fsync: could not check (permission)")
	// A server not read: could not check with its error.
	d.Error = "FATAL: password authentication failed"
	cannot(t, id, s, WorkloadOLTP, DBPostgres, "password authentication failed")
}
