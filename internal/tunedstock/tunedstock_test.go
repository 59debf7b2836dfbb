package tunedstock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/facts"
)

func TestSettingsMergeIncludes(t *testing.T) {
	s, chain, ok := Settings("network-latency")
	if !ok || strings.Join(chain, ",") != "latency-performance,network-latency" {
		t.Fatalf("%v %v", chain, ok)
	}
	if s["cpu.force_latency"] != "cstate.id_no_zero:1|3" || s["vm.transparent_hugepages"] != "never" || s["sysctl.vm.dirty_ratio"] != "10" {
		t.Fatalf("%v", s)
	}
	if g, _, _ := Settings("virtual-guest"); g["sysctl.vm.dirty_ratio"] != "30" || g["sysctl.vm.dirty_background_ratio"] != "10" || g["cpu.governor"] != "performance" {
		t.Fatalf("virtual-guest %v", g)
	}
	if _, _, ok := Settings("my-site"); ok {
		t.Fatal("a custom profile is not stock")
	}
}

// TestMatchesInstalledTuned compares every profile with the tuned.conf of the
// tuned package when it is installed (the tuned suite installs it).
func TestMatchesInstalledTuned(t *testing.T) {
	const dir = "/usr/lib/tuned"
	if _, err := os.Stat(filepath.Join(dir, "throughput-performance", "tuned.conf")); err != nil {
		t.Skipf("tuned is not installed here (%v): the stock values are not compared with its profiles", err)
	}
	for name, p := range Profiles {
		b, err := os.ReadFile(filepath.Join(dir, name, "tuned.conf"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		es, err := facts.ParseTunedConf(string(b))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		real := map[string]map[string]string{}
		include := ""
		for _, e := range es {
			switch {
			case e.Unit == "main" && e.Option == "include":
				include = e.Value
			case e.Unit == "main", e.Unit == "variables", strings.Contains(e.Unit, "."), e.Unit == "script",
				e.Unit == "audio", e.Unit == "video", e.Unit == "modules", e.Option == "priority":
				// hardware-conditional instances, scripts and desktop units are not kept
			default:
				if real[e.Unit] == nil {
					real[e.Unit] = map[string]string{}
				}
				real[e.Unit][e.Option] = e.Value
			}
		}
		if include != p.Include {
			t.Errorf("%s: include %q, installed %q", name, p.Include, include)
		}
		for u, opts := range real {
			for o, v := range opts {
				if p.Units[u][o] != v {
					t.Errorf("%s: [%s] %s = %q installed, %q here", name, u, o, v, p.Units[u][o])
				}
			}
		}
		for u, opts := range p.Units {
			for o := range opts {
				if _, ok := real[u][o]; !ok {
					t.Errorf("%s: [%s] %s is not in the installed profile", name, u, o)
				}
			}
		}
	}
}
