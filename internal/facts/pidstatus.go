package facts

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
)

// pidStatus is what dbhost keeps of /proc/PID/status. Every line is
// optional: a field whose line is missing or unreadable keeps its "unknown"
// value (UID, PPID -1; Threads 0; CPUs, Mems nil), and Missing says why, so
// a kernel that prints fewer lines (or a capture cut short) loses only those
// fields, never the process.
type pidStatus struct {
	Name    string
	State   string
	UID     int
	PPID    int
	Threads int
	RSSKB   int64 // 0 when VmRSS is not printed (kernel threads, zombies)
	CPUs    []int // Cpus_allowed_list, or the Cpus_allowed mask (kernels before 2.6.26)
	Mems    []int // Mems_allowed_list, or the Mems_allowed mask
	// Missing maps each field that could not be read ("uid", "ppid",
	// "threads", "rss_kb", "cpus_allowed", "mems_allowed") to the reason.
	Missing map[string]error
}

// statusLines are the lines parsePIDStatus reads: field name → the kernel
// version that first printed the line (fs/proc/array.c, kernel/cpuset.c),
// for the reason when it is missing.
var statusLines = map[string]struct{ line, since string }{
	"uid":          {"Uid", "every kernel"},
	"ppid":         {"PPid", "every kernel"},
	"threads":      {"Threads", "Linux 2.6.0"},
	"rss_kb":       {"VmRSS", "every kernel; absent for kernel threads and zombies"},
	"cpus_allowed": {"Cpus_allowed_list", "Linux 2.6.26; older kernels print only the Cpus_allowed mask"},
	"mems_allowed": {"Mems_allowed_list", "Linux 2.6.26; older kernels print only the Mems_allowed mask"},
}

// parsePIDStatus parses /proc/PID/status ("Key:\tvalue" lines). It fails
// only when the text holds no such line at all; a missing or malformed line
// is recorded in Missing and the other lines are kept.
func parsePIDStatus(r io.Reader) (pidStatus, error) {
	st := pidStatus{UID: -1, PPID: -1, Missing: map[string]error{}}
	var cpuMask, memMask string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	n, lines := 0, 0
	// The last line of a field decides it (the kernel prints each once).
	bad := func(field, k, v string) {
		st.Missing[field] = parseErr(n, "unreadable %s: %q", k, trunc(v, 40))
		switch field {
		case "uid":
			st.UID = -1
		case "ppid":
			st.PPID = -1
		case "threads":
			st.Threads = 0
		case "rss_kb":
			st.RSSKB = 0
		case "cpus_allowed":
			st.CPUs = nil
		case "mems_allowed":
			st.Mems = nil
		}
	}
	ok := func(field string) { delete(st.Missing, field) }
	seen := map[string]bool{}
	for sc.Scan() {
		n++
		k, v, found := strings.Cut(sc.Text(), ":")
		if !found || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		lines++
		v = strings.TrimSpace(strings.TrimSuffix(v, "\r"))
		seen[k] = true
		switch k {
		case "Name":
			st.Name = v
		case "State":
			st.State, _, _ = strings.Cut(v, " ")
		case "Uid":
			f := strings.Fields(v)
			if len(f) == 0 {
				bad("uid", k, v)
			} else if uid, err := strconv.Atoi(f[0]); err != nil || uid < 0 {
				bad("uid", k, v)
			} else {
				st.UID = uid
				ok("uid")
			}
		case "PPid":
			if ppid, err := strconv.Atoi(v); err != nil || ppid < 0 {
				bad("ppid", k, v)
			} else {
				st.PPID = ppid
				ok("ppid")
			}
		case "Threads":
			if t, err := strconv.Atoi(v); err != nil || t < 0 {
				bad("threads", k, v)
			} else {
				st.Threads = t
				ok("threads")
			}
		case "VmRSS":
			num, unit, _ := strings.Cut(v, " ")
			if rss, err := strconv.ParseInt(num, 10, 64); err != nil || rss < 0 || strings.TrimSpace(unit) != "kB" {
				bad("rss_kb", k, v)
			} else {
				st.RSSKB = rss
				ok("rss_kb")
			}
		case "Cpus_allowed_list":
			if l, err := cpulist.Parse(v); err != nil {
				bad("cpus_allowed", k, v)
			} else {
				st.CPUs = l
				ok("cpus_allowed")
			}
		case "Mems_allowed_list":
			if l, err := cpulist.Parse(v); err != nil {
				bad("mems_allowed", k, v)
			} else {
				st.Mems = l
				ok("mems_allowed")
			}
		case "Cpus_allowed":
			cpuMask = v
		case "Mems_allowed":
			memMask = v
		}
	}
	if err := sc.Err(); err != nil {
		return st, parseErr(n+1, "%v", err)
	}
	if lines == 0 {
		return st, parseErr(0, "expected \"Key:\\tvalue\" lines (/proc/PID/status), found none")
	}
	// Kernels before 2.6.26 print only the masks.
	fromMask := func(list *[]int, field, line, mask string) {
		if *list != nil || mask == "" || st.Missing[field] != nil {
			return
		}
		if l, err := cpulist.ParseMask(mask); err == nil {
			*list = l
		} else {
			st.Missing[field] = parseErr(0, "no %s line, and an unreadable %s mask: %q", statusLines[field].line, line, trunc(mask, 40))
		}
	}
	fromMask(&st.CPUs, "cpus_allowed", "Cpus_allowed", cpuMask)
	fromMask(&st.Mems, "mems_allowed", "Mems_allowed", memMask)
	for field, l := range statusLines {
		if _, done := st.Missing[field]; done || seen[l.line] {
			continue
		}
		switch {
		case field == "cpus_allowed" && st.CPUs != nil, field == "mems_allowed" && st.Mems != nil:
		case field == "rss_kb" && st.State == "Z":
		default:
			st.Missing[field] = parseErr(0, "no %s line (%s)", l.line, l.since)
		}
	}
	if len(st.Missing) == 0 {
		st.Missing = nil
	}
	return st, nil
}
