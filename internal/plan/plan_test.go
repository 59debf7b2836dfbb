package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/facts"
	"github.com/dbhost/dbhost/internal/golden"
	"github.com/dbhost/dbhost/internal/outdir"
	"github.com/dbhost/dbhost/internal/rules"
	"github.com/dbhost/dbhost/internal/snapshot"
)

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

var collected = map[string]*snapshot.Snapshot{}

// fixture collects a committed fixture host tree (testdata/hosts), once per test binary.
func fixture(t testing.TB, name string) *snapshot.Snapshot {
	t.Helper()
	if s, ok := collected[name]; ok {
		return s
	}
	dir := filepath.Join("..", "..", "testdata", "hosts", name)
	root := facts.Root{Dir: dir}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) == 1 && strings.HasPrefix(ents[0].Name(), "sosreport-") {
		root = facts.Root{Dir: filepath.Join(dir, ents[0].Name()), Sos: true}
	}
	if _, err := os.Stat(root.Dir); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	s := facts.Collect(root, facts.Options{Now: epoch, Kind: "root", Path: name})
	collected[name] = s
	return s
}

func build(t testing.TB, s *snapshot.Snapshot, o Options) *Plan {
	t.Helper()
	o.Now = epoch
	p, err := Build(s, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func find(p *Plan, kind change.Kind, key string) (change.Change, bool) {
	for _, c := range append(append([]change.Change{}, p.Changes...), p.PendingReboot...) {
		if c.Kind == kind && c.Key == key {
			return c, true
		}
	}
	return change.Change{}, false
}

func mustHave(t *testing.T, p *Plan, kind change.Kind, key, value, current string) change.Change {
	t.Helper()
	c, ok := find(p, kind, key)
	if !ok {
		t.Fatalf("no %s %s in plan: %+v %+v", kind, key, p.Changes, p.PendingReboot)
	}
	if c.Value != value || current != "-" && c.Current != current || c.Rule == "" {
		t.Fatalf("%s %s: %+v, want %q (now %q)", kind, key, c, value, current)
	}
	return c
}

var fixtures = []string{"laptop-2s", "interleaved-4n", "numa-off", "cgroup-v1", "cgroup-v2", "memoryless", "nosmt", "odd-8n", "sosreport-db1"}

// Every fixture plans without error, every change is valid, and the plan
// survives plan.json (Write → Load) unchanged.
func TestEveryFixture(t *testing.T) {
	for _, name := range fixtures {
		for _, wl := range rules.Workloads {
			s := fixture(t, name)
			p := build(t, s, Options{Workload: wl})
			for _, c := range p.Changes {
				if err := checkChange(c, false); err != nil {
					t.Errorf("%s %s: %v", name, wl, err)
				}
			}
			for _, c := range p.PendingReboot {
				if err := checkChange(c, true); err != nil {
					t.Errorf("%s %s: %v", name, wl, err)
				}
			}
			seen := map[string]bool{}
			for _, c := range append(append([]change.Change{}, p.Changes...), p.PendingReboot...) {
				if seen[mergeKey(c)] {
					t.Errorf("%s %s: %s %s twice", name, wl, c.Kind, c.Key)
				}
				seen[mergeKey(c)] = true
			}
			dir := filepath.Join(t.TempDir(), "plan")
			if err := p.Write(dir); err != nil {
				t.Fatal(err)
			}
			q, err := Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, q) {
				t.Errorf("%s %s: plan.json round trip differs:\n%+v\n%+v", name, wl, p, q)
			}
		}
	}
}

func TestFixtureStories(t *testing.T) {
	t.Run("numa-off: remove numa at the next boot, never at runtime", func(t *testing.T) {
		p := build(t, fixture(t, "numa-off"), Options{Workload: rules.WorkloadMixed})
		c := mustHave(t, p, change.BootArg, "numa", "", "off")
		if !c.Remove || c.Rule != "numa.disabled-at-boot" {
			t.Fatalf("%+v", c)
		}
		for _, c := range p.Changes {
			if c.Kind == change.BootArg {
				t.Fatalf("boot argument among runtime changes: %+v", c)
			}
		}
		b := string(p.BootArgs())
		// pg-numaoff is Debian 12: no grubby there (issue 26, item 10), the
		// /etc/default/grub edit as a comment and update-grub.
		if !strings.Contains(b, "# numa.disabled-at-boot: ") || !strings.Contains(b, "\n#   edit /etc/default/grub: remove numa=... from GRUB_CMDLINE_LINUX\n") ||
			!strings.HasSuffix(b, "\nupdate-grub\n") || strings.Contains(b, "grubby") || p.BootLoader != "update-grub" {
			t.Fatal(b)
		}
		// bfq on the rotational disk → mq-deadline, written before nr_requests
		// (switching the elevator resets nr_requests).
		mustHave(t, p, change.Sysfs, "/sys/block/sda/queue/scheduler", "mq-deadline", "bfq")
		mustHave(t, p, change.Sysfs, "/sys/block/sda/queue/nr_requests", "1024", "64")
		is, ir := -1, -1
		for i, c := range p.Changes {
			switch c.Key {
			case "/sys/block/sda/queue/scheduler":
				is = i
			case "/sys/block/sda/queue/nr_requests":
				ir = i
			}
		}
		if is > ir {
			t.Fatalf("scheduler (%d) must come before nr_requests (%d)", is, ir)
		}
		tc := string(p.TunedConf())
		if !strings.Contains(tc, "type=disk\ndevices=sda\nelevator=mq-deadline\n") {
			t.Fatal(tc)
		}
		if !strings.Contains(tc, "remove with grubby (boot-args.txt): numa") || strings.Contains(tc, "\n[bootloader]") {
			t.Fatal(tc)
		}
	})
	t.Run("interleaved-4n dss: NUMA balancing off, SAN queues per class", func(t *testing.T) {
		p := build(t, fixture(t, "interleaved-4n"), Options{Workload: rules.WorkloadDSS})
		if p.DB != rules.DBOracle || p.TunedProfile != TunedThroughput {
			t.Fatalf("%s %s", p.DB, p.TunedProfile)
		}
		mustHave(t, p, change.Sysctl, "kernel.numa_balancing", "0", "1")
		for _, d := range []string{"sdb", "sdc"} {
			c := mustHave(t, p, change.Sysfs, "/sys/block/"+d+"/device/queue_depth", "128", "64")
			if c.Device != d || !strings.Contains(c.Match, `ATTRS{vendor}=="NETAPP*"`) {
				t.Fatalf("%+v", c)
			}
		}
		u := string(p.UdevRules())
		// the two paths share one class rule
		if strings.Count(u, `ATTR{device/queue_depth}="128"`) != 1 ||
			!strings.Contains(u, `ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="sd*", ENV{DEVTYPE}=="disk", ATTRS{vendor}=="NETAPP*", ATTR{device/queue_depth}="128"`) {
			t.Fatal(u)
		}
	})
	t.Run("laptop-2s: THP, governor, C-states", func(t *testing.T) {
		p := build(t, fixture(t, "laptop-2s"), Options{Workload: rules.WorkloadOLTP})
		mustHave(t, p, change.Sysfs, "/sys/kernel/mm/transparent_hugepage/enabled", "madvise", "always")
		mustHave(t, p, change.BootArg, "transparent_hugepage", "madvise", "")
		mustHave(t, p, change.Sysfs, "/sys/devices/system/cpu/cpu10/cpufreq/scaling_governor", "performance", "powersave")
		tc := string(p.TunedConf())
		if !strings.Contains(tc, "\n[vm]\n") || !strings.Contains(tc, "\ntransparent_hugepages=madvise\n") ||
			strings.Count(tc, "governor=performance") != 1 || strings.Contains(tc, "scaling_governor") {
			t.Fatal(tc)
		}
	})
	t.Run("cgroup-v2: a guest gets virtual-guest", func(t *testing.T) {
		p := build(t, fixture(t, "cgroup-v2"), Options{Workload: rules.WorkloadOLTP})
		if p.TunedProfile != TunedGuest || !strings.Contains(string(p.TunedConf()), "\ninclude=virtual-guest\n") {
			t.Fatal(p.TunedProfile)
		}
		if q := build(t, fixture(t, "cgroup-v2"), Options{Workload: rules.WorkloadLatency}); q.TunedProfile != TunedLatency {
			t.Fatal(q.TunedProfile)
		}
		if q := build(t, fixture(t, "nosmt"), Options{Workload: rules.WorkloadDSS}); q.TunedProfile != TunedThroughput {
			t.Fatal(q.TunedProfile)
		}
	})
	t.Run("advice without a setting is kept for the DBA", func(t *testing.T) {
		p := build(t, fixture(t, "cgroup-v1"), Options{Workload: rules.WorkloadOLTP})
		ids := map[string]bool{}
		for _, a := range p.FindingsWithoutChanges {
			ids[a.Rule] = true
		}
		if !ids["numa.db-memory-remote"] || ids["network.jumbo-frames"] || ids["cgroup.cpuset-mems-not-local"] {
			t.Fatalf("%+v", p.FindingsWithoutChanges)
		}
		// The cpuset's mems and the MTU are settings: changes, not advice; the MTU needs --accept-risk.
		if c, ok := find(p, change.Sysfs, "/sys/class/net/eno1/mtu"); !ok || c.Value != "9000" || c.Risk == "" {
			t.Fatalf("%+v", p.Changes)
		}
		if c, ok := find(p, change.Sysfs, "/sys/fs/cgroup/cpuset/oracle/cpuset.mems"); !ok || c.Value != "0" {
			t.Fatalf("%+v", p.Changes)
		}
	})
	t.Run("--only keeps one area", func(t *testing.T) {
		p := build(t, fixture(t, "numa-off"), Options{Workload: rules.WorkloadMixed, Only: []string{"io"}})
		if len(p.PendingReboot) != 0 || len(p.Changes) == 0 {
			t.Fatalf("%+v", p)
		}
		for _, c := range p.Changes {
			if !strings.HasPrefix(c.Rule, "io.") {
				t.Fatalf("%+v", c)
			}
		}
		p = build(t, fixture(t, "numa-off"), Options{Workload: rules.WorkloadMixed, Only: []string{"numa.disabled-at-boot"}})
		if len(p.PendingReboot) != 1 || len(p.Changes) != 0 {
			t.Fatalf("%+v", p)
		}
	})
}

func TestBuildRejects(t *testing.T) {
	s := fixture(t, "nosmt")
	if _, err := Build(s, Options{Workload: "batch"}); err == nil {
		t.Fatal("unknown workload accepted")
	}
	if _, err := Build(s, Options{DB: "db2"}); err == nil {
		t.Fatal("unknown db accepted")
	}
	if _, err := Build(nil, Options{}); err == nil {
		t.Fatal("nil snapshot accepted")
	}
}

func TestMerge(t *testing.T) {
	sev := map[string]int{"a.warn": 2, "b.warn": 2, "c.crit": 3, "d.info": 1}
	sc := func(rule, key, value string) change.Change {
		return change.Change{Kind: change.Sysctl, Key: key, Value: value, Rule: rule, Why: "w"}
	}
	cases := []struct {
		name string
		in   []change.Change
		want string // rule and value kept
		conf bool
	}{
		{"same value once, both rules named", []change.Change{sc("a.warn", "vm.swappiness", "10"), sc("b.warn", "vm.swappiness", "10")}, "a.warn,b.warn=10", false},
		{"more severe wins", []change.Change{sc("d.info", "vm.swappiness", "1"), sc("c.crit", "vm.swappiness", "10")}, "c.crit=10", true},
		{"lower swappiness is stricter", []change.Change{sc("a.warn", "vm.swappiness", "10"), sc("b.warn", "vm.swappiness", "1")}, "b.warn=1", true},
		{"higher somaxconn is stricter", []change.Change{sc("a.warn", "net.core.somaxconn", "4096"), sc("b.warn", "net.core.somaxconn", "1024")}, "a.warn=4096", true},
		{"non-numeric: first rule id", []change.Change{sc("b.warn", "k", "x"), sc("a.warn", "k", "y")}, "a.warn=y", true},
	}
	for _, c := range cases {
		out, conf := merge(c.in, sev)
		if len(out) != 1 || out[0].Rule+"="+out[0].Value != c.want || (len(conf) == 1) != c.conf {
			t.Errorf("%s: %+v %v", c.name, out, conf)
		}
		if c.conf && !strings.Contains(conf[0], "kept") {
			t.Errorf("%s: %v", c.name, conf)
		}
	}
	rm := change.Change{Kind: change.BootArg, Key: "numa", Remove: true, Rule: "a.warn"}
	add := change.Change{Kind: change.BootArg, Key: "numa", Value: "on", Rule: "b.warn"}
	if out, _ := merge([]change.Change{add, rm}, sev); len(out) != 1 || !out[0].Remove {
		t.Errorf("removal preferred: %+v", out)
	}
	// Different kinds with one key are different settings.
	if out, _ := merge([]change.Change{sc("a.warn", "x", "1"), {Kind: change.Sysfs, Key: "x", Value: "2", Rule: "a.warn"}}, sev); len(out) != 2 {
		t.Errorf("%+v", out)
	}
}

func TestNaturalLess(t *testing.T) {
	in := []string{"cpu10", "cpu2", "cpu1", "a", "cpu02x", "node1/x"}
	want := []string{"a", "cpu1", "cpu2", "cpu02x", "cpu10", "node1/x"}
	got := append([]string{}, in...)
	for i := range got {
		for j := i + 1; j < len(got); j++ {
			if naturalLess(got[j], got[i]) {
				got[i], got[j] = got[j], got[i]
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatal(got)
	}
}

func TestParseRejects(t *testing.T) {
	good := `{"schema_version":1,"host":"h","changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"r"}],"pending_reboot":[{"kind":"bootarg","key":"numa","remove":true,"rule":"r"}]}`
	if p, err := Parse([]byte(good)); err != nil || len(p.Changes) != 1 || p.FindingsWithoutChanges == nil {
		t.Fatalf("%v %+v", err, p)
	}
	for name, b := range map[string]string{
		"schema":             `{"schema_version":2}`,
		"not json":           `{"schema_version":1`,
		"trailing":           `{"schema_version":1} {}`,
		"unknown kind":       `{"schema_version":1,"changes":[{"kind":"magic","key":"x"}]}`,
		"no key":             `{"schema_version":1,"changes":[{"kind":"sysctl","key":""}]}`,
		"sysfs outside sys":  `{"schema_version":1,"changes":[{"kind":"sysfs","key":"/etc/passwd","value":"x"}]}`,
		"sysfs escape":       `{"schema_version":1,"changes":[{"kind":"sysfs","key":"/sys/../etc/passwd","value":"x"}]}`,
		"sysctl with space":  `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm swappiness","value":"x"}]}`,
		"newline in value":   `{"schema_version":1,"changes":[{"kind":"sysctl","key":"vm.swappiness","value":"1\nkernel.x=1"}]}`,
		"bootarg at runtime": `{"schema_version":1,"changes":[{"kind":"bootarg","key":"numa","remove":true}]}`,
		"sysctl at reboot":   `{"schema_version":1,"pending_reboot":[{"kind":"sysctl","key":"vm.swappiness","value":"1"}]}`,
		"limit key":          `{"schema_version":1,"changes":[{"kind":"limit","key":"oracle memlock","value":"1"}]}`,
	} {
		if _, err := Parse([]byte(b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("missing plan loaded")
	}
}

func TestWriteReplacesAtomically(t *testing.T) {
	p := build(t, fixture(t, "numa-off"), Options{})
	dir := filepath.Join(t.TempDir(), "out", "plan")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// A file dbhost did not write: refused, named, kept.
	if err := os.WriteFile(filepath.Join(dir, "keep"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	var re *outdir.RefusedError
	if err := p.Write(dir); !errors.As(err, &re) || !strings.HasSuffix(re.File, "keep") {
		t.Fatalf("a directory with a foreign file: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "keep")); err != nil || string(b) != "x" {
		t.Fatal("the foreign file was touched")
	}
	os.Remove(filepath.Join(dir, "keep"))
	// A plan directory of a dbhost before manifests (its files only) is
	// replaced, and so is a plan with a manifest.
	old, _ := p.Artifacts()
	for n, b := range old {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, n)), 0o755)
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Fatalf("temporary directories left: %v", ents)
	}
	for _, f := range []string{FileName, TunedFile, SysctlFile, UdevFile, LimitsFile, BootArgFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Write(file); err == nil {
		t.Fatal("wrote over a regular file")
	}
}

// tunedOptions are the option names tuned 2.20 accepts per plugin (from
// `tuned` 2.20's plugin sources; the instance options type and devices are
// the framework's). Plugins with dynamic keys ([sysctl], [sysfs]) take any key.
var tunedOptions = map[string][]string{
	"main":       {"summary", "include"},
	"vm":         {"transparent_hugepages", "transparent_hugepage", "transparent_hugepage.defrag"},
	"cpu":        {"load_threshold", "latency_low", "latency_high", "force_latency", "governor", "sampling_down_factor", "energy_perf_bias", "min_perf_pct", "max_perf_pct", "no_turbo", "pm_qos_resume_latency_us", "energy_performance_preference"},
	"disk":       {"type", "devices", "dynamic", "elevator", "apm", "spindown", "readahead", "readahead_multiply", "scheduler_quantum"},
	"bootloader": {"grub2_cfg_file", "initrd_dst_img", "initrd_add_img", "initrd_add_dir", "initrd_remove_dir", "cmdline", "skip_grub_config"},
}

// checkTunedOptions fails on any option tuned 2.20 would warn about ("Unknown option").
func checkTunedOptions(t *testing.T, conf string) {
	t.Helper()
	section := ""
	for i, l := range strings.Split(conf, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]") {
			section = l[1 : len(l)-1]
			if strings.HasPrefix(section, "dbhost_disk") {
				section = "disk"
			}
			continue
		}
		k, _, ok := strings.Cut(l, "=")
		if !ok {
			t.Errorf("line %d: %q is not option=value", i+1, l)
			continue
		}
		if section == "sysctl" || section == "sysfs" {
			continue
		}
		opts, known := tunedOptions[section]
		if !known {
			t.Errorf("line %d: section [%s] is not a plugin dbhost uses", i+1, section)
			continue
		}
		found := false
		for _, o := range opts {
			found = found || o == k
		}
		if !found {
			t.Errorf("line %d: [%s] %s is not a tuned 2.20 option", i+1, section, k)
		}
	}
}

func TestTunedOptionNames(t *testing.T) {
	for _, name := range fixtures {
		for _, wl := range rules.Workloads {
			p := build(t, fixture(t, name), Options{Workload: wl, TunedBootloader: true})
			checkTunedOptions(t, string(p.TunedConf()))
		}
	}
}

// The artifacts of three fixture plans, byte for byte: testdata/golden/CASE/
// holds exactly the files the plan writes (internal/golden: a file no case
// writes any more is stale; go test -update rewrites and removes).
func TestGoldenArtifacts(t *testing.T) {
	got := map[string][]byte{}
	for _, c := range []struct{ name, fixture, workload string }{
		{"numa-off-mixed", "numa-off", rules.WorkloadMixed},
		{"interleaved-4n-dss", "interleaved-4n", rules.WorkloadDSS},
		{"laptop-2s-oltp", "laptop-2s", rules.WorkloadOLTP},
	} {
		p := build(t, fixture(t, c.fixture), Options{Workload: c.workload})
		files, err := p.Artifacts()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for rel, b := range files {
			got[c.name+"/"+rel] = b
		}
	}
	golden.Check(t, golden.Set{Dir: filepath.Join("testdata", "golden"), Hint: "go test ./internal/plan -run TestGoldenArtifacts -update"}, got)
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"schema_version":1,"host":"h","changes":[{"kind":"sysctl","key":"vm.swappiness","value":"10","rule":"r"}],"pending_reboot":[]}`))
	f.Add([]byte(`{"schema_version":1,"changes":[{"kind":"sysfs","key":"/sys/block/sda/queue/scheduler","value":"none","device":"sda","match":"KERNEL==\"sd*\"","rule":"io.scheduler"}],"pending_reboot":[{"kind":"bootarg","key":"numa","remove":true,"rule":"numa.disabled-at-boot"}]}`))
	f.Add([]byte(`{"schema_version":1,"changes":[{"kind":"limit","key":"oracle soft memlock","value":"unlimited","rule":"m"}]}`))
	f.Add([]byte(`{"schema_version":1} x`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		// A plan that loads writes artifacts without panicking and survives a round trip.
		if _, err := p.Artifacts(); err != nil {
			t.Fatal(err)
		}
		j, err := p.JSON()
		if err != nil {
			t.Fatal(err)
		}
		q, err := Parse(j)
		if err != nil {
			t.Fatalf("a loaded plan does not load again: %v\n%s", err, j)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip differs:\n%+v\n%+v", p, q)
		}
	})
}

// FuzzBuild: any snapshot JSON (seed corpus: a SAN host with multipath,
// bond and listeners; a numa=off host with bfq, THP always and a powersave
// governor) plans without a panic under every workload, and the plan it
// writes loads again, every change one the catalog admits (Vet).
func FuzzBuild(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		var s snapshot.Snapshot
		if json.Unmarshal(b, &s) != nil {
			return
		}
		for _, wl := range rules.Workloads {
			p, err := Build(&s, Options{Workload: wl, Now: epoch})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.Artifacts(); err != nil {
				t.Fatal(err)
			}
			j, err := p.JSON()
			if err != nil {
				t.Fatal(err)
			}
			q, err := Parse(j)
			if err == nil {
				err = q.Vet(j)
			}
			if err != nil {
				t.Fatalf("a built plan does not load: %v", err)
			}
		}
	})
}

// tuned gives a device to one instance of a plugin: all of a device's [disk]
// options are in one instance, devices of one class with the same options share it.
func TestTunedDiskInstances(t *testing.T) {
	ssd := `KERNEL=="sd*", ENV{DEVTYPE}=="disk", ATTR{queue/rotational}=="0"`
	blk := func(dev, attr, v, match string) change.Change {
		return change.Change{Kind: change.Sysfs, Key: "/sys/block/" + dev + "/queue/" + attr, Value: v, Device: dev, Match: match, Rule: "io.x", Why: "w"}
	}
	p := &Plan{SchemaVersion: 1, Workload: "dss", DB: "none", TunedProfile: TunedThroughput, Changes: []change.Change{
		blk("sda", "scheduler", "none", ssd), blk("sda", "read_ahead_kb", "4096", ssd),
		blk("sdb", "scheduler", "none", ssd), blk("sdb", "read_ahead_kb", "4096", ssd),
		blk("sdc", "scheduler", "none", ssd),
		blk("sdc", "nr_requests", "1024", ssd),
	}}
	tc := string(p.TunedConf())
	checkTunedOptions(t, tc)
	for _, want := range []string{
		"\n[disk]\n# the base profile's disk tuning, minus zram and the devices tuned by the instances below\ndevices=!zram*,!sda,!sdb,!sdc\n",
		"type=disk\ndevices=sda,sdb\nelevator=none\nreadahead=4096\n",
		"type=disk\ndevices=sdc\nelevator=none\n\n[sysfs]\n",
		"/sys/block/sdc/queue/nr_requests=1024\n",
	} {
		if !strings.Contains(tc, want) {
			t.Fatalf("missing %q in\n%s", want, tc)
		}
	}
	if strings.Count(tc, "devices=sda") != 1 {
		t.Fatal(tc)
	}
}

// A finding whose fix runs `sysctl -w KEY=...` carries that sysctl as a
// change (a rule added later without Changes fails here).
func TestSysctlFixesAreChanges(t *testing.T) {
	n := 0
	for _, name := range fixtures {
		s := fixture(t, name)
		for _, wl := range rules.Workloads {
			db, _ := rules.DetectDB(s, nil)
			rep := rules.Run(&rules.Input{Snap: s, Workload: wl, DB: db})
			for _, f := range rep.Findings {
				for _, cmd := range f.Fix.Runtime {
					rest, ok := strings.CutPrefix(cmd, "sysctl -w ")
					if !ok {
						continue
					}
					key, _, _ := strings.Cut(rest, "=")
					found := false
					for _, c := range f.Changes {
						found = found || c.Kind == change.Sysctl && c.Key == key
					}
					if !found {
						t.Errorf("%s %s: %s runs %q but has no sysctl change for %s", name, wl, f.ID, cmd, key)
					}
					n++
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no sysctl fix in any fixture: the test checks nothing")
	}
}

// Risky changes are in the artifacts only as comments: nothing installed
// from plan/ does what apply refuses without --accept-risk.
func TestRiskyChangesCommentedOut(t *testing.T) {
	ct := change.Change{Kind: change.Sysfs, Key: "/sys/block/sdb/device/scsi_disk/*/cache_type", Value: "temporary write through",
		Device: "sdb", Match: `KERNEL=="sd*", ENV{DEVTYPE}=="disk"`, Rule: "io.cache-type-write-through", Why: "w", Risk: "data loss"}
	sc := change.Change{Kind: change.Sysctl, Key: "vm.x", Value: "1", Rule: "r", Why: "w", Risk: "boom"}
	p := &Plan{SchemaVersion: 1, TunedProfile: TunedThroughput, Changes: []change.Change{sc, ct}}
	for name, text := range map[string]string{"tuned": string(p.TunedConf()), "udev": string(p.UdevRules()), "sysctl": string(p.SysctlConf())} {
		for _, l := range strings.Split(text, "\n") {
			if l != "" && !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "[") && !strings.Contains(l, "=!zram") &&
				!strings.HasPrefix(l, "summary=") && !strings.HasPrefix(l, "include=") {
				t.Errorf("%s: active line %q for a risky change", name, l)
			}
		}
	}
	u := string(p.UdevRules())
	if !strings.Contains(u, `RUN+="/bin/sh -c 'echo temporary write through > /sys$devpath/device/scsi_disk/*/cache_type'"`) || !strings.Contains(u, "RISK: data loss") {
		t.Fatal(u)
	}
}

// TestParseErrors: a damaged plan.json names the line and what was wrong.
func TestParseErrors(t *testing.T) {
	good, err := build(t, fixture(t, "laptop-2s"), Options{Workload: rules.WorkloadOLTP}).JSON()
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	for _, c := range []struct{ name, in, want string }{
		{"cut off", strings.Join(lines[:len(lines)/2], "\n") + "\n", fmt.Sprintf("line %d: the file ends inside the JSON document", len(lines)/2)},
		{"syntax", strings.Replace(string(good), `"changes": [`, `"changes": [,`, 1), "line 7: invalid character ','"},
		{"type", strings.Replace(string(good), `"schema_version": 1`, `"schema_version": "1"`, 1), "line 2: json: cannot unmarshal string into Go struct field Plan.schema_version of type int"},
		{"trailing", string(good) + "\n\n{}\n", fmt.Sprintf("line %d: data after the plan's JSON object", len(lines)+2)},
		{"schema", strings.Replace(string(good), `"schema_version": 1`, `"schema_version": 2`, 1), "schema_version 2: this dbhost reads plans of version 1"},
		{"no key", `{"schema_version": 1, "changes": [{"kind": "sysctl", "value": "1"}]}`, "changes[0] (line 1): no key"},
		{"empty", " \n", "not a dbhost plan: the file is empty"},
	} {
		if _, err := Parse([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	dir := t.TempDir()
	if _, err := Load(dir); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), filepath.Join(dir, FileName)) {
		t.Errorf("Load of a directory without plan.json: %v", err)
	}
}
