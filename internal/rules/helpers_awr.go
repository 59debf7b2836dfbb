package rules

import (
	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers of the AWR/Statspack diagnoses (the rules whose ids hold "awr").
// Each such rule reads the reports given (--artifact or `dbhost awr`), runs
// with or without a host (Rule.HostOptional): without one, a finding says
// which host facts would decide; with one, it says what they are.

// DiagnoseAWR runs the report diagnoses on one report. snap is the host the
// report was taken on, or nil when none is given (`dbhost awr`).
func DiagnoseAWR(r *artifacts.AWRReport, snap *snapshot.Snapshot) []Finding {
	in := &Input{Snap: snap, Workload: WorkloadMixed, DB: DBOracle, Artifacts: &artifacts.Set{AWR: []*artifacts.AWRReport{r}}}
	return RunRules(AWRRules(), in).Findings
}

// AWRRules are the report diagnoses: the rules that run without a host.
func AWRRules() []Rule {
	var list []Rule
	for _, x := range All() {
		if x.HostOptional {
			list = append(list, x)
		}
	}
	return list
}
