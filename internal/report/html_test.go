package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/bench"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/experiment"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/fixture"
	"github.com/dbhost/dbhost/internal/hostsrc"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// node is an element of the report's DOM, read with encoding/xml: the
// report is well-formed XML as well as HTML (void elements closed, the
// script in CDATA), so that its structure can be checked without a browser.
type node struct {
	Name     string
	Attr     map[string]string
	Children []*node
	Text     string // the text directly inside
	parent   *node
}

func parseDOM(t *testing.T, b []byte) *node {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = true
	d.Entity = xml.HTMLEntity
	root := &node{Name: "#document"}
	cur := root
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			line, _ := d.InputPos()
			lines := strings.Split(string(b), "\n")
			t.Fatalf("the report is not well-formed at line %d: %v\n%s", line, err, lines[min(line, len(lines))-1])
		}
		switch x := tok.(type) {
		case xml.StartElement:
			n := &node{Name: x.Name.Local, Attr: map[string]string{}, parent: cur}
			for _, a := range x.Attr {
				n.Attr[a.Name.Local] = a.Value
			}
			cur.Children = append(cur.Children, n)
			cur = n
		case xml.EndElement:
			cur = cur.parent
		case xml.CharData:
			cur.Text += string(x)
		}
	}
	return root
}

// all returns the elements under n (n excluded) for which match is true.
func (n *node) all(match func(*node) bool) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		for _, c := range m.Children {
			if match(c) {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

func (n *node) hasClass(c string) bool {
	for _, x := range strings.Fields(n.Attr["class"]) {
		if x == c {
			return true
		}
	}
	return false
}

// sel is a tiny selector: "tag", ".class", "#id", "tag.class", "[attr=value]".
func (n *node) sel(s string) []*node {
	tag, class, id, attr, val := s, "", "", "", ""
	if i := strings.IndexByte(tag, '['); i >= 0 {
		attr, val, _ = strings.Cut(strings.Trim(tag[i:], "[]"), "=")
		tag = tag[:i]
	}
	if i := strings.IndexByte(tag, '#'); i >= 0 {
		tag, id = tag[:i], tag[i+1:]
	}
	if i := strings.IndexByte(tag, '.'); i >= 0 {
		tag, class = tag[:i], tag[i+1:]
	}
	return n.all(func(m *node) bool {
		return (tag == "" || m.Name == tag) && (class == "" || m.hasClass(class)) && (id == "" || m.Attr["id"] == id) &&
			(attr == "" || m.Attr[attr] == val || (val == "" && m.Attr[attr] != ""))
	})
}

func (n *node) one(t *testing.T, s string) *node {
	t.Helper()
	got := n.sel(s)
	if len(got) != 1 {
		t.Fatalf("%q: %d elements, want 1", s, len(got))
	}
	return got[0]
}

// text is the element's whole text content.
func (n *node) text() string {
	var b strings.Builder
	b.WriteString(n.Text)
	for _, c := range n.Children {
		b.WriteString(c.text())
	}
	return b.String()
}

func collectTree(t testing.TB, dir string) *snapshot.Snapshot {
	t.Helper()
	s := facts.Collect(facts.Root{Dir: dir}, facts.Options{Version: "test"})
	return s
}

func fixtureReport(t testing.TB, host string) (*snapshot.Snapshot, rules.Report) {
	t.Helper()
	s := collectTree(t, filepath.Join("..", "..", "testdata", "hosts", host))
	db, _ := rules.DetectDB(s, nil)
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: db})
	return s, rep
}

// numaResult is a 2-node bench numa result as the bench writes it.
func numaResult() *bench.Result {
	r := &bench.Result{SchemaVersion: 1, Bench: "numa", Host: bench.Host{Hostname: "lab", CPUs: 4, NUMANodes: 2}, Params: map[string]any{"repeat": 2}}
	for c := 0; c < 2; c++ {
		for m := 0; m < 2; m++ {
			ns, d := 100.0, 10.0
			if c != m {
				ns, d = 210, 21
			}
			cas := fmt.Sprintf("cpu%d-mem%d", c, m)
			r.Results = append(r.Results, bench.Row{Case: cas, Labels: map[string]string{"cpu_node": strconv.Itoa(c), "mem_node": strconv.Itoa(m), "pages": fmt.Sprintf("100%% node%d", m)},
				NsPerLoad: bench.F(ns), ThroughputGbps: bench.F(800 / ns), Extra: map[string]float64{"slit_distance": d, "latency_vs_local": ns / 100}})
			for k := 1; k <= 2; k++ {
				r.Samples = append(r.Samples, bench.Sample{Case: cas, Repeat: k, NsPerLoad: bench.F(ns + float64(k)), ThroughputGbps: bench.F(800 / ns)})
			}
		}
	}
	return r
}

func mqResult(base float64) *bench.Result {
	r := &bench.Result{SchemaVersion: 1, Bench: "mq", Host: bench.Host{Hostname: "lab", CPUs: 4}, Params: map[string]any{"repeat": 3}}
	for _, cas := range []string{"unbound", "bound"} {
		r.Results = append(r.Results, bench.Row{Case: cas, OpsPerSec: bench.F(base), OpsUnit: "msgs/s", LatencyUS: &bench.Latency{Count: 10, Mean: 50, P50: 40, P99: 300}})
		for k := 1; k <= 3; k++ {
			r.Samples = append(r.Samples, bench.Sample{Case: cas, Repeat: k, OpsPerSec: bench.F(base + float64(k*100))})
		}
	}
	return r
}

func benchFiles(t *testing.T) []BenchFile {
	t.Helper()
	var out []BenchFile
	add := func(name string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseBenchFile(name, b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	add("numa.json", numaResult())
	a, b := mqResult(70000), mqResult(76000)
	cmp, err := bench.CompareResults("a.json", a, "b.json", b, 5)
	if err != nil {
		t.Fatal(err)
	}
	add("mq.json", a)
	add("compare.json", cmp)
	x := &experiment.Result{Rules: []string{"memory.swappiness"}, Bench: "mq --duration 1s", Case: "unbound", Metric: "ops_per_sec",
		Changes: []experiment.Setting{{Setting: "vm.swappiness", Old: "60", New: "10", Rule: "memory.swappiness"}},
		Effect:  bench.Compare("ops_per_sec", true, []float64{100, 102, 101}, []float64{110, 111, 109}, 5), Why: "rolled back"}
	for i, v := range []float64{100, 110, 102, 111, 101, 109} {
		side := "A"
		if i%2 == 1 {
			side = "B"
		}
		x.Runs = append(x.Runs, experiment.Run{Side: side, N: i/2 + 1, Value: v})
	}
	x.Results = []*bench.Result{a}
	add("experiment.json", x)
	return out
}

func TestHTMLReportDOM(t *testing.T) {
	s, rep := fixtureReport(t, "interleaved-4n")
	files := benchFiles(t)
	b, err := HTML(HTMLInput{Snap: s, Report: rep, Artifacts: []string{"alert_ORCL.log"}, Bench: files, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseDOM(t, b)

	// Self-contained: nothing is fetched when it is viewed.
	for _, n := range doc.all(func(*node) bool { return true }) {
		for k, v := range n.Attr {
			if (k == "src" || k == "href" || k == "action" || k == "srcset") && !strings.HasPrefix(v, "#") {
				t.Errorf("<%s %s=%q>: a reference outside the page", n.Name, k, v)
			}
		}
		if n.Name == "link" || n.Name == "iframe" || n.Name == "img" || n.Name == "object" {
			t.Errorf("<%s> in a self-contained page", n.Name)
		}
	}
	if bytes.Contains(b, []byte("url(")) || bytes.Contains(b, []byte("@import")) {
		t.Error("the CSS loads something (url( or @import)")
	}

	// Headings: one h1, each section its h2.
	if h1 := doc.sel("h1"); len(h1) != 1 || !strings.Contains(h1[0].text(), rep.Host) {
		t.Fatalf("h1: %v", h1)
	}
	for _, id := range []string{"summary", "findings", "numa", "databases", "bench", "appendix"} {
		sec := doc.one(t, "section#"+id)
		if len(sec.Children) == 0 || sec.Children[0].Name != "h2" {
			t.Errorf("section #%s does not start with its h2", id)
		}
	}

	// Counts by severity and the findings.
	n := map[string]int{}
	areas := map[string]int{}
	for _, f := range rep.Findings {
		n[f.Severity]++
		areas[f.Area]++
	}
	if len(rep.Findings) < 5 {
		t.Fatalf("the fixture gave %d findings; the test wants a few", len(rep.Findings))
	}
	for _, sv := range []string{"critical", "warning", "info"} {
		if got := doc.one(t, "[data-count="+sv+"]").text(); got != strconv.Itoa(n[sv]) {
			t.Errorf("count %s = %q, want %d", sv, got, n[sv])
		}
		box := doc.one(t, "input#fs-"+sv)
		if box.Attr["checked"] != "checked" || box.Attr["data-filter"] != "severity" || box.Attr["value"] != sv {
			t.Errorf("severity filter %s: %v", sv, box.Attr)
		}
	}
	if got := doc.one(t, "[data-count=total]").text(); got != strconv.Itoa(len(rep.Findings)) {
		t.Errorf("total %q", got)
	}
	arts := doc.sel("article.finding")
	if len(arts) != len(rep.Findings) {
		t.Fatalf("%d finding articles for %d findings", len(arts), len(rep.Findings))
	}
	ids := map[string]bool{}
	for _, a := range doc.all(func(m *node) bool { return m.Attr["id"] != "" }) {
		if ids[a.Attr["id"]] {
			t.Errorf("id %q twice", a.Attr["id"])
		}
		ids[a.Attr["id"]] = true
	}
	used := map[int]bool{}
	for _, a := range arts {
		// The article's finding: its rule and setting, in the audit's order.
		k := -1
		setting := a.one(t, "table.kv").sel("code")[0].text()
		for j, f := range rep.Findings {
			if !used[j] && f.ID == a.Attr["data-rule"] && f.Setting == setting {
				k = j
				break
			}
		}
		if k < 0 {
			t.Fatalf("article %s matches no finding", a.Attr["id"])
		}
		used[k] = true
		f := rep.Findings[k]
		if a.Attr["data-severity"] != f.Severity || a.Attr["data-area"] != f.Area {
			t.Errorf("article %d: %v for %s/%s", k, a.Attr, f.Severity, f.Area)
		}
		if a.parent.Attr["data-area"] != f.Area {
			t.Errorf("finding %s under area section %q", f.ID, a.parent.Attr["data-area"])
		}
		h := a.one(t, "h4")
		if !strings.Contains(h.text(), f.Severity) || !strings.Contains(h.text(), f.Title) {
			t.Errorf("heading %q: the severity in words and the title", h.text())
		}
		if got := len(a.sel("ul.sources")[0].sel("li")); got != len(f.Sources) {
			t.Errorf("%s: %d sources, want %d", f.ID, got, len(f.Sources))
		}
		if !strings.Contains(a.one(t, "details.evidence").text(), strings.TrimSpace(f.Evidence)) {
			t.Errorf("%s: evidence missing", f.ID)
		}
		for _, btn := range a.sel("button.copy") {
			target := btn.Attr["data-copy"]
			code := a.sel("code#" + target)
			if len(code) != 1 || btn.Attr["type"] != "button" {
				t.Errorf("%s: copy button for %q has no target", f.ID, target)
				continue
			}
			if want := strings.Join(f.Fix.Runtime, "\n"); strings.HasSuffix(target, "-run") && code[0].text() != want {
				t.Errorf("%s: the copied text %q, want the runtime fix %q", f.ID, code[0].text(), want)
			}
		}
		if f.Risk != "" && !strings.Contains(a.text(), f.Risk) {
			t.Errorf("%s: risk missing", f.ID)
		}
	}
	for a, k := range areas {
		if got := len(doc.one(t, "section#area-"+a).sel("article.finding")); got != k {
			t.Errorf("area %s: %d findings, want %d", a, got, k)
		}
		if doc.one(t, "input#fa-"+a).Attr["data-filter"] != "area" {
			t.Errorf("no filter for area %s", a)
		}
	}
	if top := doc.one(t, "ol#top").sel("li"); len(top) != 3 {
		t.Errorf("%d top findings", len(top))
	} else if a := doc.one(t, top[0].sel("a")[0].Attr["href"]); a.Attr["data-rule"] != rep.Findings[0].ID {
		t.Errorf("the first top finding is %q, the worst finding is %q", a.Attr["data-rule"], rep.Findings[0].ID)
	}

	// NUMA picture.
	nodes := doc.sel("article.node")
	if len(nodes) != len(s.Topology.Nodes) {
		t.Fatalf("%d node cards for %d nodes", len(nodes), len(s.Topology.Nodes))
	}
	for i, nd := range s.Topology.Nodes {
		card := nodes[i]
		if card.Attr["data-node"] != strconv.Itoa(nd.ID) || !strings.Contains(card.text(), "CPUs "+cpulist.Format(nd.CPUs)) {
			t.Errorf("node card %d: %q", nd.ID, card.text())
		}
		if len(card.sel("span.bar")) < 3 {
			t.Errorf("node %d: memory, hugepage, busy and interrupt bars expected", nd.ID)
		}
	}
	rows := doc.one(t, "table#distance").sel("tbody")[0].sel("tr")
	for i, r := range rows {
		cells := r.sel("td")
		if len(cells) != len(s.Topology.Nodes) {
			t.Fatalf("distance row %d: %d cells", i, len(cells))
		}
		for j, c := range cells {
			if c.text() != strconv.Itoa(s.Topology.Nodes[i].Distances[j]) || !strings.HasPrefix(c.Attr["style"], "background:hsl(") {
				t.Errorf("distance %d→%d: %q %q", i, j, c.text(), c.Attr["style"])
			}
		}
	}
	if doc.one(t, "table#distance").sel("th[scope=col]") == nil {
		t.Error("distance table without column headers")
	}
	nics := 0
	for _, c := range doc.sel("span.chip") {
		if c.hasClass("nic") {
			nics++
		}
	}
	if nics == 0 {
		t.Error("no NIC drawn on its node")
	}
	if got := len(doc.one(t, "table#instances").sel("tbody")[0].sel("tr")); got == 0 {
		t.Error("no database instance row")
	}
	if got := len(doc.one(t, "table#proc-memory").sel("tbody")[0].sel("tr")); got == 0 {
		t.Error("no process memory row (the fixture's pmon has numa_maps)")
	}
	checkInstanceNodes(t, doc, s)
	if len(doc.sel("#no-servers")) != 1 || len(doc.sel("article.server")) != 0 {
		t.Error("no server read over a connection: the databases section says so")
	}

	// Benchmarks: the numa matrices 2x2, the charts, the experiment verdict.
	mats := doc.sel("table.numa-matrix")
	if len(mats) != 3 {
		t.Fatalf("%d numa matrices", len(mats))
	}
	lat := mats[0].sel("tbody")[0].sel("tr")
	if len(lat) != 2 || lat[0].sel("td")[0].text() != "100.0" || lat[0].sel("td")[1].text() != "210.0" {
		t.Errorf("latency matrix: %q", mats[0].text())
	}
	if c := lat[0].sel("td"); c[1].Attr["style"] == c[0].Attr["style"] {
		t.Error("remote and local cells coloured alike")
	}
	charts := doc.sel("figure.chart")
	// mq: 1 metric chart; compare: 1 effect chart; experiment: before/after + effect.
	if len(charts) != 4 {
		t.Fatalf("%d charts", len(charts))
	}
	for _, c := range charts {
		svg := c.sel("svg")
		if len(svg) != 1 || svg[0].Attr["role"] != "img" || svg[0].Attr["aria-label"] == "" || len(svg[0].sel("title")) == 0 {
			t.Errorf("chart without an accessible svg: %v", c.Attr)
		}
	}
	exp := doc.sel("section#bench-4")[0]
	if !strings.Contains(exp.text(), "better") || len(exp.sel("circle")) != 6 {
		t.Errorf("experiment: verdict and one dot per run expected: %q", exp.text())
	}

	// The appendix lists what did not report.
	if got := len(doc.one(t, "details#passed").sel("tbody")[0].sel("tr")); got != len(rep.Passed) {
		t.Errorf("%d passed rows, want %d", got, len(rep.Passed))
	}
	if !IsOwnHTML(b) {
		t.Error("the report does not carry a valid trailer")
	}

	// A live sample that could not be read is listed with the absent facts.
	v := NUMANodes(s)
	v.Absent = append(v.Absent, snapshot.Absence{Fact: "cpu_load", Path: "/proc/stat", Reason: "permission denied"})
	b, err = HTML(HTMLInput{Snap: s, Report: rep, NUMA: v, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	absentRows := parseDOM(t, b).one(t, "details#absent").sel("tbody")[0].sel("tr")
	if len(absentRows) != len(s.Absent)+1 || !strings.Contains(absentRows[len(absentRows)-1].text(), "permission denied") {
		t.Errorf("%d absent rows for %d absences and the sample's", len(absentRows), len(s.Absent))
	}
}

func TestHTMLNoFindingsNoBench(t *testing.T) {
	s := collectTree(t, filepath.Join("..", "..", "testdata", "hosts", "numa-off"))
	rep := rules.Report{Host: s.Host.Hostname, Workload: "oltp", DB: "none", Findings: []rules.Finding{}}
	b, err := HTML(HTMLInput{Snap: s, Report: rep, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseDOM(t, b)
	if len(doc.sel("article.finding")) != 0 || len(doc.sel("section#bench")) != 0 || len(doc.sel("#filters")) != 0 {
		t.Error("no findings, no bench: no finding, no bench section, no filters")
	}
	if !strings.Contains(doc.one(t, "#top").text(), "No findings") {
		t.Error("the summary says there are no findings")
	}
	if !strings.Contains(doc.one(t, "section#numa").text(), "NUMA is hidden") {
		t.Error("numa=off must be said in the NUMA picture")
	}
}

// A sosreport without node sysfs: hugepages per node were not read, which
// the page says instead of drawing a pool of 0.
func TestHTMLHugepagesNotRead(t *testing.T) {
	s, err := hostsrc.One(hostsrc.Spec{Sosreport: filepath.Join("..", "..", "testdata", "hosts", "sosreport-db1", "sosreport-db1-2026-11-01"), Version: "test"}, "report")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range s.Topology.Nodes {
		if len(n.Hugepages) > 0 {
			t.Skip("the sosreport fixture now has hugepages per node")
		}
	}
	if len(s.Topology.Nodes) == 0 {
		t.Skip("no nodes read from the sosreport fixture")
	}
	b, err := HTML(HTMLInput{Snap: s, Report: rules.Report{Host: "db1"}, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseDOM(t, b)
	for _, tr := range doc.one(t, "table#node-table").sel("tbody")[0].sel("tr") {
		td := tr.sel("td")
		if td[5].text() != "not read" || td[6].text() != "not read" {
			t.Errorf("hugepage cells %q %q, want not read", td[5].text(), td[6].text())
		}
	}
	if !strings.Contains(doc.one(t, "#nodes").text(), "hugepages per node: not read") {
		t.Error("the node cards do not say hugepages were not read")
	}
}

func TestIsOwnHTML(t *testing.T) {
	s := collectTree(t, filepath.Join("..", "..", "testdata", "hosts", "numa-off"))
	b, err := HTML(HTMLInput{Snap: s, Report: rules.Report{Host: "h"}, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if !IsOwnHTML(b) {
		t.Fatal("own report not recognised")
	}
	edited := bytes.Replace(b, []byte("<h1>"), []byte("<h1>Edited: "), 1)
	for name, x := range map[string][]byte{
		"edited":       edited,
		"no trailer":   b[:bytes.LastIndex(b, []byte(htmlTrailerPrefix))],
		"empty":        nil,
		"other html":   []byte("<html><body>mine</body></html>\n"),
		"trailer only": []byte("x\n" + htmlTrailerPrefix + "00 -->\n"),
	} {
		if IsOwnHTML(x) {
			t.Errorf("%s: taken for dbhost's own report", name)
		}
	}
}

func TestParseBenchFileErrors(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"{\n\"bench\": \"mq\",\n  oops}", "x.json: line 3:"},
		{`{"hello": 1}`, "neither a bench result, a comparison nor an experiment"},
		{`{"schema_version": 9, "bench": "mq", "results": []}`, "schema_version 9"},
		{`{"effect": {}, "runs": [], "bench_results": []}`, "an experiment without runs"},
		{`[1,2]`, "expected the JSON of dbhost bench"},
	} {
		_, err := ParseBenchFile("x.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.data, err, c.want)
		}
	}
}

// TestHTMLBig240Size: the 240-CPU, 8-node, 64-disk host's report stays
// under 2 MB (the bound); its time is measured by bench/report.sh.
func TestHTMLBig240Size(t *testing.T) {
	if testing.Short() {
		t.Skip("generates the 240-CPU tree; skipped with -short")
	}
	root := filepath.Join(t.TempDir(), "big")
	if err := fixture.Big240().Build().Write(root); err != nil {
		t.Fatal(err)
	}
	s := collectTree(t, root)
	db, _ := rules.DetectDB(s, nil)
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadMixed, DB: db})
	b, err := HTML(HTMLInput{Snap: s, Report: rep, Bench: []BenchFile{{Name: "numa.json", Result: numaResult()}}, Version: "test", Generated: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	if len(b) >= 2<<20 {
		t.Fatalf("the 240-CPU host's report is %d bytes; the bound is 2 MB", len(b))
	}
	doc := parseDOM(t, b)
	if got := len(doc.sel("article.node")); got != 8 {
		t.Errorf("%d node cards, want 8", got)
	}
	disks := 0
	for _, c := range doc.sel("span.chip") {
		if c.hasClass("disk") {
			disks++
		}
	}
	if disks < 64 {
		t.Errorf("%d disks drawn on their nodes, want the 64", disks)
	}
	t.Logf("240-CPU report: %d bytes, %d findings", len(b), len(rep.Findings))
}

func TestNaturalLess(t *testing.T) {
	names := []string{"nvme10n1", "sdaa", "nvme2n1", "sdb", "nvme2n10", "sda", "nvme2n2", "sd01"}
	sort.SliceStable(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
	if got := strings.Join(names, " "); got != "nvme2n1 nvme2n2 nvme2n10 nvme10n1 sd01 sda sdaa sdb" {
		t.Errorf("%s", got)
	}
}

// checkInstanceNodes compares the databases section's node-by-node table
// with the snapshot's processes: one row per instance, one cell per node,
// each cell the instance's allowed CPUs on that node, whether its memory
// may be there, and the pages its processes have there.
func checkInstanceNodes(t *testing.T, doc *node, s *snapshot.Snapshot) {
	t.Helper()
	nodeOf := map[int]int{}
	for _, nd := range s.Topology.Nodes {
		for _, c := range nd.CPUs {
			nodeOf[c] = nd.ID
		}
	}
	type want struct {
		cpus  map[int][]int
		mems  map[int]bool
		pages map[int]int64
		read  bool
	}
	insts := map[string]*want{}
	for _, p := range s.Processes {
		name := p.Instance
		if name == "" {
			name = "(" + p.Engine + ", no instance name)"
		}
		w := insts[name]
		if w == nil {
			w = &want{cpus: map[int][]int{}, mems: map[int]bool{}, pages: map[int]int64{}}
			insts[name] = w
		}
		for _, c := range p.CPUsAllowed {
			if !slicesContains(w.cpus[nodeOf[c]], c) {
				w.cpus[nodeOf[c]] = append(w.cpus[nodeOf[c]], c)
			}
		}
		for _, m := range p.MemsAllowed {
			w.mems[m] = true
		}
		for _, m := range p.NUMA {
			w.pages[m.Node] += m.TotalKB
			w.read = true
		}
	}
	rows := doc.one(t, "table#instance-nodes").sel("tbody")[0].sel("tr")
	if len(rows) != len(insts) || len(insts) == 0 {
		t.Fatalf("%d instance rows for %d instances", len(rows), len(insts))
	}
	home := 0
	for _, r := range rows {
		name := r.sel("th")[0].text()
		w := insts[name]
		if w == nil {
			t.Fatalf("row %q names no instance", name)
		}
		cells := r.sel("td")
		if len(cells) != len(s.Topology.Nodes) {
			t.Fatalf("%s: %d cells for %d nodes", name, len(cells), len(s.Topology.Nodes))
		}
		for i, nd := range s.Topology.Nodes {
			txt := cells[i].text()
			cpus := w.cpus[nd.ID]
			sort.Ints(cpus)
			if len(cpus) > 0 && !strings.Contains(txt, fmt.Sprintf("CPUs %s (%d of %d)", cpulist.Format(cpus), len(cpus), len(nd.CPUs))) ||
				len(cpus) == 0 && !strings.Contains(txt, "no CPUs") {
				t.Errorf("%s node %d: %q, want its CPUs %v", name, nd.ID, txt, cpus)
			}
			if w.mems[nd.ID] != strings.Contains(txt, "memory allowed") {
				t.Errorf("%s node %d: %q, memory allowed %v", name, nd.ID, txt, w.mems[nd.ID])
			}
			if w.read && w.pages[nd.ID] > 0 && !strings.Contains(txt, sizeKB(w.pages[nd.ID])+" here") {
				t.Errorf("%s node %d: %q, want %s here", name, nd.ID, txt, sizeKB(w.pages[nd.ID]))
			}
			if cells[i].hasClass("home") != (len(cpus) > 0 && w.mems[nd.ID]) {
				t.Errorf("%s node %d: marked home %v", name, nd.ID, cells[i].hasClass("home"))
			}
			if cells[i].hasClass("home") {
				home++
			}
		}
	}
	if home == 0 {
		t.Error("no instance has CPUs and memory on one node in the fixture")
	}
}

func slicesContains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// The servers read over a connection (snapshot.Databases): each with its
// connection, where it runs, how it was found, its directories, its key
// settings and every setting in a table; one that could not be read says
// why; settings that could not be read are counted and show their reason.
func TestHTMLDatabaseServers(t *testing.T) {
	s, rep := fixtureReport(t, "rhel9")
	str := func(v string) *string { return &v }
	s.Databases = []snapshot.Database{
		{Engine: "postgres", Connection: "user=postgres host=/run/postgresql port=5432 dbname=postgres", Local: true,
			Discovered: &snapshot.DBDiscovery{PID: 4242, DataDir: "/var/lib/postgresql/15/main", Socket: "/run/postgresql/.s.PGSQL.5432", OSUser: "postgres"},
			User:       "postgres", Version: "15.4", VersionNum: 150004, DataDirectory: "/var/lib/postgresql/15/main",
			WALDirectory: "/wal/pg_wal", WALResolved: "pg_wal is a symlink",
			Settings: []snapshot.DBSetting{
				{Name: "huge_pages", Value: str("try"), Source: "default"},
				{Name: "shared_buffers", Value: str("4096"), Unit: "8kB", Source: "configuration file"},
				{Name: "shared_memory_size_in_huge_pages", Reason: "could not check (permission): must be superuser"},
				{Name: "wal_buffers", Reason: "not present on this server (PostgreSQL 9.0)"},
			}},
		{Engine: "mysql", Connection: "monitor@tcp(10.0.0.5:3306)/", Error: "dial tcp 10.0.0.5:3306: connection refused"},
	}
	b, err := HTML(HTMLInput{Snap: s, Report: rep, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	doc := parseDOM(t, b)
	sec := doc.one(t, "section#databases")
	servers := sec.sel("article.server")
	if len(servers) != 2 || len(sec.sel("#no-servers")) != 0 {
		t.Fatalf("%d server articles, want 2", len(servers))
	}
	pg := servers[0]
	for _, want := range []string{"postgres 15.4", "this host", "pid 4242", "as OS user postgres", "/var/lib/postgresql/15/main",
		"/wal/pg_wal (pg_wal is a symlink)", "32.0 MiB", "1 setting(s) could not be read"} {
		if !strings.Contains(pg.text(), want) {
			t.Errorf("postgres server: %q missing from %q", want, pg.text())
		}
	}
	rows := pg.one(t, "table.db-settings").sel("tbody")[0].sel("tr")
	if len(rows) != 4 {
		t.Fatalf("%d setting rows, want 4", len(rows))
	}
	if r := rows[2]; r.Attr["data-unread"] != "true" || !strings.Contains(r.text(), "must be superuser") {
		t.Errorf("the unread setting: %q", r.text())
	}
	if r := rows[1]; !strings.Contains(r.text(), "32.0 MiB") || r.sel("td")[0].Attr["title"] != "4096 × 8kB" || !strings.Contains(r.text(), "configuration file") {
		t.Errorf("shared_buffers row: %q", r.text())
	}
	if pg.one(t, "details.settings").Attr["open"] != "open" {
		t.Error("a server with unread settings shows its settings open")
	}
	my := servers[1]
	if !strings.Contains(my.one(t, ".warnbox").text(), "connection refused") || !strings.Contains(my.text(), "another host") {
		t.Errorf("the server not read: %q", my.text())
	}
	if nav := doc.one(t, "nav").text(); !strings.Contains(nav, "Databases (2 server(s))") {
		t.Errorf("navigation: %q", nav)
	}
}
