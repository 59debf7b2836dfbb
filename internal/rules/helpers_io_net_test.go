package rules

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Storage and network snapshot builders for the io.* and network.* rule tests.

func i64(v int64) *int64 { return &v }

// disk returns a SCSI disk with the given rotational flag and scheduler.
func disk(name string, rotational bool, sched string) snapshot.BlockDevice {
	return snapshot.BlockDevice{Name: name, Kind: "disk", Rotational: ptr(rotational), Scheduler: ptr(sched),
		Schedulers: []string{"mq-deadline", "kyber", "bfq", "none"}, NrRequests: i64(256), MaxSectorsKB: i64(512),
		MaxHWSectorsKB: i64(32767), Nomerges: i64(0), ReadAheadKB: i64(128), WriteCache: ptr("write back"),
		QueueDepth: i64(64), CacheType: ptr("write back"), Vendor: "DELL", Model: "PERC H740P"}
}

// sanHost is host() with a multipath LUN dm-0 over paths sdb and sdc (NETAPP),
// a local SSD sda holding / and an NVMe namespace holding /u02.
func sanHost() *snapshot.Snapshot {
	s := host()
	sda := disk("sda", false, "mq-deadline")
	sdb, sdc := disk("sdb", true, "mq-deadline"), disk("sdc", true, "mq-deadline")
	for _, p := range []*snapshot.BlockDevice{&sdb, &sdc} {
		p.Vendor, p.Model, p.Holders = "NETAPP", "LUN C-Mode", []string{"dm-0"}
	}
	dm := snapshot.BlockDevice{Name: "dm-0", Kind: "dm", Rotational: ptr(true), Scheduler: ptr("mq-deadline"),
		Schedulers: []string{"mq-deadline", "kyber", "bfq", "none"}, NrRequests: i64(1024), MaxSectorsKB: i64(512),
		MaxHWSectorsKB: i64(512), Nomerges: i64(0), ReadAheadKB: i64(128), DMName: "mpatha",
		DMUUID: "mpath-3600a0980", Multipath: true, Slaves: []string{"sdb", "sdc"}}
	nvme := snapshot.BlockDevice{Name: "nvme0n1", Kind: "nvme", Rotational: ptr(false), Scheduler: ptr("none"),
		Schedulers: []string{"none", "mq-deadline", "kyber", "bfq"}, NrRequests: i64(1023), MaxSectorsKB: i64(128),
		MaxHWSectorsKB: i64(128), Nomerges: i64(0), ReadAheadKB: i64(128), WriteCache: ptr("write back")}
	loop := snapshot.BlockDevice{Name: "loop0", Kind: "loop", Scheduler: ptr("cfq")}
	s.Storage.Devices = []snapshot.BlockDevice{dm, loop, nvme, sda, sdb, sdc}
	s.Storage.Mounts = []snapshot.Mount{
		{Device: "/dev/sda2", Path: "/", FSType: "xfs", Options: []string{"rw", "relatime"}},
		{Device: "/dev/nvme0n1p1", Path: "/u02", FSType: "xfs", Options: []string{"rw", "noatime"}},
	}
	return s
}

// dev returns the named device of s for editing.
func dev(t *testing.T, s *snapshot.Snapshot, name string) *snapshot.BlockDevice {
	t.Helper()
	for i := range s.Storage.Devices {
		if s.Storage.Devices[i].Name == name {
			return &s.Storage.Devices[i]
		}
	}
	t.Fatalf("no device %s", name)
	return nil
}

// netHost is host() with a 10 GbE NIC eno1 (up, 10.0.0.5/24), a down eno2 and lo.
func netHost() *snapshot.Snapshot {
	s := host()
	s.Source.Kind = "live"
	s.Network.Interfaces = []snapshot.Interface{
		{Name: "eno1", Kind: "physical", MTU: i64(1500), SpeedMbps: i64(10000), Driver: "ixgbe", OperState: "up",
			IPv4: []string{"10.0.0.5/24"}, RxQueues: 8, ArpFilter: i64(0),
			Coalesce: &snapshot.Coalesce{RxUsecs: 0}},
		{Name: "eno2", Kind: "physical", MTU: i64(1500), Driver: "ixgbe", OperState: "down", ArpFilter: i64(0)},
		{Name: "lo", Kind: "loopback", MTU: i64(65536), OperState: "unknown", IPv4: []string{"127.0.0.1/8"}},
	}
	for k, v := range map[string]string{
		"net.core.rmem_max": "16777216", "net.core.wmem_max": "16777216",
		"net.ipv4.tcp_rmem": "4096 87380 16777216", "net.ipv4.tcp_wmem": "4096 16384 16777216",
		"net.core.busy_read": "50", "net.core.busy_poll": "50", "net.core.somaxconn": "4096",
		"net.ipv4.conf.all.arp_filter": "0",
	} {
		s.Sysctl[k] = v
	}
	return s
}

func TestBlockViewHelpers(t *testing.T) {
	s := sanHost()
	in := &Input{Snap: s}
	v, why := in.blockDevices()
	if why != "" {
		t.Fatal(why)
	}
	if _, ok := v.byName["loop0"]; ok {
		t.Fatal("loop device kept")
	}
	for name, want := range map[string]string{"dm-0": "multipath", "sdb": "path", "sda": "ssd", "nvme0n1": "nvme"} {
		if got := v.deviceClass(v.byName[name]); got != want {
			t.Errorf("%s: class %s, want %s", name, got, want)
		}
	}
	if p := v.paths(v.byName["dm-0"]); devNames(p) != "sdb,sdc" {
		t.Errorf("paths %v", devNames(p))
	}
	m := mountedDevices(s, v)
	if m["sda"] != "/" || m["nvme0n1"] != "/u02" || m["dm-0"] != "" {
		t.Errorf("mounted %v", m)
	}
	if !strings.Contains(udevRule(v, v.byName["dm-0"], "queue/scheduler", "mq-deadline"), `ENV{DM_UUID}=="mpath-*"`) {
		t.Error("udev match of a multipath device")
	}
	s.Storage.Devices = []snapshot.BlockDevice{}
	absent(s, "storage.devices", "permission denied")
	if _, why := in.blockDevices(); !strings.Contains(why, "permission denied") {
		t.Errorf("why %q", why)
	}
}

func TestParseIntTriple(t *testing.T) {
	if v, err := parseIntTriple("4096\t87380  6291456"); err != nil || v != [3]int64{4096, 87380, 6291456} {
		t.Fatalf("%v %v", v, err)
	}
	for _, bad := range []string{"", "1 2", "1 2 3 4", "1 x 3"} {
		if _, err := parseIntTriple(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestParseBondValue(t *testing.T) {
	if n, k, err := parseBondValue("layer3+4 1"); err != nil || n != "layer3+4" || k != 1 {
		t.Fatal(n, k, err)
	}
	if n, k, err := parseBondValue("802.3ad"); err != nil || n != "802.3ad" || k != -1 {
		t.Fatal(n, k, err)
	}
	for _, bad := range []string{"", "a b c", "layer2 x", "layer2 -1"} {
		if _, _, err := parseBondValue(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSubnetOf(t *testing.T) {
	if s, ok := subnetOf("10.1.2.3/24"); !ok || s != "10.1.2.0/24" {
		t.Fatal(s, ok)
	}
	for _, bad := range []string{"", "10.1.2.3", "fe80::1/64", "10.0.0.1/32", "x/24"} {
		if _, ok := subnetOf(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseIntTriple: tcp_rmem/tcp_wmem as /proc/sys prints them (three
// integers, tab-separated) with the values the fuzzer chose, or as sysctl -a
// and sysctl.d write them (blanks), give them back; two or four fields fail.
func FuzzParseIntTriple(f *testing.F) {
	for _, s := range []string{"4096 87380 6291456", "", "1 2", "a b c", "-1 0 9223372036854775807"} {
		f.Add(s, int64(4096), int64(87380), int64(6291456))
	}
	f.Fuzz(func(t *testing.T, s string, a, b, c int64) {
		if v, err := parseIntTriple(s); err == nil && len(strings.Fields(s)) != 3 {
			t.Fatalf("%q accepted as %v", s, v)
		}
		want := [3]int64{a, b, c}
		for _, text := range []string{fmt.Sprintf("%d\t%d\t%d\n", a, b, c), fmt.Sprintf(" %d  %d %d", a, b, c)} {
			if got, err := parseIntTriple(text); err != nil || got != want {
				t.Fatalf("parseIntTriple(%q) = %v %v, want %v", text, got, err, want)
			}
		}
		for _, bad := range []string{fmt.Sprintf("%d %d", a, b), fmt.Sprintf("%d %d %d %d", a, b, c, a), fmt.Sprintf("%d %d x", a, b)} {
			if got, err := parseIntTriple(bad); err == nil {
				t.Fatalf("parseIntTriple(%q) = %v, want an error", bad, got)
			}
		}
	})
}

func FuzzParseBondValue(f *testing.F) {
	for _, s := range []string{"802.3ad 4", "layer3+4 1", "active-backup", "", "a b c", "x -1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		name, num, err := parseBondValue(s)
		if err != nil {
			return
		}
		if name == "" || num < -1 || !strings.Contains(s, name) {
			t.Fatalf("%q → %q %d", s, name, num)
		}
	})
}

func FuzzSubnetOf(f *testing.F) {
	for _, s := range []string{"10.1.2.3/24", "192.168.0.1/16", "fe80::1/64", "", "1.2.3.4/33", "::ffff:1.2.3.4/120"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := subnetOf(s)
		if !ok {
			return
		}
		again, ok2 := subnetOf(n)
		if !ok2 || again != n {
			t.Fatalf("%q → %q → %q %v", s, n, again, ok2)
		}
	})
}

// TestIONetRulesBareFacts: devices and interfaces with every optional fact
// missing (nil pointers, empty lists, odd kinds) never crash a storage or
// network rule and never produce an incomplete finding.
func TestIONetRulesBareFacts(t *testing.T) {
	s := host()
	for _, k := range []string{"disk", "nvme", "dm", "md", "loop", "virtio", "other", ""} {
		s.Storage.Devices = append(s.Storage.Devices, snapshot.BlockDevice{Name: "x" + k, Kind: k, Holders: []string{"dm-9", "xdm"}, Slaves: []string{"xdisk", "nope"}})
	}
	s.Storage.Devices = append(s.Storage.Devices, snapshot.BlockDevice{Name: "dm-9", Kind: "dm", Multipath: true, Slaves: []string{"xdisk"}, Scheduler: ptr("weird")})
	s.Storage.Mounts = []snapshot.Mount{{Device: "/dev/xdisk1", Path: "/u01"}, {Device: "/dev/mapper/", Path: "/"}, {Device: "none", Path: "/x"}}
	s.Storage.MultipathConf = map[string]map[string]string{"defaults": {}, "devices[0]": {"rr_min_io_rq": "x"}, "overrides": nil}
	for _, k := range []string{"physical", "bond", "vlan", "bridge", "loopback", ""} {
		s.Network.Interfaces = append(s.Network.Interfaces, snapshot.Interface{Name: "i" + k, Kind: k, IPv4: []string{"bad", "10.0.0.1/24"}})
	}
	s.Network.Interfaces[1].Bond = &snapshot.Bond{Mode: "802.3ad 4"}
	s.Sysctl["net.ipv4.tcp_rmem"] = "1 2"
	for _, r := range All() {
		if !strings.HasPrefix(r.ID, "io.") && !strings.HasPrefix(r.ID, "network.") {
			continue
		}
		for _, w := range Workloads {
			for _, db := range DBs {
				rep := RunRules([]Rule{r}, &Input{Snap: s, Workload: w, DB: db})
				for _, c := range rep.CannotCheck {
					if strings.Contains(c.Reason, "internal error") {
						t.Fatalf("%s: %s", r.ID, c.Reason)
					}
				}
				for _, f := range rep.Findings {
					if f.Setting == "" || f.Current == "" || f.Recommended == "" || f.Evidence == "" || f.Why == "" {
						t.Fatalf("%s: incomplete finding %+v", r.ID, f)
					}
				}
			}
		}
	}
}

// ioNetHost is a snapshot with the storage of sanHost and the network of
// netHost plus a bond and a multipath.conf: the seed of FuzzIONetRules.
func ioNetHost() *snapshot.Snapshot {
	s := sanHost()
	n := netHost()
	s.Source, s.Network = n.Source, n.Network
	for k, v := range n.Sysctl {
		s.Sysctl[k] = v
	}
	s.Network.Interfaces = append(s.Network.Interfaces, snapshot.Interface{Name: "bond0", Kind: "bond", OperState: "up", MTU: i64(1500),
		SpeedMbps: i64(20000), IPv4: []string{"10.0.0.7/24"}, Bond: &snapshot.Bond{Mode: "802.3ad 4", XmitHashPolicy: "layer2 0", Slaves: []string{"eno2"}}})
	s.Storage.MultipathConf = map[string]map[string]string{"defaults": {"path_selector": "round-robin 0"}, "devices[0]": {"vendor": "NETAPP", "rr_min_io_rq": "100"}}
	return s
}

// FuzzIONetRules: any snapshot JSON (seeded with storage, multipath and
// network facts) runs through every io.* and network.* rule, workload and
// database without a crash and with complete findings.
func FuzzIONetRules(f *testing.F) {
	b, _ := json.Marshal(ioNetHost())
	f.Add(b)
	f.Add([]byte(`{"schema_version":1,"storage":{"devices":[{"name":"dm-0","kind":"dm","multipath":true,"slaves":["dm-0"],"holders":["dm-0"]}]}}`))
	var mine []Rule
	for _, r := range All() {
		if strings.HasPrefix(r.ID, "io.") || strings.HasPrefix(r.ID, "network.") {
			mine = append(mine, r)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		snap, err := snapshot.Parse("fuzz.json", b)
		if err != nil {
			return
		}
		for _, w := range Workloads {
			for _, db := range DBs {
				rep := RunRules(mine, &Input{Snap: snap, Workload: w, DB: db})
				for _, c := range rep.CannotCheck {
					if strings.Contains(c.Reason, "internal error") {
						t.Fatalf("%s/%s: %s", w, db, c.Reason)
					}
				}
				for _, f := range rep.Findings {
					if f.Setting == "" || f.Current == "" || f.Recommended == "" || f.Evidence == "" || len(f.Sources) == 0 {
						t.Fatalf("incomplete finding %+v", f)
					}
				}
			}
		}
	})
}

func TestMergePathFindings(t *testing.T) {
	s := sanHost()
	v, _ := (&Input{Snap: s}).blockDevices()
	mk := func(dev, cur string) Finding {
		return Finding{Setting: sysBlock(dev, "device/queue_depth"), Current: cur, Evidence: dev,
			Fix: Fix{Runtime: []string{"echo 128 > " + dev}, Persistent: []string{"same udev line"}}}
	}
	// Different current values stay apart; a local disk is never merged.
	out := mergePathFindings(v, []Finding{mk("sdb", "32"), mk("sdc", "64"), mk("sda", "64")}, []string{"sdb", "sdc", "sda"})
	if len(out) != 3 {
		t.Fatalf("%+v", out)
	}
	out = mergePathFindings(v, []Finding{mk("sda", "64"), mk("sdb", "64"), mk("sdc", "64")}, []string{"sda", "sdb", "sdc"})
	if len(out) != 2 || out[1].Setting != "/sys/block/{sdb,sdc}/device/queue_depth" || len(out[1].Fix.Runtime) != 2 || len(out[1].Fix.Persistent) != 1 {
		t.Fatalf("%+v", out)
	}
}
