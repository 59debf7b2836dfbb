package facts

import (
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

func init() { register("cpustat", StageSources, readCPUStat, "cpu_load") }

// userHZ is the tick rate /proc/stat is printed in. USER_HZ is 100 on every
// architecture Linux runs databases on (x86, arm64, ppc64, s390x); it is a
// compile-time ABI constant, not CONFIG_HZ.
const userHZ = 100

// parseStat parses /proc/stat: the aggregate "cpu" line, the "cpuN" lines of
// online CPUs (offline CPUs have none, so ids may have gaps) and btime. Every
// cpu line needs at least the eight fields user..steal (Linux ≥ 2.6.11); the
// guest fields, already counted in user and nice, are ignored. Other lines
// (intr, ctxt, softirq, ...) are skipped without being looked at.
func parseStat(s string) (snapshot.CPULoad, error) {
	load := snapshot.CPULoad{ClockTicks: userHZ, PerCPU: []snapshot.CPUTime{}}
	seen := map[int]bool{}
	lineNo := 0
	for line := range strings.Lines(s) {
		lineNo++
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "cpu"):
			t, err := parseStatCPU(line, lineNo)
			if err != nil {
				return snapshot.CPULoad{}, err
			}
			if t.CPU == -1 {
				if load.Total != nil {
					return snapshot.CPULoad{}, parseErr(lineNo, "a second aggregate cpu line")
				}
				load.Total = &t
				continue
			}
			if seen[t.CPU] {
				return snapshot.CPULoad{}, parseErr(lineNo, "cpu%d listed twice", t.CPU)
			}
			seen[t.CPU] = true
			load.PerCPU = append(load.PerCPU, t)
		case strings.HasPrefix(line, "btime"):
			f := strings.Fields(line)
			if len(f) != 2 || f[0] != "btime" {
				return snapshot.CPULoad{}, parseErr(lineNo, "expected \"btime SECONDS\", got %q", trunc(line, 40))
			}
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil || v <= 0 {
				return snapshot.CPULoad{}, parseErr(lineNo, "expected boot time in seconds, got %q", trunc(f[1], 30))
			}
			load.BootTime = v
		}
	}
	if load.Total == nil {
		return snapshot.CPULoad{}, parseErr(0, "no aggregate \"cpu\" line")
	}
	// The kernel prints CPUs in ascending order; keep that guaranteed.
	for i := 1; i < len(load.PerCPU); i++ {
		if load.PerCPU[i].CPU <= load.PerCPU[i-1].CPU {
			sortCPUTimes(load.PerCPU)
			break
		}
	}
	return load, nil
}

func sortCPUTimes(ts []snapshot.CPUTime) {
	// insertion sort: input is nearly always sorted already
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].CPU < ts[j-1].CPU; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// parseStatCPU parses one "cpu" or "cpuN" line.
func parseStatCPU(line string, lineNo int) (snapshot.CPUTime, error) {
	f := strings.Fields(line)
	t := snapshot.CPUTime{CPU: -1}
	if len(f) == 0 {
		return t, parseErr(lineNo, "empty cpu line")
	}
	if id := f[0][3:]; id != "" {
		n, err := strconv.Atoi(id)
		if err != nil || n < 0 || n > 1<<16 || strings.HasPrefix(id, "+") {
			return t, parseErr(lineNo, "expected \"cpuN\", got %q", trunc(f[0], 20))
		}
		t.CPU = n
	}
	if len(f) < 9 {
		return t, parseErr(lineNo, "expected at least 8 counters (user..steal) after %s, got %d", f[0], len(f)-1)
	}
	var v [8]uint64
	for i := range v {
		n, err := strconv.ParseUint(f[i+1], 10, 64)
		if err != nil {
			return t, parseErr(lineNo, "expected a tick count, got %q", trunc(f[i+1], 30))
		}
		v[i] = n
	}
	t.User, t.Nice, t.System, t.Idle, t.IOWait, t.IRQ, t.SoftIRQ, t.Steal = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return t, nil
}

func readCPUStat(c *Collector) {
	const p = "/proc/stat"
	l := &c.Snap.CPULoad
	*l = snapshot.CPULoad{ClockTicks: userHZ, PerCPU: []snapshot.CPUTime{}}
	b, err := c.Root.ReadFile(p)
	if err != nil {
		c.Absent("cpu_load", p, err)
		return
	}
	load, err := parseStat(string(b))
	if err != nil {
		c.Absent("cpu_load", p, err)
		return
	}
	*l = load
	if l.BootTime == 0 {
		c.AbsentReason("cpu_load.boot_time", p, "no btime line")
	}
}
