package rules

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestTunedProfile(t *testing.T) {
	const id = "cpu.tuned-profile"
	mk := func(profile string, running bool) *snapshot.Snapshot {
		s := host()
		s.Config.Tuned = snapshot.Tuned{Installed: true, ActiveProfile: ptr(profile), ProfileMode: "manual", Running: ptr(running)}
		return s
	}
	f := fires(t, id, mk("balanced", true), WorkloadOLTP, DBOracle)
	if f.Severity != SevWarning || f.Current != "balanced" || !strings.HasPrefix(f.Recommended, "throughput-performance") ||
		len(f.Changes) != 1 || f.Changes[0].Kind != change.TunedProfile || f.Changes[0].Value != "throughput-performance" {
		t.Fatalf("%+v", f)
	}
	f = fires(t, id, mk("throughput-performance", true), WorkloadLatency, DBOracle)
	if !strings.HasPrefix(f.Recommended, "latency-performance") {
		t.Fatalf("%+v", f)
	}
	quiet(t, id, mk("throughput-performance", true), WorkloadOLTP, DBOracle)
	quiet(t, id, mk("network-latency", true), WorkloadLatency, DBOracle)
	quiet(t, id, mk("throughput-performance oracle", true), WorkloadDSS, DBOracle)
	// A custom profile is not judged.
	if rep := quiet(t, id, mk("dbhost-oltp", true), WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "custom") {
		t.Fatalf("%+v", rep)
	}
	// A guest wants virtual-guest.
	g := mk("throughput-performance", true)
	g.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if f := fires(t, id, g, WorkloadOLTP, DBOracle); f.Changes[0].Value != "virtual-guest" {
		t.Fatalf("%+v", f)
	}
	// virtual-guest on bare metal is the wrong profile.
	if f := fires(t, id, mk("virtual-guest", true), WorkloadOLTP, DBOracle); f.Changes[0].Current != "virtual-guest" {
		t.Fatalf("%+v", f.Changes)
	}
	// The right profile selected but tuned not running: info.
	if f := fires(t, id, mk("throughput-performance", false), WorkloadOLTP, DBOracle); f.Severity != SevInfo || f.Setting != "tuned service" {
		t.Fatalf("%+v", f)
	}
	// Installed, no active profile (empty file, tuned-adm off).
	if f := fires(t, id, mk("", true), WorkloadOLTP, DBOracle); !strings.Contains(f.Current, "no active profile") {
		t.Fatalf("%+v", f)
	}
	// Installed, active_profile missing.
	miss := host()
	miss.Config.Tuned.Installed = true
	absent(miss, "config.tuned.active_profile", "not present on this host")
	fires(t, id, miss, WorkloadOLTP, DBOracle)
	// Installed, active_profile unreadable: cannot check.
	den := host()
	den.Config.Tuned.Installed = true
	absent(den, "config.tuned.active_profile", "permission denied")
	cannot(t, id, den, WorkloadOLTP, DBOracle, "permission denied")
	// Not installed: info with the recommendation.
	ni := host()
	absent(ni, "config.tuned.active_profile", "tuned is not installed")
	if f := fires(t, id, ni, WorkloadLatency, DBOracle); f.Severity != SevInfo || f.Recommended != "latency-performance" {
		t.Fatalf("%+v", f)
	}
	// Nothing known about tuned: cannot check.
	cannot(t, id, host(), WorkloadOLTP, DBOracle, "config.tuned")
}
