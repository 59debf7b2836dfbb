package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
	"github.com/dbhost/dbhost/internal/tunedstock"
)

// TunedChoice is the tuned profile dbhost recommends for a workload on a
// host, the stock profiles that fit as well, and why.
type TunedChoice struct {
	Want string
	Fit  []string
	Why  string
}

// TunedProfileFor chooses the tuned base profile: the one cpu.tuned-profile
// recommends, the plan exports and every rule judging a setting the profile
// sets accepts (TestTunedProfilesAccepted holds them to that).
//
//   - latency: latency-performance (000 Table 13 and § tuned-adm; 003's
//     latency table), or network-latency built on it;
//   - a virtual guest: virtual-guest (003's virtualization table);
//   - oltp: latency-performance, as 000 recommends and used for its Oracle
//     OLTP, fio and network tests (Tables 2, 5, 8, 13); 003 compares it with
//     throughput-performance for OLTP. The postgresql profile also holds the
//     C-states (force_latency=1) for PostgreSQL;
//   - dss, mixed on a KVM host (QEMU guests running): virtual-host (003's
//     virtualization table: throughput-performance with background
//     writeback at 5 % and sched_migration_cost_ns 5 ms);
//   - dss, mixed: throughput-performance (003's throughput table), or a
//     database profile built on it for that database (oracle, postgresql),
//     or virtual-host (a KVM host whose guests were not running).
//
// role is HostRole's: RoleBareMetal, RoleGuest or RoleHypervisor.
func TunedProfileFor(workload, role, db string) TunedChoice {
	return tunedProfileFor(workload, role, db, false)
}

// TunedProfileForHost is TunedProfileFor on host s: on RHEL 6's tuned 0.2
// (TunedV02) the profiles that fit are only those 0.2 ships (no
// network-latency, network-throughput or database profiles).
func TunedProfileForHost(s *snapshot.Snapshot, workload, db string) TunedChoice {
	return tunedProfileFor(workload, HostRole(s), db, TunedV02(s))
}

func tunedProfileFor(workload, role, db string, v02 bool) TunedChoice {
	c := tunedProfileChoice(workload, role, db)
	if !v02 {
		return c
	}
	var fit []string
	for _, p := range c.Fit {
		if tuned02Profiles[p] {
			fit = append(fit, p)
		}
	}
	c.Fit = fit
	c.Why = strings.TrimSuffix(c.Why, ", or network-latency built on it")
	c.Why = strings.TrimSuffix(c.Why, ", or a database profile built on it")
	c.Why += " (RHEL 6's tuned 0.2 has no network-latency, network-throughput or database profiles)"
	return c
}

func tunedProfileChoice(workload, role, db string) TunedChoice {
	guest := role == RoleGuest
	dbProfile := func() []string {
		switch db {
		case DBOracle:
			return []string{"oracle"}
		case DBPostgres:
			return []string{"postgresql"}
		}
		return nil
	}
	switch {
	case workload == WorkloadLatency:
		return TunedChoice{"latency-performance", []string{"latency-performance", "network-latency"},
			"latency workload: latency-performance (000 Table 13 and § tuned-adm; 003 latency profiles: C-states locked at 1, performance governor, " +
				"min_perf_pct 100), or network-latency built on it"}
	case guest:
		return TunedChoice{"virtual-guest", append([]string{"virtual-guest"}, dbProfile()...),
			"virtual guest: virtual-guest (003 virtualization profiles: throughput-performance plus the guest's dirty ratio)"}
	case workload == WorkloadOLTP:
		fit := []string{"latency-performance", "network-latency"}
		if db == DBPostgres {
			fit = append(fit, "postgresql")
		}
		return TunedChoice{"latency-performance", fit,
			"OLTP: latency-performance, which 000 recommends (Table 13, § tuned-adm) and set for its messaging, network and FIO tests " +
				"(Tables 2, 5 and 8; its Oracle tests name no profile); " +
				"003 compares it with throughput-performance for OLTP. It keeps C-states at C1 and the clock at full speed"}
	case role == RoleHypervisor:
		return TunedChoice{"virtual-host", []string{"virtual-host"},
			"KVM host running guests, workload " + workload + ": virtual-host (003 virtualization profiles: throughput-performance " +
				"with dirty_background_ratio 5 and sched_migration_cost_ns 5000000)"}
	}
	return TunedChoice{"throughput-performance", append([]string{"throughput-performance", "network-throughput", "virtual-host"}, dbProfile()...),
		"workload " + workload + ": throughput-performance (003 throughput profiles: performance governor, energy_perf_bias performance, " +
			"min_perf_pct 100, swappiness 10, dirty 40/10), or a database profile built on it"}
}

// Host roles for TunedProfileFor.
const (
	RoleBareMetal  = "bare metal"
	RoleGuest      = "guest"
	RoleHypervisor = "hypervisor"
)

// HostRole says whether s is a virtual guest, a KVM host running guests
// (host.virt.kvm_guests above 0), or neither.
func HostRole(s *snapshot.Snapshot) string {
	switch {
	case s == nil:
		return RoleBareMetal
	case s.Host.Virt.Guest:
		return RoleGuest
	case s.Host.Virt.KVMGuests != nil && *s.Host.Virt.KVMGuests > 0:
		return RoleHypervisor
	}
	return RoleBareMetal
}

// tuned02Profiles are the profiles RHEL 6's tuned 0.2 ships in
// /etc/tune-profiles (tuned-0.2.19, RHEL 6.5; RHEL 6 Performance Tuning
// Guide § 3.4 and Power Management Guide § 2.5): latency-performance is
// there, network-latency (tuned 2.x, RHEL 7) is not, 000's "latency-performance
// profile for RHEL6 and the network-latency profile on RHEL7".
var tuned02Profiles = map[string]bool{
	"default": true, "desktop-powersave": true, "server-powersave": true, "laptop-ac-powersave": true,
	"laptop-battery-powersave": true, "spindown-disk": true, "latency-performance": true,
	"throughput-performance": true, "enterprise-storage": true, "virtual-guest": true, "virtual-host": true,
}

// TunedV02 reports a host whose tuned is RHEL 6's 0.2: read from its layout
// (config.tuned.tuned_0_2), or a Red Hat family release 6 or older, for
// which no tuned 2.x was shipped.
func TunedV02(s *snapshot.Snapshot) bool {
	if s == nil {
		return false
	}
	if s.Config.Tuned.V02 {
		return true
	}
	m := osMajor(s.Host)
	return rhelFamily(s.Host) && m > 0 && m <= 6
}

// tunedProfileFile is where the host's tuned keeps the active profile's name.
func tunedProfileFile(s *snapshot.Snapshot) string {
	if TunedV02(s) {
		return "/etc/tune-profiles/active-profile"
	}
	return "/etc/tuned/active_profile"
}

// TunedFix is the persistent fix line that makes the recommended tuned
// profile carry a setting: "tuned-adm profile latency-performance   (sets X)".
func (in *Input) TunedFix(sets string) string {
	c := TunedProfileForHost(in.Snap, in.Workload, in.DB)
	if TunedV02(in.Snap) {
		// tuned 0.2's profiles are ktune scripts: no [cpu] options to name.
		return "tuned-adm profile " + c.Want + "   (the profile for workload " + in.Workload + "; tuned 0.2's ktune script sets it)"
	}
	return "tuned-adm profile " + c.Want + "   (the profile for workload " + in.Workload + "; it sets " + sets + ")"
}

// stockTunedProfiles are the profiles shipped with tuned and its profile
// packages; any other name is a custom profile.
var stockTunedProfiles = map[string]bool{
	"balanced": true, "balanced-battery": true, "desktop": true, "powersave": true, "throughput-performance": true,
	"latency-performance": true, "network-latency": true, "network-throughput": true, "virtual-guest": true,
	"virtual-host": true, "hpc-compute": true, "accelerator-performance": true, "aws": true, "intel-sst": true,
	"optimize-serial-console": true, "oracle": true, "postgresql": true, "mssql": true, "sap-hana": true,
	"sap-netweaver": true, "realtime": true, "realtime-virtual-guest": true, "realtime-virtual-host": true,
	"cpu-partitioning": true, "cpu-partitioning-powersave": true, "atomic-host": true, "atomic-guest": true,
	"default": true, "laptop-ac-powersave": true, "laptop-battery-powersave": true, "server-powersave": true,
	"enterprise-storage": true, "spindown-disk": true, "openshift": true, "openshift-control-plane": true,
	"openshift-node": true, "mssql-server": true,
}

// TunedActive is what the active tuned profile sets ("cpu.force_latency" →
// value), where that was read, and the profiles it is built from.
type TunedActive struct {
	Profile  string
	Settings map[string]string
	Chain    []string // profile names in load order (includes first)
	From     string   // "the profile files (…)" or "tuned 2.20's stock profile"
	Running  *bool
}

// ActiveTuned returns the active profile's settings: the tuned.conf files the
// snapshot read, else the stock values of a stock profile (a sosreport copies
// /etc/tuned only), with why; ok false when no profile is active or its
// settings are unknown.
func ActiveTuned(s *snapshot.Snapshot) (TunedActive, string, bool) {
	t := s.Config.Tuned
	if t.ActiveProfile == nil || strings.TrimSpace(*t.ActiveProfile) == "" {
		return TunedActive{}, "no active tuned profile", false
	}
	a := TunedActive{Profile: strings.TrimSpace(*t.ActiveProfile), Running: t.Running, Settings: map[string]string{}}
	if len(t.Profile) > 0 {
		for _, ts := range t.Profile {
			a.Settings[ts.Unit+"."+ts.Option] = ts.Value
		}
		for _, f := range t.ProfileFiles {
			dir := f[:strings.LastIndex(f, "/")]
			a.Chain = append(a.Chain, dir[strings.LastIndex(dir, "/")+1:])
		}
		a.From = "its tuned.conf files (" + strings.Join(t.ProfileFiles, ", ") + ")"
		return a, "", true
	}
	why := AbsentReason(s, "config.tuned.profile")
	if st, chain, ok := tunedstock.Settings(a.Profile); ok {
		a.Settings, a.Chain = st, chain
		a.From = tunedstock.Version + "'s stock " + a.Profile + " profile (its tuned.conf was not read"
		if why != "" {
			a.From += ": " + why
		}
		a.From += ")"
		return a, "", true
	}
	if why == "" {
		why = "config.tuned.profile: the settings of profile " + a.Profile + " are not in the snapshot"
	}
	return TunedActive{}, why, false
}

// Includes reports whether the active profile is, or is built on, one of names.
func (a TunedActive) Includes(names ...string) (string, bool) {
	for _, p := range a.Chain {
		for _, n := range names {
			if p == n {
				return p, true
			}
		}
	}
	return "", false
}

// ForceLatencyUS resolves the profile's [cpu] force_latency as tuned's CPU
// plugin does: "|"-separated alternatives, the first that resolves wins; a
// number is µs; cstate.id:N / cstate.name:NAME is that idle state's exit
// latency on the first CPU (the _no_zero forms skip a latency of 0); "none"
// sets nothing. ok false when unset or unresolvable.
func ForceLatencyUS(value string, s *snapshot.Snapshot) (int64, bool) {
	var states []snapshot.IdleState // tuned reads cpu0's states
	for i, c := range s.CPUPower.Cpuidle {
		if c.CPU == 0 || i == 0 {
			states = c.States
		}
	}
	for _, alt := range strings.Split(value, "|") {
		alt = strings.TrimSpace(alt)
		if n, err := strconv.ParseInt(alt, 10, 64); err == nil {
			return n, true
		}
		if alt == "none" || alt == "None" {
			return 0, false
		}
		kind, arg, _ := strings.Cut(alt, ":")
		noZero := strings.HasSuffix(kind, "_no_zero")
		kind = strings.TrimSuffix(kind, "_no_zero")
		for _, st := range states {
			if kind == "cstate.id" && strconv.Itoa(st.Index) == arg || kind == "cstate.name" && st.Name == arg {
				if noZero && st.LatencyUS == 0 {
					break
				}
				return st.LatencyUS, true
			}
		}
	}
	return 0, false
}

// TunedPins are the settings where a stock profile sets a value another
// rule rejects (virtual-guest's vm.swappiness 30 where memory.swappiness
// wants at most 10): dbhost keeps the host's value when the rule accepts it,
// else the rule's, in sysctl.d, which tuned reapplies after the profile's
// (reapply_sysctl=1, its default). s may be nil (no host values).
func TunedPins(profile string, s *snapshot.Snapshot) map[string]string {
	st, _, ok := tunedstock.Settings(profile)
	if !ok {
		return nil
	}
	pins := map[string]string{}
	for k, v := range st {
		key, isSysctl := strings.CutPrefix(k, "sysctl.")
		if !isSysctl {
			continue
		}
		n, err := strconv.ParseInt(strings.Trim(v, `"`), 10, 64)
		if err != nil {
			continue
		}
		if key == "vm.swappiness" && n > wantSwappiness {
			pins[key] = fmt.Sprint(wantSwappiness)
			if s != nil {
				if cur, err := strconv.ParseInt(strings.TrimSpace(s.Sysctl[key]), 10, 64); err == nil && cur <= wantSwappiness {
					pins[key] = fmt.Sprint(cur)
				}
			}
		}
	}
	return pins
}
