// Package place plans where database instances run on a NUMA host: binding
// (one cpuset per guaranteed instance), caging (cpu_count limits, no cpuset)
// or a mix of both, as seed 001 (bdt, "binding vs caging") describes, and
// writes the artifacts that put the plan in place.
package place

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/dbhost/dbhost/internal/lazyre"
	"math"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// The strategies of 001's customer case 3, option 1 (the author's
// favourite): only the non-paying (best-effort) databases are bound to one
// cpuset of "CPU Total – number of paid CPU", or caged within it; the paying
// ones are neither bound nor caged and may use every CPU.
const (
	StrategyBindBestEffort = "binding-best-effort"
	StrategyCageBestEffort = "caging-best-effort"
)

// Spec is the placement request (the YAML contract of issue 6).
type Spec struct {
	Strategy string `yaml:"strategy" json:"strategy"` // binding | caging | mix
	// HugepageSizeKB chooses the hugepage size backing memory_gb; 0 takes the
	// host's default size (Hugepagesize). Optional, not part of the contract.
	HugepageSizeKB int64      `yaml:"hugepage_size_kb,omitempty" json:"hugepage_size_kb,omitempty"`
	Instances      []Instance `yaml:"instances" json:"instances"`
}

// Instance is one database instance to place.
type Instance struct {
	Name     string  `yaml:"name" json:"name"`
	Engine   string  `yaml:"engine" json:"engine"`       // oracle | postgres | mysql | other | kvm-guest
	CPUs     int     `yaml:"cpus" json:"cpus"`           // CPU threads needed (kvm-guest: vCPUs)
	MemoryGB float64 `yaml:"memory_gb" json:"memory_gb"` // shared memory backed by hugepages (kvm-guest: guest RAM)
	Class    string  `yaml:"class" json:"class"`         // guaranteed | best-effort
	// NIC is the network interface the instance's clients come through
	// (optional): nodes near it are preferred.
	NIC string `yaml:"nic,omitempty" json:"nic,omitempty"`
	// Domain is a kvm-guest's libvirt domain name (default: Name).
	Domain string `yaml:"domain,omitempty" json:"domain,omitempty"`

	line int // line of the instance in the spec file
}

// Guaranteed reports whether the instance paid for guaranteed CPUs.
func (in Instance) Guaranteed() bool { return in.Class == "guaranteed" }

// EngineKVMGuest is the engine of a database running in a KVM guest: the
// instance is the guest (libvirt domain), cpus its vCPUs, memory_gb its RAM.
const EngineKVMGuest = "kvm-guest"

// Guest reports whether the instance is a KVM guest.
func (in Instance) Guest() bool { return in.Engine == EngineKVMGuest }

// DomainName is the guest's libvirt domain (its name unless domain is set).
func (in Instance) DomainName() string {
	if in.Domain != "" {
		return in.Domain
	}
	return in.Name
}

// SpecError is a bad spec: file, line and what is wrong.
type SpecError struct {
	File string
	Line int // 0 when the error concerns the whole file
	Msg  string
}

func (e *SpecError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Limits that keep a malformed spec from asking for absurd plans (the
// bounds of its YAML, MaxInstances among them, are in specshape.go).
const (
	maxCPUs     = 1 << 16
	maxMemoryGB = 1 << 22 // 4 PiB
)

var nameRE = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,62}$`)

// domainRE bounds a libvirt domain name to what is safe as a virsh argument
// and a file name: no '/', no blank, no leading '-'.
var domainRE = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_.+:-]{0,127}$`)

// ParseSpec parses and checks a spec. file names the input in errors. The
// YAML is strict: unknown keys, duplicate keys and wrong types are errors,
// each with the line it is on. Its shape is bounded before it is decoded
// (MaxSpecDepth, MaxSpecNodes, MaxInstances: docs/limits.md).
func ParseSpec(file string, data []byte) (*Spec, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &SpecError{File: file, Line: 1, Msg: "empty spec: expected strategy and instances"}
	}
	yml, lines, err := prescan(file, data)
	if err != nil {
		return nil, err
	}
	specErr := func(err error) error {
		return yamlError(file, err, (&walker{lines: lines}).specLine)
	}
	af, err := parse(yml)
	if err != nil {
		return nil, specErr(err)
	}
	sh, err := checkShape(file, af, lines)
	if err != nil {
		return nil, err
	}
	var s Spec
	if err := decode(af, &s); err != nil {
		return nil, specErr(err)
	}
	for i := range s.Instances {
		s.Instances[i].line = sh.instanceLine(i)
	}
	fail := func(line int, format string, a ...any) error {
		if line < 1 {
			line = sh.docLine
		}
		return &SpecError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	switch s.Strategy {
	case "binding", "caging", "mix", StrategyBindBestEffort, StrategyCageBestEffort:
	case "":
		return nil, fail(sh.topLine("strategy"), "strategy: required, one of binding, caging, mix, binding-best-effort, caging-best-effort")
	default:
		return nil, fail(sh.topLine("strategy"), "strategy %q: expected binding, caging, mix, binding-best-effort or caging-best-effort", s.Strategy)
	}
	if s.HugepageSizeKB < 0 || s.HugepageSizeKB > 16<<20 {
		return nil, fail(sh.topLine("hugepage_size_kb"), "hugepage_size_kb %d: expected a page size in kB (2048, 1048576)", s.HugepageSizeKB)
	}
	if len(s.Instances) == 0 {
		return nil, fail(sh.topLine("instances"), "instances: expected at least one instance")
	}
	if len(s.Instances) > MaxInstances {
		return nil, fail(sh.topLine("instances"), "instances: %d listed, at most %d (docs/limits.md)", len(s.Instances), MaxInstances)
	}
	seen := map[string]int{}
	domains := map[string]int{}
	for i, in := range s.Instances {
		// at is the line of the instance's key (of the instance when the
		// key is absent); an instance written as an alias is reported on
		// its own line, naming the anchor's line the value is on.
		var via string
		at := func(key string) int {
			l, v := sh.keyLine(i, key)
			via = v
			return l
		}
		fail := func(line int, format string, a ...any) error {
			return fail(line, format+"%s", append(a, via)...)
		}
		if in.Name == "" {
			return nil, fail(at("name"), "instance %d: name: required", i+1)
		}
		if !nameRE().MatchString(in.Name) {
			return nil, fail(at("name"), "name %q: expected a letter then letters, digits, '_' or '-' (at most 63; it names cgroups and files)", in.Name)
		}
		if prev, ok := seen[strings.ToLower(in.Name)]; ok {
			return nil, fail(at("name"), "name %q: already used by the instance on line %d (names are unique, case-insensitively)", in.Name, prev)
		}
		seen[strings.ToLower(in.Name)] = in.line
		switch in.Engine {
		case "oracle", "postgres", "mysql", "other", EngineKVMGuest:
		case "":
			return nil, fail(at("engine"), "%s: engine: required, one of oracle, postgres, mysql, other, kvm-guest", in.Name)
		default:
			return nil, fail(at("engine"), "%s: engine %q: expected oracle, postgres, mysql, other or kvm-guest", in.Name, in.Engine)
		}
		if in.Guest() && (s.Strategy == StrategyBindBestEffort || s.Strategy == StrategyCageBestEffort) {
			return nil, fail(at("engine"), "%s: engine kvm-guest: strategy %s places database instances only (pin guests with binding, caging or mix)", in.Name, s.Strategy)
		}
		if in.Domain != "" && !in.Guest() {
			return nil, fail(at("domain"), "%s: domain: only a kvm-guest names a libvirt domain", in.Name)
		}
		if in.Guest() {
			d := in.DomainName()
			if !domainRE().MatchString(d) {
				return nil, fail(at("domain"), "%s: domain %q: expected a libvirt domain name (letters, digits, '_', '.', '+', ':', '-'; at most 128; not starting with '-' or '.')", in.Name, d)
			}
			if prev, ok := domains[d]; ok {
				return nil, fail(at("domain"), "%s: domain %q: already placed by the guest on line %d", in.Name, d, prev)
			}
			domains[d] = in.line
			if !(in.MemoryGB > 0) {
				return nil, fail(at("memory_gb"), "%s: memory_gb %v: a kvm-guest needs its RAM (GB, > 0): it is backed by hugepages on the guest's nodes", in.Name, in.MemoryGB)
			}
		}
		if in.CPUs < 1 || in.CPUs > maxCPUs {
			return nil, fail(at("cpus"), "%s: cpus %d: expected the CPU threads it needs, 1 to %d", in.Name, in.CPUs, maxCPUs)
		}
		if math.IsNaN(in.MemoryGB) || in.MemoryGB < 0 || in.MemoryGB > maxMemoryGB {
			return nil, fail(at("memory_gb"), "%s: memory_gb %v: expected 0 to %d", in.Name, in.MemoryGB, maxMemoryGB)
		}
		switch in.Class {
		case "guaranteed", "best-effort":
		case "":
			return nil, fail(at("class"), "%s: class: required, guaranteed or best-effort", in.Name)
		default:
			return nil, fail(at("class"), "%s: class %q: expected guaranteed or best-effort", in.Name, in.Class)
		}
	}
	return &s, nil
}

// decode is go-yaml's strict Unmarshal; go-yaml v1.19.2 panics on some
// malformed input (found by FuzzParseSpec: "instances:\n  ! 0"), which is
// turned into an error here.
func decode(af *ast.File, s *Spec) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML: the parser failed (%v)", r)
		}
	}()
	if len(af.Docs) == 0 || af.Docs[0] == nil || af.Docs[0].Body == nil {
		return nil
	}
	return yaml.NodeToValue(af.Docs[0].Body, s, yaml.Strict())
}

// parse is parser.ParseBytes with the same protection.
func parse(data []byte) (f *ast.File, err error) {
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, fmt.Errorf("malformed YAML: the parser failed (%v)", r)
		}
	}()
	return parser.ParseBytes(data, 0)
}

// yamlError turns a go-yaml error into a SpecError with its line, mapped
// to the spec's by specLine (go-yaml parsed the spec without its comments
// and blank lines); an error without a position is on line 1.
func yamlError(file string, err error, specLine func(int) int) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line := 0
		if t := ye.GetToken(); t != nil && t.Position != nil {
			line = t.Position.Line
		}
		return &SpecError{File: file, Line: max(specLine(line), 1), Msg: ye.GetMessage()}
	}
	msg := err.Error()
	// Some errors carry only "[line:col] message".
	if m := posRE().FindStringSubmatch(msg); m != nil {
		var line int
		fmt.Sscanf(m[1], "%d", &line)
		return &SpecError{File: file, Line: max(specLine(line), 1), Msg: strings.TrimSpace(msg[len(m[0]):])}
	}
	return &SpecError{File: file, Line: 1, Msg: msg}
}

var posRE = lazyre.New(`^\[(\d+):(\d+)\]`)

// topLine is the line of a top-level key, 0 when absent.
func (sh *shape) topLine(key string) int {
	k, _ := mapGet(sh.w, sh.top, key)
	return sh.w.tokLine(k)
}

// instanceLine is the line instances[i] is written on.
func (sh *shape) instanceLine(i int) int {
	if i < len(sh.instances) && sh.instances[i].line > 0 {
		return sh.instances[i].line
	}
	if l := sh.topLine("instances"); l > 0 {
		return l
	}
	return sh.docLine
}

// keyLine is the line of instances[i].key (of the instance when key is
// absent) and, when that line is not within the instance as written (an
// alias "- *a", a merge "<<: *d"), a note naming where the value is.
func (sh *shape) keyLine(i int, key string) (int, string) {
	at := sh.instanceLine(i)
	if i >= len(sh.instances) {
		return at, ""
	}
	in := sh.instances[i]
	k, _ := mapGet(sh.w, in.m, key)
	kl := sh.w.tokLine(k)
	switch {
	case kl == 0:
		return at, ""
	case in.alias != "":
		return at, fmt.Sprintf(" (the instance is the alias *%s: its %s is on line %d)", in.alias, key, kl)
	case !sh.within(in, kl):
		return at, fmt.Sprintf(" (its %s is on line %d, merged in with <<)", key, kl)
	}
	return kl, ""
}

// within reports whether line l is within the instance's own mapping.
func (sh *shape) within(in instance, l int) bool {
	if in.m == nil {
		return false
	}
	for _, mv := range in.m.Values {
		if mv != nil && mv.Key != nil && sh.w.tokLine(mv.Key) == l && !mv.Key.IsMergeKey() {
			return true
		}
	}
	return false
}
