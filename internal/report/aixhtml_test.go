package report

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

func aixReport(t *testing.T, s *snapshot.Snapshot) *node {
	t.Helper()
	rep := rules.Run(&rules.Input{Snap: s, Workload: rules.WorkloadOLTP, DB: "oracle"})
	b, err := HTML(HTMLInput{Snap: s, Report: rep, Version: "test", Generated: time.Unix(0, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "url(") {
		t.Error("the AIX picture loads something")
	}
	return parseDOM(t, b)
}

func rows(t *testing.T, doc *node, table string) []*node {
	t.Helper()
	return doc.one(t, "table#"+table).sel("tbody")[0].sel("tr")
}

// The AIX host picture of the 7.2 bundle against its snapshot: the LPAR,
// one card per SRAD, the page pools, vmstat -v's blocked-I/O counters
// (non-zero ones marked in words, not by colour alone), one row per hdisk
// with its queue_depth, paths and iostat -D figures, one per FC adapter
// with its fcstat counters or why they are absent, the file systems, the
// paging spaces and the database instances; no Linux NUMA picture.
func TestHTMLAIXPicture(t *testing.T) {
	s, err := snapshot.Load("../facts/aix/testdata/golden/aix72.json")
	if err != nil {
		t.Fatal(err)
	}
	a := s.AIX
	doc := aixReport(t, s)
	if len(doc.sel("section#numa")) != 0 || len(doc.sel("section#databases")) != 0 {
		t.Error("an AIX host has no Linux NUMA picture nor Linux databases section")
	}
	sec := doc.one(t, "section#aix")
	if sec.Children[0].Name != "h2" || !strings.Contains(doc.one(t, "nav").text(), "AIX host picture") {
		t.Error("the AIX section has its h2 and its link")
	}
	lpar := doc.one(t, "dl#aix-lpar").text()
	for _, want := range []string{a.LPAR.Type, a.LPAR.Mode, fmt.Sprintf("SMT%d", *a.LPAR.SMT), fmt.Sprintf("%.2f processor units", *a.LPAR.EntitledCapacity),
		fmt.Sprintf("%d online", *a.LPAR.OnlineVCPUs), fmt.Sprintf("%d MB online", *a.LPAR.OnlineMemoryMB), *a.OSLevel} {
		if !strings.Contains(lpar, want) {
			t.Errorf("LPAR: %q missing from %q", want, lpar)
		}
	}
	if !strings.Contains(lpar, fmt.Sprintf("depth %d", *a.DSCR.PrefetchDepth)) || !strings.Contains(lpar, "PowerHA (lssrc -ls clstrmgrES)not installed") {
		t.Errorf("LPAR: the prefetch depth and PowerHA: %q", lpar)
	}
	cards := doc.sel("article.srad")
	if len(cards) != len(a.SRADs) || len(cards) < 2 {
		t.Fatalf("%d SRAD cards for %d SRADs", len(cards), len(a.SRADs))
	}
	for i, r := range a.SRADs {
		c := cards[i]
		if c.Attr["data-srad"] != strconv.Itoa(r.SRAD) || !strings.Contains(c.text(), "CPUs "+cpulist.Format(r.CPUs)) ||
			!strings.Contains(c.text(), gib(int64(*r.MemMB*1024))) || len(c.sel("span.bar")) != 2 {
			t.Errorf("SRAD %d card: %q", r.SRAD, c.text())
		}
		for _, bar := range c.sel("span.bar") {
			if bar.Attr["role"] != "img" || bar.Attr["aria-label"] == "" {
				t.Errorf("SRAD %d: a bar without its label", r.SRAD)
			}
		}
	}
	pools := rows(t, doc, "aix-pools")
	if len(pools) != len(a.PagePools) {
		t.Fatalf("%d page pool rows for %d", len(pools), len(a.PagePools))
	}
	for i, p := range a.PagePools {
		r := pools[i]
		if p.SizeKB == 16384 && (!strings.Contains(r.text(), "empty") || len(r.sel("span.bar")) != 0) {
			t.Errorf("the empty 16 MB pool is said, not drawn: %q", r.text())
		}
		if p.Inuse != nil && !strings.Contains(r.text(), sizeKB(*p.Inuse*4)) {
			t.Errorf("pool %d KB: in use %s missing: %q", p.SizeKB, sizeKB(*p.Inuse*4), r.text())
		}
	}
	blocked := rows(t, doc, "aix-blocked")
	if len(blocked) != len(aixBlockedCounters) {
		t.Fatalf("%d blocked-I/O rows", len(blocked))
	}
	marked := 0
	for i, b := range aixBlockedCounters {
		v, ok := a.VmstatV[b.Label]
		r := blocked[i]
		if !ok || !strings.Contains(r.text(), fmt.Sprintf("%.0f", v)) || (v > 0) != (r.Attr["data-nonzero"] == "true") ||
			(v > 0) != strings.Contains(r.text(), "▲") {
			t.Errorf("%s = %v: row %q %v", b.Label, v, r.text(), r.Attr)
		}
		if v > 0 {
			marked++
		}
	}
	if marked == 0 {
		t.Error("the bundle has non-zero blocked-I/O counters: the test wants some")
	}
	disks := rows(t, doc, "aix-disks")
	if len(disks) != len(a.Disks) {
		t.Fatalf("%d disk rows for %d disks", len(disks), len(a.Disks))
	}
	sqfull, badPath := 0, 0
	for i, d := range a.Disks {
		r := disks[i]
		cells := r.sel("td")
		if r.Attr["data-disk"] != d.Name || (d.QueueDepth != nil && cells[1].text() != strconv.FormatInt(*d.QueueDepth, 10)) {
			t.Errorf("%s: row %q", d.Name, r.text())
		}
		if d.Generic != strings.Contains(cells[0].text(), "generic ODM") {
			t.Errorf("%s: generic %v, row %q", d.Name, d.Generic, cells[0].text())
		}
		for _, p := range d.Paths {
			if !strings.Contains(cells[2].text(), p.Status+" "+p.Parent) {
				t.Errorf("%s: path %s %s missing", d.Name, p.Status, p.Parent)
			}
			if p.Status == "Failed" {
				badPath++
				if !strings.Contains(cells[2].text(), "▲ "+p.Status) {
					t.Errorf("%s: a failed path is not marked in words", d.Name)
				}
			}
		}
		io, ok := aixDiskStats(d)
		if !ok {
			if !strings.Contains(r.text(), "not in iostat -D") {
				t.Errorf("%s: not in iostat -D, not said: %q", d.Name, r.text())
			}
			continue
		}
		if want := fmt.Sprintf("%.1f", *io.SQFull); !strings.Contains(cells[7].text(), want) {
			t.Errorf("%s: sqfull %q, want %s", d.Name, cells[7].text(), want)
		}
		if *io.SQFull > 0 {
			sqfull++
			if r.Attr["data-sqfull"] != "true" || !strings.Contains(cells[7].text(), "▲") {
				t.Errorf("%s: a full service queue is not marked", d.Name)
			}
		}
		if len(r.sel("span.bar")) != 2 {
			t.Errorf("%s: service and wait bars expected", d.Name)
		}
	}
	if sqfull == 0 || badPath == 0 {
		t.Errorf("the 7.2 bundle has disks with sqfull (%d) and a failed path (%d)", sqfull, badPath)
	}
	fcs := rows(t, doc, "aix-fc")
	if len(fcs) != len(a.FCAdapters) {
		t.Fatalf("%d FC rows for %d adapters", len(fcs), len(a.FCAdapters))
	}
	for i, f := range a.FCAdapters {
		r := fcs[i]
		if f.NumCmdElems != nil && !strings.Contains(r.text(), strconv.FormatInt(*f.NumCmdElems, 10)) {
			t.Errorf("%s: num_cmd_elems missing: %q", f.Name, r.text())
		}
		if f.NoCommandResourceCount == nil {
			if !strings.Contains(r.text(), "absent: failed") {
				t.Errorf("%s: fcstat failed, not said: %q", f.Name, r.text())
			}
			continue
		}
		nz := r.sel("[data-nonzero=true]")
		want := 0
		for _, v := range []*int64{f.NoDMAResourceCount, f.NoAdapterElementsCount, f.NoCommandResourceCount} {
			if v != nil && *v > 0 {
				want++
			}
		}
		if len(nz) != want || want == 0 {
			t.Errorf("%s: %d counters marked non-zero, want %d (and the bundle has one)", f.Name, len(nz), want)
		}
	}
	fs := rows(t, doc, "aix-fs")
	if len(fs) < len(a.Filesystems) {
		t.Fatalf("%d file system rows for %d", len(fs), len(a.Filesystems))
	}
	for i, f := range a.Filesystems {
		if fs[i].Attr["data-mount"] != f.Mount || f.AGBlkSize != nil && !strings.Contains(fs[i].text(), strconv.FormatInt(*f.AGBlkSize, 10)) {
			t.Errorf("file system %s: %q", f.Mount, fs[i].text())
		}
	}
	if got := len(rows(t, doc, "aix-paging")); got != len(a.PagingSpaces) {
		t.Errorf("%d paging space rows for %d", got, len(a.PagingSpaces))
	}
	if got := rows(t, doc, "aix-instances"); len(got) == 0 || !strings.Contains(got[0].text(), "ORCL") {
		t.Errorf("the database instances of ps -ef: %d rows", len(got))
	}
}

// Absent is said, with the reason, never drawn as zero: the 6.1 bundle
// (lssrad missing, iostat -D failed) and an aix section with nothing read.
func TestHTMLAIXAbsent(t *testing.T) {
	s, err := snapshot.Load("../facts/aix/testdata/golden/aix61.json")
	if err != nil {
		t.Fatal(err)
	}
	doc := aixReport(t, s)
	if got := doc.one(t, "#aix-srads-absent").text(); !strings.Contains(got, "lssrad: command not found (exit 127)") {
		t.Errorf("SRADs absent: %q", got)
	}
	if len(doc.sel("article.srad")) != 0 {
		t.Error("no SRAD card without lssrad")
	}
	if got := doc.one(t, "dl#aix-lpar").text(); !strings.Contains(got, "cluster node, cluster manager ST_STABLE") {
		t.Errorf("the 6.1 host is a PowerHA node: %q", got)
	}
	for _, r := range rows(t, doc, "aix-disks") {
		if !strings.Contains(r.text(), "absent") || len(r.sel("span.bar")) != 0 {
			t.Errorf("iostat -D failed: the disk row says absent and draws nothing: %q", r.text())
		}
	}
	if !strings.Contains(doc.one(t, "section#aix").text(), "iostat -D 2 3 exited 1") {
		t.Error("why iostat -D is absent is not said")
	}
	for i, r := range rows(t, doc, "aix-blocked") {
		if _, ok := s.AIX.VmstatV[aixBlockedCounters[i].Label]; !ok && r.Attr["data-absent"] != "true" {
			t.Errorf("%s is not in this vmstat -v: row %q", aixBlockedCounters[i].Label, r.text())
		}
	}

	empty := &snapshot.Snapshot{Host: snapshot.Host{Hostname: "bare", OSID: "aix"}, Source: snapshot.Source{Kind: "aix-bundle"}, AIX: &snapshot.AIX{},
		Absent: []snapshot.Absence{
			{Fact: "aix.lpar", Path: "commands/lparstat_-i", Reason: "not present in the bundle"},
			{Fact: "aix.vmstat_v", Path: "commands/vmstat_-v", Reason: "failed: vmstat -v exited 2 with no output"},
			{Fact: "aix.fc_adapters", Path: "commands/lsdev_-Cc_adapter", Reason: "not present in the bundle"},
		}}
	doc = aixReport(t, empty)
	for id, want := range map[string]string{"aix-lpar-absent": "not present in the bundle", "aix-blocked-absent": "vmstat -v exited 2",
		"aix-fc-absent": "lsdev_-Cc_adapter", "aix-disks-absent": "not in the snapshot", "aix-memory-absent": "not in the snapshot",
		"aix-lpar": "Hardware prefetch (dscrctl -q)absent: not in the snapshot"} {
		if got := doc.one(t, "#"+id).text(); !strings.Contains(got, want) {
			t.Errorf("#%s: %q, want %q", id, got, want)
		}
	}
	for _, r := range rows(t, doc, "aix-blocked") {
		if r.Attr["data-absent"] != "true" || strings.Contains(r.text(), " 0") {
			t.Errorf("vmstat -v failed: %q is drawn", r.text())
		}
	}
	if len(doc.sel("span.bar")) != 0 {
		t.Error("nothing read, nothing drawn")
	}
}

// collect's summary of an AIX host: no Linux kernel to name in its first
// line (AIX's level follows it), the same in Markdown.
func TestSummaryAIXHead(t *testing.T) {
	s, err := snapshot.Load("../facts/aix/testdata/golden/aix72.json")
	if err != nil {
		t.Fatal(err)
	}
	text, md := Summary(s), SummaryMarkdown(s)
	if first, _, _ := strings.Cut(string(text), "\n"); first != "Host db1 — "+s.Host.OS+" (ppc64)" {
		t.Errorf("first line %q", first)
	}
	if !strings.HasPrefix(string(md), "# Host db1 — "+s.Host.OS+" (ppc64)\n") {
		t.Errorf("Markdown:\n%.200s", md)
	}
	checkSameView(t, "aix72 summary", text, md)
}
