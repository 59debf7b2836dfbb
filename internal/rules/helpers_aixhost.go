package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers for the AIX rules (OS: OSAIX). They read the snapshot's aix
// section (internal/snapshot/aix.go), each returning the fact or why it is
// absent: the recorded absence ("aix.srads: not present on this host:
// lssrad: command not found (exit 127) (commands/lssrad_-av)"), else a
// sentence naming the command whose output the bundle lacks.

// aixRule is the OS scope of every AIX rule.
var aixRule = []string{OSAIX}

// aixWhy is why the aix fact named fact (a dotted name under "aix.") is
// missing: the recorded absence, else "fact: not in the bundle (COMMAND)".
func aixWhy(s *snapshot.Snapshot, fact, command string) string {
	if r := AbsentReason(s, fact); r != "" {
		return r
	}
	return fmt.Sprintf("%s: not in the bundle (%s)", fact, command)
}

// aixDiskLess orders hdisk names as AIX lists them (hdisk2 before hdisk10).
func aixDiskLess(a, b string) bool {
	na, ea := aixNameNumber(a)
	nb, eb := aixNameNumber(b)
	if na != nb {
		return na < nb
	}
	return ea < eb
}

func aixNameNumber(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n, _ := strconv.Atoi(s[i:])
	return s[:i], n
}

// AIXLevel is `oslevel -s` read: "7200-05-03-2148" → 7.2 TL5 SP3.
type AIXLevel struct {
	Version, Release, TL, SP int
	Text                     string
}

// String is "AIX 7.2 TL5 SP3 (7200-05-03-2148)".
func (l AIXLevel) String() string {
	s := fmt.Sprintf("AIX %d.%d", l.Version, l.Release)
	if l.TL >= 0 {
		s += fmt.Sprintf(" TL%d", l.TL)
	}
	if l.SP >= 0 {
		s += fmt.Sprintf(" SP%d", l.SP)
	}
	return s + " (" + l.Text + ")"
}

// AtLeast reports a level of at least version.release.
func (l AIXLevel) AtLeast(version, release int) bool {
	return l.Version > version || l.Version == version && l.Release >= release
}

// ParseAIXLevel reads oslevel's forms: "7200-05-03-2148" (-s), "7100-04"
// (-r), "6.1.0.0" (plain oslevel).
func ParseAIXLevel(s string) (AIXLevel, bool) {
	s = strings.TrimSpace(s)
	l := AIXLevel{Text: s, TL: -1, SP: -1}
	if strings.Contains(s, ".") {
		parts := strings.Split(s, ".")
		if len(parts) < 2 {
			return l, false
		}
		v, err1 := strconv.Atoi(parts[0])
		r, err2 := strconv.Atoi(parts[1])
		if err1 != nil || err2 != nil || v < 3 || v > 9 {
			return l, false
		}
		l.Version, l.Release = v, r
		return l, true
	}
	parts := strings.Split(s, "-")
	if len(parts[0]) != 4 || !allDigits(parts[0]) {
		return l, false
	}
	l.Version, l.Release = int(parts[0][0]-'0'), int(parts[0][1]-'0')
	if l.Version < 3 {
		return l, false
	}
	if len(parts) > 1 {
		if n, err := strconv.Atoi(parts[1]); err == nil {
			l.TL = n
		}
	}
	if len(parts) > 2 {
		if n, err := strconv.Atoi(parts[2]); err == nil {
			l.SP = n
		}
	}
	return l, true
}

// aixLevel is the host's AIX level, or why it is unknown.
func aixLevel(s *snapshot.Snapshot) (AIXLevel, string) {
	a := s.AIX
	if a.OSLevel == nil {
		return AIXLevel{}, aixWhy(s, "aix.oslevel", "oslevel -s")
	}
	l, ok := ParseAIXLevel(*a.OSLevel)
	if !ok {
		return AIXLevel{}, fmt.Sprintf("aix.oslevel: %q is not an AIX level (oslevel -s prints 7200-05-03-2148)", *a.OSLevel)
	}
	return l, ""
}

// aixTunable is one ioo/vmo/no/schedo tunable as a number: ok false with
// the reason when the command's output is absent, the tunable is not
// listed, or it is n/a on this host.
func aixTunable(s *snapshot.Snapshot, cmd, name string) (int64, string) {
	var m map[string]snapshot.AIXValue
	switch cmd {
	case "ioo":
		m = s.AIX.Tunables.IOO
	case "vmo":
		m = s.AIX.Tunables.VMO
	case "no":
		m = s.AIX.Tunables.NO
	case "schedo":
		m = s.AIX.Tunables.Schedo
	}
	fact := "aix.tunables." + cmd
	if m == nil {
		return 0, aixWhy(s, fact, cmd+" -a")
	}
	v, ok := m[name]
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s.%s: %s -a does not list it on this AIX level", fact, name, cmd)
	case v.Kind == "n/a":
		return 0, fmt.Sprintf("%s.%s: n/a on this host (%s -a)", fact, name, cmd)
	case v.Number == nil:
		return 0, fmt.Sprintf("%s.%s: %q is not a number (%s -a)", fact, name, v.Value, cmd)
	}
	return *v.Number, ""
}

// aixAttr is a numeric lsattr attribute of a map (sys0, aio0, a disk).
func aixAttr(m map[string]snapshot.AIXAttr, name string) (int64, bool) {
	a, ok := m[name]
	if !ok || a.Number == nil {
		return 0, false
	}
	return *a.Number, true
}

// aixOracle returns the Oracle processes of ps -ef and the instances they
// run (ORACLE_SID of the pmon processes, else of any), sorted.
func aixOracle(a *snapshot.AIX) (procs []snapshot.AIXProcess, sids []string) {
	seen := map[string]bool{}
	for _, p := range a.Processes {
		if engineDB(p.Engine) != DBOracle {
			continue
		}
		procs = append(procs, p)
		if p.Instance != "" && p.Role != "listener" && !seen[p.Instance] {
			seen[p.Instance] = true
			sids = append(sids, p.Instance)
		}
	}
	sort.Strings(sids)
	return procs, sids
}

// aixOracleRunning says whether Oracle runs on the host ("" and true), or
// why that is unknown (ps -ef absent). none is the NotApplicable text when
// it does not run.
func aixOracleRunning(s *snapshot.Snapshot) (running bool, sids []string, why string) {
	if s.AIX.Processes == nil {
		return false, nil, aixWhy(s, "aix.processes", "ps -ef")
	}
	procs, sids := aixOracle(s.AIX)
	return len(procs) > 0, sids, ""
}

// aixLogicalCPUs is the number of logical CPUs (virtual processors × SMT
// threads) and where it was read: lparstat -i, else the SRADs of lssrad,
// else smtctl's bind processors.
func aixLogicalCPUs(s *snapshot.Snapshot) (int, string) {
	a := s.AIX
	if l := a.LPAR; l != nil && l.OnlineVCPUs != nil && *l.OnlineVCPUs > 0 {
		smt := 1
		if l.SMT != nil && *l.SMT > 0 {
			smt = *l.SMT
		}
		return *l.OnlineVCPUs * smt, fmt.Sprintf("lparstat -i: %d online virtual CPUs × SMT %d", *l.OnlineVCPUs, smt)
	}
	n := 0
	for _, sr := range a.SRADs {
		n += len(sr.CPUs)
	}
	if n > 0 {
		return n, fmt.Sprintf("lssrad -av: %d logical CPUs", n)
	}
	if a.SMT != nil {
		for _, p := range a.SMT.Procs {
			n += len(p.BindCPUs)
		}
		if n > 0 {
			return n, fmt.Sprintf("smtctl: %d bind processors", n)
		}
	}
	return 0, ""
}

// aixMountOf is the mount holding path (the longest mount point that is a
// prefix of it), nil when none does.
func aixMountOf(mounts []snapshot.AIXMount, path string) *snapshot.AIXMount {
	var best *snapshot.AIXMount
	for i := range mounts {
		m := &mounts[i]
		mp := strings.TrimSuffix(m.Path, "/")
		if path == m.Path || mp == "" && strings.HasPrefix(path, "/") || strings.HasPrefix(path, mp+"/") {
			if best == nil || len(m.Path) > len(best.Path) {
				best = m
			}
		}
	}
	return best
}

// aixFilesystem is lsfs -q's entry for a mount point, nil when absent.
func aixFilesystem(a *snapshot.AIX, mount string) *snapshot.AIXFilesystem {
	for i := range a.Filesystems {
		if a.Filesystems[i].Mount == mount {
			return &a.Filesystems[i]
		}
	}
	return nil
}

// withOpts returns opts with each of add appended when missing, "rw"
// first when no rw/ro is there.
func withOpts(opts []string, add ...string) []string {
	out := append([]string(nil), opts...)
	if hasOpt(out, "rw", "ro") == "" {
		out = append([]string{"rw"}, out...)
	}
	for _, o := range add {
		if hasOpt(out, o) == "" {
			out = append(out, o)
		}
	}
	return out
}

// num formats a float without trailing zeros ("2.5", "12").
func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}
