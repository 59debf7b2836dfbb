package facts

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// parseMeminfo parses /proc/meminfo and /sys/devices/system/node/nodeN/meminfo
// ("Node 0 MemTotal:  16384 kB"). Values are returned as printed: kB for sized
// fields, counts for HugePages_*. For the per-node form, node is the node
// number of the lines (-1 for /proc/meminfo); mixed node numbers are an error.
func parseMeminfo(r io.Reader) (m map[string]int64, node int, err error) {
	m = map[string]int64{}
	node = -1
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Node "); ok {
			id, tail, ok := strings.Cut(rest, " ")
			v, err := strconv.Atoi(id)
			if !ok || err != nil || v < 0 {
				return nil, -1, parseErr(n, "expected \"Node N Key: value\", got %q", trunc(line, 60))
			}
			if node != -1 && node != v {
				return nil, -1, parseErr(n, "lines of node %d and node %d mixed", node, v)
			}
			node = v
			line = strings.TrimSpace(tail)
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok || key == "" {
			return nil, -1, parseErr(n, "expected \"Key: value [kB]\", got %q", trunc(line, 60))
		}
		f := strings.Fields(val)
		if len(f) == 0 || len(f) > 2 || (len(f) == 2 && f[1] != "kB") {
			return nil, -1, parseErr(n, "expected a number with optional kB after %q", key)
		}
		v, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return nil, -1, parseErr(n, "expected a number for %q, got %q", key, trunc(f[0], 30))
		}
		m[strings.TrimSpace(key)] = v
	}
	if err := sc.Err(); err != nil {
		return nil, -1, parseErr(n+1, "%v", err)
	}
	if len(m) == 0 {
		return nil, -1, parseErr(0, "no Key: value lines")
	}
	return m, node, nil
}
