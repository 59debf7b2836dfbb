package bench

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// IOOptions: seed 000's Oracle-like fio workload against a file (a scratch
// file by default) or a device the user names.
type IOOptions struct {
	Options
	File       string // a file to use (created by fio if missing); "": a scratch file
	Dir        string // where the scratch file goes; "": /var/tmp
	Device     string // a block device instead of a file
	DestroyOK  bool   // writing to Device is allowed (--destroy-data)
	SizeMB     int    // the region used; 0: 256 MiB for a file, 1 GiB for a device
	Scale      int    // jobs per role per CPU... 0: automatic (see IOJobs)
	Roles      []string
	Ramp       time.Duration
	KeepFioOut string // also write fio's own JSON here
	CPUs       int    // for the automatic scale (0: runtime.NumCPU)
	// Grace: how long fio may run past its runtime and ramp before it is
	// killed (0: 2 minutes, time to lay a large file out).
	Grace time.Duration
}

// IORole is one of seed 000's job roles (its appendix, fio profile).
type IORole struct {
	Name     string
	Doc      string
	SeedJobs int               // numjobs in the seed's profile (480 readers on 120 cores)
	PerCPU   float64           // jobs per CPU here (the seed: 4 readers per core)
	Options  map[string]string // the section's options, as in the seed
}

// IORoles are the seed's four roles, in its order, with its options but
// one: thinktime_spin. The seed spins part of each think time (200 of
// 4000 µs, 20000 of 40000, 100 of 800, 20 of 1000) and sleeps the rest;
// fio before the fix of axboe/fio#1588 (2023; Debian 12 ships 3.33) takes
// a spin that overran the think time (a descheduled vCPU: common on a
// busy VM) as a negative remainder, and near the end of a time-based run
// the job then sleeps without end: the JSON written, fio never exiting
// (measured here: the seed's job with spins hung 10 runs in 10 with
// thread=1, about 1 in 4 without; without spins 0 in 20). The pace is the
// same without the spin (thinktime is the whole pause either way); only
// the CPU the spin burned is gone.
var IORoles = []IORole{
	{Name: "readers", Doc: "8K random reads, like Oracle shadow/server processes", SeedJobs: 480, PerCPU: 4,
		Options: map[string]string{"rw": "randread", "bs": "8k", "ba": "8k", "thinktime": "4000"}},
	{Name: "parallel_query", Doc: "1M sequential reads with libaio, like parallel query full scans", SeedJobs: 8, PerCPU: 8.0 / 120,
		Options: map[string]string{"rw": "read", "bs": "1024k", "ba": "1024k", "ioengine": "libaio", "iodepth": "4", "iodepth_batch": "1",
			"iodepth_batch_complete": "1", "iodepth_low": "3", "thinktime": "40000"}},
	{Name: "writers", Doc: "8K random writes with libaio, like DB writers", SeedJobs: 32, PerCPU: 32.0 / 120,
		Options: map[string]string{"rw": "randwrite", "bs": "8k", "ba": "8k", "ioengine": "libaio", "iodepth": "400", "iodepth_batch": "30",
			"iodepth_batch_complete": "30", "thinktime": "800"}},
	{Name: "redolog", Doc: "1K-300K sequential sync writes with libaio, like the log writer", SeedJobs: 1, PerCPU: 0,
		Options: map[string]string{"rw": "write", "ioengine": "libaio", "iodepth": "6", "iodepth_batch": "6", "iodepth_batch_complete": "6",
			"thinktime": "1000", "sync": "1", "bs": "1k", "bsrange": "1k-300k", "ba": "1k"}},
}

// IOJobs is the number of jobs of a role on a host with cpus CPUs: the
// seed's jobs per core (480 readers, 32 writers, 8 parallel query on 120
// cores), at least 1 each, at most the seed's count; scale > 0 sets the
// jobs of every role but the redo log (one writer, as in the seed).
func IOJobs(r IORole, cpus, scale int) int {
	if r.Name == "redolog" {
		return 1
	}
	if scale > 0 {
		return min(scale, r.SeedJobs)
	}
	n := int(r.PerCPU*float64(cpus) + 0.5)
	return min(max(n, 1), r.SeedJobs)
}

// IOJobFile writes the fio job file: the seed's [global] (8k, direct,
// sync, time based, group reporting, ramp; jobs as threads) and one section per role with
// the seed's options, a new reporting group each (so fio reports per role),
// numjobs scaled to this host, all on target (size bytes of it).
func IOJobFile(target string, size int64, runtime, ramp time.Duration, roles []string, cpus, scale int) (string, error) {
	if target == "" || strings.ContainsAny(target, "\n:") {
		return "", fmt.Errorf("target %q: expected a path without ':' or newlines (fio separates file names with ':')", target)
	}
	if size < 1<<20 {
		return "", fmt.Errorf("size %d: at least 1 MiB", size)
	}
	want := map[string]bool{}
	for _, r := range roles {
		want[r] = true
	}
	for r := range want {
		found := false
		for _, x := range IORoles {
			found = found || x.Name == r
		}
		if !found {
			return "", fmt.Errorf("role %q: expected %s", r, strings.Join(IORoleNames(), ", "))
		}
	}
	var b strings.Builder
	b.WriteString("; dbhost bench io: seed 000's Oracle I/O profile (appendix), scaled to this host\n")
	// thread: the jobs are threads of the one fio process, so killing fio
	// ends them all (as processes each calls setsid: a process-group kill
	// of fio misses them, and a stuck one outlived the bench).
	b.WriteString("[global]\nthread\nbs=8k\nba=8k\ndirect=1\nsync=1\ntime_based\ngroup_reporting\n")
	fmt.Fprintf(&b, "runtime=%d\nramp_time=%d\n", max(int(runtime.Seconds()+0.5), 1), int(ramp.Seconds()+0.5))
	fmt.Fprintf(&b, "filename=%s\nsize=%d\n", target, size)
	n := 0
	for _, r := range IORoles {
		if len(want) > 0 && !want[r.Name] {
			continue
		}
		n++
		fmt.Fprintf(&b, "\n[%s]\nnew_group\nnumjobs=%d\n", r.Name, IOJobs(r, cpus, scale))
		keys := make([]string, 0, len(r.Options))
		for k := range r.Options {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "%s=%s\n", k, r.Options[k])
		}
	}
	if n == 0 {
		return "", fmt.Errorf("no role selected")
	}
	return b.String(), nil
}

// IORoleNames lists the roles.
func IORoleNames() []string {
	var out []string
	for _, r := range IORoles {
		out = append(out, r.Name)
	}
	return out
}

// fioJSON is the part of `fio --output-format=json` dbhost reads.
type fioJSON struct {
	Version string   `json:"fio version"`
	Jobs    []fioJob `json:"jobs"`
}

type fioJob struct {
	Name  string `json:"jobname"`
	Error int    `json:"error"`
	Read  fioDir `json:"read"`
	Write fioDir `json:"write"`
}

type fioDir struct {
	IOBytes  int64   `json:"io_bytes"`
	BWBytes  float64 `json:"bw_bytes"` // bytes/s
	IOPS     float64 `json:"iops"`
	RuntimeM int64   `json:"runtime"` // ms
	TotalIOs int64   `json:"total_ios"`
	Clat     fioLat  `json:"clat_ns"`
	Lat      fioLat  `json:"lat_ns"`
}

type fioLat struct {
	Min        float64            `json:"min"`
	Max        float64            `json:"max"`
	Mean       float64            `json:"mean"`
	Stddev     float64            `json:"stddev"`
	N          int64              `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

// FioRow is one role and direction of a fio run, every figure as fio
// reported it (ns turned into µs, bytes/s into Gb/s).
type FioRow struct {
	Role, Dir string
	Row       Row
	Sample    Sample
}

// ParseFioJSON reads fio's JSON output (fio may print warnings before it:
// the JSON starts at the first '{'). Each job (a role: group_reporting with
// new_group) gives a row per direction that moved data.
func ParseFioJSON(data []byte) (version string, rows []FioRow, err error) {
	s := string(data)
	i := strings.IndexByte(s, '{')
	if i < 0 {
		return "", nil, fmt.Errorf("fio output: no JSON object (expected fio --output-format=json)")
	}
	var f fioJSON
	if err := json.Unmarshal([]byte(s[i:]), &f); err != nil {
		line := 1 + strings.Count(s[:i], "\n")
		return "", nil, fmt.Errorf("fio output (JSON from line %d): %v", line, err)
	}
	if len(f.Jobs) == 0 {
		return f.Version, nil, fmt.Errorf("fio output: no jobs")
	}
	for _, j := range f.Jobs {
		if j.Error != 0 {
			return f.Version, nil, fmt.Errorf("fio job %s: error %d", j.Name, j.Error)
		}
		for _, d := range []struct {
			name string
			v    fioDir
		}{{"read", j.Read}, {"write", j.Write}} {
			if d.v.TotalIOs == 0 && d.v.IOBytes == 0 {
				continue
			}
			rows = append(rows, fioRow(j.Name, d.name, d.v))
		}
	}
	return f.Version, rows, nil
}

func fioRow(role, dir string, d fioDir) FioRow {
	us := func(ns float64) float64 { return ns / 1e3 }
	pct := func(k string) float64 { return us(d.Clat.Percentile[k]) }
	lat := &Latency{Count: uint64(d.Clat.N), Mean: us(d.Clat.Mean), Stddev: us(d.Clat.Stddev), Min: us(d.Clat.Min),
		P50: pct("50.000000"), P90: pct("90.000000"), P99: pct("99.000000"), P999: pct("99.900000"), Max: us(d.Clat.Max)}
	gbps := d.BWBytes * 8 / 1e9
	cas := role + "-" + dir
	row := Row{Case: cas, Labels: map[string]string{"role": role, "dir": dir}, ThroughputGbps: F(gbps), OpsPerSec: F(d.IOPS), OpsUnit: "IOPS",
		LatencyUS: lat, Extra: map[string]float64{"mb_per_sec": d.BWBytes / 1e6, "io_bytes": float64(d.IOBytes), "total_ios": float64(d.TotalIOs),
			"lat_mean_us": us(d.Lat.Mean)}}
	if d.IOPS > 0 {
		row.Extra["avg_kb_per_io"] = d.BWBytes / d.IOPS / 1024
	}
	return FioRow{Role: role, Dir: dir, Row: row,
		Sample: Sample{Case: cas, Seconds: float64(d.RuntimeM) / 1e3, ThroughputGbps: F(gbps), OpsPerSec: F(d.IOPS), MeanUS: F(lat.Mean), P99US: F(lat.P99), Count: uint64(d.TotalIOs)}}
}

// MountedDevices lists the "major:minor" of every mounted filesystem in a
// mountinfo text (field 3).
func MountedDevices(mountinfo string) map[string]bool {
	out := map[string]bool{}
	for _, l := range splitLines(mountinfo) {
		f := strings.Fields(l)
		if len(f) >= 3 && strings.Count(f[2], ":") == 1 {
			out[f[2]] = true
		}
	}
	return out
}

// devNumber formats major:minor.
func devNumber(major, minor uint32) string {
	return strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10)
}
