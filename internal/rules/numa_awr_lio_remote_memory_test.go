package rules

import (
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func TestAWRLIORemoteMemory(t *testing.T) {
	const id = "numa.awr-lio-remote-memory"
	sp := awrTestReport(t, "sp_31_32_12102_crlf.lst") // 001's remote test: 2.1 M logical reads/s, 97.7 % CPU
	awrOutcome(t, id, "cannot", "where the instance's CPUs and memory are", nil, sp)
	rep := awrRun(t, id, nil, sp)
	wantIn(t, "reason", rep.CannotCheck[0].Reason, "CPU time: 1426 s, 97.7 % of call time", "2133879.6 logical reads per second",
		"_enable_numa_support = FALSE", "processor_group_name = oracle", "the report's host: 8 sockets")

	h := numaHost(8, 20)
	h.Host.Hostname = "bdtsrv"
	h.Processes = []snapshot.Process{oracleProc(641387, "bdt12cg_1", cpuRange(1, 9), []int{7})}
	f := awrFires(t, id, h, sp)
	wantIn(t, "current", f.Current, "process 641387 (ora_pmon_bdt12cg_1) runs on node(s) 0 and may allocate only on 7")
	// numa_maps say so too.
	h.Processes[0].MemsAllowed = []int{0, 7}
	h.Processes[0].NUMA = []snapshot.NodeMem{{Node: 0, TotalKB: 100}, {Node: 7, TotalKB: 32 << 20}}
	f = awrFires(t, id, h, sp)
	wantIn(t, "current", f.Current, "with 100 % of its memory elsewhere (numa_maps)")
	// Local: passes.
	h.Processes[0].MemsAllowed, h.Processes[0].NUMA = []int{0}, []snapshot.NodeMem{{Node: 0, TotalKB: 32 << 20}}
	awrOutcome(t, id, "passed", "memory is on its CPUs' nodes", h, sp)
	// Spread over two nodes without Oracle NUMA support: the SGA is interleaved (info).
	h.Processes[0].CPUsAllowed, h.Processes[0].MemsAllowed, h.Processes[0].NUMA = cpuRange(0, 39), []int{0, 1}, nil
	f = awrFires(t, id, h, sp)
	if f.Severity != SevInfo || f.Setting != "oracle:_enable_NUMA_support" {
		t.Errorf("%+v", f)
	}
	awrOutcome(t, id, "passed", "one NUMA node", numaHost(1, 20), sp)
	awrOutcome(t, id, "cannot", "no process of instance bdt12cg_1", numaHost(2, 4), sp)
	awrOutcome(t, id, "passed", "not CPU-bound on logical reads", nil, awrTestReport(t, "awrrpt_1_205_206_11203.txt"))
}
