package lab

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/bench"
)

// benchScenarios run dbhost's benchmarks in multi-node guests. TCG gives
// the topology, not memory latency: they check the shape (every node pair,
// the SLIT, pages on the node asked for, nothing left behind), never speed.
func benchScenarios() []*Scenario {
	return []*Scenario{{
		Name:    "bench-numa-two-node",
		Doc:     "dbhost bench numa on 2 nodes (SLIT 10/21): all 4 CPU×memory pairs, pages on the memory node asked for (move_pages), no record left",
		Sockets: 2, Cores: 1, Threads: 1,
		Nodes: []Node{
			{ID: 0, CPUs: []int{0}, MemMB: 256},
			{ID: 1, CPUs: []int{1}, MemMB: 288},
		},
		Distances: [][]int{{10, 21}, {21, 10}},
		Guest:     benchNumaGuest,
		Check:     checkBenchNuma([][]int{{10, 21}, {21, 10}}),
	}}
}

const benchNumaGuest = `mkdir -p /tmp/st
$DBHOST bench numa --duration 400ms --size-mb 16 --format json --state-dir /tmp/st > $LAB_OUT/numa.json
echo "bench rc=$?"
$DBHOST bench numa --duration 200ms --size-mb 8 --state-dir /tmp/st > $LAB_OUT/numa.txt 2>&1
$DBHOST bench numa --duration 200ms --size-mb 8 --state-dir /tmp/st --format markdown > $LAB_OUT/numa.md 2>&1
echo "records: $(ls /tmp/st/bench | wc -l)"
`

// checkBenchNuma wants a row per node pair with positive figures, the
// scenario's SLIT distance, most sampled pages on the memory node, the text
// matrices and the Markdown ones, and no registry record left in the guest.
func checkBenchNuma(slit [][]int) func(*Result) error {
	return func(r *Result) error {
		var bad []string
		if !strings.Contains(r.Guest, "bench rc=0") {
			bad = append(bad, fmt.Sprintf("bench numa failed: %s", trunc(r.Guest, 400)))
		}
		if !strings.Contains(r.Guest, "records: 0") {
			bad = append(bad, "registry records left in the guest: "+trunc(r.Guest, 200))
		}
		res, err := bench.ParseResult("numa.json", r.Files["numa.json"])
		if err != nil {
			return fmt.Errorf("%v (guest output: %s)", err, trunc(r.Guest, 400))
		}
		if res.Host.NUMANodes != len(slit) {
			bad = append(bad, fmt.Sprintf("host.numa_nodes %d, want %d", res.Host.NUMANodes, len(slit)))
		}
		for c := range slit {
			for m := range slit {
				cas := fmt.Sprintf("cpu%d-mem%d", c, m)
				row := res.Row(cas)
				switch {
				case row == nil:
					bad = append(bad, cas+": missing")
					continue
				case row.NsPerLoad == nil || *row.NsPerLoad <= 0 || row.ThroughputGbps == nil || *row.ThroughputGbps <= 0:
					bad = append(bad, cas+": ns/load or bandwidth not positive")
				case int(row.Extra["slit_distance"]) != slit[c][m]:
					bad = append(bad, fmt.Sprintf("%s: SLIT %v, want %d", cas, row.Extra["slit_distance"], slit[c][m]))
				}
				if p := row.Labels["pages"]; !strings.HasPrefix(p, "100% node"+fmt.Sprint(m)) {
					bad = append(bad, fmt.Sprintf("%s: pages %q, want all on node %d", cas, p, m))
				}
			}
		}
		txt := string(r.Files["numa.txt"])
		for _, w := range []string{"dependent-load latency (ns/load)", "SLIT distance", "(2.1)"} {
			if !strings.Contains(txt, w) {
				bad = append(bad, fmt.Sprintf("text output lacks %q: %s", w, trunc(txt, 300)))
			}
		}
		// The Markdown: each matrix a table, CPU nodes as rows, memory nodes
		// as columns; the SLIT one cell by cell.
		head := "| cpu\\mem |"
		for m := range slit {
			head += fmt.Sprintf(" node%d |", m)
		}
		head += "\n|---|" + strings.Repeat("---:|", len(slit)) + "\n"
		want := []string{"\ndependent-load latency (ns/load)\n\n" + head, "\nstreaming read bandwidth (GB/s)\n\n" + head}
		sl := "\nSLIT distance\n\n" + head
		for c, row := range slit {
			sl += fmt.Sprintf("| node%d |", c)
			for _, d := range row {
				sl += fmt.Sprintf(" %d |", d)
			}
			sl += "\n"
		}
		md := string(r.Files["numa.md"])
		for _, w := range append(want, sl, " (2.1) |") {
			if !strings.Contains(md, w) {
				bad = append(bad, fmt.Sprintf("Markdown output lacks %q: %s", w, trunc(md, 600)))
			}
		}
		if len(bad) > 0 {
			return fmt.Errorf("%s", strings.Join(bad, "; "))
		}
		return nil
	}
}
