package report

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/rules"
)

// fleetPageOf renders reps as `dbhost report --snapshot GLOB` does: each
// host's section as it is added, then the page around them.
func fleetPageOf(t *testing.T, reps []rules.Report) []byte {
	t.Helper()
	f := NewFleet()
	var hosts bytes.Buffer
	for _, r := range reps {
		i := f.Len()
		f.Add(r, r.File)
		if err := FleetHostHTML(&hosts, r, i); err != nil {
			t.Fatal(err)
		}
	}
	var b bytes.Buffer
	if err := f.HTML(&b, &hosts, FleetHTMLMeta{Pattern: "fleet/*.json", Version: "test", Generated: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The fleet page against the reports it was made from: per failing rule
// how many hosts fail it and which (every failing host linked once: the
// first few, then the rest behind "+N more"), the counts, the hosts that
// differ from the majority, one section per host with its findings, every
// link landing on an element of the page, and the trailer of a report
// dbhost wrote.
func TestFleetHTMLDOM(t *testing.T) {
	var reps []rules.Report
	for i, h := range []string{"rhel9", "rhel9", "rhel9", "rhel8", "odd-8n", "numa-off", "rhel9", "sles12"} {
		_, r := fixtureReport(t, h)
		r.File = fmt.Sprintf("fleet/%02d-%s.json", i, h)
		reps = append(reps, r)
	}
	// And many hosts failing one rule: the list is cut, the rest expandable.
	for i, r := range fleetReports(40) {
		r.File = fmt.Sprintf("fleet/gen%02d.json", i)
		reps = append(reps, r)
	}
	b := fleetPageOf(t, reps)
	if !IsOwnHTML(b) {
		t.Fatal("the fleet page does not carry a valid trailer")
	}
	doc := parseDOM(t, b)
	for _, n := range doc.all(func(*node) bool { return true }) {
		for k, v := range n.Attr {
			if (k == "src" || k == "href") && !strings.HasPrefix(v, "#") {
				t.Errorf("<%s %s=%q>: a reference outside the page", n.Name, k, v)
			}
		}
	}
	ids := map[string]bool{}
	for _, n := range doc.all(func(m *node) bool { return m.Attr["id"] != "" }) {
		if ids[n.Attr["id"]] {
			t.Errorf("id %q twice", n.Attr["id"])
		}
		ids[n.Attr["id"]] = true
	}
	for _, a := range doc.sel("a") {
		if h := a.Attr["href"]; !ids[strings.TrimPrefix(h, "#")] {
			t.Errorf("link %q (%s) lands nowhere", h, a.text())
		}
	}
	for _, id := range []string{"summary", "rules", "differ", "hosts"} {
		if sec := doc.one(t, "section#"+id); sec.Children[0].Name != "h2" {
			t.Errorf("section #%s does not start with its h2", id)
		}
	}

	// What the reports say, counted here independently of Fleet.
	failing := map[string]map[int]bool{} // rule → host indexes
	sev := map[string]int{}
	for i, r := range reps {
		for _, f := range r.Findings {
			sev[f.Severity]++
			if failing[f.ID] == nil {
				failing[f.ID] = map[int]bool{}
			}
			failing[f.ID][i] = true
		}
	}
	for _, s := range []string{"critical", "warning", "info"} {
		if got := doc.one(t, "[data-count="+s+"]").text(); got != strconv.Itoa(sev[s]) {
			t.Errorf("findings %s: %s, want %d", s, got, sev[s])
		}
	}
	if got := doc.one(t, "[data-hosts="+strconv.Itoa(len(reps))+"]").text(); got != strconv.Itoa(len(reps)) {
		t.Errorf("hosts: %s", got)
	}
	arts := doc.one(t, "section#rules").sel("article.finding")
	if len(arts) != len(failing) {
		t.Fatalf("%d rule articles for %d failing rules", len(arts), len(failing))
	}
	cut := 0
	for _, a := range arts {
		id := a.Attr["data-rule"]
		want := failing[id]
		if a.Attr["data-fail"] != strconv.Itoa(len(want)) || !strings.Contains(a.text(), fmt.Sprintf("Fails on %d of %d hosts", len(want), len(reps))) {
			t.Errorf("%s: %q, want %d hosts", id, a.one(t, "div.fails").text(), len(want))
		}
		fails := a.one(t, "div.fails")
		linked := map[int]bool{}
		direct := 0
		for _, l := range fails.sel("a") {
			k, err := strconv.Atoi(strings.TrimPrefix(l.Attr["href"], "#h-"))
			if err != nil || !want[k] || linked[k] {
				t.Errorf("%s: link %q: not one of its failing hosts, or twice", id, l.Attr["href"])
			}
			linked[k] = true
			if l.parent == fails {
				direct++
			}
		}
		if len(linked) != len(want) || direct > fleetFew {
			t.Errorf("%s: %d hosts linked (%d before +N more), want %d (at most %d before)", id, len(linked), direct, len(want), fleetFew)
		}
		if more := fails.sel("details.more"); len(want) > fleetFew {
			cut++
			if len(more) != 1 || !strings.Contains(more[0].one(t, "summary").text(), fmt.Sprintf("+%d more", len(want)-fleetFew)) {
				t.Errorf("%s: %d hosts and no \"+%d more\"", id, len(want), len(want)-fleetFew)
			}
		}
		if got := a.sel("table.values"); len(got) != 1 {
			t.Errorf("%s: no values table", id)
		}
	}
	if cut == 0 {
		t.Error("no rule failed on more than a few hosts: the test wants one")
	}
	// Hosts: one section each, its findings listed and linked to their rule.
	hosts := doc.one(t, "section#hosts").sel("article.host")
	if len(hosts) != len(reps) {
		t.Fatalf("%d host sections for %d hosts", len(hosts), len(reps))
	}
	for i, h := range hosts {
		r := reps[i]
		if h.Attr["id"] != "h-"+strconv.Itoa(i) || !strings.Contains(h.one(t, "h3").text(), r.File) {
			t.Errorf("host %d: %v %q", i, h.Attr, h.one(t, "h3").text())
		}
		lis := h.sel("li")
		if len(lis) != len(r.Findings) {
			t.Errorf("host %d: %d findings listed, want %d", i, len(lis), len(r.Findings))
		}
		for j, li := range lis {
			if li.sel("a")[0].text() != r.Findings[j].ID {
				t.Errorf("host %d finding %d: %q", i, j, li.text())
			}
		}
	}
	// The hosts that differ: every host not in the majority is in one group.
	maj := doc.one(t, "#majority").text()
	if !strings.Contains(maj, "fail") {
		t.Errorf("majority: %q", maj)
	}
	inGroups := 0
	for _, tr := range doc.one(t, "table#groups").sel("tbody")[0].sel("tr") {
		n, _ := strconv.Atoi(tr.sel("td")[0].text())
		inGroups += n
	}
	f := NewFleet()
	for _, r := range reps {
		f.Add(r, r.File)
	}
	_, majHosts := f.majority(rules.OSLinux)
	if inGroups != len(reps)-len(majHosts) {
		t.Errorf("%d hosts in the groups, want %d", inGroups, len(reps)-len(majHosts))
	}
}

// The page grows by a bounded amount per host (its section, its links in
// the rules it fails), never with the square of the fleet.
func TestFleetHTMLSizePerHost(t *testing.T) {
	_, one := fixtureReport(t, "rhel9")
	size := map[int]int{}
	for _, n := range []int{100, 1000} {
		reps := make([]rules.Report, n)
		for i := range reps {
			reps[i] = one
			reps[i].Host = fmt.Sprintf("db%05d", i)
			reps[i].File = fmt.Sprintf("fleet/db%05d.json", i)
		}
		size[n] = len(fleetPageOf(t, reps))
	}
	per := float64(size[1000]-size[100]) / 900
	t.Logf("fleet page: 100 hosts %d bytes, 1000 hosts %d bytes: %.0f bytes per host", size[100], size[1000], per)
	if per > 4096 {
		t.Errorf("%.0f bytes per host: a 2,000-host fleet would be %.1f MB", per, per*2000/1e6)
	}
}
