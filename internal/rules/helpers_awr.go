package rules

import (
	"fmt"
	"math"
	"strings"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers of the AWR/Statspack diagnoses (the rules whose ids hold "awr").
// Each reads the reports given (--artifact, or `dbhost awr`) and runs with
// or without a host (Rule.HostOptional). Without one, a diagnosis that
// depends on the host says which facts would decide it (could not check);
// with one, it says what they are.

// DiagnoseAWR runs the report diagnoses on one report. snap is the host the
// report was taken on, or nil when none is given (`dbhost awr`): the
// report's findings and its could-not-check list (what host facts would decide).
func DiagnoseAWR(r *artifacts.AWRReport, snap *snapshot.Snapshot) Report {
	in := &Input{Snap: snap, Workload: WorkloadMixed, DB: DBOracle, Artifacts: &artifacts.Set{AWR: []*artifacts.AWRReport{r}}}
	return RunRules(AWRRules(), in)
}

// AWRRules are the report diagnoses: the rules that run without a host.
func AWRRules() []Rule {
	var list []Rule
	for _, x := range All() {
		if x.HostOptional {
			list = append(list, x)
		}
	}
	return list
}

// awrCheck runs one report diagnosis on every report given and merges the
// outcomes: the findings of all; else the reasons some could not be
// checked; else what was found fine.
func awrCheck(in *Input, one func(r *artifacts.AWRReport) Outcome) Outcome {
	var reps []*artifacts.AWRReport
	if in.Artifacts != nil {
		reps = in.Artifacts.AWR
	}
	if len(reps) == 0 {
		return NotApplicable("no AWR or Statspack report given (--artifact awrrpt_*.html)")
	}
	var fs []Finding
	var cannot, passed, na, evs []string
	for _, r := range reps {
		o := one(r)
		switch {
		case len(o.Findings) > 0:
			fs = append(fs, o.Findings...)
		case o.CannotCheck != "":
			cannot = append(cannot, r.File+": "+o.CannotCheck)
		case o.NotApplicable != "":
			na = append(na, r.File+": "+o.NotApplicable)
		case o.Evidence == "":
			cannot = append(cannot, r.File+": "+NoEvidence+" ("+o.Passed+")")
		default:
			passed = append(passed, r.File+": "+o.Passed)
			evs = append(evs, r.File+": "+o.Evidence)
		}
	}
	switch {
	case len(fs) > 0:
		return Found(fs...)
	case len(cannot) > 0:
		return CannotCheck("%s", strings.Join(cannot, "; "))
	case len(passed) > 0:
		return Passed("%s", strings.Join(passed, "; ")).Reading(evs...)
	}
	return NotApplicable("%s", strings.Join(na, "; "))
}

// awrNoHost is what a diagnosis says when the host is not given.
func awrHost(in *Input) (given bool, none string) {
	if in.Snap != nil {
		return true, ""
	}
	if in.aloneOS == OSAIX {
		return false, awrAIXHost
	}
	return false, awrNoHost
}

// awrAIXHost: the audited host is AIX, whose facts the report diagnoses
// do not join (the AIX rules of the same audit judge them).
const awrAIXHost = "the audited host runs AIX: its facts are judged by the AIX rules of this audit, not joined here, so nothing checks"

const awrNoHost = "no host given (run `dbhost audit --artifact REPORT` on the database host, or with --root/--sosreport/--snapshot of it) to check"

// awrHostNote names a mismatch between the report's host and the audited
// one ("" when they agree or either name is unknown): the report may have
// been taken elsewhere, and the facts joined are then the audited host's.
func awrHostNote(in *Input, r *artifacts.AWRReport) string {
	if in.Snap == nil || r.Host.Name == "" || in.Snap.Host.Hostname == "" {
		return ""
	}
	a := strings.ToLower(strings.SplitN(r.Host.Name, ".", 2)[0])
	b := strings.ToLower(strings.SplitN(in.Snap.Host.Hostname, ".", 2)[0])
	if a == b || strings.HasPrefix(b, a) && len(r.Host.Name) >= 15 { // the report cuts host names at its column width
		return ""
	}
	return fmt.Sprintf("the report was taken on host %s, the facts below are of %s", r.Host.Name, in.Snap.Host.Hostname)
}

// awrInstanceProcs are the audited host's processes of the report's
// instance (Oracle processes whose instance is the report's, by name).
func awrInstanceProcs(in *Input, r *artifacts.AWRReport) []snapshot.Process {
	if in.Snap == nil || r.Instance == "" {
		return nil
	}
	var out []snapshot.Process
	for _, p := range in.Snap.Processes {
		if engineDB(p.Engine) == DBOracle && strings.EqualFold(p.Instance, r.Instance) {
			out = append(out, p)
		}
	}
	return out
}

// awrEv renders one event for evidence: "log file sync: 25302 waits,
// 203.7 s, avg 8.05 ms, 0.4 % DB time (awrrpt.txt:52)".
func awrEv(r *artifacts.AWRReport, e artifacts.AWREvent) string {
	var parts []string
	if e.Waits != nil {
		parts = append(parts, fmt.Sprintf("%d waits", *e.Waits))
	}
	if e.TimeS != nil {
		parts = append(parts, fmt.Sprintf("%s s", awrNum(*e.TimeS)))
	}
	if avg, ok := awrAvgMS(e); ok {
		parts = append(parts, fmt.Sprintf("avg %s ms", awrNum(avg)))
	}
	if p, ok := awrPct(r, e); ok {
		parts = append(parts, fmt.Sprintf("%s %% of %s", awrNum(p), awrPctOf(r)))
	}
	s := e.Event + ": " + strings.Join(parts, ", ")
	if e.Line > 0 {
		s += fmt.Sprintf(" (%s:%d)", r.File, e.Line)
	}
	return s
}

// awrPctOf names what the report's event percentages are of.
func awrPctOf(r *artifacts.AWRReport) string {
	if r.TopEventsPctOf == "" {
		return "DB time"
	}
	return strings.Replace(r.TopEventsPctOf, "db time", "DB time", 1)
}

// awrAvgMS is an event's average wait in ms: as printed, else computed
// from its time and waits (Statspack 8i/9i print no average).
func awrAvgMS(e artifacts.AWREvent) (float64, bool) {
	if e.AvgMS != nil {
		return *e.AvgMS, true
	}
	if e.TimeS != nil && e.Waits != nil && *e.Waits > 0 {
		return *e.TimeS * 1000 / float64(*e.Waits), true
	}
	return 0, false
}

// awrPct is an event's share of DB time in percent: as printed, else its
// time over the report's DB time.
func awrPct(r *artifacts.AWRReport, e artifacts.AWREvent) (float64, bool) {
	if e.PctDBTime != nil {
		return *e.PctDBTime, true
	}
	if e.TimeS != nil && r.DBTimeMin != nil && *r.DBTimeMin > 0 {
		return *e.TimeS / (*r.DBTimeMin * 60) * 100, true
	}
	return 0, false
}

// awrNum prints a number for evidence: integers whole, others with up to 2 decimals.
func awrNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.1f", v)
	}
	s := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
	if s == "0" || s == "-0" {
		return fmt.Sprintf("%.3g", v)
	}
	return s
}

// awrParam is an init.ora parameter of the report with where it was read,
// for evidence ("cpu_count = 6 (awrrpt.txt:310)").
func awrParam(r *artifacts.AWRReport, name string) (string, string, bool) {
	v, line, ok := r.Param(name)
	if !ok {
		return "", "", false
	}
	ev := fmt.Sprintf("%s = %s", strings.ToLower(name), v)
	if line > 0 {
		ev += fmt.Sprintf(" (%s:%d)", r.File, line)
	}
	return v, ev, true
}

// awrCPUs is the number of CPUs of the report's host.
func awrCPUs(r *artifacts.AWRReport) (int64, bool) {
	if r.Host.CPUs != nil && *r.Host.CPUs > 0 {
		return *r.Host.CPUs, true
	}
	if v, ok := r.OSStats["NUM_CPUS"]; ok && v > 0 {
		return int64(v), true
	}
	return 0, false
}

// awrAAS is the report's average active sessions (DB time per second).
func awrAAS(r *artifacts.AWRReport) (float64, bool) {
	if r.LoadProfile.DBTimePerS != nil {
		return *r.LoadProfile.DBTimePerS, true
	}
	if r.DBTimeMin != nil && r.ElapsedMin != nil && *r.ElapsedMin > 0 {
		return *r.DBTimeMin / *r.ElapsedMin, true
	}
	return 0, false
}

// awrSaturated says whether the report shows the host's CPUs saturated
// during the snapshots, with the evidence: the load average above the
// CPUs, or less than 10 % idle. ok is false when the report shows neither
// (no Host CPU section).
func awrSaturated(r *artifacts.AWRReport) (saturated bool, evidence string, ok bool) {
	cpus, haveCPUs := awrCPUs(r)
	h := r.HostCPU
	if h == nil {
		return false, "", false
	}
	var parts []string
	if h.LoadEnd != nil && haveCPUs {
		parts = append(parts, fmt.Sprintf("load average %s at the end for %d CPUs", awrNum(*h.LoadEnd), cpus))
		if *h.LoadEnd > float64(cpus) {
			saturated = true
		}
	}
	if h.PctIdle != nil {
		parts = append(parts, fmt.Sprintf("host %s %% idle", awrNum(*h.PctIdle)))
		if *h.PctIdle < awrIdleSaturated {
			saturated = true
		}
	}
	if len(parts) == 0 {
		return false, "", false
	}
	return saturated, "Host CPU: " + strings.Join(parts, ", "), true
}

// awrIdleSaturated: a host with less idle CPU than this is saturated.
const awrIdleSaturated = 10

// awrUnaccounted is the share of DB time (percent) that neither DB CPU nor
// any wait class accounts for, with how it was computed. ok is false when
// the report's percentages are not of DB time (10g, Statspack).
func awrUnaccounted(r *artifacts.AWRReport) (pct float64, how string, ok bool) {
	if r.TopEventsPctOf != "db time" {
		return 0, "", false
	}
	sum, cpu := 0.0, false
	if len(r.WaitClasses) > 0 {
		for _, c := range r.WaitClasses {
			if c.PctDBTime == nil || strings.EqualFold(c.WaitClass, "Idle") {
				continue
			}
			sum += *c.PctDBTime
			if artifacts.IsCPU(c.WaitClass) {
				cpu = true
			}
		}
		how = "DB CPU and the wait classes"
		if !cpu {
			if e, ok := r.CPUEvent(); ok && e.PctDBTime != nil {
				sum += *e.PctDBTime
			}
		}
	} else {
		for _, e := range r.TopEvents {
			if e.PctDBTime != nil {
				sum += *e.PctDBTime
			}
		}
		how = "the top events (the events below them may hold some of the rest)"
	}
	return 100 - sum, fmt.Sprintf("%s account for %s %% of DB time", how, awrNum(sum)), true
}

// awrEventsRead names the event lists a report diagnosis searched (issue
// 26: "not among the report's events" names what was read): how many top,
// foreground and background events, and the top events' least share.
func awrEventsRead(r *artifacts.AWRReport) string {
	ev := fmt.Sprintf("%d top events", len(r.TopEvents))
	least, have := 0.0, false
	for _, e := range r.TopEvents {
		if p, ok := awrPct(r, e); ok && (!have || p < least) {
			least, have = p, true
		}
	}
	if have {
		ev += fmt.Sprintf(" (the least at %s %% of %s)", awrNum(least), awrPctOf(r))
	}
	if n := len(r.ForegroundEvents); n > 0 {
		ev += fmt.Sprintf(", %d foreground", n)
	}
	if n := len(r.BackgroundEvents); n > 0 {
		ev += fmt.Sprintf(", %d background", n)
	}
	return ev + " read"
}

// awrEventRead is one event as read: its average wait and share.
func awrEventRead(r *artifacts.AWRReport, e artifacts.AWREvent) string {
	ev := e.Event
	if e.AvgMS != nil {
		ev += fmt.Sprintf(" avg %s ms", awrNum(*e.AvgMS))
	}
	if p, ok := awrPct(r, e); ok {
		ev += fmt.Sprintf(", %s %% of %s", awrNum(p), awrPctOf(r))
	}
	if e.Line > 0 {
		ev += fmt.Sprintf(" (line %d)", e.Line)
	}
	return ev
}

// awrOS is the system the report's instance ran on: OSAIX or OSLinux from
// the report's platform ("AIX-Based Systems (64-bit)", "Linux x86 64-bit");
// when the report names none (10g, Statspack), the audited host's system;
// "other" for another platform (Solaris, HP-UX, Windows), "" when neither
// the report nor a host says. ev says where it was read.
func awrOS(in *Input, r *artifacts.AWRReport) (os string, ev string) {
	p := strings.ToLower(strings.TrimSpace(r.Host.Platform))
	switch {
	case strings.Contains(p, "aix"):
		return OSAIX, "the report's platform: " + r.Host.Platform
	case strings.Contains(p, "linux"):
		return OSLinux, "the report's platform: " + r.Host.Platform
	case p != "":
		return "other", "the report's platform: " + r.Host.Platform
	}
	if os := awrHostSystem(in); os != "" {
		return os, "the report names no platform; the audited host runs " + osName(os)
	}
	return "", ""
}

// awrHostSystem is the audited host's system (OSLinux, OSAIX), also when
// the diagnosis runs without its facts (an AIX host: runOne); "" without a
// host.
func awrHostSystem(in *Input) string {
	if in.Snap != nil {
		return HostOS(in.Snap)
	}
	return in.aloneOS
}
