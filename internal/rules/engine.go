package rules

import (
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Result is a rule that produced no finding, with the reason.
type Result struct {
	ID     string `json:"id"`
	Area   string `json:"area"`
	Title  string `json:"title"`
	Reason string `json:"reason"`
	// Evidence is, for a passed rule, the facts the check read and their
	// values (Outcome.Evidence), as a finding's Evidence: a pass names what
	// it saw. Empty for the other results.
	Evidence string `json:"evidence,omitempty"`
}

// ServerNotRead is a database server dbhost could not read, and why.
type ServerNotRead struct {
	Engine     string `json:"engine"`
	Connection string `json:"connection"` // without a password
	Error      string `json:"error"`
}

// Report is one host's audit.
type Report struct {
	Host string `json:"host"`
	// OS is the host's system when it is not Linux ("aix"); empty for a
	// Linux host. A fleet counts a rule's hosts among those of the systems
	// the rule judges.
	OS string `json:"os,omitempty"`
	// File is the snapshot file the host was read from (--snapshot) and
	// CollectedAt when that snapshot was taken: two snapshots of one host
	// are told apart.
	File        string `json:"file,omitempty"`
	CollectedAt string `json:"collected_at,omitempty"`
	Workload    string `json:"workload"`
	DB          string `json:"db"`
	// DBSource says how DB was chosen: "--db oracle", or what --db auto found.
	DBSource string `json:"db_source,omitempty"`
	// Databases names the servers read over a connection (snapshot.Databases), one line each.
	Databases []string `json:"databases,omitempty"`
	// ServersNotRead are the servers named or found that could not be read
	// (refused, wrong password, timeout): every rule that needs one said
	// "could not check" with this reason (docs/livedb.md).
	ServersNotRead []ServerNotRead `json:"servers_not_read,omitempty"`
	Findings       []Finding       `json:"findings"`
	// Passed, CannotCheck and NotApplicable are shown under --explain.
	Passed        []Result `json:"passed,omitempty"`
	CannotCheck   []Result `json:"cannot_check,omitempty"`
	NotApplicable []Result `json:"not_applicable,omitempty"`
	// Holds are the settings the rules want that already hold (Outcome.Holds),
	// each with its rule id: the plan persists them. Not part of the audit.
	Holds []change.Change `json:"-"`
	// Unbooted are the boot arguments the rules want that the command line
	// lacks while no finding asks for them: the running kernel has the
	// value (an apply wrote it), the boot line does not keep it. The plan
	// keeps them pending reboot. Not part of the audit.
	Unbooted []change.Change `json:"-"`
	// Skipped are the rules --skip left out (not run).
	Skipped []Result `json:"skipped,omitempty"`
}

// Worst returns the highest severity among the findings ("" when none).
func (r *Report) Worst() string {
	w := ""
	for _, f := range r.Findings {
		if SeverityRank(f.Severity) > SeverityRank(w) {
			w = f.Severity
		}
	}
	return w
}

// AtLeast counts findings at or above severity sev.
func (r *Report) AtLeast(sev string) int {
	n := 0
	for _, f := range r.Findings {
		if SeverityRank(f.Severity) >= SeverityRank(sev) {
			n++
		}
	}
	return n
}

// Run audits one host with every registered rule.
func Run(in *Input) Report {
	return RunRules(All(), in)
}

// RunRules audits one host with the given rules (tests run one rule this way).
func RunRules(list []Rule, in *Input) Report {
	rep := Report{Workload: in.Workload, DB: in.DB, Findings: []Finding{}}
	if in.Snap != nil {
		rep.Host = in.Snap.Host.Hostname
		if HostOS(in.Snap) != OSLinux {
			rep.OS = HostOS(in.Snap)
		}
		for i := range in.Snap.Databases {
			d := &in.Snap.Databases[i]
			rep.Databases = append(rep.Databases, d.Describe())
			if d.Error != "" {
				rep.ServersNotRead = append(rep.ServersNotRead, ServerNotRead{Engine: d.Engine, Connection: d.Connection, Error: d.Error})
			}
		}
	}
	for _, r := range list {
		res := Result{ID: r.ID, Area: r.Area, Title: r.Title}
		if Matches(r.ID, in.Skip) {
			res.Reason = "left out with --skip"
			rep.Skipped = append(rep.Skipped, res)
			continue
		}
		out := runOne(r, in)
		hs, unbooted := holds(r.ID, out)
		rep.Holds = append(rep.Holds, hs...)
		rep.Unbooted = append(rep.Unbooted, unbooted...)
		switch {
		case len(out.Findings) > 0:
			for _, f := range out.Findings {
				rep.Findings = append(rep.Findings, fill(r, f))
			}
		case out.NotApplicable != "":
			res.Reason = out.NotApplicable
			rep.NotApplicable = append(rep.NotApplicable, res)
		case out.CannotCheck != "":
			res.Reason = out.CannotCheck
			rep.CannotCheck = append(rep.CannotCheck, res)
		case out.Evidence == "":
			// A pass that names nothing it read is no verdict (issue 26):
			// the check fell through without seeing its fact.
			res.Reason = NoEvidence
			if out.Passed != "" {
				res.Reason += " (" + out.Passed + ")"
			}
			rep.CannotCheck = append(rep.CannotCheck, res)
		default:
			res.Reason = out.Passed
			if res.Reason == "" {
				res.Reason = "no issue found"
			}
			res.Evidence = out.Evidence
			rep.Passed = append(rep.Passed, res)
		}
	}
	SortFindings(rep.Findings)
	return rep
}

// runOne applies the rule's system, workload and DB scope and runs its check. A check
// that panics (a bug, or a snapshot shape it did not expect) becomes
// "could not check" for that rule instead of ending the audit.
func runOne(r Rule, in *Input) (out Outcome) {
	if in.Snap != nil {
		if os := HostOS(in.Snap); !r.RunsOn(os) {
			if !r.HostOptional {
				return NotApplicable("applies to %s hosts; this host runs %s", r.Systems(), osName(os))
			}
			// A report diagnosis whose host joins read another system's
			// facts: the report alone, as without a host.
			alone := *in
			alone.Snap = nil
			alone.aloneOS = os
			in = &alone
		}
	}
	if len(r.Workloads) > 0 && !contains(r.Workloads, in.Workload) {
		return NotApplicable("applies to workload %s; this audit is for %s", strings.Join(r.Workloads, "|"), in.Workload)
	}
	if len(r.DBs) > 0 && !contains(r.DBs, in.DB) {
		return NotApplicable("applies to database %s; this host's is %s", strings.Join(r.DBs, "|"), in.DB)
	}
	if in.Snap == nil && !r.HostOptional {
		return CannotCheck("no snapshot")
	}
	defer func() {
		if p := recover(); p != nil {
			out = CannotCheck("internal error in rule %s: %v (please report it with the snapshot)", r.ID, p)
		}
	}()
	return r.Check(in)
}

// NoEvidence is the reason the engine gives a check that passed without
// naming the facts it read (Outcome.Evidence): not a pass.
const NoEvidence = "the check found nothing wrong but named no fact it read, so it is no pass"

// OwnThreshold starts the sentence that names a rule's own thresholds in a finding.
const OwnThreshold = "dbhost's own threshold"

// holds are an outcome's settings in place: its Holds, and the Wants whose
// current value is the value wanted (change.AtValue) that no finding of the
// outcome changes. unbooted are its wanted boot arguments (to add) that the
// command line lacks and no finding changes. Each names its rule.
func holds(id string, out Outcome) (hs, unbooted []change.Change) {
	changed := map[string]bool{}
	for _, f := range out.Findings {
		for _, c := range f.Changes {
			changed[string(c.Kind)+"\x00"+c.Key] = true
		}
	}
	for _, c := range out.Wants {
		switch {
		case changed[string(c.Kind)+"\x00"+c.Key]:
		case c.AtValue():
			hs = append(hs, c)
		case c.Kind == change.BootArg && !c.Remove:
			unbooted = append(unbooted, c)
		}
	}
	hs = append(hs, out.Holds...)
	for _, l := range [][]change.Change{hs, unbooted} {
		for i := range l {
			if l[i].Rule == "" {
				l[i].Rule = id
			}
		}
	}
	return hs, unbooted
}

// fill completes a finding from its rule: what the check left empty, and
// the rule's own thresholds at the end of the why.
func fill(r Rule, f Finding) Finding {
	if f.ID == "" {
		f.ID = r.ID
	}
	if f.Area == "" {
		f.Area = r.Area
	}
	if f.Title == "" {
		f.Title = r.Title
	}
	if f.Severity == "" {
		f.Severity = r.Severity
	}
	if len(f.Sources) == 0 {
		f.Sources = append([]Source(nil), r.Sources...)
	}
	if len(r.Thresholds) > 0 && !strings.Contains(f.Why, OwnThreshold) {
		f.Why = strings.TrimSpace(f.Why + " " + OwnThreshold + " (no source gives one): " + strings.Join(r.Thresholds, "; ") + ".")
	}
	if f.Scope == (Scope{}) {
		f.Scope = r.Scope
	}
	if f.Pending == "" {
		f.Pending = pendingOf(f)
		if f.Pending == PendingManual && r.Pending != "" {
			f.Pending = r.Pending
		}
	}
	if f.Pending == PendingReboot {
		f.RebootRequired = true
	}
	if f.Fix.Runtime == nil {
		f.Fix.Runtime = []string{}
	}
	if f.Fix.Persistent == nil {
		f.Fix.Persistent = []string{}
	}
	return f
}

// pendingOf derives what a finding waits for from its changes: nothing when
// one applies at run time; a reboot for boot arguments only; a restart (the
// next login) for limits; an operator's hand when it has no change at all.
func pendingOf(f Finding) string {
	if f.RebootRequired {
		return PendingReboot
	}
	boot, limit := false, false
	for _, c := range f.Changes {
		switch {
		case c.Runtime():
			return ""
		case c.Kind == change.BootArg:
			boot = true
		case c.Kind == change.Limit:
			limit = true
		}
	}
	switch {
	case limit:
		return PendingRestart
	case boot:
		return PendingReboot
	case len(f.Changes) > 0:
		return "" // a tuned profile choice: carried out by tuned-adm
	}
	return PendingManual
}

// SortFindings orders findings worst first, then by area, id and setting.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if ra, rb := SeverityRank(a.Severity), SeverityRank(b.Severity); ra != rb {
			return ra > rb
		}
		if a.Area != b.Area {
			return a.Area < b.Area
		}
		if a.ID != b.ID {
			return a.ID < b.ID
		}
		return a.Setting < b.Setting
	})
}

// AbsentReason returns why the fact named factPrefix (or any fact under it:
// "memory.thp" matches "memory.thp.enabled" and "topology.nodes" matches
// "topology.nodes[1].distances"; or the part of the snapshot holding it:
// "cpu_power" absent, as when its reader failed, answers for
// "cpu_power.cpuidle") is absent from the snapshot, as "fact: reason
// (path)"; "" when nothing under that name is absent.
func AbsentReason(s *snapshot.Snapshot, factPrefix string) string {
	if s == nil {
		return "no snapshot"
	}
	for _, a := range s.Absent {
		if a.Fact == factPrefix || under(a.Fact, factPrefix) || under(factPrefix, a.Fact) {
			r := a.Fact + ": " + a.Reason
			if a.Path != "" {
				r += " (" + a.Path + ")"
			}
			return r
		}
	}
	return ""
}

// under reports that fact is a part of parent ("cpu_power.cpuidle" of
// "cpu_power", "topology.nodes[1]" of "topology.nodes").
func under(fact, parent string) bool {
	return len(fact) > len(parent) && strings.HasPrefix(fact, parent) && (fact[len(parent)] == '.' || fact[len(parent)] == '[')
}

// KernelLacks reports that fact is absent because this kernel has no such
// file (its absence says "not present on this host", or a sosreport's
// sysctl -a does not list the key either), not because it could not be read.
func KernelLacks(s *snapshot.Snapshot, fact string) bool {
	for _, a := range s.Absent {
		if a.Fact == fact && (strings.HasPrefix(a.Reason, "not present on this host") || strings.HasPrefix(a.Reason, "not in the sysctl -a output")) {
			return true
		}
	}
	return false
}

// Reason is like AbsentReason but always says something: the recorded
// reason, or "factPrefix: fallback" (e.g. "no NUMA nodes in the snapshot").
func (in *Input) Reason(factPrefix, fallback string) string {
	if r := AbsentReason(in.Snap, factPrefix); r != "" {
		return r
	}
	return factPrefix + ": " + fallback
}
