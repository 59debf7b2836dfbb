package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// memory.dirty-ratios: vm.dirty_ratio / vm.dirty_background_ratio differ from
// the tuned profile 003's tables give for the audited workload:
// throughput-performance (oltp, dss, mixed) 40 / 10, latency-performance 10 / 3.
func init() {
	Register(Rule{
		ID:       "memory.dirty-ratios",
		Area:     AreaMemory,
		Severity: SevInfo,
		Title:    "Dirty page ratios differ from the tuned profile for this workload",
		Sources: []Source{
			{Doc: Seed003, Section: "dirty_ratio and dirty_background_ratio",
				Quote: "If there is a lot of pagecache pressure one would want to start background flushing sooner and delay the synchronous writes"},
			{Doc: Seed003, Section: "dirty_ratio and dirty_background_ratio",
				Quote: "Lowering the dirty_background_ratio"},
			{Doc: Seed003, Section: "dirty_ratio and dirty_background_ratio",
				Quote: "Increasing the dirty_ratio"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "dirty_background_ratio\tPercent\t10\t10"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "dirty_ratio\tPercent\t20\t40"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "dirty_background_ratio\tpercent\t10\t3"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "dirty_ratio\tpercent\t20\t10"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "dirty_ratio\tpercent\t40\t\t30"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "dirty_background_ratio\tpercent\t10\t5\t30"},
		},
		Scope: Scope{
			Kernels: "all; vm.dirty_bytes / vm.dirty_background_bytes override the ratios when non-zero",
			Distros: "RHEL 7 tuned profiles; the same values on any distribution",
			Note:    "oltp, dss, mixed → throughput-performance (virtual-guest in a VM: dirty_ratio 30); latency → latency-performance",
		},
		Check: checkDirtyRatios,
	})
}

type dirtyProfile struct {
	name              string
	ratio, background int64
}

func dirtyProfileFor(workload string, guest bool) dirtyProfile {
	switch {
	case workload == WorkloadLatency:
		return dirtyProfile{"latency-performance", 10, 3}
	case guest:
		// virtual-guest sets dirty_ratio 30 and inherits the background
		// ratio 10 from throughput-performance.
		return dirtyProfile{"virtual-guest", 30, 10}
	}
	return dirtyProfile{"throughput-performance", 40, 10}
}

func checkDirtyRatios(in *Input) Outcome {
	p := dirtyProfileFor(in.Workload, in.Snap.Host.Virt.Guest)
	var fs []Finding
	var notes []string
	for _, k := range []struct {
		ratio, bytes string
		want         int64
	}{{"vm.dirty_ratio", "vm.dirty_bytes", p.ratio}, {"vm.dirty_background_ratio", "vm.dirty_background_bytes", p.background}} {
		v, why := in.SysctlInt(k.ratio)
		if why != "" {
			return CannotCheck("%s", why)
		}
		if b, why := in.SysctlInt(k.bytes); why == "" && b > 0 {
			notes = append(notes, fmt.Sprintf("%s = %d overrides %s", k.bytes, b, k.ratio))
			continue
		}
		if v == k.want {
			notes = append(notes, fmt.Sprintf("%s = %d", k.ratio, v))
			continue
		}
		fs = append(fs, Finding{
			Setting:     k.ratio,
			Current:     fmt.Sprint(v),
			Recommended: fmt.Sprintf("%d (tuned %s, workload %s)", k.want, p.name, in.Workload),
			Evidence:    in.SysctlEvidence(k.ratio, fmt.Sprint(v)),
			Why:         dirtyWhy(p),
			Fix:         SysctlFix(k.ratio, fmt.Sprint(k.want)),
			Changes:     []change.Change{in.SysctlChange("memory.dirty-ratios", k.ratio, fmt.Sprint(k.want), "Dirty page ratios differ from the tuned profile for this workload")},
			Risk: "A higher dirty_ratio holds more unwritten data in memory (longer fsync/checkpoint bursts, more lost on a crash " +
				"of the page cache owner); databases using direct I/O are little affected either way.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	return Passed("%v (profile %s)", notes, p.name)
}

func dirtyWhy(p dirtyProfile) string {
	switch p.name {
	case "latency-performance":
		return "003: latency-performance sets dirty_ratio 10 and dirty_background_ratio 3, so writeback starts early and " +
			"no process is stalled by a large synchronous flush."
	case "virtual-guest":
		return "003: in a guest the tuned virtual-guest profile sets dirty_ratio 30 and inherits dirty_background_ratio 10 " +
			"from throughput-performance."
	}
	return "003: throughput-performance sets dirty_ratio 40 and dirty_background_ratio 10: under page cache pressure, start " +
		"background flushing early and delay the point where writing processes must write synchronously."
}
