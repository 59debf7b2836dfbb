package facts

import "github.com/dbhost/dbhost/internal/snapshot"

// readIntelPstate reads intel_pstate's global knobs (sysPstate); nil, with
// the reason, on a host that does not use that driver.
func readIntelPstate(c *Collector) *snapshot.IntelPstate {
	if !c.Root.Exists(sysPstate) {
		c.AbsentReason("cpu_power.intel_pstate", sysPstate, "not present on this host (intel_pstate not in use)")
		return nil
	}
	ip := &snapshot.IntelPstate{}
	if s := c.String("cpu_power.intel_pstate.status", sysPstate+"/status"); s != nil {
		ip.Status = *s
	}
	ip.MinPerfPct = c.Int("cpu_power.intel_pstate.min_perf_pct", sysPstate+"/min_perf_pct")
	ip.MaxPerfPct = c.Int("cpu_power.intel_pstate.max_perf_pct", sysPstate+"/max_perf_pct")
	if v := c.Int("cpu_power.intel_pstate.no_turbo", sysPstate+"/no_turbo"); v != nil {
		b := *v != 0
		ip.NoTurbo = &b
	}
	return ip
}
