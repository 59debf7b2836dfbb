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

// Limits that keep a malformed spec from asking for absurd plans.
const (
	maxInstances = 4096
	maxCPUs      = 1 << 16
	maxMemoryGB  = 1 << 22 // 4 PiB
)

var nameRE = lazyre.New(`^[A-Za-z][A-Za-z0-9_-]{0,62}$`)

// domainRE bounds a libvirt domain name to what is safe as a virsh argument
// and a file name: no '/', no blank, no leading '-'.
var domainRE = lazyre.New(`^[A-Za-z0-9_][A-Za-z0-9_.+:-]{0,127}$`)

// ParseSpec parses and checks a spec. file names the input in errors. The
// YAML is strict: unknown keys, duplicate keys and wrong types are errors,
// each with the line it is on.
func ParseSpec(file string, data []byte) (*Spec, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, &SpecError{File: file, Msg: "empty spec: expected strategy and instances"}
	}
	var s Spec
	if err := decode(data, &s); err != nil {
		return nil, yamlError(file, err)
	}
	lineOf := instanceLines(data, len(s.Instances))
	for i := range s.Instances {
		s.Instances[i].line = lineOf(i, "")
	}
	fail := func(line int, format string, a ...any) error {
		return &SpecError{File: file, Line: line, Msg: fmt.Sprintf(format, a...)}
	}
	switch s.Strategy {
	case "binding", "caging", "mix":
	case "":
		return nil, fail(topLine(data, "strategy"), "strategy: required, one of binding, caging, mix")
	default:
		return nil, fail(topLine(data, "strategy"), "strategy %q: expected binding, caging or mix", s.Strategy)
	}
	if s.HugepageSizeKB < 0 || s.HugepageSizeKB > 16<<20 {
		return nil, fail(topLine(data, "hugepage_size_kb"), "hugepage_size_kb %d: expected a page size in kB (2048, 1048576)", s.HugepageSizeKB)
	}
	if len(s.Instances) == 0 {
		return nil, fail(topLine(data, "instances"), "instances: expected at least one instance")
	}
	if len(s.Instances) > maxInstances {
		return nil, fail(topLine(data, "instances"), "instances: %d listed, at most %d", len(s.Instances), maxInstances)
	}
	seen := map[string]int{}
	domains := map[string]int{}
	for i, in := range s.Instances {
		at := func(key string) int { return lineOf(i, key) }
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
func decode(data []byte, s *Spec) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML: the parser failed (%v)", r)
		}
	}()
	return yaml.UnmarshalWithOptions(data, s, yaml.Strict())
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

// yamlError turns a go-yaml error into a SpecError with its line.
func yamlError(file string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		line := 0
		if t := ye.GetToken(); t != nil && t.Position != nil {
			line = t.Position.Line
		}
		return &SpecError{File: file, Line: line, Msg: ye.GetMessage()}
	}
	msg := err.Error()
	// Some errors carry only "[line:col] message".
	if m := posRE().FindStringSubmatch(msg); m != nil {
		var line int
		fmt.Sscanf(m[1], "%d", &line)
		return &SpecError{File: file, Line: line, Msg: strings.TrimSpace(msg[len(m[0]):])}
	}
	return &SpecError{File: file, Msg: msg}
}

var posRE = lazyre.New(`^\[(\d+):(\d+)\]`)

// topLine is the line of a top-level key, 0 when absent.
func topLine(data []byte, key string) int {
	return pathLine(data, "$."+key)
}

// instanceLines returns a function giving the line of instances[i].key (or
// of the instance itself when key is "" or absent).
func instanceLines(data []byte, n int) func(i int, key string) int {
	f, err := parse(data)
	return func(i int, key string) int {
		if err != nil {
			return 0
		}
		if key != "" {
			if l := fileLine(f, fmt.Sprintf("$.instances[%d].%s", i, key)); l > 0 {
				return l
			}
		}
		return fileLine(f, fmt.Sprintf("$.instances[%d]", i))
	}
}

func pathLine(data []byte, path string) int {
	f, err := parse(data)
	if err != nil {
		return 0
	}
	return fileLine(f, path)
}

func fileLine(af *ast.File, path string) (line int) {
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	p, err := yaml.PathString(path)
	if err != nil {
		return 0
	}
	node, err := p.FilterFile(af)
	if err != nil || node == nil {
		return 0
	}
	if t := node.GetToken(); t != nil && t.Position != nil {
		return t.Position.Line
	}
	return 0
}
