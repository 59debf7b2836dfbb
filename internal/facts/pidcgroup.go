package facts

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// PIDCgroup is /proc/PID/cgroup: v1 controller → path and the v2 path.
// facts (processes) and apply (moving a process, checking where it is)
// read the file with ParsePIDCgroup.
type PIDCgroup struct {
	V1    map[string]string // "cpuset" → "/db", "name=systemd" → "/..."
	V2    string
	HasV2 bool
}

// ParsePIDCgroup parses /proc/PID/cgroup lines "ID:controllers:path" (v1)
// and "0::path" (v2); a line of another shape is an error naming it.
func ParsePIDCgroup(r io.Reader) (PIDCgroup, error) {
	cg := PIDCgroup{V1: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || !strings.HasPrefix(f[2], "/") {
			return cg, parseErr(n, "expected \"id:controllers:/path\", got %q", trunc(line, 60))
		}
		if _, err := strconv.Atoi(f[0]); err != nil {
			return cg, parseErr(n, "expected a hierarchy id, got %q", trunc(f[0], 20))
		}
		if f[1] == "" {
			cg.V2, cg.HasV2 = f[2], true
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			if ctl != "" {
				cg.V1[ctl] = f[2]
			}
		}
	}
	if err := sc.Err(); err != nil {
		return cg, parseErr(n+1, "%v", err)
	}
	return cg, nil
}

// cpusetPath is the path that decides a process's cpuset: the v1 cpuset
// hierarchy's when it has one, else the v2 path.
func (cg PIDCgroup) cpusetPath() string {
	if p, ok := cg.V1["cpuset"]; ok {
		return p
	}
	return cg.V2
}
