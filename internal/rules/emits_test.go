package rules

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/dbhost/dbhost/internal/change"
)

// Every rule the declaration names is in the catalog, and every pattern
// says what it means.
func TestEmitsNameRules(t *testing.T) {
	for id, es := range emits {
		if _, ok := Lookup(id); !ok {
			t.Errorf("emits.go declares %s, not a rule of the catalog", id)
		}
		for _, e := range es {
			if e.Remove != (e.Values == nil) || e.Remove && e.Kind != change.BootArg {
				t.Errorf("%s %s %s: a removal has no values, every other setting has them", id, e.Kind, e.Key)
			}
		}
	}
}

func TestKeyMatch(t *testing.T) {
	for _, c := range []struct {
		kind     change.Kind
		pat, key string
		want     bool
	}{
		{change.Sysfs, "/sys/block/{NAME}/queue/scheduler", "/sys/block/nvme0n1/queue/scheduler", true},
		{change.Sysfs, "/sys/block/{NAME}/queue/scheduler", "/sys/block/cciss!c0d0/queue/scheduler", true},
		{change.Sysfs, "/sys/block/{NAME}/queue/scheduler", "/sys/block/*/queue/scheduler", false},
		{change.Sysfs, "/sys/block/{NAME}/queue/scheduler", "/sys/block/../queue/scheduler", false},
		{change.Sysfs, "/sys/block/{NAME}/queue/scheduler", "/sys/block/sda/x/queue/scheduler", false},
		{change.Sysfs, "/sys/block/{NAME}/device/scsi_disk/*/cache_type", "/sys/block/sdb/device/scsi_disk/*/cache_type", true},
		{change.Sysfs, "/sys/block/{NAME}/device/scsi_disk/*/cache_type", "/sys/block/sdb/device/scsi_disk/0:0:0:1/cache_type", false},
		{change.Sysfs, "/sys/devices/system/node/node{N}/hugepages/hugepages-{N}kB/nr_hugepages", "/sys/devices/system/node/node12/hugepages/hugepages-2048kB/nr_hugepages", true},
		{change.Sysfs, "/sys/devices/system/node/node{N}/hugepages/hugepages-{N}kB/nr_hugepages", "/sys/devices/system/node/node-1/hugepages/hugepages-2048kB/nr_hugepages", false},
		{change.Sysfs, "/sys/fs/cgroup/**/cpuset.mems", "/sys/fs/cgroup/cpuset/oracle/erp/cpuset.mems", true},
		{change.Sysfs, "/sys/fs/cgroup/**/cpuset.mems", "/sys/fs/cgroup/cpuset.mems", false},
		{change.Sysfs, "/sys/fs/cgroup/**/cpuset.mems", "/sys/fs/cgroup/../cpuset.mems", false},
		{change.Sysfs, "/sys/fs/cgroup/**/cpuset.mems", "/sys/fs/cgroup/*/cpuset.mems", false},
		{change.Limit, "{USER} soft memlock", "oracle soft memlock", true},
		{change.Limit, "{USER} soft memlock", "root soft memlock", false},
		{change.Limit, "{USER} soft memlock", "* soft memlock", false},
		{change.Limit, "{USER} soft memlock", "@dba soft memlock", false},
		{change.Sysctl, "vm.swappiness", "vm.swappiness", true},
		{change.Sysctl, "vm.swappiness", "vm/swappiness", false},
	} {
		if got := keyMatch(c.kind, c.pat, c.key); got != c.want {
			t.Errorf("keyMatch(%s, %q, %q) = %v", c.kind, c.pat, c.key, got)
		}
	}
}

func TestVetChange(t *testing.T) {
	risk, err := VetChange(change.Change{Kind: change.Sysfs, Key: "/sys/class/net/bond0/mtu", Value: "9000", Rule: "network.jumbo-frames"})
	if err != nil || risk != jumboRisk {
		t.Errorf("jumbo frames: %q %v", risk, err)
	}
	for _, c := range []change.Change{
		{Kind: change.Sysctl, Key: "kernel.core_pattern", Value: "|/tmp/x", Rule: "memory.swappiness"},
		{Kind: change.Sysctl, Key: "vm.swappiness", Value: "010", Rule: "memory.swappiness"},
		{Kind: change.Sysctl, Key: "vm.swappiness", Value: " 1", Rule: "memory.swappiness"},
		{Kind: change.Sysctl, Key: "vm.swappiness", Value: "1", Rule: "memory.swappiness,"},
		{Kind: change.BootArg, Key: "numa", Value: "off", Rule: "numa.disabled-at-boot"},
		{Kind: change.BootArg, Key: "transparent_hugepage", Remove: true, Rule: "memory.thp-enabled"},
		{Kind: change.Sysctl, Key: "net.ipv4.udp_mem", Value: "1 2 3", Rule: "network.udp-mem"},
		{Kind: change.Sysfs, Key: "/sys/fs/cgroup/x/cpuset.mems", Value: "0-99999", Rule: "cgroup.cpuset-mems-not-local"},
	} {
		if _, err := VetChange(c); err == nil {
			t.Errorf("accepted %+v", c)
		}
	}
}

// TestEmitBoundsDocumented: docs/limits.md states the numeric bounds of
// the declarations with their figures.
func TestEmitBoundsDocumented(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "limits.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Join(strings.Fields(string(b)), " ")
	fig := func(n int64) string {
		s := strconv.FormatInt(n, 10)
		for i := len(s) - 3; i > 0; i -= 3 {
			s = s[:i] + "," + s[i:]
		}
		return s
	}
	for _, c := range []struct {
		rule, key string
		max       int64
	}{
		{"memory.hugepages-too-few", "vm.nr_hugepages", maxPages},
		{"db.aio-max-nr", "fs.aio-max-nr", 1 << 40},
		{"memory.dirty-ratios", "vm.dirty_bytes", 1 << 50},
		{"memory.dirty-ratios", "vm.dirty_ratio", 100},
		{"cpu.sched-tunables", "kernel.sched_min_granularity_ns", 1e9},
		{"network.somaxconn-listener", "net.core.somaxconn", math.MaxInt32},
		{"io.max-sectors-large-io", "/sys/block/{NAME}/queue/max_sectors_kb", 1 << 22},
		{"io.scsi-queue-depth", "/sys/block/{NAME}/device/queue_depth", 1 << 16},
		{"memory.swappiness", "vm.swappiness", wantSwappiness},
	} {
		var e *Emit
		for i, x := range Emits(c.rule) {
			if x.Key == c.key {
				e = &Emits(c.rule)[i]
			}
		}
		if e == nil || !e.Values.OK(strconv.FormatInt(c.max, 10)) || e.Values.OK(strconv.FormatInt(c.max+1, 10)) {
			t.Errorf("%s %s: the bound is not %d", c.rule, c.key, c.max)
		}
		if !strings.Contains(doc, fig(c.max)) {
			t.Errorf("docs/limits.md does not state %s's bound %s", c.key, fig(c.max))
		}
	}
}
