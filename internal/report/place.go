package report

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/apply"
	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/place"
)

// The views of dbhost place: the placement (place computes it, the
// report draws it), as text or Markdown, and place --apply's summary.

// PlaceText is the placement for people: the instances' CPUs, memory
// nodes and hugepages, the cpusets, the KVM guests, then the reasons it is
// infeasible and the warnings. It heads the README.txt of the artifacts.
func PlaceText(r *place.Result) []byte {
	d := newTextDoc(0)
	placement(d, r)
	return d.bytes()
}

// PlaceMarkdown is PlaceText's view in Markdown.
func PlaceMarkdown(r *place.Result) []byte {
	d := &mdDoc{}
	d.title("dbhost place (" + r.Strategy + ")")
	placement(d, r)
	return d.bytes()
}

// placeRow is a row of the instance table in text: place's fixed columns
// (a longer cell pushes the rest of its line right; the last column is not
// padded, an empty one leaves the padding before it).
func placeRow(c []string) string {
	return fmt.Sprintf("%-20s %-8s %-11s %-9s %-24s %-8s %s", c[0], c[1], c[2], c[3], c[4], c[5], c[6])
}

func placement(d doc, r *place.Result) {
	if r.Feasible {
		hidden := ""
		if len(r.NUMAHidden) > 0 {
			hidden = fmt.Sprintf(" (NUMA hidden: %s; see the warning below)", nOf(r.Sockets, "socket", "sockets"))
		}
		d.line(fmt.Sprintf("Placement (%s): feasible on %s, %s%s; hugepages of %d kB", r.Strategy, nOf(r.Threads, "thread", "threads"), nOf(r.Nodes, "node", "nodes"), hidden, r.HugepageSizeKB))
	} else {
		d.line(fmt.Sprintf("Placement (%s): INFEASIBLE", r.Strategy))
	}
	if r.CoreTypes != "" {
		d.line("Core types: " + r.CoreTypes)
	}
	if r.Feasible {
		t := docTable{head: []string{"INSTANCE", "ENGINE", "CLASS", "CPU_COUNT", "CPUS", "MEMS", "HUGEPAGES (node:pages)"}, textRow: placeRow}
		for _, ip := range r.Instances {
			var hp []string
			for _, h := range ip.Hugepages {
				hp = append(hp, fmt.Sprintf("%d:%d", h.Node, h.Pages))
			}
			cpus := cpulist.Format(ip.CPUs)
			if ip.Group == "" && ip.Guest == nil {
				cpus = "all (caged)"
				if !ip.Caged {
					cpus = "all (not caged)"
				}
			}
			t.rows = append(t.rows, []string{ip.Name, ip.Engine, ip.Class, fmt.Sprint(ip.CPUCount), cpus, cpulist.Format(ip.Mems), strings.Join(hp, " ")})
		}
		d.table(t)
		for _, g := range r.Groups {
			d.line(fmt.Sprintf("cpuset %s: cpus %s mems %s (%s)", d.code(g.Name), cpulist.Format(g.CPUs), cpulist.Format(g.Mems), strings.Join(g.Members, ", ")))
		}
		placeGuests(d, r)
	}
	problems(d, "error", r.Errors)
	problems(d, "warning", r.Warnings)
}

// problems are a placement's errors or warnings, one line each.
func problems(d doc, kind string, ps []place.Problem) {
	for _, p := range ps {
		who := p.Instance
		if who == "" {
			who = "plan"
		}
		d.line(fmt.Sprintf("%s: %s: %s", kind, who, p.Message))
	}
}

// placeGuests are the KVM guests' part: the emulator cores, then each
// guest's vCPU pins, emulator, memory and cells.
func placeGuests(d doc, r *place.Result) {
	for _, ec := range r.Emulator {
		d.line(fmt.Sprintf("emulator core: node %d cpus %s (emulator threads of %s)", ec.Node, cpulist.Format(ec.CPUs), strings.Join(ec.Guests, ", ")))
	}
	for _, ip := range r.Instances {
		g := ip.Guest
		if g == nil {
			continue
		}
		pins := make([]string, 0, len(g.Pins))
		for _, p := range g.Pins {
			pins = append(pins, fmt.Sprintf("%d→%s", p.VCPU, cpulist.Format(p.CPUs)))
		}
		if ip.Class != "guaranteed" {
			pins = []string{fmt.Sprintf("0-%d→%s (floating)", g.VCPUs-1, cpulist.Format(ip.CPUs))}
		}
		emu := cpulist.Format(g.EmulatorCPUs)
		if g.EmulatorOnVCPUs {
			emu += " (on its vCPUs: no free core)"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "guest %s (domain %s): %d vCPUs %s; emulator %s; memory %s %s, %d KiB in pages of %d kB",
			ip.Name, d.code(g.Domain), g.VCPUs, strings.Join(pins, " "), emu, g.MemoryMode, cpulist.Format(g.Nodeset), g.MemoryKB, g.PageKB)
		for _, c := range g.Cells {
			fmt.Fprintf(&b, "; cell %d: vCPUs %s on node %d, %d KiB", c.ID, cpulist.Format(c.VCPUs), c.HostNode, c.MemoryKB)
		}
		d.line(b.String())
	}
}

// nOf is "1 node", "2 nodes".
func nOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// PlaceApplyText is place --apply's text: the placement (PlaceText), the
// cgroup hierarchy used, the notes, then what apply did (ApplyText).
func PlaceApplyText(r *place.Result, hierarchy string, notes []string, res *apply.Result) []byte {
	d := newTextDoc(0)
	placeApplied(d, r, hierarchy, notes, res)
	return d.bytes()
}

// PlaceApplyMarkdown is PlaceApplyText's view in Markdown.
func PlaceApplyMarkdown(r *place.Result, hierarchy string, notes []string, res *apply.Result) []byte {
	d := &mdDoc{}
	d.title("dbhost place --apply (" + r.Strategy + ")")
	placeApplied(d, r, hierarchy, notes, res)
	return d.bytes()
}

func placeApplied(d doc, r *place.Result, hierarchy string, notes []string, res *apply.Result) {
	placement(d, r)
	d.line("")
	if hierarchy != "" {
		d.line("cgroup hierarchy: " + d.code(hierarchy))
	}
	for _, n := range notes {
		d.line("note: " + n)
	}
	applyView(d, res)
}
