package facts

import (
	"strconv"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// A hybrid CPU (same state names, other latencies) gets its own desc and
// residency; a CPU with the same table as the previous one reuses them.
func TestIdleStatesTableReuse(t *testing.T) {
	files := map[string]string{}
	state := func(cpu, i int, name, desc string, lat, res int) {
		d := "/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/cpuidle/state" + strconv.Itoa(i) + "/"
		files[d+"name"], files[d+"desc"] = name+"\n", desc+"\n"
		files[d+"latency"], files[d+"residency"], files[d+"disable"] = strconv.Itoa(lat)+"\n", strconv.Itoa(res)+"\n", "0\n"
	}
	state(0, 0, "POLL", "CPUIDLE CORE POLL IDLE", 0, 0)
	state(0, 1, "C6", "MWAIT 0x20", 170, 600)
	state(1, 0, "POLL", "CPUIDLE CORE POLL IDLE", 0, 0)
	state(1, 1, "C6", "MWAIT 0x20", 170, 600)
	state(2, 0, "POLL", "CPUIDLE CORE POLL IDLE", 0, 0)
	state(2, 1, "C6", "MWAIT 0x20 (E-core)", 220, 900) // hybrid: same name, other latency
	// CPU 1's desc/residency files say something else: if they were read
	// although the table is CPU 0's, the test sees it.
	files["/sys/devices/system/cpu/cpu1/cpuidle/state1/residency"] = "1\n"
	root := Root{Dir: topoTree(t, files)}
	ab := newPowerAbsences(newSysReader(root), 3)
	var prev []snapshot.IdleState
	var got [][]snapshot.IdleState
	for cpu := 0; cpu < 3; cpu++ {
		st := readIdleStates(ab, cpu, prev)
		got, prev = append(got, st), st
	}
	if got[1][1].ResidencyUS != 600 || got[1][1].Desc != "MWAIT 0x20" {
		t.Errorf("cpu 1 C6 = %+v, want the table of cpu 0 reused", got[1][1])
	}
	if got[2][1].ResidencyUS != 900 || got[2][1].Desc != "MWAIT 0x20 (E-core)" || got[2][1].LatencyUS != 220 {
		t.Errorf("cpu 2 C6 = %+v, want its own table read", got[2][1])
	}
}
