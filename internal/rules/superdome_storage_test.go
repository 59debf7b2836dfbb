package rules

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// TestSuperdomeStorage: on the fixture built from 000's Oracle I/O test bed
// (testdata/hosts/superdome-3par) the three rules of issue 26's "Missing"
// find its three faults and nothing else: mpatha's 16 paths over the four
// blades pass, mpathb zoned through blade 0 fires; blade 2's HBA at x4 of
// x8 fires; blade 3's HBA with its vectors on CPU 0 fires, blades 0-2's
// HBAs (interrupts on their own node) pass.
func TestSuperdomeStorage(t *testing.T) {
	s, err := snapshot.Load(filepath.Join("..", "..", "testdata", "golden", "superdome-3par.json"))
	if err != nil {
		t.Fatal(err)
	}
	settings := func(id string) []string {
		rep := run(t, id, s, WorkloadDSS, DBNone)
		var out []string
		for _, f := range rep.Findings {
			out = append(out, f.Setting)
		}
		sort.Strings(out)
		return out
	}
	if got := strings.Join(settings("io.multipath-paths-one-node"), " "); got != "multipath:dm-1 paths" {
		t.Errorf("multipath: %s", got)
	}
	rep := run(t, "io.multipath-paths-one-node", s, WorkloadDSS, DBNone)
	if !strings.Contains(rep.Findings[0].Current, "mpathb (dm-1): 2 paths, every one through the HBAs of node 0") {
		t.Errorf("%+v", rep.Findings[0])
	}
	if got := strings.Join(settings("io.pcie-link-downtrained"), " "); got != "pci:0000-51-00.0 link pci:0000-51-00.1 link" {
		t.Errorf("pcie: %s", got)
	}
	if got := strings.Join(settings("numa.storage-irq-off-node"), " "); got != "irq:0000-71-00.0 affinity irq:0000-71-00.1 affinity" {
		t.Errorf("irq: %s", got)
	}
	// The 16-path LUN alone (mpathb gone): 000's own layout passes.
	good := *s
	good.Storage.Devices = nil
	for _, d := range s.Storage.Devices {
		if d.Name != "dm-1" {
			good.Storage.Devices = append(good.Storage.Devices, d)
		}
	}
	rep = quiet(t, "io.multipath-paths-one-node", &good, WorkloadDSS, DBNone)
	if len(rep.Passed) != 1 || !strings.Contains(rep.Passed[0].Reason, "mpatha (dm-0): 16 paths over nodes (node0 4, node2 4, node4 4, node6 4)") {
		t.Errorf("%+v", rep)
	}
}
