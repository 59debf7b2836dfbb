package plan

import (
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/rules"
)

// RHEL 6's tuned 0.2 cannot load a tuned 2.x tuned.conf (issue 26, item 5):
// the rhel6 fixture's plan writes sysctl.d, udev, limits and boot-args only,
// and names a profile 0.2 has; rhel7's keeps its tuned.conf.
func TestTunedV02PlanWritesNoTunedConf(t *testing.T) {
	for _, wl := range rules.Workloads {
		p := build(t, fixture(t, "rhel6"), Options{Workload: wl})
		files, err := p.Artifacts()
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := files[TunedFile]; ok || !p.TunedV02 {
			t.Errorf("rhel6 %s: tuned.conf written for tuned 0.2 (tuned_0_2 %v)", wl, p.TunedV02)
		}
		for _, need := range []string{FileName, SysctlFile, UdevFile, LimitsFile, BootArgFile} {
			if _, ok := files[need]; !ok {
				t.Errorf("rhel6 %s: no %s", wl, need)
			}
		}
		if len(p.ArtifactNames()) != len(files) {
			t.Errorf("rhel6 %s: ArtifactNames %v, files %d", wl, p.ArtifactNames(), len(files))
		}
		if strings.HasPrefix(p.TunedProfile, "network-") || strings.Contains(p.TunedWhy, "network-latency built") {
			t.Errorf("rhel6 %s: tuned profile %s (%s)", wl, p.TunedProfile, p.TunedWhy)
		}
	}
	p := build(t, fixture(t, "rhel7"), Options{Workload: rules.WorkloadOLTP})
	files, err := p.Artifacts()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := files[TunedFile]; !ok || p.TunedV02 {
		t.Error("rhel7: no tuned.conf")
	}
}
