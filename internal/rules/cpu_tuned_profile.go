package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// cpu.tuned-profile: tuned is installed with no active profile, or with a
// profile that does not fit the workload (TunedProfileFor: latency and OLTP
// latency-performance, as 000 recommends; DSS and mixed throughput-performance;
// guests virtual-guest; 003's profile tables); when tuned is not installed,
// an informational finding says which profile to use. A custom profile is
// judged by the profiles it includes.
func init() {
	Register(Rule{
		ID:       "cpu.tuned-profile",
		Area:     AreaCPU,
		Severity: SevWarning,
		Title:    "The tuned profile does not fit the workload",
		Sources:  tunedSources,
		Scope: Scope{
			Distros: "RHEL/Oracle Linux/CentOS 6+ (tuned-adm), SLES, Debian/Ubuntu with the tuned package",
			Note: "a custom profile fits when it includes a fitting stock profile (read from its tuned.conf files); dbhost plan exports one " +
				"built on the recommended profile",
		},
		Check: checkTunedProfile,
	})
}

// tunedSources: [0:3] 000's latency-performance (Table 13, § tuned-adm,
// Table 8), [3] 003's OLTP comparison, [4] 003's BIOS caveat for the latency
// profiles, [5] 003's throughput profiles, [6] 003's latency profiles, [7]
// 003's virtualization profiles.
var tunedSources = []Source{
	{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
		Quote: "tuned-adm profile\tlatency-performance"},
	{Doc: Seed000, Section: "tuned-adm",
		Quote: "we recommend using the latency-performance profile for RHEL6 and the network-latency profile on RHEL7"},
	{Doc: Seed000, Section: "Table 8. FIO test configurations.",
		Quote: "tuned-adm profile\tbalanced\tlatency-performance"},
	{Doc: Seed003, Section: "Tuned – Database workload — OLTP workload - Tuned Profile comparison",
		Quote: "latency-performance vs throughput-performance"},
	{Doc: Seed003, Section: "Tuned – Database workload",
		Quote: "The latency profiles tweak the CPU power features and they will not work if the BIOS is not configured properly"},
	{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
		Quote: "dirty_ratio\tPercent\t20\t40"},
	{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
		Quote: "dirty_ratio\tpercent\t20\t10"},
	{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
		Quote: "Inherits From/Notes\t\t\tthroughput-performance\tthroughput-performance"},
}

// tunedSourcesFor: the sources that support recommending profile want, and
// only those (000's "latency-performance for RHEL6 and network-latency on
// RHEL7" does not support virtual-guest or throughput-performance).
func tunedSourcesFor(want string) []Source {
	pick := func(ix ...int) []Source {
		out := make([]Source, 0, len(ix))
		for _, i := range ix {
			out = append(out, tunedSources[i])
		}
		return out
	}
	switch want {
	case "latency-performance", "network-latency":
		return pick(0, 1, 2, 3, 4, 6)
	case "virtual-guest", "virtual-host":
		return pick(7, 5)
	}
	return pick(5)
}

func checkTunedProfile(in *Input) Outcome {
	s := in.Snap
	t := s.Config.Tuned
	c := TunedProfileForHost(s, in.Workload, in.DB)
	want, fit, why := c.Want, c.Fit, c.Why
	v02 := TunedV02(s)
	absentWhy := AbsentReason(s, "config.tuned.active_profile")
	tchange := []change.Change{{Kind: change.TunedProfile, Key: "profile", Value: want, Rule: "cpu.tuned-profile", Why: why}}
	fix := Fix{Runtime: []string{"tuned-adm profile " + sh(want)}, Persistent: []string{"tuned-adm profile " + sh(want) + " (persists in /etc/tuned/active_profile; the tuned service must be enabled)"}}
	if v02 {
		// RHEL 6's tuned 0.2: SysV services, the name in
		// /etc/tune-profiles/active-profile, no tuned-adm verify.
		fix.Persistent = []string{"tuned-adm profile " + sh(want) + " (tuned 0.2 keeps it in /etc/tune-profiles/active-profile), then chkconfig tuned on && chkconfig ktune on"}
	}
	// Settings dbhost keeps over the profile's own (sysctl.d wins: tuned
	// reapplies it after the profile, reapply_sysctl=1).
	pin := func(profile string, fix *Fix) []change.Change {
		pins := TunedPins(profile, s)
		var cs []change.Change
		for _, k := range sortedStringKeys(pins) {
			why := fmt.Sprintf("tuned's %s sets %s higher; dbhost keeps %s (tuned reapplies sysctl.d after its profile)", profile, k, pins[k])
			cs = append(cs, in.SysctlChange("cpu.tuned-profile", k, pins[k], why))
			pf := SysctlFix(k, pins[k])
			fix.Runtime = append(fix.Runtime, pf.Runtime...)
			e := pf.Edits[0]
			e.Edit += "   (kept over the profile's value: " + why + ")"
			fix.Edits = append(fix.Edits, e)
		}
		return cs
	}
	tchange = append(tchange, pin(want, &fix)...)
	if !t.Installed {
		if !strings.Contains(absentWhy, "not installed") {
			return CannotCheck("%s", in.Reason("config.tuned", "whether tuned is installed is not in the snapshot"))
		}
		enable := " && systemctl enable --now tuned && tuned-adm profile " + sh(want)
		if v02 {
			enable = " && chkconfig tuned on && chkconfig ktune on && tuned-adm profile " + sh(want)
		}
		f := Finding{
			Severity:    SevInfo,
			Setting:     "tuned-adm profile",
			Current:     "tuned not installed",
			Recommended: want,
			Evidence:    "neither /etc/tuned nor /usr/lib/tuned exists (" + absentWhy + ")",
			Why:         why + ". tuned applies the profile's CPU, memory, disk and network settings as one set and can roll them back.",
			Fix: Fix{Runtime: append([]string{PkgInstall(s.Host, "tuned") + enable}, fix.Runtime[1:]...),
				Persistent: fix.Persistent, Edits: fix.Edits},
			Changes: tchange,
			Sources: tunedSourcesFor(want),
			Risk:    "A profile changes many settings at once (governor, C-states, THP, dirty ratios, read-ahead): apply it in a maintenance window and compare.",
		}
		return Found(f)
	}
	if t.ActiveProfile == nil {
		if !strings.Contains(absentWhy, "not present") {
			return CannotCheck("%s", in.Reason("config.tuned.active_profile", "not in the snapshot"))
		}
	}
	active := ""
	if t.ActiveProfile != nil {
		active = strings.TrimSpace(*t.ActiveProfile)
	}
	tchange[0].Current = active
	ev := tunedProfileFile(s) + ": "
	if active == "" {
		ev += "none"
	} else {
		ev += active
	}
	if t.ProfileMode != "" {
		ev += "; profile_mode " + t.ProfileMode
	}
	if t.Running != nil {
		ev += fmt.Sprintf("; tuned daemon running: %t", *t.Running)
	}
	ev += "; workload " + in.Workload
	switch HostRole(s) {
	case RoleGuest:
		ev += "; virtual guest (" + s.Host.Virt.Type + ")"
	case RoleHypervisor:
		ev += fmt.Sprintf("; KVM host: %d QEMU guest processes running", *s.Host.Virt.KVMGuests)
	}
	risk := "Switching profiles changes many settings at once (governor, C-states, THP, dirty ratios, read-ahead): switch in a maintenance window and compare."
	if active == "" {
		return Found(Finding{
			Setting: "tuned-adm profile", Current: "no active profile (tuned-adm off)", Recommended: want,
			Evidence: ev, Why: why, Fix: fix, Changes: tchange, Risk: risk, Sources: tunedSourcesFor(want),
		})
	}
	// Fits: a fitting stock profile is active, or a custom one built on one.
	a, aWhy, known := ActiveTuned(s)
	base, fits := "", false
	for _, p := range strings.Fields(active) {
		for _, ok := range fit {
			if p == ok {
				base, fits = p, true
			}
		}
	}
	custom := false
	for _, p := range strings.Fields(active) {
		if !stockTunedProfiles[p] {
			custom = true
		}
	}
	if !fits && custom {
		if !known {
			return CannotCheck("custom tuned profile %q: %s", active, aWhy)
		}
		base, fits = a.Includes(fit...)
		ev += "; built from " + strings.Join(a.Chain, " → ") + " (" + a.From + ")"
	}
	if fits {
		if t.Running != nil && !*t.Running {
			sfix := Fix{Runtime: []string{"systemctl enable --now tuned"}, Persistent: []string{"systemctl enable tuned"}}
			if v02 {
				sfix = Fix{Runtime: []string{"service tuned start && service ktune start"}, Persistent: []string{"chkconfig tuned on && chkconfig ktune on"}}
			}
			return Found(Finding{
				Severity: SevInfo, Setting: "tuned service", Current: "profile " + active + " selected, tuned not running",
				Recommended: "tuned running (" + sfix.Runtime[0] + ")", Evidence: ev,
				Why:     "a selected profile is applied only while the tuned daemon runs; without it the host keeps its defaults",
				Fix:     sfix,
				Changes: pin(base, &sfix),
				Pending: PendingRestart,
				Sources: tunedSourcesFor(base),
				Risk:    risk,
			})
		}
		// dbhost's pins over the profile stay wanted while it runs.
		if base != active {
			return Passed("tuned profile %s is built on %s, which fits workload %s", active, base, in.Workload).Wanting(tchange[1:]...).Reading(ev)
		}
		return Passed("tuned profile %s fits workload %s", active, in.Workload).Wanting(tchange[1:]...).Reading(ev)
	}
	if v02 {
		fix.Runtime = append(fix.Runtime, "tuned-adm active   (tuned 0.2 has no verify: it names the profile and whether tuned and ktune run)")
	} else {
		fix.Runtime = append(fix.Runtime, "tuned-adm verify   (then check /var/log/tuned/tuned.log for what differs)")
	}
	rec := want
	if len(fit) > 1 {
		rec += " (or " + strings.Join(fit[1:], ", ") + ")"
	}
	if custom {
		rec += ", or a custom profile that includes it"
	}
	return Found(Finding{
		Setting:     "tuned-adm profile",
		Current:     active,
		Recommended: rec,
		Evidence:    ev,
		Why:         why,
		Fix:         fix,
		Changes:     tchange,
		Sources:     tunedSourcesFor(want),
		Risk:        risk,
	})
}

// sortedStringKeys returns a map's keys in order.
func sortedStringKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
