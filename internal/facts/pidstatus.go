package facts

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
)

// pidStatus is what dbhost keeps of /proc/PID/status.
type pidStatus struct {
	Name    string
	State   string
	UID     int
	PPID    int
	Threads int
	RSSKB   int64 // 0 when VmRSS is not printed (kernel threads, zombies)
	CPUs    []int // Cpus_allowed_list; nil when not printed
	Mems    []int // Mems_allowed_list; nil when not printed
}

// parsePIDStatus parses /proc/PID/status. Uid, PPid and Threads are required.
func parsePIDStatus(r io.Reader) (pidStatus, error) {
	var st pidStatus
	var haveUID, havePPID, haveThreads bool
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		var err error
		switch k {
		case "Name":
			st.Name = v
		case "State":
			st.State, _, _ = strings.Cut(v, " ")
		case "Uid":
			f := strings.Fields(v)
			if len(f) == 0 {
				return st, parseErr(n, "expected uids after Uid:")
			}
			st.UID, err = strconv.Atoi(f[0])
			haveUID = err == nil && st.UID >= 0
		case "PPid":
			st.PPID, err = strconv.Atoi(v)
			havePPID = err == nil && st.PPID >= 0
		case "Threads":
			st.Threads, err = strconv.Atoi(v)
			haveThreads = err == nil && st.Threads >= 0
		case "VmRSS":
			num, unit, _ := strings.Cut(v, " ")
			st.RSSKB, err = strconv.ParseInt(num, 10, 64)
			if err == nil && (st.RSSKB < 0 || strings.TrimSpace(unit) != "kB") {
				err = fmt.Errorf("unit")
			}
		case "Cpus_allowed_list":
			st.CPUs, err = cpulist.Parse(v)
		case "Mems_allowed_list":
			st.Mems, err = cpulist.Parse(v)
		}
		if err != nil {
			return st, parseErr(n, "unreadable %s: %q", k, trunc(v, 40))
		}
	}
	if err := sc.Err(); err != nil {
		return st, parseErr(n+1, "%v", err)
	}
	switch {
	case !haveUID:
		return st, parseErr(0, "no Uid line")
	case !havePPID:
		return st, parseErr(0, "no PPid line")
	case !haveThreads:
		return st, parseErr(0, "no Threads line")
	}
	return st, nil
}
