package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/artifacts"
)

func TestAWRPGALimit(t *testing.T) {
	const id = "memory.awr-pga-limit"
	rac := awrTestReport(t, "awrrpt_2_2201_2202_19c_rac.html") // PGA 33,903.5 MB of an 80 GB limit; SGA+PGA 31 % of the host
	awrOutcome(t, id, "passed", "PGA use 33903.5 MB below its limit", nil, rac)

	pga, sga, hostMB := 78000.0, 200000.0, 290000.0
	r := &artifacts.AWRReport{File: "pga.html", Memory: &artifacts.AWRMemory{PGAUseMB: &pga, SGAUseMB: &sga, HostMemMB: &hostMB},
		Parameters: map[string]string{"pga_aggregate_limit": "85899345920"}, ParamLine: map[string]int{"pga_aggregate_limit": 812}}
	rep := awrRun(t, id, nil, r)
	if len(rep.Findings) != 2 {
		t.Fatalf("%+v", rep)
	}
	wantIn(t, "limit", rep.Findings[0].Current+rep.Findings[1].Current, "PGA use 78000 MB is 95.21 % of pga_aggregate_limit 81920 MB",
		"SGA and PGA 95.86 % of the host's memory")
	// The host's own memory replaces the report's.
	h := host()
	h.Memory.Meminfo = map[string]int64{"MemTotal": 1 << 30} // 1 TiB
	rep = awrRun(t, id, h, r)
	if len(rep.Findings) != 1 || rep.Findings[0].Setting != "oracle:pga_aggregate_limit" {
		t.Errorf("%+v", rep.Findings)
	}
	awrOutcome(t, id, "cannot", "no Memory Statistics", nil, awrTestReport(t, "awrrpt_1_1211_1212_10204.txt"))
}
