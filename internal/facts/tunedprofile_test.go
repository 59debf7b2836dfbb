package facts

import (
	"strings"
	"testing"
)

func TestParseTunedConf(t *testing.T) {
	es, err := ParseTunedConf("# tuned 2.20 latency-performance\r\n[main]\r\nsummary=Optimize for deterministic performance\r\n\r\n" +
		"[cpu]\nforce_latency=cstate.id_no_zero:1|3   # C1\ngovernor = performance\n; a comment\n[sysctl]\nvm.dirty_ratio=10\n" +
		"kernel.sched_min_granularity_ns = 10000000\n[bootloader]\ncmdline = skew_tick=1\n   isolcpus=2\n")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range es {
		got[e.Unit+"."+e.Option] = e.Value
	}
	for k, v := range map[string]string{"main.summary": "Optimize for deterministic performance", "cpu.force_latency": "cstate.id_no_zero:1|3",
		"cpu.governor": "performance", "sysctl.vm.dirty_ratio": "10", "sysctl.kernel.sched_min_granularity_ns": "10000000",
		"bootloader.cmdline": "skew_tick=1 isolcpus=2"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all %v)", k, got[k], v, got)
		}
	}
	if es[1].Line != 6 {
		t.Errorf("force_latency line %d", es[1].Line)
	}
	for in, want := range map[string]string{
		"vm.swappiness=10\n":          "line 1: option \"vm.swappiness\" before any [unit] header",
		"[main]\nsummary\n":           "line 2: expected \"option = value\"",
		"[main]\n[cpu\ngovernor=x\n":  "line 2: expected a unit header",
		"[sysctl]\n = 3\n":            "line 2: expected \"option = value\"",
		"[sysctl]\nvm.x: 3\n":         "line 2: expected \"option = value\"",
		"[a]\nx=1\n[b] trailing\nk=v": "line 3: expected a unit header",
	} {
		if _, err := ParseTunedConf(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want %q", in, err, want)
		}
	}
}

// tunedTree is a host whose active profile "dbhost" (in /etc/tuned)
// includes latency-performance and a site profile, with replace and drop.
func tunedTree(active string) map[string]string {
	return map[string]string{
		"/etc/tuned/active_profile": active + "\n",
		"/etc/tuned/dbhost/tuned.conf": "[main]\nsummary=site\ninclude=latency-performance, site-base\n\n" +
			"[sysctl]\nvm.swappiness=1\n\n[cpu]\ndrop=min_perf_pct\n\n[vm]\nreplace=1\ntransparent_hugepages=never\n",
		"/usr/lib/tuned/latency-performance/tuned.conf": "[main]\nsummary=lp\n[cpu]\nforce_latency=cstate.id_no_zero:1|3\n" +
			"governor=performance\nmin_perf_pct=100\n[sysctl]\nvm.dirty_ratio=10\nvm.swappiness=10\n",
		"/usr/lib/tuned/site-base/tuned.conf":      "[main]\ninclude=latency-performance\n[vm]\ntransparent_hugepage.defrag=never\n",
		"/usr/lib/tuned/site-base/README":          "not a profile\n",
		"/usr/lib/tuned/throughput-performance/x/": "",
	}
}

func TestReadTunedProfileMergesIncludes(t *testing.T) {
	c := collectorA(fakeRootA(t, tunedTree("dbhost")))
	readTuned(c)
	readTunedProfile(c)
	tu := c.Snap.Config.Tuned
	got := map[string]string{}
	for _, s := range tu.Profile {
		got[s.Unit+"."+s.Option] = s.Value + " @" + s.File[strings.LastIndex(s.File[:len(s.File)-len("/tuned.conf")], "/")+1:]
	}
	want := map[string]string{
		"cpu.force_latency":        "cstate.id_no_zero:1|3 @latency-performance/tuned.conf",
		"cpu.governor":             "performance @latency-performance/tuned.conf",
		"cpu.drop":                 "min_perf_pct @dbhost/tuned.conf",
		"sysctl.vm.dirty_ratio":    "10 @latency-performance/tuned.conf",
		"sysctl.vm.swappiness":     "1 @dbhost/tuned.conf", // the including profile overrides
		"vm.replace":               "1 @dbhost/tuned.conf",
		"vm.transparent_hugepages": "never @dbhost/tuned.conf", // replace=1 dropped site-base's defrag
		"main.summary":             "site @dbhost/tuned.conf",
	}
	if len(got) != len(want) {
		t.Errorf("settings %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	// latency-performance is loaded once although included twice; includes come first.
	if f := strings.Join(tu.ProfileFiles, " "); f != "/usr/lib/tuned/latency-performance/tuned.conf /usr/lib/tuned/site-base/tuned.conf /etc/tuned/dbhost/tuned.conf" {
		t.Errorf("files %s", f)
	}
	if len(c.Snap.Absent) != 0 {
		t.Errorf("absent %+v", c.Snap.Absent)
	}
}

func TestReadTunedProfileAbsences(t *testing.T) {
	for _, c := range []struct {
		name, active, fact, want string
		files                    map[string]string
	}{
		{"not found", "oracle", "config.tuned.profile", "profile oracle not found in /etc/tuned/profiles, /etc/tuned, /usr/lib/tuned/profiles, /usr/lib/tuned", nil},
		{"include not found", "dbhost", "config.tuned.profile", "profile site-base not found", map[string]string{"/usr/lib/tuned/site-base/tuned.conf": ""}},
		{"malformed", "latency-performance", "config.tuned.profile", "line 2: expected", map[string]string{"/usr/lib/tuned/latency-performance/tuned.conf": "[cpu]\ngovernor performance\n"}},
		{"variable include", "v", "config.tuned.profile", "cannot be resolved", map[string]string{"/etc/tuned/v/tuned.conf": "[main]\ninclude=${f:virt_check:a:b}\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := tunedTree(c.active)
			for k, v := range c.files {
				if v == "" {
					delete(files, k)
				} else {
					files[k] = v
				}
			}
			if c.active == "oracle" {
				files = map[string]string{"/etc/tuned/active_profile": "oracle\n"}
			}
			col := collectorA(fakeRootA(t, files))
			readTuned(col)
			readTunedProfile(col)
			a := absenceA(col, c.fact)
			if a == nil || !strings.Contains(a.Reason, c.want) || len(col.Snap.Config.Tuned.Profile) != 0 {
				t.Fatalf("absence %+v, profile %+v", a, col.Snap.Config.Tuned.Profile)
			}
		})
	}
	// No active profile (tuned-adm off): nothing read, nothing absent beyond active_profile itself.
	col := collectorA(fakeRootA(t, map[string]string{"/etc/tuned/active_profile": "\n", "/usr/lib/tuned/x/tuned.conf": "[main]\n"}))
	readTuned(col)
	readTunedProfile(col)
	if len(col.Snap.Config.Tuned.Profile) != 0 || absenceA(col, "config.tuned.profile") != nil {
		t.Fatalf("%+v %+v", col.Snap.Config.Tuned, col.Snap.Absent)
	}
}

func FuzzParseTunedConf(f *testing.F) {
	f.Add("[main]\ninclude=throughput-performance\n[sysctl]\nvm.dirty_ratio = 40\n")
	f.Add("[cpu]\nforce_latency=cstate.id_no_zero:1|3 # C1\n")
	f.Fuzz(func(t *testing.T, s string) {
		es, err := ParseTunedConf(s)
		if err != nil {
			if pe, ok := err.(*ParseError); !ok || pe.Line < 1 || es != nil {
				t.Fatalf("error %v with entries %v", err, es)
			}
			return
		}
		for _, e := range es {
			if e.Unit == "" || e.Option == "" || e.Line < 1 || strings.ContainsAny(e.Option, "\n=") ||
				e.Option != strings.TrimSpace(e.Option) || e.Value != strings.TrimSpace(e.Value) {
				t.Fatalf("bad entry %+v", e)
			}
		}
	})
}
