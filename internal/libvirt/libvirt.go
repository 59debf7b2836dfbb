// Package libvirt edits and reads the placement part of a libvirt domain
// definition (<vcpu>, <memory>, <memoryBacking>, <cputune>, <numatune>,
// <cpu> topology and cells) and runs virsh against one connection URI:
// what `dbhost place --apply` defines, verify reads and rollback restores.
// The edit splices text: every byte of the domain outside the elements it
// replaces is kept as libvirt wrote it (metadata, namespaces, devices).
package libvirt

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/input"
)

// MaxXML bounds one domain definition wherever dbhost reads it: virsh's
// output (--libvirt, apply, place --apply), a journal's, an --artifact
// (internal/artifacts) and, with the same figure, the files --libvirt
// reads (internal/facts' maxDomainXMLBytes; artifacts' TestDomainXMLLimit
// holds the two together). A real guest's definition is a few KiB, one with
// a hundred disks some 100 KiB: 4 MiB is the row of docs/limits.md.
const MaxXML = 4 << 20

// span is one element's bytes [start, end) in a document.
type span struct {
	name       string
	start, end int
}

// children lists the direct children of the element at depth 0 (the root)
// of doc, with their byte spans, and the offset of the root's end tag.
// depth selects which level to list: 1 = the root's children.
func children(doc string) (kids []span, rootEnd int, err error) {
	d := xml.NewDecoder(strings.NewReader(doc))
	depth := 0
	cur := span{}
	prev := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, fmt.Errorf("malformed XML: %v", err)
		}
		off := int(d.InputOffset())
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 {
				cur = span{name: t.Name.Local, start: prev}
				if t.Name.Space != "" {
					cur.name = t.Name.Space + ":" + t.Name.Local
				}
			}
		case xml.EndElement:
			if depth == 2 {
				cur.end = off
				kids = append(kids, cur)
			}
			if depth == 1 {
				rootEnd = prev
			}
			depth--
		}
		prev = off
	}
	if rootEnd == 0 {
		return nil, 0, errors.New("malformed XML: no root element")
	}
	return kids, rootEnd, nil
}

// fragmentElements parses a sequence of elements (the fragments) into name
// → element text.
func fragmentElements(frag string) (map[string]string, []string, error) {
	doc := "<f>" + frag + "</f>"
	kids, _, err := children(doc)
	if err != nil {
		return nil, nil, fmt.Errorf("fragments: %w", err)
	}
	out := map[string]string{}
	var order []string
	for _, k := range kids {
		if _, dup := out[k.name]; dup {
			return nil, nil, fmt.Errorf("fragments: <%s> twice", k.name)
		}
		out[k.name] = doc[k.start:k.end]
		order = append(order, k.name)
	}
	return out, order, nil
}

// splice replaces, in the element doc (its root at depth 1), each child
// named in repl with repl's text, and inserts the others before the root's
// end tag, indented by indent. Several children of one name are an error.
func splice(doc string, repl map[string]string, order []string, indent string) (string, error) {
	kids, rootEnd, err := children(doc)
	if err != nil {
		return "", err
	}
	found := map[string]span{}
	for _, k := range kids {
		if _, ok := repl[k.name]; !ok {
			continue
		}
		if _, dup := found[k.name]; dup {
			return "", fmt.Errorf("<%s> appears twice in the definition: not edited", k.name)
		}
		found[k.name] = k
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	var tail strings.Builder
	for _, name := range order {
		if k, ok := found[name]; ok {
			edits = append(edits, edit{k.start, k.end, repl[name]})
			continue
		}
		tail.WriteString(indent + repl[name] + "\n")
	}
	if tail.Len() > 0 {
		// before the end tag, after the last child's line
		at := rootEnd
		for at > 0 && (doc[at-1] == ' ' || doc[at-1] == '\t') {
			at--
		}
		ins := tail.String()
		if at > 0 && doc[at-1] != '\n' {
			ins = "\n" + ins
		}
		edits = append(edits, edit{at, at, ins})
	}
	sort.Slice(edits, func(a, b int) bool { return edits[a].start > edits[b].start })
	for _, e := range edits {
		doc = doc[:e.start] + e.text + doc[e.end:]
	}
	return doc, nil
}

// Edit returns the domain definition with the placement fragments in it:
// each top-level element of the fragments replaces its namesake under
// <domain> (or is added); a <cpu> fragment replaces only the <topology> and
// <numa> of an existing <cpu>, whose mode, model and features stay.
func Edit(domain, fragments string) (string, error) {
	if len(domain) > MaxXML {
		return "", fmt.Errorf("domain definition of %d bytes, more than the %d MiB limit for one (docs/limits.md)", len(domain), MaxXML>>20)
	}
	frag, order, err := fragmentElements(fragments)
	if err != nil {
		return "", err
	}
	kids, _, err := children(domain)
	if err != nil {
		return "", fmt.Errorf("domain definition: %w", err)
	}
	if cpu, ok := frag["cpu"]; ok {
		for _, k := range kids {
			if k.name != "cpu" {
				continue
			}
			inner, iorder, err := fragmentElements(innerOf(cpu))
			if err != nil {
				return "", err
			}
			old := domain[k.start:k.end]
			if strings.HasSuffix(old, "/>") {
				old = strings.TrimSuffix(old, "/>") + ">\n  </cpu>"
			}
			edited, err := splice(old, inner, iorder, "    ")
			if err != nil {
				return "", err
			}
			frag["cpu"] = edited
			break
		}
	}
	out, err := splice(domain, frag, order, "  ")
	if err != nil {
		return "", fmt.Errorf("domain definition: %w", err)
	}
	return out, nil
}

// innerOf is the content of an element's text (between its start and end tags).
func innerOf(elem string) string {
	i := strings.Index(elem, ">")
	j := strings.LastIndex(elem, "</")
	if i < 0 || j < i {
		return ""
	}
	return elem[i+1 : j]
}

// View is the placement a domain definition (or fragments) says, normalized
// (KiB, canonical CPU lists) so that libvirt's own rewriting compares equal.
type View struct {
	MemoryKB, CurrentKB int64
	VCPUs               int
	PageKB              []int64
	Pins                map[int]string
	Emulator            string
	Mode, Nodeset       string
	Memnodes            map[int]string
	Cells               []string // "id cpus memoryKB"
	Topology            string   // "sockets cores threads"
}

type xmlDomain struct {
	Memory  xmlSize `xml:"memory"`
	Current xmlSize `xml:"currentMemory"`
	VCPU    string  `xml:"vcpu"`
	Pages   []struct {
		Size string `xml:"size,attr"`
		Unit string `xml:"unit,attr"`
	} `xml:"memoryBacking>hugepages>page"`
	Pins []struct {
		VCPU   int    `xml:"vcpu,attr"`
		CPUSet string `xml:"cpuset,attr"`
	} `xml:"cputune>vcpupin"`
	Emulator *struct {
		CPUSet string `xml:"cpuset,attr"`
	} `xml:"cputune>emulatorpin"`
	NUMA *struct {
		Memory *struct {
			Mode    string `xml:"mode,attr"`
			Nodeset string `xml:"nodeset,attr"`
		} `xml:"memory"`
		Memnodes []struct {
			Cell    int    `xml:"cellid,attr"`
			Nodeset string `xml:"nodeset,attr"`
		} `xml:"memnode"`
	} `xml:"numatune"`
	Topology *struct {
		Sockets string `xml:"sockets,attr"`
		Cores   string `xml:"cores,attr"`
		Threads string `xml:"threads,attr"`
	} `xml:"cpu>topology"`
	Cells []struct {
		ID     int    `xml:"id,attr"`
		CPUs   string `xml:"cpus,attr"`
		Memory string `xml:"memory,attr"`
		Unit   string `xml:"unit,attr"`
	} `xml:"cpu>numa>cell"`
}

type xmlSize struct {
	Unit  string `xml:"unit,attr"`
	Value string `xml:",chardata"`
}

// kib converts a libvirt scaled size to KiB (unit default KiB).
func kib(v, unit string) (int64, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %v", v, err)
	}
	switch strings.ToLower(unit) {
	case "", "k", "kib":
		return n, nil
	case "b", "bytes":
		return n / 1024, nil
	case "kb":
		return n * 1000 / 1024, nil
	case "m", "mib":
		return n << 10, nil
	case "g", "gib":
		return n << 20, nil
	case "t", "tib":
		return n << 30, nil
	}
	return 0, fmt.Errorf("size unit %q", unit)
}

func canon(list string) string {
	l, err := cpulist.Parse(strings.TrimSpace(list))
	if err != nil {
		return strings.TrimSpace(list)
	}
	return cpulist.Format(l)
}

// Placement reads the placement of a domain definition; fragments are
// read by wrapping them in <domain>.
func Placement(doc string) (View, error) {
	var d xmlDomain
	if err := xml.Unmarshal([]byte(doc), &d); err != nil {
		return View{}, fmt.Errorf("malformed XML: %v", err)
	}
	v := View{Pins: map[int]string{}, Memnodes: map[int]string{}}
	var err error
	if v.MemoryKB, err = kib(d.Memory.Value, d.Memory.Unit); err != nil {
		return v, err
	}
	if v.CurrentKB, err = kib(d.Current.Value, d.Current.Unit); err != nil {
		return v, err
	}
	if s := strings.TrimSpace(d.VCPU); s != "" {
		if v.VCPUs, err = strconv.Atoi(s); err != nil {
			return v, fmt.Errorf("vcpu %q: %v", s, err)
		}
	}
	for _, p := range d.Pages {
		n, err := kib(p.Size, p.Unit)
		if err != nil {
			return v, err
		}
		v.PageKB = append(v.PageKB, n)
	}
	for _, p := range d.Pins {
		v.Pins[p.VCPU] = canon(p.CPUSet)
	}
	if d.Emulator != nil {
		v.Emulator = canon(d.Emulator.CPUSet)
	}
	if d.NUMA != nil {
		if d.NUMA.Memory != nil {
			v.Mode, v.Nodeset = d.NUMA.Memory.Mode, canon(d.NUMA.Memory.Nodeset)
			if v.Mode == "" {
				v.Mode = "strict" // libvirt's default
			}
		}
		for _, m := range d.NUMA.Memnodes {
			v.Memnodes[m.Cell] = canon(m.Nodeset)
		}
	}
	if t := d.Topology; t != nil {
		v.Topology = t.Sockets + " " + t.Cores + " " + t.Threads
	}
	for _, c := range d.Cells {
		m, err := kib(c.Memory, c.Unit)
		if err != nil {
			return v, err
		}
		v.Cells = append(v.Cells, fmt.Sprintf("%d %s %d", c.ID, canon(c.CPUs), m))
	}
	return v, nil
}

// FragmentView reads fragments (a sequence of elements) as a placement.
func FragmentView(fragments string) (View, error) {
	return Placement("<domain>" + fragments + "</domain>")
}

// Missing lists what of want (a fragments' view) the domain's view v does
// not have; empty when the domain is placed as want says.
func (v View) Missing(want View) []string {
	var out []string
	diff := func(what string, have, w any) {
		if fmt.Sprint(have) != fmt.Sprint(w) {
			out = append(out, fmt.Sprintf("%s is %v, not %v", what, have, w))
		}
	}
	if want.MemoryKB > 0 {
		diff("memory (KiB)", v.MemoryKB, want.MemoryKB)
	}
	if want.CurrentKB > 0 {
		diff("currentMemory (KiB)", v.CurrentKB, want.CurrentKB)
	}
	if want.VCPUs > 0 {
		diff("vcpu", v.VCPUs, want.VCPUs)
	}
	if len(want.PageKB) > 0 {
		diff("hugepage backing (KiB)", v.PageKB, want.PageKB)
	}
	if len(want.Pins) > 0 {
		diff("vcpupin", v.Pins, want.Pins)
	}
	if want.Emulator != "" {
		diff("emulatorpin", v.Emulator, want.Emulator)
	}
	if want.Mode != "" {
		diff("numatune memory", v.Mode+" "+v.Nodeset, want.Mode+" "+want.Nodeset)
		diff("numatune memnode", v.Memnodes, want.Memnodes)
	}
	if want.Topology != "" {
		diff("cpu topology (sockets cores threads)", v.Topology, want.Topology)
		diff("guest NUMA cells (id cpus KiB)", v.Cells, want.Cells)
	}
	return out
}

// Conn runs virsh against one libvirt connection URI.
type Conn struct {
	URI   string
	Virsh string // the virsh binary ("virsh": from PATH)
	// Timeout bounds one virsh run (0: 60 s).
	Timeout time.Duration
	// ReadOnly connects with --readonly: nothing can be changed through the
	// connection (audit and collect read guests this way; Define fails).
	ReadOnly bool
}

// Output runs virsh with args and returns what it printed: at most MaxXML
// bytes (more is an error, never a cut answer), its first error line
// otherwise, within the timeout. facts.Virsh for a live host.
func (c Conn) Output(args ...string) ([]byte, error) {
	out, err := c.run("", args...)
	if err != nil {
		return nil, err
	}
	return []byte(out), nil
}

func (c Conn) run(stdin string, args ...string) (string, error) {
	bin := c.Virsh
	if bin == "" {
		bin = "virsh"
	}
	if c.URI == "" {
		return "", errors.New("no libvirt connection URI")
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return "", fmt.Errorf("not installed (no %s in PATH)", bin)
	}
	to := c.Timeout
	if to == 0 {
		to = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), to)
	defer cancel()
	flags := []string{"--quiet", "--connect", c.URI}
	if c.ReadOnly {
		flags = append(flags, "--readonly")
	}
	cmd := exec.CommandContext(ctx, path, append(flags, args...)...)
	cmd.Env = append(os.Environ(), "LC_ALL=C") // messages in one language, whoever runs dbhost
	cmd.Stdin = strings.NewReader(stdin)
	cmd.WaitDelay = 5 * time.Second // a child of virsh holding its pipes does not hold us
	out, errb := &input.Capped{Max: MaxXML}, &input.Capped{Max: 64 << 10}
	cmd.Stdout, cmd.Stderr = out, errb
	what := "virsh " + strings.Join(args, " ")
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("%s: no answer from %s within %s", what, c.URI, to)
		}
		msg := strings.TrimSpace(errb.Buf.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Buf.String(), fmt.Errorf("%s: %s", what, strings.ReplaceAll(msg, "\n", "; "))
	}
	if out.Over() {
		// A definition cut at the bound must never be journaled or
		// spliced as if it were whole.
		return "", fmt.Errorf("%s: more than %d MiB of output, the limit for a domain definition (docs/limits.md)", what, MaxXML>>20)
	}
	return out.Buf.String(), nil
}

// Check says whether libvirt answers on the connection.
func (c Conn) Check() error {
	_, err := c.run("", "uri")
	return err
}

// DumpXML is the domain's persistent definition, secrets included
// (--security-info: a definition without them would drop a VNC or SPICE
// password when defined back).
func (c Conn) DumpXML(domain string) (string, error) {
	if err := checkName(domain); err != nil {
		return "", err
	}
	return c.run("", "dumpxml", "--inactive", "--security-info", "--", domain)
}

// Define defines a domain from its XML (read by virsh from its standard input).
func (c Conn) Define(doc string) error {
	_, err := c.run(doc, "define", "/dev/stdin")
	return err
}

func checkName(d string) error {
	if d == "" || strings.HasPrefix(d, "-") || strings.ContainsAny(d, "/\n\x00") {
		return fmt.Errorf("domain name %q: not a libvirt domain name dbhost uses", d)
	}
	return nil
}
