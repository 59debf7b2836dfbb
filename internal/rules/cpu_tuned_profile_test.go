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
	// OLTP wants latency-performance (000 Table 13, § tuned-adm; 003 compares both).
	f := fires(t, id, mk("balanced", true), WorkloadOLTP, DBOracle)
	if f.Severity != SevWarning || f.Current != "balanced" || !strings.HasPrefix(f.Recommended, "latency-performance") ||
		len(f.Changes) != 1 || f.Changes[0].Kind != change.TunedProfile || f.Changes[0].Value != "latency-performance" {
		t.Fatalf("%+v", f)
	}
	f = fires(t, id, mk("throughput-performance", true), WorkloadLatency, DBOracle)
	if !strings.HasPrefix(f.Recommended, "latency-performance") {
		t.Fatalf("%+v", f)
	}
	// throughput-performance (and the oracle profile built on it) do not hold C-states: not for OLTP.
	fires(t, id, mk("throughput-performance", true), WorkloadOLTP, DBOracle)
	fires(t, id, mk("oracle", true), WorkloadOLTP, DBOracle)
	quiet(t, id, mk("latency-performance", true), WorkloadOLTP, DBOracle)
	quiet(t, id, mk("network-latency", true), WorkloadLatency, DBOracle)
	quiet(t, id, mk("postgresql", true), WorkloadOLTP, DBPostgres) // force_latency=1
	fires(t, id, mk("postgresql", true), WorkloadOLTP, DBOracle)
	quiet(t, id, mk("throughput-performance oracle", true), WorkloadDSS, DBOracle)
	quiet(t, id, mk("oracle", true), WorkloadMixed, DBOracle)
	if f := fires(t, id, mk("oracle", true), WorkloadDSS, DBPostgres); !strings.HasPrefix(f.Recommended, "throughput-performance (or network-throughput, virtual-host, postgresql)") {
		t.Fatalf("%+v", f)
	}
	// A custom profile is judged by what it includes (read from its files).
	custom := mk("dbhost-oltp", true)
	custom.Config.Tuned.Profile = []snapshot.TunedSetting{{Unit: "cpu", Option: "force_latency", Value: "cstate.id_no_zero:1|3",
		File: "/usr/lib/tuned/latency-performance/tuned.conf", Line: 4}}
	custom.Config.Tuned.ProfileFiles = []string{"/usr/lib/tuned/latency-performance/tuned.conf", "/etc/tuned/dbhost-oltp/tuned.conf"}
	if rep := quiet(t, id, custom, WorkloadOLTP, DBOracle); len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "built on latency-performance") {
		t.Fatalf("%+v", rep)
	}
	if f := fires(t, id, custom, WorkloadDSS, DBOracle); !strings.Contains(f.Evidence, "built from latency-performance → dbhost-oltp") ||
		!strings.Contains(f.Recommended, "or a custom profile that includes it") {
		t.Fatalf("%+v", f)
	}
	// ... and cannot be judged when its files were not read.
	unread := mk("dbhost-oltp", true)
	absent(unread, "config.tuned.profile", "profile dbhost-oltp not found in /etc/tuned")
	cannot(t, id, unread, WorkloadOLTP, DBOracle, "profile dbhost-oltp not found")
	// A guest wants virtual-guest, keeping vm.swappiness at 10 over the profile's 30.
	g := mk("throughput-performance", true)
	g.Host.Virt = snapshot.Virt{Guest: true, Type: "kvm"}
	if f := fires(t, id, g, WorkloadOLTP, DBOracle); f.Changes[0].Value != "virtual-guest" || len(f.Changes) != 2 ||
		len(f.Fix.Edits) != 1 || !strings.Contains(f.Fix.Edits[0].String(), "edit /etc/sysctl.d/90-dbhost.conf: add vm.swappiness = 10") {
		t.Fatalf("%+v", f)
	} else {
		wantChange(t, f, change.Sysctl, "vm.swappiness", "10", "10")
	}
	// A KVM host running guests wants virtual-host for dss; OLTP keeps latency-performance.
	kvm := mk("throughput-performance", true)
	kvm.Host.Virt.KVMGuests = ptr(3)
	if f := fires(t, id, kvm, WorkloadDSS, DBNone); f.Changes[0].Value != "virtual-host" || !strings.Contains(f.Evidence, "KVM host: 3 QEMU guest processes") {
		t.Fatalf("%+v", f)
	}
	// virtual-host without guests running (stopped when the snapshot was taken) fits dss too: it is throughput-performance
	// with background writeback earlier.
	quiet(t, id, mk("virtual-host", true), WorkloadDSS, DBNone)
	// virtual-guest on bare metal is the wrong profile.
	if f := fires(t, id, mk("virtual-guest", true), WorkloadOLTP, DBOracle); f.Changes[0].Current != "virtual-guest" {
		t.Fatalf("%+v", f.Changes)
	}
	// The right profile selected but tuned not running: info.
	if f := fires(t, id, mk("throughput-performance", false), WorkloadDSS, DBOracle); f.Severity != SevInfo || f.Setting != "tuned service" {
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
	ni.Host.OSVersionID = "9.4"
	if f := fires(t, id, ni, WorkloadLatency, DBOracle); f.Severity != SevInfo || f.Recommended != "latency-performance" ||
		!strings.HasPrefix(f.Fix.Runtime[0], "dnf install -y tuned && ") {
		t.Fatalf("%+v", f)
	}
	ni.Host.OSID, ni.Host.OSVersionID = "ol", "7.9" // yum on release 7
	if f := fires(t, id, ni, WorkloadDSS, DBOracle); !strings.HasPrefix(f.Fix.Runtime[0], "yum install -y tuned && ") {
		t.Fatalf("%+v", f.Fix)
	}
	// Nothing known about tuned: cannot check.
	cannot(t, id, host(), WorkloadOLTP, DBOracle, "config.tuned")
}

// Issue 26, "Claims the seeds do not make": 000's Oracle section names no
// tuned profile (it boots with intel_idle.max_cstate=1), and 000's "§
// tuned-adm" recommendation (latency-performance on RHEL6, network-latency
// on RHEL7) supports only the latency profiles: a finding recommending
// virtual-guest or throughput-performance does not cite it.
func TestTunedProfileCitesWhatSupportsIt(t *testing.T) {
	const id = "cpu.tuned-profile"
	mk := func(profile string) *snapshot.Snapshot {
		s := host()
		s.Config.Tuned = snapshot.Tuned{Installed: true, ActiveProfile: ptr(profile), ProfileMode: "manual", Running: ptr(true)}
		return s
	}
	cites000 := func(f Finding) bool {
		for _, src := range f.Sources {
			if src.Doc == Seed000 {
				return true
			}
		}
		return false
	}
	f := fires(t, id, mk("balanced"), WorkloadOLTP, DBOracle)
	if strings.Contains(f.Why, "Oracle OLTP") || !cites000(f) {
		t.Fatalf("OLTP: %q %+v", f.Why, f.Sources)
	}
	if f = fires(t, id, mk("balanced"), WorkloadDSS, DBOracle); cites000(f) || len(f.Sources) == 0 {
		t.Fatalf("throughput-performance cites 000's latency profiles: %+v", f.Sources)
	}
	g := mk("balanced")
	g.Host.Virt.Guest, g.Host.Virt.Type = true, "kvm"
	if f = fires(t, id, g, WorkloadOLTP, DBOracle); f.Recommended[:13] != "virtual-guest" || cites000(f) {
		t.Fatalf("virtual-guest cites 000's latency profiles: %s %+v", f.Recommended, f.Sources)
	}
}
