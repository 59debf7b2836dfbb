package facts

import (
	"strconv"
	"strings"
)

// parsePIDStat returns field 39 (processor: the CPU the task last ran on)
// of /proc/PID/stat. The comm field is parenthesised and may itself hold
// spaces and ')', so fields are counted from the last ')'.
func parsePIDStat(s string) (int, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, parseErr(1, "expected \"pid (comm) state ...\"")
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state), so field 39 is f[36].
	if len(f) < 37 {
		return 0, parseErr(1, "expected at least 39 fields, got %d", len(f)+2)
	}
	cpu, err := strconv.Atoi(f[36])
	if err != nil || cpu < 0 || cpu > 1<<16 {
		return 0, parseErr(1, "expected a CPU number in field 39, got %q", trunc(f[36], 20))
	}
	return cpu, nil
}
