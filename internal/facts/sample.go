package facts

import (
	"bytes"
	"sort"
	"strconv"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// This file exports small readers for commands that sample the host twice
// (dbhost numa --interval) or look at one arbitrary process (dbhost numa
// --pid). They reuse the parsers of the collectors; errors are the
// collectors' (*ParseError for malformed input; Reason turns any into text).

// ReadCPUStat reads /proc/stat under root.
func ReadCPUStat(root Root) (snapshot.CPULoad, error) {
	b, err := root.ReadFile("/proc/stat")
	if err != nil {
		return snapshot.CPULoad{}, err
	}
	return parseStat(string(b))
}

// ReadInterrupts reads /proc/interrupts under root.
func ReadInterrupts(root Root) (snapshot.IRQs, error) {
	b, err := root.ReadFile("/proc/interrupts")
	if err != nil {
		return snapshot.IRQs{}, err
	}
	cpus, irqs, err := parseInterrupts(string(b))
	return snapshot.IRQs{CPUs: cpus, IRQs: irqs}, err
}

// PIDNUMA is where one process may run and where its memory is.
type PIDNUMA struct {
	PID         int                `json:"pid"`
	Comm        string             `json:"comm"`
	CPUsAllowed []int              `json:"cpus_allowed"`
	MemsAllowed []int              `json:"mems_allowed"`
	LastCPU     *int               `json:"last_cpu,omitempty"`
	ThreadCPUs  []int              `json:"thread_last_cpus,omitempty"` // last CPU of each thread, sorted, de-duplicated
	NUMA        []snapshot.NodeMem `json:"numa"`
	// Absent lists what could not be read ("numa_maps: permission denied ...").
	Absent []snapshot.Absence `json:"absent,omitempty"`
}

// maxThreadsSampled bounds the /proc/PID/task entries read for last CPUs.
const maxThreadsSampled = 4096

// ReadPIDNUMA reads /proc/PID/{status,stat,numa_maps} and the threads' stat
// under root. It fails only when the process does not exist; anything else
// it cannot read is listed in Absent.
func ReadPIDNUMA(root Root, pid int) (*PIDNUMA, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	out := &PIDNUMA{PID: pid, CPUsAllowed: []int{}, MemsAllowed: []int{}, NUMA: []snapshot.NodeMem{}}
	absent := func(fact, p string, err error) {
		out.Absent = append(out.Absent, snapshot.Absence{Fact: fact, Path: p, Reason: Reason(err)})
	}
	b, err := root.ReadFile(dir + "/status")
	if err != nil {
		return nil, err
	}
	if st, err := parsePIDStatus(bytes.NewReader(b)); err != nil {
		absent("status", dir+"/status", err)
	} else {
		out.Comm = st.Name
		if st.CPUs != nil {
			out.CPUsAllowed = st.CPUs
		} else {
			absent("cpus_allowed", dir+"/status", st.Missing["cpus_allowed"])
		}
		if st.Mems != nil {
			out.MemsAllowed = st.Mems
		} else {
			absent("mems_allowed", dir+"/status", st.Missing["mems_allowed"])
		}
	}
	if s, err := root.ReadString(dir + "/stat"); err != nil {
		absent("last_cpu", dir+"/stat", err)
	} else if cpu, err := parsePIDStat(s); err != nil {
		absent("last_cpu", dir+"/stat", err)
	} else {
		out.LastCPU = &cpu
	}
	if tids, err := root.ReadDirNames(dir + "/task"); err == nil {
		seen := map[int]bool{}
		for i, t := range tids {
			if i >= maxThreadsSampled {
				break
			}
			s, err := root.ReadString(dir + "/task/" + t + "/stat")
			if err != nil {
				continue // threads come and go
			}
			if cpu, err := parsePIDStat(s); err == nil && !seen[cpu] {
				seen[cpu] = true
				out.ThreadCPUs = append(out.ThreadCPUs, cpu)
			}
		}
		sort.Ints(out.ThreadCPUs)
	}
	if b, err := root.ReadFile(dir + "/numa_maps"); err != nil {
		absent("numa", dir+"/numa_maps", err)
	} else if m, _, err := parseNumaMaps(bytes.NewReader(b)); err != nil {
		absent("numa", dir+"/numa_maps", err)
	} else {
		out.NUMA = m
	}
	return out, nil
}
