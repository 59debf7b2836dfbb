// Package rules is the audit catalog: one file per rule, each a Register call
// plus a Check function, each citing the seed document and section it encodes.
//
// Writing a rule (copy internal/rules/memory_swappiness.go):
//
//	func init() {
//		Register(Rule{
//			ID: "memory.swappiness", Area: AreaMemory, Severity: SevWarning,
//			Title:   "vm.swappiness above what the database profiles set",
//			Sources: []Source{{Doc: Seed003, Section: "Tuning Memory – swappiness",
//				Quote: "Decreasing: more aggressive reclaiming of unmapped pagecache memory"}},
//			Scope:   Scope{Kernels: "all", ...},
//			Check:   checkSwappiness,
//		})
//	}
//
//	func checkSwappiness(in *Input) Outcome {
//		v, why := in.Sysctl("vm.swappiness")       // absent → CannotCheck(why)
//		...
//		return Found(Finding{Setting: ..., Current: ..., Recommended: ..., Evidence: ..., Why: ..., Fix: ...})
//	}
//
// Shared helpers (helpers.go, helpers_db.go), each returning the fact or the
// reason it is absent: in.Sysctl / SysctlInt / SysctlEvidence, SysctlFix;
// NodeOfCPU, NodesOfCPUs, Distance, NodeCount; in.DBProcesses,
// in.DBSharedMemory, in.HugepagesCommittedKB, DefaultHugepages;
// in.OracleParam (init.ora/spfile, else the alert log, with file:line);
// AddKernelArgFix / RemoveKernelArgFix; KB, List, Kernel.
//
// A rule that carries out its fix with a change.Change also says, with
// Outcome.Wanting, the changes it wants whether or not the host already
// has the value (the desired state a plan persists); see memory_swappiness.go.
//
// A check writes only what it found: the engine fills ID, Area, Title,
// Severity, Sources and Scope of each Finding from its Rule when the check left
// them empty. Findings come from facts only: when a needed fact is absent the
// check returns CannotCheck with the reason from Snapshot.Absent (see
// AbsentReason), never a finding and never a guessed zero.
package rules

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// Severities, from least to most severe.
const (
	SevInfo     = "info"
	SevWarning  = "warning"
	SevCritical = "critical"
)

// Pending kinds (Finding.Pending).
const (
	PendingReboot  = "reboot"
	PendingRestart = "restart"
	PendingManual  = "manual"
)

// SeverityRank orders severities: info 1, warning 2, critical 3, unknown 0.
func SeverityRank(s string) int {
	switch s {
	case SevInfo:
		return 1
	case SevWarning:
		return 2
	case SevCritical:
		return 3
	}
	return 0
}

// Areas (the "area" of a finding and the first part of a rule id).
const (
	AreaNUMA    = "numa"
	AreaMemory  = "memory"
	AreaCPU     = "cpu"
	AreaIO      = "io"
	AreaNetwork = "network"
	AreaCgroup  = "cgroup"
	AreaDB      = "db"
	AreaVirt    = "virt"
)

// The seed documents, by file name (see /work/shared/seeds/README.md).
const (
	Seed000 = "000_211b0b645b2f1cc8.txt" // HP Superdome X Linux performance (2015)
	Seed001 = "001_bee41b021388c063.txt" // bdt's Oracle blog (2015)
	Seed002 = "002_f93768dafb601624.txt" // Jakub Wartak's blog (2011-2016)
	Seed003 = "003_9391c4554b184d9a.txt" // Red Hat Summit 2015 "Tuning RHEL for Databases"
	Seed004 = "004_82b1518d7f621865.txt" // IBM Oracle DB and AIX best practices (2012)
)

// Workloads and databases an audit is scoped to.
const (
	WorkloadOLTP    = "oltp"
	WorkloadDSS     = "dss"
	WorkloadMixed   = "mixed"
	WorkloadLatency = "latency"

	DBOracle   = "oracle"
	DBPostgres = "postgres"
	DBMySQL    = "mysql"
	DBNone     = "none"
)

// Operating systems a rule runs on (Rule.OS). A snapshot's system is
// HostOS: AIX when it holds an aix section (an AIX bundle), Linux otherwise.
const (
	OSLinux = "linux"
	OSAIX   = "aix"
)

// Workloads and DBs list the accepted values of --workload and --db (without "auto").
var (
	Workloads = []string{WorkloadOLTP, WorkloadDSS, WorkloadMixed, WorkloadLatency}
	DBs       = []string{DBOracle, DBPostgres, DBMySQL, DBNone}
)

// Source is one citation: a seed file name (or a public reference), the
// section in it as the document titles it (a sub-section after " — ":
// "Scenario 2: HugePages — Confirming Oracle's use of HugePages"), and a
// phrase quoted from that section as it is written there. A test checks
// every seed quote against ../shared/seeds (TestSourcesQuoteTheirSeedSection).
// The seeds are Markdown: a quote may be copied with its backslash escapes
// ("kernel.numa\_balancing"); Register stores the text they stand for
// (MarkdownText), so every finding, catalog and report prints the text, not
// the markup.
type Source struct {
	Doc     string `json:"doc"`
	Section string `json:"section"`
	Quote   string `json:"quote,omitempty"`
}

// Cite prints a source for people as "DOCUMENT § Section: “quote”": the
// document by its title, author, publisher and year (DocName), never by its
// seed file name, which the JSON keeps; no quote for a public reference
// without one.
func (s Source) Cite() string {
	c := s.DocName() + " § " + s.Section
	if s.Quote != "" {
		c += ": “" + strings.Join(strings.Fields(s.Quote), " ") + "”"
	}
	return c
}

// MarkdownText is the text a Markdown phrase's backslash escapes stand for
// (kernel.numa\_balancing → kernel.numa_balancing, \\ → \): a
// backslash before ASCII punctuation stands for the punctuation itself
// (CommonMark 2.4); a backslash before anything else is kept.
func MarkdownText(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '\\' && i+1 < len(s) && asciiPunct(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func asciiPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

// Scope says where a rule's claim holds, in free text.
type Scope struct {
	Kernels    string `json:"kernels,omitempty"`
	Distros    string `json:"distributions,omitempty"`
	DBVersions string `json:"db_versions,omitempty"`
	Note       string `json:"note,omitempty"`
}

// Fix is what to do: commands that change the running system (Runtime),
// commands or steps that make the change survive a reboot (Persistent), and
// the file edits that do (Edits: not commands, never offered to copy into a
// shell).
type Fix struct {
	Runtime    []string   `json:"runtime"`
	Persistent []string   `json:"persistent"`
	Edits      []FileEdit `json:"edits,omitempty"`
}

// FileEdit is a persistent fix that is an edit of a file: what to change in
// File ("add vm.swappiness = 10"; "add intel_idle.max_cstate=1 to
// GRUB_CMDLINE_LINUX") and, when the file is read only through a tool, the
// command that makes the edit take effect ("update-grub").
type FileEdit struct {
	File string `json:"file"`
	Edit string `json:"edit"`
	Then string `json:"then,omitempty"`
}

// String is the edit as people read it: "edit FILE: add LINE[, then run CMD]".
func (e FileEdit) String() string {
	s := "edit " + e.File + ": " + e.Edit
	if e.Then != "" {
		s += ", then run " + e.Then
	}
	return s
}

// Lines is every persistent step as people read it: the commands, then the
// file edits ("edit FILE: ...").
func (f Fix) Lines() []string {
	out := append([]string{}, f.Persistent...)
	for _, e := range f.Edits {
		out = append(out, e.String())
	}
	return out
}

// Finding is one problem on one host. The JSON names are a contract (issue 3).
type Finding struct {
	ID             string `json:"id"`
	Severity       string `json:"severity"`
	Area           string `json:"area"`
	Title          string `json:"title"`
	Setting        string `json:"setting"`
	Current        string `json:"current"`
	Recommended    string `json:"recommended"`
	Evidence       string `json:"evidence"`
	Why            string `json:"why"`
	Fix            Fix    `json:"fix"`
	RebootRequired bool   `json:"reboot_required"`
	// Pending says what a finding waits for once every runtime change
	// dbhost can make is made: "reboot" (boot arguments, firmware), "restart"
	// (the database, a daemon, or the user's next login: limits, database
	// parameters), "manual" (an operator's change dbhost cannot make: data
	// placement, addressing, hardware). Empty when its changes apply at run
	// time. The engine derives it from the changes when the check leaves it.
	Pending string `json:"pending,omitempty"`
	// Then are the steps, outside dbhost's changes, without which those
	// changes do nothing: a database setting and its restart (PostgreSQL
	// maps huge pages only at start). The plan lists them with the changes.
	Then    []string `json:"then,omitempty"`
	Risk    string   `json:"risk"`
	Sources []Source `json:"sources"`
	Scope   Scope    `json:"scope"`
	// Changes is the machine-actionable form of Fix, for plan and apply.
	Changes []change.Change `json:"changes,omitempty"`
}

// Input is what every check sees.
type Input struct {
	Snap      *snapshot.Snapshot
	Workload  string // oltp | dss | mixed | latency
	DB        string // oracle | postgres | mysql | none (auto already resolved)
	Artifacts *artifacts.Set
	// Skip leaves rules out (--skip: rule ids or areas, see Matches): they
	// are not run and the report lists them as Skipped.
	Skip []string
	// aloneOS is the system of the host a report diagnosis was run
	// without (its facts are another system's: runOne), so that the
	// diagnosis still knows which system's advice to give.
	aloneOS string
}

// Outcome is a check's answer: findings, or exactly one of the reasons why
// there are none.
type Outcome struct {
	Findings []Finding
	Passed   string // what was checked and found fine
	// Evidence is what a passing check read: the facts (file, command,
	// report) and their values, as a finding's Evidence ("/proc/sys/vm/
	// swappiness = 10"), set with Reading. A pass without it is no
	// verdict: the engine reports the rule as could not check (NoEvidence).
	Evidence      string
	CannotCheck   string // a needed fact is absent: why
	NotApplicable string // the rule does not concern this host/workload/DB
	// Wants are the settings the rule wants, each the change it would make
	// at the value it would set (Current read from the snapshot), whether
	// or not the host already has it; set with Wanting, besides findings or
	// Passed. The engine keeps those whose Current equals the value and
	// that no finding of the rule changes as the report's Holds: a plan
	// persists them (sysctl.d, udev, tuned, limits) like its changes, so
	// that a host brought to the desired state stays there after a reboot.
	// A value the rule merely tolerates (swappiness 5 where it sets 10) is
	// not held. A boot argument to add is held when the command line has
	// it at the value; when it lacks it and no finding changes it (the
	// running kernel has the value, as after an apply), it is the report's
	// Unbooted: the plan keeps it pending reboot. A boot argument to remove
	// is not compared here: a rule that knows it is gone says so with
	// Holding.
	Wants []change.Change
	// Holds are settings in place the rule names itself (Holding).
	Holds []change.Change
}

// Wanting declares the settings the rule wants (see Outcome.Wants).
func (o Outcome) Wanting(cs ...change.Change) Outcome {
	o.Wants = append(o.Wants, cs...)
	return o
}

// Holding declares settings the rule wants that the host already has.
func (o Outcome) Holding(cs ...change.Change) Outcome {
	o.Holds = append(o.Holds, cs...)
	return o
}

// Reading records what a passing check read (Outcome.Evidence); the
// non-empty parts are joined with "; ".
func (o Outcome) Reading(ev ...string) Outcome {
	for _, e := range ev {
		if e = strings.TrimSpace(e); e == "" {
			continue
		}
		if o.Evidence != "" {
			o.Evidence += "; "
		}
		o.Evidence += e
	}
	return o
}

// Found returns an outcome with findings.
func Found(f ...Finding) Outcome { return Outcome{Findings: f} }

// Passed returns a passing outcome; the text says what was checked.
func Passed(format string, a ...any) Outcome { return Outcome{Passed: fmt.Sprintf(format, a...)} }

// CannotCheck returns an outcome for a rule whose facts are absent.
func CannotCheck(format string, a ...any) Outcome {
	return Outcome{CannotCheck: fmt.Sprintf(format, a...)}
}

// NotApplicable returns an outcome for a rule that does not concern this host.
func NotApplicable(format string, a ...any) Outcome {
	return Outcome{NotApplicable: fmt.Sprintf(format, a...)}
}

// Rule is one catalog entry.
type Rule struct {
	ID       string   `json:"id"`
	Area     string   `json:"area"`
	Title    string   `json:"title"`
	Severity string   `json:"severity"` // default severity of its findings
	Sources  []Source `json:"sources"`
	Scope    Scope    `json:"scope"`
	// OS lists the systems the rule judges (OSLinux, OSAIX); empty means
	// Linux only, the facts of /proc and /sys. On a host of another system
	// the rule is "not applicable", except a HostOptional rule, which then
	// diagnoses its report alone, as without a host (its joins read the
	// other system's facts). A rule that reads only artifacts lists both.
	OS []string `json:"os,omitempty"`
	// Workloads and DBs restrict the rule; empty means all.
	Workloads []string `json:"workloads,omitempty"`
	DBs       []string `json:"dbs,omitempty"`
	// Thresholds are the limits the rule applies that no source gives
	// (dbhost's own choice, e.g. "1000 migrated pages/s"): each finding's
	// why ends by naming them, and docs/rules.md lists them.
	Thresholds []string `json:"thresholds,omitempty"`
	// Pending is what the rule's findings without a change dbhost can make
	// wait for (PendingRestart for a database parameter); empty: manual.
	Pending string `json:"pending,omitempty"`
	// Description is the longer text `dbhost rules show` prints (optional).
	Description string `json:"description,omitempty"`
	// HostOptional rules also run without a snapshot (Input.Snap nil): the
	// diagnoses of an AWR or Statspack report, which say what host facts
	// would decide and become precise when a host is given.
	HostOptional bool                 `json:"host_optional,omitempty"`
	Check        func(*Input) Outcome `json:"-"`
}

var (
	regMu    sync.Mutex
	registry = map[string]Rule{}
)

// Register adds a rule to the catalog; call it from init() of the rule's file.
// It panics on a duplicate or incomplete rule: a programming error that the
// package's tests catch.
func Register(r Rule) {
	regMu.Lock()
	defer regMu.Unlock()
	if err := validate(r); err != nil {
		panic("rules.Register: " + err.Error())
	}
	if _, dup := registry[r.ID]; dup {
		panic("rules.Register: duplicate rule id " + r.ID)
	}
	r.Sources = append([]Source(nil), r.Sources...)
	for i := range r.Sources {
		r.Sources[i].Quote = MarkdownText(r.Sources[i].Quote)
	}
	registry[r.ID] = r
}

func validate(r Rule) error {
	switch {
	case r.ID == "":
		return fmt.Errorf("rule without id")
	case r.Area == "" || r.Title == "":
		return fmt.Errorf("%s: area and title are required", r.ID)
	case SeverityRank(r.Severity) == 0:
		return fmt.Errorf("%s: severity %q is not info|warning|critical", r.ID, r.Severity)
	case len(r.Sources) == 0:
		return fmt.Errorf("%s: a rule cites at least one source", r.ID)
	case r.Check == nil:
		return fmt.Errorf("%s: no Check", r.ID)
	}
	for _, s := range r.Sources {
		if s.Doc == "" || s.Section == "" {
			return fmt.Errorf("%s: source %+v needs doc and section", r.ID, s)
		}
		if s.Quote == "" && !strings.Contains(s.Doc, "://") {
			return fmt.Errorf("%s: source %s %q quotes nothing from the seed", r.ID, s.Doc, s.Section)
		}
	}
	for _, w := range r.Workloads {
		if !contains(Workloads, w) {
			return fmt.Errorf("%s: unknown workload %q", r.ID, w)
		}
	}
	for _, o := range r.OS {
		if o != OSLinux && o != OSAIX {
			return fmt.Errorf("%s: unknown os %q", r.ID, o)
		}
	}
	for _, d := range r.DBs {
		if !contains(DBs, d) {
			return fmt.Errorf("%s: unknown db %q", r.ID, d)
		}
	}
	return nil
}

// RunsOn reports whether the rule judges hosts of system os (OSLinux, OSAIX).
func (r Rule) RunsOn(os string) bool {
	if len(r.OS) == 0 {
		return os == OSLinux
	}
	return contains(r.OS, os)
}

// Systems names the systems the rule judges, for people: "Linux", "AIX",
// "Linux and AIX".
func (r Rule) Systems() string {
	var names []string
	for _, o := range []string{OSLinux, OSAIX} {
		if r.RunsOn(o) {
			names = append(names, osName(o))
		}
	}
	return strings.Join(names, " and ")
}

func osName(os string) string {
	if os == OSAIX {
		return "AIX"
	}
	return "Linux"
}

// HostOS is the system of the host a snapshot describes: OSAIX for a
// snapshot with an aix section or read from an AIX bundle, else OSLinux.
func HostOS(s *snapshot.Snapshot) string {
	if s != nil && (s.AIX != nil || s.Source.Kind == "aix-bundle") {
		return OSAIX
	}
	return OSLinux
}

// All returns the catalog sorted by id.
func All() []Rule {
	regMu.Lock()
	defer regMu.Unlock()
	out := make([]Rule, 0, len(registry))
	for _, r := range registry {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns the rule with that id.
func Lookup(id string) (Rule, bool) {
	regMu.Lock()
	defer regMu.Unlock()
	r, ok := registry[id]
	return r, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
