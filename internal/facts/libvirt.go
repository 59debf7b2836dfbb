package facts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// A libvirt domain definition (https://libvirt.org/formatdomain.html), as
// `virsh dumpxml` prints it or libvirtd keeps it in /etc/libvirt/qemu/NAME.xml:
//
//	<domain type='kvm' id='3'>
//	  <name>db1</name>
//	  <memory unit='KiB'>16777216</memory>
//	  <vcpu placement='static' cpuset='0-7'>8</vcpu>
//	  <cputune><vcpupin vcpu='0' cpuset='2'/>...<emulatorpin cpuset='0-1'/></cputune>
//	  <numatune><memory mode='strict' nodeset='0'/></numatune>
//	  <memoryBacking><hugepages><page size='1' unit='G'/></hugepages></memoryBacking>
//	  <cpu mode='host-passthrough'><numa><cell id='0' cpus='0-3' memory='8' unit='GiB'/></numa></cpu>
//	  <devices><disk type='block' device='disk'><driver name='qemu' type='raw' cache='none' io='native'/>...
//
// Layouts of every libvirt since 0.9 are read: <memory> without a unit
// (KiB), <vcpu cpuset> as the only pinning, <cell> without an id (before
// 1.2.7), <cpu> without a mode (custom), <hugepages/> without <page>.

// maxDomainXMLBytes bounds one domain definition (a definition with a
// hundred disks is some 100 KiB); maxDomainDepth the nesting of its elements.
const (
	maxDomainXMLBytes = maxConfigFileBytes
	maxDomainDepth    = 64
	// maxSetID bounds the CPU and node numbers of a libvirt set: a typo such
	// as 0-4000000000 must not expand into gigabytes.
	maxSetID = 1 << 16
)

// xnode is one element of the parsed XML tree with the line it starts on.
type xnode struct {
	name string
	attr map[string]string
	text string
	kids []*xnode
	line int
}

func (n *xnode) child(name string) *xnode {
	if n == nil {
		return nil
	}
	for _, k := range n.kids {
		if k.name == name {
			return k
		}
	}
	return nil
}

func (n *xnode) children(name string) []*xnode {
	if n == nil {
		return nil
	}
	var out []*xnode
	for _, k := range n.kids {
		if k.name == name {
			out = append(out, k)
		}
	}
	return out
}

func (n *xnode) a(name string) string {
	if n == nil {
		return ""
	}
	return strings.TrimSpace(n.attr[name])
}

// xmlTree reads b into a tree of elements (namespaced elements, such as
// <metadata>'s and <qemu:commandline>, are kept by local name only under
// their parent, never mistaken for libvirt's: they are dropped). A syntax
// error is a *ParseError with the decoder's line.
func xmlTree(b []byte) (*xnode, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	var stack []*xnode
	var root *xnode
	skip := 0 // depth inside a foreign-namespace element
	for {
		line, _ := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, parseErr(se.Line, "malformed XML: %s", se.Msg)
			}
			l, _ := d.InputPos()
			return nil, parseErr(l, "malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || (t.Name.Space != "" && len(stack) > 0) {
				skip++
				continue
			}
			if len(stack) >= maxDomainDepth {
				return nil, parseErr(line, "elements nested more than %d deep", maxDomainDepth)
			}
			n := &xnode{name: t.Name.Local, attr: map[string]string{}, line: line}
			for _, a := range t.Attr {
				if a.Name.Space == "" {
					n.attr[a.Name.Local] = a.Value
				}
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, parseErr(line, "a second top-level element <%s> after <%s>", n.name, root.name)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if skip == 0 && len(stack) > 0 {
				n := stack[len(stack)-1]
				if len(n.text) < 4096 {
					n.text += string(t)
				}
			} else if len(stack) == 0 && len(bytes.TrimSpace(t)) > 0 {
				l, _ := d.InputPos()
				return nil, parseErr(l, "text outside the <domain> element")
			}
		}
	}
	if root == nil {
		return nil, parseErr(0, "no XML element: expected a libvirt <domain> definition")
	}
	return root, nil
}

// ParseDomain parses one libvirt domain definition (virsh dumpxml output,
// /etc/libvirt/qemu/NAME.xml, or a /run/libvirt/qemu status file's
// <domstatus>). It reads at most 4 MiB. Malformed XML, a root element that
// is not <domain>, or a value libvirt itself would refuse (a memory size
// that is not a number, a vcpupin without a cpuset) is a *ParseError with
// the line; the Domain's File is left for the caller.
func ParseDomain(r io.Reader) (*snapshot.Domain, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxDomainXMLBytes+1))
	if err != nil {
		return nil, parseErr(0, "%v", err)
	}
	if len(b) > maxDomainXMLBytes {
		return nil, parseErr(0, "file larger than %d bytes", maxDomainXMLBytes)
	}
	root, err := xmlTree(bytes.TrimPrefix(b, []byte("\xef\xbb\xbf")))
	if err != nil {
		return nil, err
	}
	if root.name == "domstatus" {
		d := root.child("domain")
		if d == nil {
			return nil, parseErr(root.line, "<domstatus> without a <domain>")
		}
		root = d
	}
	if root.name != "domain" {
		return nil, parseErr(root.line, "expected a libvirt <domain> definition, got <%s>", root.name)
	}
	p := &domParser{}
	dom := p.domain(root)
	if p.err != nil {
		return nil, p.err
	}
	return dom, nil
}

// domParser keeps the first error met while reading the tree.
type domParser struct{ err error }

func (p *domParser) fail(n *xnode, format string, a ...any) {
	if p.err == nil {
		line := 0
		if n != nil {
			line = n.line
		}
		p.err = parseErr(line, format, a...)
	}
}

func (p *domParser) domain(root *xnode) *snapshot.Domain {
	d := &snapshot.Domain{Type: root.a("type"), Disks: []snapshot.GuestDisk{}, Interfaces: []snapshot.GuestNIC{}}
	if id := root.a("id"); id != "" {
		if v, err := strconv.Atoi(id); err == nil && v >= 0 {
			d.ID = &v
		} else {
			p.fail(root, "<domain id=%q>: expected a number", trunc(id, 20))
		}
	}
	name := root.child("name")
	d.Name = strings.TrimSpace(textOf(name))
	if d.Name == "" {
		p.fail(root, "<domain> without a <name>")
	}
	d.UUID = strings.TrimSpace(textOf(root.child("uuid")))
	d.MemoryKB = p.size(root.child("memory"), "memory")
	d.CurrentMemoryKB = p.size(root.child("currentMemory"), "currentMemory")
	d.MaxMemoryKB = p.size(root.child("maxMemory"), "maxMemory")
	if v := root.child("vcpu"); v != nil {
		d.VCPUs = p.posInt(v, strings.TrimSpace(v.text), "<vcpu>")
		if c := v.a("current"); c != "" {
			n := p.posInt(v, c, "<vcpu current>")
			d.VCPUCurrent = &n
		}
		d.VCPUPlacement = v.a("placement")
		if cs := v.a("cpuset"); cs != "" {
			d.VCPUCpuset = p.set(v, cs, "<vcpu cpuset>")
		}
	}
	if it := root.child("iothreads"); it != nil {
		d.IOThreads = p.posInt(it, strings.TrimSpace(it.text), "<iothreads>")
	}
	if ct := root.child("cputune"); ct != nil {
		for _, k := range ct.children("vcpupin") {
			cs := p.set(k, k.a("cpuset"), "<vcpupin cpuset>")
			vc := p.nonNeg(k, k.a("vcpu"), "<vcpupin vcpu>")
			if cs != nil {
				d.CPUTune.VCPUPins = append(d.CPUTune.VCPUPins, snapshot.VCPUPin{VCPU: vc, CPUSet: *cs})
			}
		}
		if e := ct.child("emulatorpin"); e != nil {
			d.CPUTune.EmulatorPin = p.set(e, e.a("cpuset"), "<emulatorpin cpuset>")
		}
		for _, k := range ct.children("iothreadpin") {
			cs := p.set(k, k.a("cpuset"), "<iothreadpin cpuset>")
			it := p.nonNeg(k, k.a("iothread"), "<iothreadpin iothread>")
			if cs != nil {
				d.CPUTune.IOThreadPins = append(d.CPUTune.IOThreadPins, snapshot.IOThreadPin{IOThread: it, CPUSet: *cs})
			}
		}
	}
	if nt := root.child("numatune"); nt != nil {
		t := &snapshot.NUMATune{}
		if m := nt.child("memory"); m != nil {
			t.Mode, t.Placement = m.a("mode"), m.a("placement")
			if ns := m.a("nodeset"); ns != "" {
				t.Nodeset = p.set(m, ns, "<numatune><memory nodeset>")
			}
		}
		for _, k := range nt.children("memnode") {
			cs := p.set(k, k.a("nodeset"), "<memnode nodeset>")
			id := p.nonNeg(k, k.a("cellid"), "<memnode cellid>")
			if cs != nil {
				t.MemNodes = append(t.MemNodes, snapshot.MemNode{CellID: id, Mode: k.a("mode"), Nodeset: *cs})
			}
		}
		d.NUMATune = t
	}
	if mb := root.child("memoryBacking"); mb != nil {
		b := &snapshot.MemoryBacking{}
		if hp := mb.child("hugepages"); hp != nil {
			b.Hugepages = true
			for _, pg := range hp.children("page") {
				sz := p.sizeAttr(pg, pg.a("size"), pg.a("unit"), "<page size>")
				h := snapshot.HugePage{}
				if sz != nil {
					h.SizeKB = *sz
				}
				if ns := pg.a("nodeset"); ns != "" {
					h.Nodeset = p.set(pg, ns, "<page nodeset>")
				}
				b.Pages = append(b.Pages, h)
			}
		}
		b.NoSharePages = mb.child("nosharepages") != nil
		b.Locked = mb.child("locked") != nil
		b.SourceType = mb.child("source").a("type")
		b.AccessMode = mb.child("access").a("mode")
		d.MemoryBacking = b
	}
	if c := root.child("cpu"); c != nil {
		g := &snapshot.GuestCPU{Mode: c.a("mode"), Match: c.a("match"), Model: strings.TrimSpace(textOf(c.child("model")))}
		if g.Mode == "" {
			g.Mode = "custom"
		}
		if t := c.child("topology"); t != nil {
			g.Topology = &snapshot.GuestTopology{
				Sockets: p.posInt(t, t.a("sockets"), "<topology sockets>"),
				Cores:   p.posInt(t, t.a("cores"), "<topology cores>"),
				Threads: p.posInt(t, t.a("threads"), "<topology threads>"),
			}
			if dies := t.a("dies"); dies != "" {
				g.Topology.Dies = p.posInt(t, dies, "<topology dies>")
			}
		}
		for i, cell := range c.child("numa").children("cell") {
			gc := snapshot.GuestCell{ID: i, MemAccess: cell.a("memAccess")}
			if id := cell.a("id"); id != "" {
				gc.ID = p.nonNeg(cell, id, "<cell id>")
			}
			// A cell without cpus is a memory-only node (libvirt 6.6+).
			if cs := cell.a("cpus"); cs != "" {
				if s := p.set(cell, cs, "<cell cpus>"); s != nil {
					gc.CPUs = *s
				}
			} else {
				gc.CPUs = snapshot.CPUSet{IDs: []int{}}
			}
			if sz := p.sizeAttr(cell, cell.a("memory"), cell.a("unit"), "<cell memory>"); sz != nil {
				gc.MemoryKB = *sz
			}
			g.Cells = append(g.Cells, gc)
		}
		d.CPU = g
	}
	if o := root.child("os"); o != nil {
		t := o.child("type")
		d.OS = snapshot.GuestOS{Type: strings.TrimSpace(textOf(t)), Arch: t.a("arch"), Machine: t.a("machine")}
	}
	devs := root.child("devices")
	for _, k := range devs.children("disk") {
		d.Disks = append(d.Disks, p.disk(k))
	}
	for _, k := range devs.children("controller") {
		c := snapshot.GuestController{Type: k.a("type"), Model: k.a("model")}
		if ix := k.a("index"); ix != "" {
			c.Index = p.nonNeg(k, ix, "<controller index>")
		}
		if dr := k.child("driver"); dr != nil {
			if it := dr.a("iothread"); it != "" {
				v := p.nonNeg(dr, it, "<controller driver iothread>")
				c.IOThread = &v
			}
			if q := dr.a("queues"); q != "" {
				c.Queues = p.posInt(dr, q, "<controller driver queues>")
			}
		}
		d.Controllers = append(d.Controllers, c)
	}
	for _, k := range devs.children("interface") {
		d.Interfaces = append(d.Interfaces, p.nic(k))
	}
	for _, k := range devs.children("hostdev") {
		h := snapshot.GuestHostdev{Mode: k.a("mode"), Type: k.a("type"), Managed: k.a("managed") == "yes"}
		h.Address = pciAddress(k.child("source").child("address"))
		d.Hostdevs = append(d.Hostdevs, h)
	}
	return d
}

func (p *domParser) disk(k *xnode) snapshot.GuestDisk {
	g := snapshot.GuestDisk{Type: k.a("type"), Device: k.a("device"), Line: k.line}
	if g.Type == "" {
		g.Type = "file" // libvirt's default
	}
	if g.Device == "" {
		g.Device = "disk"
	}
	if dr := k.child("driver"); dr != nil {
		g.DriverName, g.DriverType, g.Cache, g.IO = dr.a("name"), dr.a("type"), dr.a("cache"), dr.a("io")
		if it := dr.a("iothread"); it != "" {
			v := p.posInt(dr, it, "<driver iothread>")
			g.IOThread = &v
		}
	}
	if s := k.child("source"); s != nil {
		switch {
		case s.a("file") != "":
			g.Source = s.a("file")
		case s.a("dev") != "":
			g.Source = s.a("dev")
		case s.a("dir") != "":
			g.Source = s.a("dir")
		case s.a("protocol") != "":
			g.Protocol = s.a("protocol")
			g.Source = g.Protocol + ":" + s.a("name")
		case s.a("pool") != "":
			g.Source = s.a("pool") + "/" + s.a("volume")
		case s.child("address") != nil: // nvme
			g.Source = pciAddress(s.child("address"))
		}
	}
	if t := k.child("target"); t != nil {
		g.Target, g.Bus = t.a("dev"), t.a("bus")
	}
	g.ReadOnly = k.child("readonly") != nil
	g.Shareable = k.child("shareable") != nil
	return g
}

func (p *domParser) nic(k *xnode) snapshot.GuestNIC {
	n := snapshot.GuestNIC{Type: k.a("type"), Line: k.line, MAC: k.child("mac").a("address"), Model: k.child("model").a("type")}
	if s := k.child("source"); s != nil {
		for _, a := range []string{"bridge", "network", "dev", "path"} {
			if v := s.a(a); v != "" {
				n.Source = v
				break
			}
		}
		if n.Source == "" {
			n.Source = pciAddress(s.child("address"))
		}
	}
	if dr := k.child("driver"); dr != nil {
		n.DriverName = dr.a("name")
		if q := dr.a("queues"); q != "" {
			n.Queues = p.posInt(dr, q, "<interface driver queues>")
		}
	}
	return n
}

// pciAddress renders <address domain='0x0000' bus='0x03' slot='0x10'
// function='0x1'/> as 0000:03:10.1; "" when n is not a PCI address.
func pciAddress(n *xnode) string {
	if n == nil || n.a("bus") == "" || n.a("slot") == "" {
		return ""
	}
	num := func(s string, width int) string {
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 32)
		if err != nil {
			return s
		}
		return fmt.Sprintf("%0*x", width, v)
	}
	dom := n.a("domain")
	if dom == "" {
		dom = "0"
	}
	fn := n.a("function")
	if fn == "" {
		fn = "0"
	}
	return num(dom, 4) + ":" + num(n.a("bus"), 2) + ":" + num(n.a("slot"), 2) + "." + num(fn, 1)
}

func textOf(n *xnode) string {
	if n == nil {
		return ""
	}
	return n.text
}

// size reads a <memory unit='...'>N</memory> element in KiB; nil when absent.
func (p *domParser) size(n *xnode, what string) *int64 {
	if n == nil {
		return nil
	}
	return p.sizeAttr(n, strings.TrimSpace(n.text), n.a("unit"), "<"+what+">")
}

// sizeAttr converts a size with a libvirt unit to KiB (rounded up, as
// libvirt rounds to whole KiB). Units (formatdomain.html, "Memory
// Allocation"): b or bytes; KB 1000, k or KiB 1024; MB, M or MiB; GB, G or
// GiB; TB, T or TiB; PB, P or PiB; EB, E or EiB. libvirt reads the unit's
// letter in either case. No unit is KiB.
func (p *domParser) sizeAttr(n *xnode, v, unit, what string) *int64 {
	num, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		p.fail(n, "%s %q: expected a number", what, trunc(v, 30))
		return nil
	}
	mult, ok := unitBytes(unit)
	if !ok {
		p.fail(n, "%s unit %q: expected b, bytes, KB, k, KiB, MB, M, MiB, GB, G, GiB, TB, T or TiB", what, trunc(unit, 20))
		return nil
	}
	if num > math.MaxUint64/mult {
		p.fail(n, "%s %s %s: too large", what, v, unit)
		return nil
	}
	kb := (num*mult + 1023) / 1024
	if kb > math.MaxInt64 {
		p.fail(n, "%s %s %s: too large", what, v, unit)
		return nil
	}
	out := int64(kb)
	return &out
}

func unitBytes(unit string) (uint64, bool) {
	u := strings.TrimSpace(unit)
	switch strings.ToLower(u) {
	case "":
		return 1024, true
	case "b", "bytes":
		return 1, true
	}
	exp := strings.IndexByte("kmgtpe", lower(u[0])) + 1
	if exp == 0 {
		return 0, false
	}
	base := uint64(0)
	switch rest := u[1:]; {
	case rest == "" || strings.EqualFold(rest, "iB"):
		base = 1024
	case strings.EqualFold(rest, "b"):
		base = 1000
	default:
		return 0, false
	}
	m := uint64(1)
	for i := 0; i < exp; i++ {
		m *= base
	}
	return m, true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func (p *domParser) posInt(n *xnode, v, what string) int {
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i <= 0 || i > maxSetID {
		p.fail(n, "%s %q: expected a positive number", what, trunc(v, 30))
		return 0
	}
	return i
}

func (p *domParser) nonNeg(n *xnode, v, what string) int {
	i, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || i < 0 || i > maxSetID {
		p.fail(n, "%s %q: expected a number from 0", what, trunc(v, 30))
		return 0
	}
	return i
}

func (p *domParser) set(n *xnode, v, what string) *snapshot.CPUSet {
	ids, err := ParseLibvirtSet(v)
	if err != nil {
		p.fail(n, "%s %q: %v", what, trunc(v, 40), err)
		return nil
	}
	return &snapshot.CPUSet{Text: strings.TrimSpace(v), IDs: ids}
}

// ParseLibvirtSet expands a libvirt CPU or node set: comma-separated
// numbers and ranges, a '^' before a number or range taking it out
// ("0-7,^3,16-17" is 0-2,4-7,16,17). Sorted, without duplicates.
func ParseLibvirtSet(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty set")
	}
	in := map[int]bool{}
	var neg [][2]int
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		exclude := strings.HasPrefix(item, "^")
		item = strings.TrimSpace(strings.TrimPrefix(item, "^"))
		lo, hi, err := libvirtRange(item)
		if err != nil {
			return nil, err
		}
		if exclude {
			neg = append(neg, [2]int{lo, hi})
			continue
		}
		for i := lo; i <= hi; i++ {
			in[i] = true
		}
	}
	for _, r := range neg {
		for i := r[0]; i <= r[1]; i++ {
			delete(in, i)
		}
	}
	if len(in) == 0 {
		return nil, errors.New("the set is empty once '^' exclusions are taken out")
	}
	out := make([]int, 0, len(in))
	for i := range in {
		out = append(out, i)
	}
	sort.Ints(out)
	return out, nil
}

func libvirtRange(item string) (int, int, error) {
	a, b, isRange := strings.Cut(item, "-")
	lo, err := setNum(a)
	if err != nil {
		return 0, 0, err
	}
	hi := lo
	if isRange {
		if hi, err = setNum(b); err != nil {
			return 0, 0, err
		}
		if hi < lo {
			return 0, 0, fmt.Errorf("range %s goes down", item)
		}
	}
	return lo, hi, nil
}

func setNum(s string) (int, error) {
	s = strings.TrimSpace(s)
	v, err := strconv.Atoi(s)
	if err != nil || v < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("expected numbers and ranges such as 0-3,^2,8, got %q", trunc(s, 20))
	}
	if v >= maxSetID {
		return 0, fmt.Errorf("%d is above the largest CPU or node number dbhost reads (%d)", v, maxSetID-1)
	}
	return v, nil
}
