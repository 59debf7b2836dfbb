// Package tunedstock is what the stock tuned profiles that concern database
// hosts set, as tuned 2.20 ships them in /usr/lib/tuned/<name>/tuned.conf
// (the Debian package; RHEL 8/9 ship the same values). It is data, written
// from the profiles' values, not a copy of their files: units whose options
// depend on the hardware (the aarch64 "thunderx" instances of
// throughput-performance) are left out.
//
// The rules use it to predict what a profile they recommend will set, and to
// credit a stock profile whose tuned.conf a snapshot lacks (a sosreport
// without /usr/lib/tuned); the fixture hosts write it as their profiles.
package tunedstock

import (
	"fmt"
	"sort"
	"strings"
)

// Profile is one stock profile: the profile it includes and its units'
// options ("cpu" → force_latency → "cstate.id_no_zero:1|3").
type Profile struct {
	Summary string
	Include string
	Units   map[string]map[string]string
}

// Version is the tuned release the values are from.
const Version = "tuned 2.20"

// Profiles are the stock profiles by name.
var Profiles = map[string]Profile{
	"balanced": {Summary: "General non-specialized tuned profile", Units: map[string]map[string]string{
		"cpu":       {"governor": "conservative|powersave", "energy_perf_bias": "normal"},
		"scsi_host": {"alpm": "medium_power"},
	}},
	"powersave": {Summary: "Optimize for low power consumption", Units: map[string]map[string]string{
		"cpu":       {"governor": "ondemand|powersave", "energy_perf_bias": "powersave|power"},
		"sysctl":    {"vm.laptop_mode": "5", "vm.dirty_writeback_centisecs": "1500", "kernel.nmi_watchdog": "0"},
		"scsi_host": {"alpm": "min_power"},
	}},
	"throughput-performance": {Summary: "Broadly applicable tuning that provides excellent performance across a variety of common server workloads",
		Units: map[string]map[string]string{
			"cpu":    {"governor": "performance", "energy_perf_bias": "performance", "min_perf_pct": "100"},
			"disk":   {"readahead": ">4096"},
			"sysctl": {"vm.dirty_ratio": "40", "vm.dirty_background_ratio": "10", "vm.swappiness": "10", "net.core.somaxconn": ">2048"},
		}},
	"latency-performance": {Summary: "Optimize for deterministic performance at the cost of increased power consumption",
		Units: map[string]map[string]string{
			"cpu":    {"force_latency": "cstate.id_no_zero:1|3", "governor": "performance", "energy_perf_bias": "performance", "min_perf_pct": "100"},
			"sysctl": {"vm.dirty_ratio": "10", "vm.dirty_background_ratio": "3", "vm.swappiness": "10"},
		}},
	"network-latency": {Summary: "Optimize for deterministic performance at the cost of increased power consumption, focused on low latency network performance",
		Include: "latency-performance", Units: map[string]map[string]string{
			"vm":         {"transparent_hugepages": "never"},
			"sysctl":     {"net.core.busy_read": "50", "net.core.busy_poll": "50", "net.ipv4.tcp_fastopen": "3", "kernel.numa_balancing": "0"},
			"bootloader": {"cmdline_network_latency": "skew_tick=1"},
		}},
	"network-throughput": {Summary: "Optimize for streaming network throughput, generally only necessary on older CPUs or 40G+ networks",
		Include: "throughput-performance", Units: map[string]map[string]string{
			"sysctl": {"net.ipv4.tcp_rmem": `"4096 87380 16777216"`, "net.ipv4.tcp_wmem": `"4096 16384 16777216"`},
		}},
	"virtual-guest": {Summary: "Optimize for running inside a virtual guest", Include: "throughput-performance", Units: map[string]map[string]string{
		"sysctl": {"vm.dirty_ratio": "30", "vm.swappiness": "30"},
	}},
	"virtual-host": {Summary: "Optimize for running KVM guests", Include: "throughput-performance", Units: map[string]map[string]string{
		"sysctl": {"vm.dirty_background_ratio": "5"},
		"cpu":    {"force_latency": "cstate.id_no_zero:3|70"},
	}},
	"oracle": {Summary: "Optimize for Oracle RDBMS", Include: "throughput-performance", Units: map[string]map[string]string{
		"sysctl": {"vm.swappiness": "10", "vm.dirty_background_ratio": "3", "vm.dirty_ratio": "40", "vm.dirty_expire_centisecs": "500",
			"vm.dirty_writeback_centisecs": "100", "kernel.shmmax": "4398046511104", "kernel.shmall": "1073741824", "kernel.shmmni": "4096",
			"kernel.sem": "250 32000 100 128", "fs.file-max": "6815744", "fs.aio-max-nr": "1048576", "net.ipv4.ip_local_port_range": "9000 65499",
			"net.core.rmem_default": "262144", "net.core.rmem_max": "4194304", "net.core.wmem_default": "262144", "net.core.wmem_max": "1048576",
			"kernel.panic_on_oops": "1", "kernel.numa_balancing": "0"},
		"vm": {"transparent_hugepages": "never"},
	}},
	"postgresql": {Summary: "Optimize for PostgreSQL server", Include: "throughput-performance", Units: map[string]map[string]string{
		"cpu": {"force_latency": "1"},
		"vm":  {"transparent_hugepages": "never"},
		"sysctl": {"vm.dirty_background_ratio": "0", "vm.dirty_ratio": "0", "vm.dirty_background_bytes": "67108864",
			"vm.dirty_bytes": "536870912", "vm.swappiness": "3", "kernel.sched_autogroup_enabled": "0"},
		"scheduler": {"sched_min_granularity_ns": "10000000", "sched_migration_cost_ns": "50000000"},
	}},
}

// Settings returns what profile name sets once its includes are merged
// (the included profile first, the including one overriding), keyed
// "unit.option", and the profiles in load order; ok is false for a name
// that is not a stock profile here.
func Settings(name string) (map[string]string, []string, bool) {
	out := map[string]string{}
	var chain []string
	for depth := 0; name != "" && depth < 8; depth++ {
		p, ok := Profiles[name]
		if !ok {
			return nil, nil, false
		}
		chain = append([]string{name}, chain...)
		for u, opts := range p.Units {
			for o, v := range opts {
				if _, set := out[u+"."+o]; !set {
					out[u+"."+o] = v
				}
			}
		}
		name = p.Include
	}
	return out, chain, true
}

// TunedConf renders a stock profile as a tuned.conf (for fixture hosts).
func (p Profile) TunedConf() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[main]\nsummary=%s\n", p.Summary)
	if p.Include != "" {
		fmt.Fprintf(&b, "include=%s\n", p.Include)
	}
	units := make([]string, 0, len(p.Units))
	for u := range p.Units {
		units = append(units, u)
	}
	sort.Strings(units)
	for _, u := range units {
		fmt.Fprintf(&b, "\n[%s]\n", u)
		opts := make([]string, 0, len(p.Units[u]))
		for o := range p.Units[u] {
			opts = append(opts, o)
		}
		sort.Strings(opts)
		for _, o := range opts {
			fmt.Fprintf(&b, "%s=%s\n", o, p.Units[u][o])
		}
	}
	return b.String()
}
