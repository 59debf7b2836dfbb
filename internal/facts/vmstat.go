package facts

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// parseVmstat parses /proc/vmstat ("name value" lines) into every counter.
func parseVmstat(r io.Reader) (map[string]int64, error) {
	m := make(map[string]int64, 256)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 2 || strings.Contains(f[0], ":") {
			return nil, parseErr(n, "expected \"name value\", got %q", trunc(line, 60))
		}
		name := f[0]
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return nil, parseErr(n, "expected an integer value for %q, got %q", trunc(name, 40), trunc(f[1], 30))
		}
		m[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, parseErr(n+1, "%v", err)
	}
	if len(m) == 0 {
		return nil, parseErr(0, "no counters")
	}
	return m, nil
}
