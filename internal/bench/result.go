// Package bench runs dbhost's benchmarks (numa, mq, net, io, db, pool) and
// holds what they share: the versioned result (schema_version 1), HDR-style
// histograms and the statistics of A/B comparisons, the registry of what a
// run created (so that a killed run's leftovers are removed by the next one
// or by `dbhost bench --cleanup`), and the emulated network link.
//
// Pure computation (statistics, fio job files, parsers of fio and pgbench
// output, the pointer-chase permutation) is split from the code that
// measures, and unit-tested or fuzzed.
package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// SchemaVersion of Result's JSON.
const SchemaVersion = 1

// Result is one bench run: `{"schema_version":1,"bench":X,"host":{...},
// "params":{...},"results":[...],"samples":[...]}`. Latencies are in µs,
// throughput in Gb/s (throughput_gbps, memory bandwidth too).
type Result struct {
	SchemaVersion int            `json:"schema_version"`
	Bench         string         `json:"bench"`
	Host          Host           `json:"host"`
	Params        map[string]any `json:"params"`
	Results       []Row          `json:"results"`
	Samples       []Sample       `json:"samples"`
	Notes         []string       `json:"notes,omitempty"`
}

// Host says where and when the numbers were measured.
type Host struct {
	Hostname    string    `json:"hostname"`
	Kernel      string    `json:"kernel,omitempty"`
	OS          string    `json:"os"`
	Arch        string    `json:"arch"`
	CPUs        int       `json:"cpus"`
	NUMANodes   int       `json:"numa_nodes,omitempty"`
	LoadAverage string    `json:"load_average,omitempty"` // at the start
	Started     time.Time `json:"started"`
	Seconds     float64   `json:"seconds"` // wall time of the whole run
	Version     string    `json:"dbhost_version"`
}

// Row is one measured case (a node pair, a bench role, a validation mode...).
// Only the fields that case measures are present.
type Row struct {
	Case           string            `json:"case"`
	Labels         map[string]string `json:"labels,omitempty"`
	ThroughputGbps *float64          `json:"throughput_gbps,omitempty"`
	OpsPerSec      *float64          `json:"ops_per_sec,omitempty"`
	OpsUnit        string            `json:"ops_unit,omitempty"` // msgs/s, trans/s, tps, iops, req/s
	NsPerLoad      *float64          `json:"ns_per_load,omitempty"`
	LatencyUS      *Latency          `json:"latency_us,omitempty"`
	// Histogram of every latency sample, µs (bucket middles, within 0.1 %).
	Histogram []Bucket `json:"latency_histogram_us,omitempty"`
	// Other figures of the case, named with their unit (slit_distance, retransmits, mb_per_sec...).
	Extra map[string]float64 `json:"extra,omitempty"`
	Note  string             `json:"note,omitempty"`
}

// Sample is one repeat of one case: the raw figures every summary in
// Results is computed from.
type Sample struct {
	Case           string   `json:"case"`
	Repeat         int      `json:"repeat"`
	Seconds        float64  `json:"seconds"`
	ThroughputGbps *float64 `json:"throughput_gbps,omitempty"`
	OpsPerSec      *float64 `json:"ops_per_sec,omitempty"`
	NsPerLoad      *float64 `json:"ns_per_load,omitempty"`
	MeanUS         *float64 `json:"latency_mean_us,omitempty"`
	P99US          *float64 `json:"latency_p99_us,omitempty"`
	Count          uint64   `json:"count,omitempty"`
	// CPU seconds the measuring process (and the remote end, when it is
	// another process) used during the sample.
	CPUSec       *float64 `json:"cpu_s,omitempty"`
	CPURemoteSec *float64 `json:"cpu_remote_s,omitempty"`
}

// F returns a pointer to v (for the optional figures).
func F(v float64) *float64 { return &v }

// Metric names a figure of a Row or Sample.
type Metric struct {
	Name         string
	HigherBetter bool
	Unit         string
}

// Metrics, in the order a case's primary metric is chosen.
var Metrics = []Metric{
	{"throughput_gbps", true, "Gb/s"},
	{"ops_per_sec", true, "/s"},
	{"latency_mean_us", false, "µs"},
	{"ns_per_load", false, "ns"},
	{"latency_p99_us", false, "µs"},
}

// MetricByName finds a metric.
func MetricByName(name string) (Metric, bool) {
	for _, m := range Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Value is the sample's figure for a metric.
func (s Sample) Value(metric string) (float64, bool) {
	var p *float64
	switch metric {
	case "throughput_gbps":
		p = s.ThroughputGbps
	case "ops_per_sec":
		p = s.OpsPerSec
	case "latency_mean_us":
		p = s.MeanUS
	case "ns_per_load":
		p = s.NsPerLoad
	case "latency_p99_us":
		p = s.P99US
	}
	if p == nil {
		return 0, false
	}
	return *p, true
}

// Values lists a case's figures for a metric over its repeats.
func (r *Result) Values(cas, metric string) []float64 {
	var out []float64
	for _, s := range r.Samples {
		if s.Case == cas {
			if v, ok := s.Value(metric); ok {
				out = append(out, v)
			}
		}
	}
	return out
}

// Primary is the metric an experiment judges a case by: the first of
// Metrics its samples carry.
func (r *Result) Primary(cas string) (Metric, bool) {
	for _, m := range Metrics {
		if len(r.Values(cas, m.Name)) > 0 {
			return m, true
		}
	}
	return Metric{}, false
}

// Cases lists the result's case names in order.
func (r *Result) Cases() []string {
	var out []string
	for _, row := range r.Results {
		out = append(out, row.Case)
	}
	return out
}

// Row finds a case.
func (r *Result) Row(cas string) *Row {
	for i := range r.Results {
		if r.Results[i].Case == cas {
			return &r.Results[i]
		}
	}
	return nil
}

// MaxResultBytes bounds a result file read by Load.
const MaxResultBytes = 256 << 20

// Load reads a result JSON file (as written by `dbhost bench X --format
// json`). The error names the file and what was wrong.
func Load(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxResultBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(data) > MaxResultBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a bench result", path, MaxResultBytes>>20)
	}
	return ParseResult(path, data)
}

// ParseResult decodes a result; name is for the error message.
func ParseResult(name string, data []byte) (*Result, error) {
	var r Result
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&r); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			line := 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
			return nil, fmt.Errorf("%s: line %d: %v: expected a dbhost bench result (JSON)", name, line, err)
		}
		return nil, fmt.Errorf("%s: %v: expected a dbhost bench result (JSON)", name, err)
	}
	if r.Bench == "" && isHostSnapshot(data) {
		return nil, fmt.Errorf("%s: a host snapshot (dbhost collect --format json), not a bench result: compare takes two results of dbhost bench ... --format json; two snapshots of a host are compared by dbhost diff A.json B.json", name)
	}
	switch {
	case r.SchemaVersion == 0:
		return nil, fmt.Errorf("%s: no schema_version: expected a dbhost bench result (dbhost bench X --format json)", name)
	case r.SchemaVersion != SchemaVersion:
		return nil, fmt.Errorf("%s: schema_version %d: this dbhost reads version %d", name, r.SchemaVersion, SchemaVersion)
	case r.Bench == "":
		return nil, fmt.Errorf("%s: no \"bench\" name", name)
	}
	return &r, nil
}

// Options every bench takes.
type Options struct {
	Duration time.Duration // per repeat (and per case where a bench has several)
	Repeat   int
	Progress *Progress // nil: quiet
	Version  string
	// Registry records what the run creates; nil: a private one in a
	// temporary directory (tests).
	Registry *Registry
	// Bind: where the workload runs (--cpu-node, --mem-node, --cpus); nil:
	// unbound. Honoured by net, io and db (numa and mq bind themselves).
	Bind *Binding
}

func (o Options) repeat() int {
	if o.Repeat < 1 {
		return 1
	}
	return o.Repeat
}

// NewResult starts a result with the host's description.
func NewResult(bench string, o Options) *Result {
	r := &Result{SchemaVersion: SchemaVersion, Bench: bench, Params: map[string]any{}, Results: []Row{}, Samples: []Sample{}}
	r.Host = Host{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Started: time.Now().UTC(), Version: o.Version}
	r.Host.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		r.Host.Kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			r.Host.LoadAverage = strings.Join(f[:3], " ")
		}
	}
	if nodes, err := OnlineNodes(); err == nil {
		r.Host.NUMANodes = len(nodes)
	}
	r.Params["duration"] = o.Duration.String()
	r.Params["repeat"] = o.repeat()
	return r
}

// Finish records the wall time.
func (r *Result) Finish() {
	r.Host.Seconds = time.Since(r.Host.Started).Seconds()
}

// Note adds a line said in the text output and kept in the JSON.
func (r *Result) Note(format string, a ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, a...))
}

// isHostSnapshot: the document has a snapshot's top-level keys (source,
// topology, collected_at), the file a user most often hands compare by
// mistake.
func isHostSnapshot(data []byte) bool {
	var head struct {
		Source      json.RawMessage `json:"source"`
		Topology    json.RawMessage `json:"topology"`
		CollectedAt json.RawMessage `json:"collected_at"`
	}
	return json.Unmarshal(data, &head) == nil && head.Source != nil && head.Topology != nil && head.CollectedAt != nil
}
