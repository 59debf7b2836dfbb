package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// network.busy-poll-latency: 003's network-latency profile sets
// net.core.busy_read and busy_poll to 50 µs (socket busy polling).
func init() {
	Register(Rule{
		ID:       "network.busy-poll-latency",
		Area:     AreaNetwork,
		Severity: SevInfo,
		Title:    "Socket busy polling off on a latency workload",
		Sources: []Source{
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "net.core.busy_read\tmicroseconds\t\t\t50"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "net.core.busy_poll\tmicroseconds\t\t\t50"},
			{Doc: Seed000, Section: "tuned-adm",
				Quote: "the network-latency profile on RHEL7"},
		},
		Scope:     Scope{Kernels: "3.11+ (busy polling), drivers with NAPI busy-poll support", Distros: "RHEL 7+ tuned network-latency; the same sysctls elsewhere"},
		Workloads: []string{WorkloadLatency},
		Check:     checkBusyPoll,
	})
}

const wantBusyPoll = 50

func checkBusyPoll(in *Input) Outcome {
	var fs []Finding
	var ok, cannot []string
	var wants []change.Change
	for _, key := range []string{"net.core.busy_read", "net.core.busy_poll"} {
		v, r := in.SysctlInt(key)
		if r != "" {
			cannot = append(cannot, r)
			continue
		}
		wants = append(wants, in.SysctlChange("network.busy-poll-latency", key, fmt.Sprint(wantBusyPoll), busyPollWhy))
		if v > 0 {
			ok = append(ok, fmt.Sprintf("%s = %d", key, v))
			continue
		}
		fs = append(fs, Finding{
			Setting:     key,
			Current:     fmt.Sprint(v),
			Recommended: fmt.Sprintf("%d (µs, tuned network-latency)", wantBusyPoll),
			Evidence:    in.SysctlEvidence(key, fmt.Sprint(v)),
			Why: "003: the network-latency profile (recommended by 000 for RHEL 7 latency work) sets busy_read and busy_poll to 50 µs: " +
				"a socket waiting for data polls the device queue instead of sleeping until the interrupt, cutting wake-up latency.",
			Fix:     SysctlFix(key, fmt.Sprint(wantBusyPoll)),
			Changes: []change.Change{in.SysctlChange("network.busy-poll-latency", key, fmt.Sprint(wantBusyPoll), busyPollWhy)},
			Risk:    "CPUs spin up to 50 µs per blocking receive/poll: more CPU and power; useless for NICs whose driver has no busy-poll support.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...).Wanting(wants...)
	}
	if len(ok) == 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	return Passed("%s", strings.Join(ok, "; ")).Wanting(wants...).Reading(strings.Join(ok, "; ") + " (/proc/sys/net/core)")
}

const busyPollWhy = "Socket busy polling off on a latency workload"
