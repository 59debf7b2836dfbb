package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// HTMLInput is what `dbhost report` renders: one host's snapshot, its
// audit, and any bench, compare or experiment results (--bench).
type HTMLInput struct {
	Snap   *snapshot.Snapshot
	Report rules.Report
	// Artifacts are the --artifact files the audit read (names as given).
	Artifacts []string
	Bench     []BenchFile
	// NUMA is the per-node view with its CPU and interrupt sample (dbhost
	// numa's); nil: built from the snapshot, busy and interrupts since boot.
	NUMA      *NUMAView
	Version   string // dbhost's version
	Generated time.Time
}

//go:embed htmlassets/report.css
var reportCSS string

//go:embed htmlassets/report.js
var reportJS string

//go:embed htmlassets/report.tmpl
var reportTmpl string

// htmlTemplate is parsed on first use: only report and the exporter's
// page need it, and parsing it at start-up cost every command (audit,
// --version) several milliseconds (issue 32).
var htmlTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"pct": func(f float64) string { return fmt.Sprintf("%.1f%%", f) },
	}).Parse(reportTmpl))
})

// htmlTrailerPrefix starts the last line of every report dbhost writes:
// the SHA-256 of everything before it. -o replaces a file only when its
// last line is such a trailer and the sum matches (IsOwnHTML): a file
// dbhost did not write, or one edited since, is never overwritten.
const htmlTrailerPrefix = "<!-- dbhost report sha256:"

// HTML renders the report: one self-contained page (inline CSS, JS and
// SVG; nothing is fetched when it is viewed), ending with its checksum
// trailer.
func HTML(in HTMLInput) ([]byte, error) {
	p := buildPage(in)
	var b bytes.Buffer
	if err := htmlTemplate().Execute(&b, p); err != nil {
		return nil, err
	}
	// The template writes no control character of its own (newlines and
	// tabs aside): any other came from a value, and is escaped (cleanText).
	if needsClean(b.String(), true) {
		s := cleanText(b.String())
		b.Reset()
		b.WriteString(s)
	}
	sum := sha256.Sum256(b.Bytes())
	fmt.Fprintf(&b, "%s%s -->\n", htmlTrailerPrefix, hex.EncodeToString(sum[:]))
	return b.Bytes(), nil
}

// IsOwnHTML says whether b is a report dbhost wrote and nobody changed
// since: its last line is the trailer and the checksum matches.
func IsOwnHTML(b []byte) bool {
	body := bytes.TrimSuffix(b, []byte("\n"))
	i := bytes.LastIndexByte(body, '\n')
	if i < 0 {
		return false
	}
	last := string(body[i+1:])
	hexSum, ok := strings.CutPrefix(last, htmlTrailerPrefix)
	if !ok {
		return false
	}
	hexSum, ok = strings.CutSuffix(hexSum, " -->")
	if !ok {
		return false
	}
	sum := sha256.Sum256(b[:i+1])
	return hexSum == hex.EncodeToString(sum[:])
}

// page is the template's data.
type page struct {
	Title, Host, Version, Generated string
	Style                           template.CSS
	Script                          template.JS
	Facts                           []kv
	Counts                          []sevCount
	Total                           int
	Top                             []*htmlFinding
	Areas                           []*htmlArea
	Passed, CannotCheck, NotApp     []rules.Result
	Skipped                         []rules.Result
	NUMA                            *htmlNUMA
	AIX                             *htmlAIX
	DB                              *htmlDB
	Bench                           []*htmlBench
	Absent                          []snapshot.Absence
	Documents                       []string
}

type kv struct{ K, V string }

type sevCount struct {
	Sev, Label string
	N          int
}

type htmlArea struct {
	Area, Name string
	Findings   []*htmlFinding
}

type htmlFinding struct {
	rules.Finding
	Anchor  string
	Label   string // the severity with its symbol: colour is never the only signal
	Sources []string
	Scope   string
	Runtime string // the runtime commands, one per line
	Persist string
	Edits   []string // file edits ("edit FILE: ..."): not commands, no copy button
	Summary string   // one line for the top list
}

var areaNames = map[string]string{
	rules.AreaNUMA: "NUMA", rules.AreaMemory: "Memory", rules.AreaCPU: "CPU", rules.AreaIO: "Storage I/O",
	rules.AreaNetwork: "Network", rules.AreaCgroup: "Control groups", rules.AreaDB: "Database", rules.AreaVirt: "Virtualization",
}

func areaName(a string) string {
	if n, ok := areaNames[a]; ok {
		return n
	}
	return a
}

// sevLabel is the severity as text with a symbol of its own (▲ ● ○).
func sevLabel(s string) string {
	switch s {
	case rules.SevCritical:
		return "▲ critical"
	case rules.SevWarning:
		return "● warning"
	case rules.SevInfo:
		return "○ info"
	}
	return s
}

func buildPage(in HTMLInput) *page {
	s, r := in.Snap, in.Report
	host := r.Host
	if host == "" && s != nil {
		host = s.Host.Hostname
	}
	p := &page{
		Title: "dbhost report: " + host, Host: host, Version: in.Version,
		Generated: in.Generated.UTC().Format("2006-01-02 15:04:05 UTC"),
		Style:     template.CSS(reportCSS),
		// The CDATA markers keep the page well-formed XML as well as HTML
		// (the tests read its DOM with encoding/xml); in JS they are comments.
		Script: template.JS("/*<![CDATA[*/\n" + reportJS + "/*]]>*/"),
		Passed: r.Passed, CannotCheck: r.CannotCheck, NotApp: r.NotApplicable, Skipped: r.Skipped,
	}
	p.Facts = hostFacts(s, r, in.Artifacts)
	// Findings by area, areas with the worst findings first (byArea).
	n := map[string]int{}
	docs := map[string]bool{}
	all := make([]*htmlFinding, 0, len(r.Findings))
	ids := map[string]int{}
	for _, f := range r.Findings {
		n[f.Severity]++
		hf := newHTMLFinding(f, ids)
		for _, src := range f.Sources {
			docs[src.DocName()] = true
		}
		all = append(all, hf)
	}
	p.Total = len(all)
	for _, sv := range []string{rules.SevCritical, rules.SevWarning, rules.SevInfo} {
		p.Counts = append(p.Counts, sevCount{Sev: sv, Label: sevLabel(sv), N: n[sv]})
	}
	areas, _ := byArea(r.Findings)
	groups := map[string][]*htmlFinding{}
	for _, h := range all {
		groups[h.Area] = append(groups[h.Area], h)
	}
	for _, a := range areas {
		p.Areas = append(p.Areas, &htmlArea{Area: a, Name: areaName(a), Findings: groups[a]})
	}
	p.Top = topFindings(all, 3)
	for d := range docs {
		p.Documents = append(p.Documents, d)
	}
	sort.Strings(p.Documents)
	if s != nil && s.AIX != nil {
		// An AIX host: its own picture; the NUMA picture and the
		// databases section read Linux facts it does not have.
		p.AIX = buildAIX(s)
		p.Absent = s.Absent
	} else if s != nil {
		p.NUMA = buildNUMA(s, in.NUMA)
		p.DB = buildDB(s, p.NUMA)
		p.Absent = s.Absent
		if in.NUMA != nil {
			// What the live sample could not read (its view also repeats
			// the snapshot's node absences: those are listed once).
			seen := map[snapshot.Absence]bool{}
			for _, a := range s.Absent {
				seen[a] = true
			}
			for _, a := range in.NUMA.Absent {
				if !seen[a] {
					p.Absent = append(append([]snapshot.Absence(nil), p.Absent...), a)
				}
			}
		}
	}
	for i := range in.Bench {
		p.Bench = append(p.Bench, buildBench(&in.Bench[i], i))
	}
	return p
}

func newHTMLFinding(f rules.Finding, ids map[string]int) *htmlFinding {
	f = cleanFinding(f) // what the copy buttons copy has no raw ESC either
	ids[f.ID]++
	anchor := "f-" + anchorName(f.ID)
	if k := ids[f.ID]; k > 1 {
		anchor += fmt.Sprintf("-%d", k)
	}
	h := &htmlFinding{Finding: f, Anchor: anchor, Label: sevLabel(f.Severity), Scope: scopeText(f.Scope),
		Runtime: strings.Join(f.Fix.Runtime, "\n"), Persist: strings.Join(f.Fix.Persistent, "\n")}
	for _, e := range f.Fix.Edits {
		h.Edits = append(h.Edits, e.String())
	}
	for _, src := range f.Sources {
		h.Sources = append(h.Sources, src.Cite())
	}
	h.Summary = f.Setting
	if f.Current != "" || f.Recommended != "" {
		h.Summary += ": " + orDash(f.Current) + " → " + orDash(f.Recommended)
	}
	return h
}

func anchorName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// topFindings are the findings that matter most: in the audit's order
// (severity first), one per rule, k of them.
func topFindings(all []*htmlFinding, k int) []*htmlFinding {
	var out []*htmlFinding
	seen := map[string]bool{}
	for _, f := range all {
		if len(out) == k {
			break
		}
		if !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	return out
}

func hostFacts(s *snapshot.Snapshot, r rules.Report, artifacts []string) []kv {
	var out []kv
	add := func(k, v string) {
		if v != "" {
			out = append(out, kv{k, v})
		}
	}
	add("Host", r.Host)
	if s != nil {
		add("Operating system", s.Host.OS)
		add("Kernel", s.Host.Kernel)
		t := s.Topology
		topo := fmt.Sprintf("%d socket(s), %d core(s), %d CPU(s), %d NUMA node(s)", t.Sockets, t.Cores, t.Threads, len(t.Nodes))
		if len(t.NUMADisabled) > 0 {
			topo += " — NUMA hidden: " + strings.Join(t.NUMADisabled, "; ")
		}
		for _, x := range t.Contradictions {
			topo += " — " + ContradictionText(x)
		}
		if s.AIX != nil {
			topo = aixTopology(s.AIX)
		}
		add("Topology", topo)
		if s.AIX == nil {
			add("Core types", strings.TrimPrefix(CoreTypesText(t.CoreTypes), "Core types: "))
		}
		if kb, ok := s.Memory.Meminfo["MemTotal"]; ok {
			mem := gib(kb)
			if x := UnattributedMemory(s); x != "" && s.AIX == nil {
				mem += " — " + x
			}
			add("Memory", mem)
		}
		if s.Host.Virt.Guest {
			v := "guest"
			if s.Host.Virt.Type != "" {
				v += " (" + s.Host.Virt.Type + ")"
			}
			add("Virtualization", v)
		}
	}
	add("Workload", r.Workload)
	db := r.DB
	if r.DBSource != "" {
		db += " (" + r.DBSource + ")"
	}
	add("Database", db)
	if s != nil {
		src := s.Source.Kind
		if s.Source.Path != "" {
			src += " " + s.Source.Path
		}
		if !s.CollectedAt.IsZero() {
			src += ", collected " + s.CollectedAt.UTC().Format("2006-01-02 15:04 UTC")
		}
		if !s.Source.Root && s.Source.Kind == "live" {
			src += " (not as root: some facts could not be read)"
		}
		add("Facts from", src)
	}
	if len(artifacts) > 0 {
		add("Artifacts", strings.Join(artifacts, ", "))
	}
	rs := fmt.Sprintf("%d with findings, %d passed, %d could not check, %d not applicable",
		rulesWithFindings(r), len(r.Passed), len(r.CannotCheck), len(r.NotApplicable))
	if len(r.Skipped) > 0 {
		rs += fmt.Sprintf(", %d left out by --skip", len(r.Skipped))
	}
	add("Rules", rs)
	return out
}

// ---- the NUMA picture ----

type htmlNUMA struct {
	Nodes    []*htmlNode
	Hidden   []string // evidence that NUMA is off or hidden
	Enabled  bool
	Sample   string
	DistHead []int
	Dist     []heatRow
	Unplaced []string    // devices whose node the kernel does not say
	pos      map[int]int // node id → index in Nodes
}

type htmlNode struct {
	ID                     int
	CPUs                   string
	NCPU                   int
	MemTotal, MemUsed      string
	MemFree, MemHuge       string
	MemSegs                []barSeg
	HasMem                 bool
	Huge, HugeAll          []hugeRow // pools in use (drawn), every pool read (the table)
	Busy, IRQ              string
	BusySeg, IRQSeg        []barSeg
	NICs, Disks, DBs       []string
	Shmem, FilePages       string
	HasBusy, HasIRQ, NoCPU bool
	Kind, KindWhy          string // NodeKindLabel and its evidence; "" for DRAM
}

type barSeg struct {
	Class string
	Width template.CSS // "width:12.3%"
	Title string
}

type hugeRow struct {
	Size, Text string
	Segs       []barSeg
}

type heatRow struct {
	Head  string
	Cells []heatCell
}

type heatCell struct {
	Text, Title string
	Style       template.CSS
}

func width(part, whole float64) template.CSS {
	if whole <= 0 || part <= 0 {
		return "width:0%"
	}
	return template.CSS(fmt.Sprintf("width:%.2f%%", min(100, 100*part/whole)))
}

func buildNUMA(s *snapshot.Snapshot, v *NUMAView) *htmlNUMA {
	if v == nil {
		v = NUMANodes(s)
		if s.CPULoad.Total != nil || len(s.IRQs.IRQs) > 0 {
			v.AddSample("since boot (counters of the snapshot)", snapshot.CPULoad{}, s.CPULoad, snapshot.IRQs{}, s.IRQs)
		}
	}
	n := &htmlNUMA{Enabled: s.Topology.NUMAEnabled, Hidden: s.Topology.NUMADisabled, Sample: v.Sample}
	pos := map[int]int{}
	for i, row := range v.Nodes {
		pos[row.Node] = i
		hn := &htmlNode{ID: row.Node, CPUs: cpulist.Format(row.CPUs), NCPU: len(row.CPUs), NoCPU: len(row.CPUs) == 0,
			Kind: NodeKindLabel(row.Kind), KindWhy: strings.Join(row.KindEvidence, "; ")}
		var hugeKB int64
		for _, h := range row.Hugepages {
			hugeKB += h.SizeKB * h.Total
			used := h.Total - h.Free
			hr := hugeRow{Size: sizeName(h.SizeKB),
				Text: fmt.Sprintf("%d of %d in use", used, h.Total)}
			if h.Surplus > 0 {
				hr.Text += fmt.Sprintf(", %d surplus", h.Surplus)
			}
			hr.Segs = []barSeg{{Class: "seg-huge", Width: width(float64(used), float64(h.Total)), Title: hr.Text}}
			hn.HugeAll = append(hn.HugeAll, hr)
			if h.Total > 0 || h.Surplus > 0 {
				hn.Huge = append(hn.Huge, hr) // an empty pool is in the table, not drawn
			}
		}
		if row.MemTotalKB != nil && *row.MemTotalKB > 0 {
			tot := float64(*row.MemTotalKB)
			hn.HasMem = true
			hn.MemTotal = gib(*row.MemTotalKB)
			if len(row.Hugepages) > 0 { // not read (a sosreport without node sysfs) is not 0
				hn.MemHuge = gib(hugeKB)
			}
			var used int64
			if row.MemUsedKB != nil {
				used = *row.MemUsedKB
				hn.MemUsed = gib(used)
			}
			if row.MemFreeKB != nil {
				hn.MemFree = gib(*row.MemFreeKB)
			}
			other := max(0, used-hugeKB)
			hn.MemSegs = []barSeg{
				{Class: "seg-huge", Width: width(float64(hugeKB), tot), Title: "hugepage pool " + gib(hugeKB)},
				{Class: "seg-used", Width: width(float64(other), tot), Title: "other used " + gib(other)},
			}
		}
		if row.ShmemKB != nil {
			hn.Shmem = gib(*row.ShmemKB)
		}
		if row.FilePagesKB != nil {
			hn.FilePages = gib(*row.FilePagesKB)
		}
		if row.BusyPct != nil {
			hn.HasBusy = true
			hn.Busy = fmt.Sprintf("%.1f%%", *row.BusyPct)
			hn.BusySeg = []barSeg{{Class: "seg-busy", Width: width(*row.BusyPct, 100), Title: "busy " + hn.Busy}}
		}
		if row.IRQSharePct != nil {
			hn.HasIRQ = true
			hn.IRQ = fmt.Sprintf("%.1f%%", *row.IRQSharePct)
			hn.IRQSeg = []barSeg{{Class: "seg-irq", Width: width(*row.IRQSharePct, 100), Title: "interrupt share " + hn.IRQ}}
		}
		n.Nodes = append(n.Nodes, hn)
	}
	// The SLIT heatmap: darker is farther; every cell carries its number.
	lo, hi := 0, 0
	for _, row := range v.Nodes {
		for _, d := range row.Distances {
			if lo == 0 || d < lo {
				lo = d
			}
			hi = max(hi, d)
		}
	}
	for _, row := range v.Nodes {
		n.DistHead = append(n.DistHead, row.Node)
	}
	for _, row := range v.Nodes {
		hr := heatRow{Head: fmt.Sprintf("node %d", row.Node)}
		for j, d := range row.Distances {
			to := "?"
			if j < len(v.Nodes) {
				to = fmt.Sprint(v.Nodes[j].Node)
			}
			hr.Cells = append(hr.Cells, heatCell{Text: fmt.Sprint(d), Style: heat(float64(d), float64(lo), float64(hi)),
				Title: fmt.Sprintf("node %d → node %s: distance %d (%.1fx local)", row.Node, to, d, float64(d)/10)})
		}
		n.Dist = append(n.Dist, hr)
	}
	// Devices on their node.
	for _, ifc := range s.Network.Interfaces {
		if ifc.Kind == "loopback" || ifc.Kind == "veth" || ifc.Kind == "bridge" || ifc.Kind == "virtual" {
			continue
		}
		name := ifc.Name
		if ifc.SpeedMbps != nil {
			name += fmt.Sprintf(" %s", speed(*ifc.SpeedMbps))
		}
		if ifc.NUMANode != nil {
			if i, ok := pos[*ifc.NUMANode]; ok {
				n.Nodes[i].NICs = append(n.Nodes[i].NICs, name)
				continue
			}
		}
		if ifc.Kind == "physical" {
			n.Unplaced = append(n.Unplaced, "NIC "+ifc.Name)
		}
	}
	for _, d := range s.Storage.Devices {
		if d.NUMANode != nil {
			if i, ok := pos[*d.NUMANode]; ok {
				n.Nodes[i].Disks = append(n.Nodes[i].Disks, d.Name)
				continue
			}
		}
		if d.Kind == "disk" || d.Kind == "nvme" || d.Kind == "virtio" {
			n.Unplaced = append(n.Unplaced, "disk "+d.Name)
		}
	}
	for _, nd := range n.Nodes {
		sort.SliceStable(nd.Disks, func(i, j int) bool { return naturalLess(nd.Disks[i], nd.Disks[j]) })
	}
	n.pos = pos
	return n
}

// naturalLess orders names with their numbers as numbers: nvme2n1 before nvme10n1.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		switch {
		case da != "" && db != "":
			if len(strings.TrimLeft(da, "0")) != len(strings.TrimLeft(db, "0")) {
				return len(strings.TrimLeft(da, "0")) < len(strings.TrimLeft(db, "0"))
			}
			if da != db {
				return strings.TrimLeft(da, "0") < strings.TrimLeft(db, "0")
			}
			a, b = a[len(da):], b[len(db):]
		case a[0] != b[0]:
			return a[0] < b[0]
		default:
			a, b = a[1:], b[1:]
		}
	}
	return len(a) < len(b)
}

func digitsPrefix(s string) string {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return s[:i]
}

func speed(mbps int64) string {
	if mbps >= 1000 && mbps%1000 == 0 {
		return fmt.Sprintf("%dG", mbps/1000)
	}
	return fmt.Sprintf("%dM", mbps)
}

// heat is a cell's background from light (lo) to dark (hi), with a text
// colour that stays readable on it.
func heat(v, lo, hi float64) template.CSS {
	t := 0.0
	if hi > lo {
		t = (v - lo) / (hi - lo)
	}
	light := 96 - 58*t
	fg := "#111"
	if light < 60 {
		fg = "#fff"
	}
	return template.CSS(fmt.Sprintf("background:hsl(210,65%%,%.0f%%);color:%s", light, fg))
}
