// Package plan turns an audit into a desired state: the changes every finding
// asks for (deduplicated, conflicts resolved), the boot arguments pending a
// reboot, the tuned base profile, and the advice no setting can carry out. It
// writes the plan as plan.json plus artifacts (tuned.conf, sysctl.d, udev,
// limits.d, boot-args.txt) and reads plan.json back for apply. It never
// changes the host.
package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/dbhost/dbhost/internal/artifacts"
	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/input"
	"github.com/dbhost/dbhost/internal/jsonfmt"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// SchemaVersion is bumped on any incompatible change of plan.json.
const SchemaVersion = 1

// FileName is the plan's file inside a plan directory.
const FileName = "plan.json"

// Tuned base profiles.
const (
	TunedThroughput = "throughput-performance"
	TunedLatency    = "latency-performance"
	TunedGuest      = "virtual-guest"
)

// Options say what to plan for.
type Options struct {
	Workload  string // oltp | dss | mixed | latency ("" = mixed)
	DB        string // oracle | postgres | mysql | none ("" or "auto" = detected)
	Artifacts *artifacts.Set
	// Only keeps the changes of these rules: a rule id ("memory.swappiness")
	// or an area/prefix ("io" keeps io.*). Empty keeps all.
	Only []string
	// Skip leaves these rules out (rule ids or areas, as Only): they are
	// not run, and the plan holds none of their changes.
	Skip []string
	// Now is the plan's creation time (zero: time.Now()); tests fix it.
	Now time.Time
	// TunedBootloader writes [bootloader] cmdline= into tuned.conf as an
	// active option instead of a comment (the user opts in).
	TunedBootloader bool
}

// Advice is a finding no machine-actionable change carries out: a DBA must act.
type Advice struct {
	Rule        string    `json:"rule"`
	Severity    string    `json:"severity"`
	Setting     string    `json:"setting"`
	Current     string    `json:"current"`
	Recommended string    `json:"recommended"`
	Why         string    `json:"why"`
	Fix         rules.Fix `json:"fix"`
}

// Step is what an operator does after the plan's changes for a rule's
// changes to take effect (Finding.Then).
type Step struct {
	Rule  string   `json:"rule"`
	Steps []string `json:"steps"`
}

// Plan is the desired state of one host. The JSON names are a contract with apply.
type Plan struct {
	SchemaVersion int       `json:"schema_version"`
	Host          string    `json:"host"`
	Workload      string    `json:"workload"`
	DB            string    `json:"db"`
	CreatedAt     time.Time `json:"created_at"`
	// Changes are the sysctl, sysfs and limit changes, sorted by kind then key.
	Changes []change.Change `json:"changes"`
	// PendingReboot are the boot arguments to add or remove (never applied at runtime).
	PendingReboot []change.Change `json:"pending_reboot"`
	// TunedProfile is the base profile tuned.conf includes, TunedWhy why.
	TunedProfile string `json:"tuned_profile"`
	TunedWhy     string `json:"tuned_why,omitempty"`
	// TunedV02: the host's tuned is RHEL 6's 0.2, which cannot load a tuned
	// 2.x profile: no tuned.conf is written; TunedProfile is the 0.2 profile
	// to select with tuned-adm, the settings are in sysctl.d, udev and
	// boot-args.txt.
	TunedV02 bool `json:"tuned_0_2,omitempty"`
	// BootLoader is how the host's distribution makes boot arguments
	// persistent (rules.BootLoader): grubby, update-grub (Debian, Ubuntu:
	// /etc/default/grub), grub2-mkconfig (SUSE); empty when not known, and
	// boot-args.txt then gives grubby and the /etc/default/grub edit.
	BootLoader string `json:"boot_loader,omitempty"`
	// Conflicts says, for each setting two rules wanted at different values,
	// which value the plan kept and why.
	Conflicts []string `json:"conflicts,omitempty"`
	// Dropped lists changes a rule produced that are not safe to write (a
	// key outside /sys, a newline in a value: read from a malformed host), with why.
	Dropped []string `json:"dropped,omitempty"`
	// AfterApply are the steps outside dbhost's changes without which those
	// changes do nothing (a database setting and a restart: PostgreSQL maps
	// huge pages only at start), each with the rule whose changes need it.
	AfterApply []Step `json:"after_apply,omitempty"`
	// FindingsWithoutChanges is advice a DBA must act on by hand.
	FindingsWithoutChanges []Advice `json:"findings_without_changes"`
	// TunedBootloader: see Options.TunedBootloader.
	TunedBootloader bool `json:"tuned_bootloader,omitempty"`
}

// TunedProfileFor chooses the tuned base profile for a workload on a host:
// rules.TunedProfileFor, the profile cpu.tuned-profile recommends.
func TunedProfileFor(s *snapshot.Snapshot, workload, db string) (profile, why string) {
	role := rules.HostRole(s)
	if workload == "" {
		workload = rules.WorkloadMixed
	}
	c := rules.TunedProfileForHost(s, workload, db)
	switch role {
	case rules.RoleGuest:
		ev := s.Host.Virt.Type
		if ev == "" {
			ev = s.Host.Virt.Evidence
		}
		if ev == "" {
			ev = "virtualization detected"
		}
		c.Why += " (guest: " + ev + ")"
	case rules.RoleHypervisor:
		c.Why += fmt.Sprintf(" (%d QEMU/KVM guest processes running)", *s.Host.Virt.KVMGuests)
	}
	return c.Want, c.Why
}

// Build audits snap and collects every finding's changes into a plan.
func Build(snap *snapshot.Snapshot, in Options) (*Plan, error) {
	if snap == nil {
		return nil, errors.New("plan: no snapshot")
	}
	wl := in.Workload
	if wl == "" {
		wl = rules.WorkloadMixed
	}
	if !contains(rules.Workloads, wl) {
		return nil, fmt.Errorf("plan: workload %q: expected one of %s", wl, strings.Join(rules.Workloads, ", "))
	}
	db := in.DB
	if db == "" || db == "auto" {
		db, _ = rules.DetectDB(snap, in.Artifacts)
	} else if !contains(rules.DBs, db) {
		return nil, fmt.Errorf("plan: db %q: expected one of %s", db, strings.Join(rules.DBs, ", "))
	}
	rep := rules.Run(&rules.Input{Snap: snap, Workload: wl, DB: db, Artifacts: in.Artifacts, Skip: in.Skip})
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	p := &Plan{
		SchemaVersion:          SchemaVersion,
		Host:                   snap.Host.Hostname,
		Workload:               wl,
		DB:                     db,
		CreatedAt:              now.UTC(),
		Changes:                []change.Change{},
		PendingReboot:          []change.Change{},
		FindingsWithoutChanges: []Advice{},
		TunedBootloader:        in.TunedBootloader,
	}
	p.TunedProfile, p.TunedWhy = TunedProfileFor(snap, wl, db)
	p.TunedV02 = rules.TunedV02(snap)
	p.BootLoader = rules.BootLoader(snap)
	sev := map[string]int{} // rule id → severity rank, for conflicts
	var all []change.Change
	for _, f := range rep.Findings {
		if !Selected(f.ID, in.Only) {
			continue
		}
		sev[f.ID] = rules.SeverityRank(f.Severity)
		var kept int
		for _, c := range f.Changes {
			if c.Kind == change.TunedProfile {
				continue // the profile choice is the plan's own
			}
			if c.Rule == "" {
				c.Rule = f.ID
			}
			if err := buildable(c, c.Kind == change.BootArg); err != nil {
				p.Dropped = append(p.Dropped, fmt.Sprintf("%s: %v", c.Rule, err))
				continue
			}
			all = append(all, c)
			kept++
		}
		if kept > 0 && len(f.Then) > 0 {
			p.AfterApply = append(p.AfterApply, Step{Rule: f.ID, Steps: f.Then})
		}
		if kept == 0 {
			p.FindingsWithoutChanges = append(p.FindingsWithoutChanges, Advice{
				Rule: f.ID, Severity: f.Severity, Setting: f.Setting, Current: f.Current,
				Recommended: f.Recommended, Why: f.Why, Fix: f.Fix,
			})
		}
	}
	// The settings the rules want that the host already has: the desired
	// state, persisted by the artifacts like the changes (after an apply,
	// plan must still persist what it applied).
	for _, h := range rep.Holds {
		if !Selected(firstRule(h.Rule), in.Only) || h.Kind == change.TunedProfile {
			continue
		}
		h.InPlace = true
		if h.Current == "" && !h.Remove {
			h.Current = h.Value
		}
		if err := buildable(h, h.Kind == change.BootArg); err != nil {
			p.Dropped = append(p.Dropped, fmt.Sprintf("%s: %v", h.Rule, err))
			continue
		}
		all = append(all, h)
	}
	// The boot arguments the rules want that the command line lacks while
	// the running kernel has the value (an apply wrote it): pending reboot,
	// as before that apply.
	for _, c := range rep.Unbooted {
		if !Selected(firstRule(c.Rule), in.Only) {
			continue
		}
		if err := buildable(c, true); err != nil {
			p.Dropped = append(p.Dropped, fmt.Sprintf("%s: %v", c.Rule, err))
			continue
		}
		all = append(all, c)
	}
	for i := range all {
		if all[i].Kind != change.BootArg && all[i].AtValue() {
			all[i].InPlace = true // a finding's change to the value the host has: no runtime change
		}
	}
	merged, conflicts := merge(all, sev)
	p.Conflicts = conflicts
	for _, c := range merged {
		if c.Kind == change.BootArg {
			p.PendingReboot = append(p.PendingReboot, c)
		} else {
			p.Changes = append(p.Changes, c)
		}
	}
	return p, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Selected reports whether rule id passes the --only filter (a rule id or
// an area prefix such as "io").
func Selected(id string, only []string) bool {
	return len(only) == 0 || rules.Matches(id, only)
}

// lowerIsStricter lists sysctls whose smaller value is the stricter one; for
// the other numeric settings (buffers, backlogs, limits, hugepage counts) the
// larger value is.
var lowerIsStricter = map[string]bool{
	"vm.swappiness":                true,
	"vm.dirty_ratio":               true,
	"vm.dirty_background_ratio":    true,
	"vm.dirty_bytes":               true,
	"vm.dirty_background_bytes":    true,
	"vm.dirty_expire_centisecs":    true,
	"vm.dirty_writeback_centisecs": true,
	"vm.zone_reclaim_mode":         true,
	"kernel.numa_balancing":        true,
}

func mergeKey(c change.Change) string { return string(c.Kind) + "\x00" + c.Key }

// merge deduplicates changes by kind+key. Equal values are kept once (the
// rules named in Rule, comma separated). Different values: the change of the
// more severe finding wins; at equal severity the stricter value (numeric,
// see lowerIsStricter); else the first rule id. Each conflict is explained.
func merge(cs []change.Change, sev map[string]int) ([]change.Change, []string) {
	byKey := map[string]int{}
	var out []change.Change
	var conflicts []string
	for _, c := range cs {
		i, seen := byKey[mergeKey(c)]
		if !seen {
			byKey[mergeKey(c)] = len(out)
			out = append(out, c)
			continue
		}
		old := out[i]
		if old.Value == c.Value && old.Remove == c.Remove {
			out[i].InPlace = old.InPlace && c.InPlace
			if !strings.Contains(","+old.Rule+",", ","+c.Rule+",") {
				out[i].Rule = old.Rule + "," + c.Rule
			}
			if out[i].Risk == "" {
				out[i].Risk = c.Risk
			}
			continue
		}
		win, why := pick(old, c, sev)
		lose := c
		if win == 1 {
			out[i] = c
			lose = old
		}
		w := out[i]
		conflicts = append(conflicts, fmt.Sprintf("%s %s: %s wants %s, %s wants %s; kept %s (%s)",
			c.Kind, c.Key, w.Rule, valueText(w), lose.Rule, valueText(lose), valueText(w), why))
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Kind != out[b].Kind {
			return kindOrder(out[a].Kind) < kindOrder(out[b].Kind)
		}
		return naturalLess(sortKey(out[a].Key), sortKey(out[b].Key))
	})
	return out, conflicts
}

func valueText(c change.Change) string {
	if c.Kind == change.BootArg && c.Remove {
		return "removed"
	}
	if c.Value == "" {
		return `""`
	}
	return strconv.Quote(c.Value)
}

func firstRule(r string) string {
	if i := strings.IndexByte(r, ','); i >= 0 {
		return r[:i]
	}
	return r
}

// pick returns 0 to keep a, 1 to keep b, and the reason.
func pick(a, b change.Change, sev map[string]int) (int, string) {
	if a.InPlace != b.InPlace {
		if a.InPlace {
			return 1, "a finding asks to change the value in place"
		}
		return 0, "a finding asks to change the value in place"
	}
	sa, sb := sev[firstRule(a.Rule)], sev[firstRule(b.Rule)]
	if sa != sb {
		if sb > sa {
			return 1, "the more severe finding"
		}
		return 0, "the more severe finding"
	}
	if a.Kind == change.BootArg && a.Remove != b.Remove {
		if b.Remove {
			return 1, "removing an argument is the source-preferred default"
		}
		return 0, "removing an argument is the source-preferred default"
	}
	na, ea := strconv.ParseInt(a.Value, 10, 64)
	nb, eb := strconv.ParseInt(b.Value, 10, 64)
	if ea == nil && eb == nil {
		lower := lowerIsStricter[a.Key]
		if (lower && nb < na) || (!lower && nb > na) {
			if lower {
				return 1, "the lower value is stricter"
			}
			return 1, "the higher value is stricter"
		}
		if lower {
			return 0, "the lower value is stricter"
		}
		return 0, "the higher value is stricter"
	}
	if firstRule(b.Rule) < firstRule(a.Rule) {
		return 1, "first rule id"
	}
	return 0, "first rule id"
}

func kindOrder(k change.Kind) int {
	switch k {
	case change.Sysctl:
		return 0
	case change.Sysfs:
		return 1
	case change.Limit:
		return 2
	case change.BootArg:
		return 3
	}
	return 4
}

// JSON is the plan's plan.json form.
func (p *Plan) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Parse reads plan.json bytes and checks them: schema version, known kinds,
// keys present, boot arguments only under pending_reboot.
func Parse(b []byte) (*Plan, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	var p Plan
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("not a dbhost plan: %s", jsonfmt.DecodeError(b, err))
	}
	if dec.More() {
		off := int(dec.InputOffset())
		off += len(b[off:]) - len(bytes.TrimLeft(b[off:], " \t\r\n"))
		return nil, fmt.Errorf("line %d: data after the plan's JSON object", 1+bytes.Count(b[:off], []byte("\n")))
	}
	// encoding/json keeps the last of two equal keys (equal but for case,
	// for a struct's fields): {"risk": "...", "risk": ""} would show a
	// reader one value and give apply the other. Every object of a plan is
	// a struct, so keys are compared as encoding/json matches them.
	if err := jsonfmt.CheckKeys(b, true); err != nil {
		return nil, err
	}
	if p.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("schema_version %d: this dbhost reads plans of version %d (dbhost plan writes them)", p.SchemaVersion, SchemaVersion)
	}
	for _, l := range []struct {
		name string
		cs   []change.Change
		boot bool
	}{{"changes", p.Changes, false}, {"pending_reboot", p.PendingReboot, true}} {
		lines := jsonfmt.ArrayLines(b, l.name)
		for i, c := range l.cs {
			if err := checkChange(c, l.boot); err != nil {
				return nil, fmt.Errorf("%s: %w", at(l.name, i, lines), err)
			}
		}
	}
	p.CreatedAt = p.CreatedAt.UTC()
	if p.Changes == nil {
		p.Changes = []change.Change{}
	}
	if p.PendingReboot == nil {
		p.PendingReboot = []change.Change{}
	}
	if p.FindingsWithoutChanges == nil {
		p.FindingsWithoutChanges = []Advice{}
	}
	return &p, nil
}

// buildable: a change a rule made goes into a plan only when apply will
// take the plan back (checkChange, rules.VetChange): a device or interface
// name no declaration admits (a blank, a '*', read from a hostile tree)
// drops that change, with why, rather than the whole plan at apply.
func buildable(c change.Change, boot bool) error {
	if err := checkChange(c, boot); err != nil {
		return err
	}
	_, err := rules.VetChange(c)
	return err
}

// at names a change of a plan file: "changes[2] (line 31)".
func at(array string, i int, lines []int) string {
	if i < len(lines) {
		return fmt.Sprintf("%s[%d] (line %d)", array, i, lines[i])
	}
	return fmt.Sprintf("%s[%d]", array, i)
}

// control reports whether s holds a control character other than a tab
// (a terminal escape in a why printed by apply --dry-run, a newline that
// starts a second line in an artifact).
func control(s string) bool {
	for _, r := range s {
		if r != '\t' && unicode.IsControl(r) {
			return true
		}
	}
	return false
}

func checkChange(c change.Change, boot bool) error {
	if c.Key == "" {
		return errors.New("no key")
	}
	if strings.ContainsAny(c.Key+c.Value+c.Match+c.Device, "\n\r\x00") {
		return fmt.Errorf("%s %q: key, value, match and device are one line each", c.Kind, c.Key)
	}
	for _, f := range []struct{ name, v string }{{"key", c.Key}, {"value", c.Value}, {"current", c.Current}, {"device", c.Device},
		{"match", c.Match}, {"rule", c.Rule}, {"why", c.Why}, {"risk", c.Risk}} {
		if control(f.v) {
			return fmt.Errorf("%s %q: its %s holds a control character", c.Kind, c.Key, f.name)
		}
	}
	switch c.Kind {
	case change.Sysctl:
		if strings.ContainsAny(c.Key, " =\t") || strings.Contains(c.Key, "..") {
			return fmt.Errorf("sysctl key %q is not a sysctl name", c.Key)
		}
	case change.Sysfs:
		if !strings.HasPrefix(c.Key, "/sys/") || strings.Contains(c.Key, "/../") || strings.HasSuffix(c.Key, "/..") {
			return fmt.Errorf("sysfs key %q is not a path under /sys", c.Key)
		}
	case change.Limit:
		if len(strings.Fields(c.Key)) != 3 {
			return fmt.Errorf("limit key %q: expected \"DOMAIN TYPE ITEM\"", c.Key)
		}
	case change.BootArg:
		if strings.ContainsAny(c.Key, " \t=") {
			return fmt.Errorf("boot argument name %q", c.Key)
		}
	default:
		return fmt.Errorf("unknown kind %q", c.Kind)
	}
	if boot != (c.Kind == change.BootArg) {
		if boot {
			return fmt.Errorf("%s %q: only boot arguments are pending reboot", c.Kind, c.Key)
		}
		return fmt.Errorf("boot argument %q belongs under pending_reboot", c.Key)
	}
	return nil
}

// Load reads a plan: a plan directory (its plan.json) or the file itself.
func Load(path string) (*Plan, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, FileName)
	}
	b, err := input.ReadFile(path, input.PlanBytes, "a plan")
	if err != nil {
		return nil, err
	}
	p, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := p.Vet(b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// RefusedError lists the changes of a plan file that no rule of the
// catalog makes: each named by its place in the file, its line, the
// setting and why.
type RefusedError struct {
	Refused []string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%d change(s) refused: a plan holds only what the rules of this dbhost's catalog make (their settings, "+
		"value forms and risk; 'dbhost rules show ID'); nothing was applied:\n  %s", len(e.Refused), strings.Join(e.Refused, "\n  "))
}

// Vet checks a plan read from a file (b, its bytes, gives the lines)
// against the rule catalog, as apply and verify take it: every change must
// be one the rules it names can make (rules.VetChange), and its risk —
// whether apply needs --accept-risk, and the warning quoted — becomes the
// catalog's, whatever the file said; the tuned profile must be one
// dbhost chooses. Every refused change is listed (*RefusedError), none is
// dropped alone: a plan is taken whole or not at all.
func (p *Plan) Vet(b []byte) error {
	var refused []string
	for _, l := range []struct {
		name string
		cs   []change.Change
	}{{"changes", p.Changes}, {"pending_reboot", p.PendingReboot}} {
		lines := jsonfmt.ArrayLines(b, l.name)
		for i, c := range l.cs {
			risk, err := rules.VetChange(c)
			if err != nil {
				refused = append(refused, fmt.Sprintf("%s: %s %s: %v", at(l.name, i, lines), c.Kind, c.Key, err))
				continue
			}
			l.cs[i].Risk = risk
		}
	}
	if p.TunedProfile != "" && !contains(rules.TunedProfiles, p.TunedProfile) {
		refused = append(refused, fmt.Sprintf("tuned_profile %q: expected one of %s", p.TunedProfile, strings.Join(rules.TunedProfiles, ", ")))
	}
	if p.BootLoader != "" && !contains(rules.BootLoaders, p.BootLoader) {
		refused = append(refused, fmt.Sprintf("boot_loader %q: expected one of %s", p.BootLoader, strings.Join(rules.BootLoaders, ", ")))
	}
	if control(p.TunedWhy) || control(p.Host) {
		refused = append(refused, "host or tuned_why: holds a control character")
	}
	if len(refused) > 0 {
		return &RefusedError{Refused: refused}
	}
	return nil
}

// naturalLess orders strings with runs of digits compared as numbers
// (cpu2 before cpu10, node2 before node10).
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return len(na) < len(nb)
			}
			if na != nb {
				return na < nb
			}
			if da != db {
				return da < db
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// sortKey puts a block device's scheduler before its other queue attributes:
// switching the elevator resets nr_requests, so it must be written first.
func sortKey(k string) string {
	if strings.HasSuffix(k, "/queue/scheduler") {
		return strings.TrimSuffix(k, "scheduler") + "\x00scheduler"
	}
	return k
}
