package rules

import (
	"fmt"
	"net/netip"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers shared by the storage (io_*.go) and network (net_*.go) rules.

// UdevBlockRules is the file the storage fixes write persistent queue settings to.
const UdevBlockRules = "/etc/udev/rules.d/60-dbhost-block.rules"

// blockView is the storage part of a snapshot, indexed for the io rules.
type blockView struct {
	devs   []snapshot.BlockDevice // loop, zram and ram devices left out
	byName map[string]*snapshot.BlockDevice
	// pathOf maps a path device (sdb) to the dm-multipath device above it (dm-0).
	pathOf map[string]string
}

// blockDevices returns the snapshot's block devices without loop/zram/ram,
// or the reason the device list is absent.
func (in *Input) blockDevices() (*blockView, string) {
	if why := AbsentReason(in.Snap, "storage.devices"); why != "" && len(in.Snap.Storage.Devices) == 0 {
		return nil, why
	}
	v := &blockView{byName: map[string]*snapshot.BlockDevice{}, pathOf: map[string]string{}}
	for _, d := range in.Snap.Storage.Devices {
		switch d.Kind {
		case "loop", "zram", "ram":
			continue
		}
		v.devs = append(v.devs, d)
	}
	for i := range v.devs {
		d := &v.devs[i]
		v.byName[d.Name] = d
	}
	for _, d := range v.devs {
		if d.Kind == "dm" && d.Multipath {
			for _, s := range d.Slaves {
				v.pathOf[s] = d.Name
			}
		}
	}
	// A path whose holder is a multipath dm (slaves list missing on the dm side).
	for _, d := range v.devs {
		for _, h := range d.Holders {
			if hd := v.byName[h]; hd != nil && hd.Kind == "dm" && hd.Multipath {
				v.pathOf[d.Name] = h
			}
		}
	}
	return v, ""
}

// isPath says whether d is one path of a dm-multipath device.
func (v *blockView) isPath(name string) bool { _, ok := v.pathOf[name]; return ok }

// paths returns the path devices of a multipath dm device, in slave order.
func (v *blockView) paths(dm *snapshot.BlockDevice) []*snapshot.BlockDevice {
	var out []*snapshot.BlockDevice
	seen := map[string]bool{}
	for _, s := range dm.Slaves {
		if p := v.byName[s]; p != nil && !seen[s] {
			seen[s] = true
			out = append(out, p)
		}
	}
	for name, h := range v.pathOf {
		if h == dm.Name && !seen[name] {
			if p := v.byName[name]; p != nil {
				seen[name] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// devFact is the dotted fact name of one device attribute.
func devFact(name, field string) string { return "storage.devices[" + name + "]." + field }

// devReason is why a device attribute is absent.
func (in *Input) devReason(name, field string) string {
	return in.Reason(devFact(name, field), "not in the snapshot")
}

// deviceClass names how the sources treat a device: "nvme", "multipath"
// (a dm-multipath SAN LUN), "path" (one path of it), "ssd", "rotational",
// "virtio", "dm", "md" or "other".
func (v *blockView) deviceClass(d *snapshot.BlockDevice) string {
	switch {
	case d.Kind == "nvme":
		return "nvme"
	case d.Kind == "dm" && d.Multipath:
		return "multipath"
	case v.isPath(d.Name):
		return "path"
	case d.Kind == "dm" || d.Kind == "md" || d.Kind == "virtio":
		return d.Kind
	case d.Kind == "disk" && d.Rotational != nil && !*d.Rotational:
		return "ssd"
	case d.Kind == "disk" && d.Rotational != nil && *d.Rotational:
		return "rotational"
	}
	return "other"
}

// sysBlock is the /sys/block path of a queue or device attribute.
func sysBlock(dev, attr string) string { return "/sys/block/" + dev + "/" + attr }

// udevGlob is a name from the host as a udev match value: every character
// but [A-Za-z0-9 _.:+,@/-] becomes ? (a glob's any character), so that no
// " \\ $ % or control character of a vendor or dm name can end the value and
// add an assignment (RUN+=) to a rules file root installs.
func udevGlob(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(" _.:+,@/-", c) >= 0) {
			b[i] = '?'
		}
	}
	return string(b)
}

// udevMatch is the udev match of a device class (stable across reboots,
// unlike sdX names).
func udevMatch(v *blockView, d *snapshot.BlockDevice) string {
	switch v.deviceClass(d) {
	case "nvme":
		return `KERNEL=="nvme[0-9]*n[0-9]*"`
	case "multipath":
		return `KERNEL=="dm-*", ENV{DM_UUID}=="mpath-*"`
	case "path":
		if d.Vendor != "" {
			return fmt.Sprintf(`KERNEL=="sd*", ENV{DEVTYPE}=="disk", ATTRS{vendor}=="%s*"`, udevGlob(strings.TrimSpace(d.Vendor)))
		}
		return `KERNEL=="sd*", ENV{DEVTYPE}=="disk"`
	case "ssd":
		return `KERNEL=="sd*", ENV{DEVTYPE}=="disk", ATTR{queue/rotational}=="0"`
	case "rotational":
		return `KERNEL=="sd*", ENV{DEVTYPE}=="disk", ATTR{queue/rotational}=="1"`
	case "virtio":
		return `KERNEL=="vd*", ENV{DEVTYPE}=="disk"`
	case "dm":
		if d.DMName != "" {
			return fmt.Sprintf(`KERNEL=="dm-*", ENV{DM_NAME}=="%s"`, udevGlob(d.DMName))
		}
		return `KERNEL=="dm-*"`
	}
	// A name is the kernel's, or a tree's: never raw into a rules file (a
	// newline would add a rule line of its own).
	return fmt.Sprintf(`KERNEL=="%s"`, udevGlob(d.Name))
}

// UdevReload makes a new line of UdevBlockRules take effect on the block
// devices present now (new devices read it when they appear).
const UdevReload = "udevadm control --reload && udevadm trigger --subsystem-match=block --action=change"

// udevRule is one udev rule line setting attr on the device's class.
func udevRule(v *blockView, d *snapshot.BlockDevice, attr, value string) string {
	return fmt.Sprintf(`ACTION=="add|change", %s, ATTR{%s}="%s"`, udevMatch(v, d), attr, value)
}

// udevEdit is the persistent fix setting attr on the device's class: a line of
// UdevBlockRules (a file line, not a command: issue 26 item 10).
func udevEdit(v *blockView, d *snapshot.BlockDevice, attr, value string) FileEdit {
	return FileEdit{File: UdevBlockRules, Edit: "add " + udevRule(v, d, attr, value), Then: UdevReload}
}

// blkMQ says whether the device's queue is blk-mq (schedulers mq-deadline,
// kyber, bfq, none; every queue on kernels ≥ 5.0) rather than legacy
// single-queue (cfq, deadline, noop).
func blkMQ(d *snapshot.BlockDevice) bool {
	for _, s := range d.Schedulers {
		switch s {
		case "mq-deadline", "none", "kyber":
			return true
		}
	}
	if d.Scheduler != nil {
		switch *d.Scheduler {
		case "mq-deadline", "none", "kyber":
			return true
		}
	}
	return false
}

// mountedDevices returns the block device names that carry a mounted
// filesystem, directly, through a partition, or below a dm/md device that is
// mounted (its slaves, recursively), with the mount point of each.
func mountedDevices(s *snapshot.Snapshot, v *blockView) map[string]string {
	m, _ := mountedDevicesUnresolved(s, v)
	return m
}

// mountedDevicesUnresolved is mountedDevices plus the /dev mount sources
// that match no known block device (a dm device missing from the list, a
// sosreport without /sys/block/dm-*): while any is left, which disk holds
// them is unknown.
func mountedDevicesUnresolved(s *snapshot.Snapshot, v *blockView) (map[string]string, []string) {
	out := map[string]string{}
	var unresolved []string
	byDM := map[string]string{}
	for _, d := range v.devs {
		if d.DMName != "" {
			byDM[d.DMName] = d.Name
		}
	}
	var mark func(name, path string, depth int)
	mark = func(name, path string, depth int) {
		d := v.byName[name]
		if d == nil || depth > 16 {
			return
		}
		if _, ok := out[name]; ok {
			return
		}
		out[name] = path
		for _, sl := range d.Slaves {
			mark(baseDevice(sl, v), path, depth+1)
		}
	}
	for _, m := range s.Storage.Mounts {
		name := mountDeviceName(m.Device, byDM, v)
		if name != "" && v.byName[name] != nil {
			mark(name, m.Path, 0)
		} else if strings.HasPrefix(m.Device, "/dev/") {
			unresolved = append(unresolved, m.Device+" on "+m.Path)
		}
	}
	return out, unresolved
}

// mountDeviceName maps a mount source (/dev/sda2, /dev/mapper/vg-lv,
// /dev/dm-3) to the /sys/block device that holds it; "" when none does.
func mountDeviceName(dev string, byDM map[string]string, v *blockView) string {
	if !strings.HasPrefix(dev, "/dev/") {
		return ""
	}
	if m, ok := strings.CutPrefix(dev, "/dev/mapper/"); ok {
		return byDM[m]
	}
	return baseDevice(strings.TrimPrefix(dev, "/dev/"), v)
}

// baseDevice strips a partition suffix when the whole device is known:
// sda2 → sda, nvme0n1p1 → nvme0n1, md0p1 → md0.
func baseDevice(name string, v *blockView) string {
	if _, ok := v.byName[name]; ok {
		return name
	}
	t := strings.TrimRight(name, "0123456789")
	if _, ok := v.byName[t]; ok && t != name {
		return t
	}
	if p := strings.TrimSuffix(t, "p"); p != t {
		if _, ok := v.byName[p]; ok {
			return p
		}
	}
	return name
}

// parseIntTriple parses a three-integer sysctl such as net.ipv4.tcp_rmem
// ("4096 87380 6291456", any whitespace).
func parseIntTriple(s string) ([3]int64, error) {
	var out [3]int64
	f := strings.Fields(s)
	if len(f) != 3 {
		return out, fmt.Errorf("expected 3 integers, got %d fields in %q", len(f), ioNetTrunc(s, 60))
	}
	for i, w := range f {
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return out, fmt.Errorf("field %d: expected an integer, got %q", i+1, ioNetTrunc(w, 30))
		}
		out[i] = n
	}
	return out, nil
}

// parseBondValue parses a bonding sysfs value "name number" ("802.3ad 4",
// "layer3+4 1"); the number is -1 when the kernel printed only the name.
func parseBondValue(s string) (name string, num int, err error) {
	f := strings.Fields(s)
	switch len(f) {
	case 1:
		return f[0], -1, nil
	case 2:
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 0 {
			return "", 0, fmt.Errorf("expected \"name number\", got %q", ioNetTrunc(s, 60))
		}
		return f[0], n, nil
	}
	return "", 0, fmt.Errorf("expected \"name number\", got %q", ioNetTrunc(s, 60))
}

// subnetOf returns the IPv4 network of a CIDR address ("10.1.2.3/24" →
// "10.1.2.0/24"); ok false for anything else.
func subnetOf(cidr string) (string, bool) {
	p, err := netip.ParsePrefix(strings.TrimSpace(cidr))
	if err != nil || !p.Addr().Is4() || p.Bits() == 32 {
		return "", false
	}
	return p.Masked().String(), true
}

func ioNetTrunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// upInterfaces returns the interfaces that carry traffic on their own:
// physical NICs not enslaved to a bond, bonds, vlans; up (or state unknown
// but not down). Loopback, veth, bridges' ports and bond slaves are left out.
func upInterfaces(s *snapshot.Snapshot) []snapshot.Interface {
	var out []snapshot.Interface
	for _, it := range s.Network.Interfaces {
		switch it.Kind {
		case "physical", "bond", "vlan", "bridge":
		default:
			continue
		}
		if it.Master != "" || it.OperState == "down" || it.OperState == "lowerlayerdown" || it.OperState == "notpresent" {
			continue
		}
		out = append(out, it)
	}
	return out
}

// netAbsent is the reason the interface list is absent ("" when present).
func (in *Input) netAbsent() string {
	if len(in.Snap.Network.Interfaces) == 0 {
		return in.Reason("network.interfaces", "no network interface in the snapshot")
	}
	return ""
}

func ioNetPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// mergePathFindings folds findings that say the same thing about several
// devices into one: the paths of one dm-multipath device (a LUN with 16 paths
// is one thing to fix, not 16), and devices of the same class (32 SAN LUNs
// with the same scheduler). Findings merge when their group, severity,
// current and recommended values and setting (device name aside) agree.
// devs[i] is the device of fs[i]. The merged Setting spells the devices in
// brace form ("/sys/block/{sdb,sdc}/device/queue_depth"); its fix holds every
// device's command once.
func mergePathFindings(v *blockView, fs []Finding, devs []string) []Finding {
	type key struct{ group, sev, current, recommended, setting string }
	groups := map[key][]int{}
	var order []key
	for i, f := range fs {
		if i >= len(devs) || !strings.Contains(f.Setting, "/sys/block/"+devs[i]+"/") {
			continue
		}
		g := "class " + v.deviceClass(v.byName[devs[i]])
		if dm := v.pathOf[devs[i]]; dm != "" {
			g = "dm " + dm
		} else if v.byName[devs[i]] == nil {
			continue
		}
		k := key{g, f.Severity, f.Current, f.Recommended, strings.Replace(f.Setting, "/sys/block/"+devs[i]+"/", "/sys/block/*/", 1)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], i)
	}
	merged := map[int]bool{}
	first := map[int]key{}
	for _, k := range order {
		idx := groups[k]
		if len(idx) < 2 {
			continue
		}
		for _, i := range idx {
			merged[i] = true
		}
		first[idx[0]] = k
	}
	var out []Finding
	for i, f := range fs {
		if !merged[i] {
			out = append(out, f)
			continue
		}
		k, ok := first[i]
		if !ok {
			continue
		}
		idx := groups[k]
		names := make([]string, len(idx))
		m := f
		m.Fix = Fix{}
		m.Changes = nil
		seenRT, seenP, seenE := map[string]bool{}, map[string]bool{}, map[FileEdit]bool{}
		var ev []string
		for j, n := range idx {
			names[j] = devs[n]
			for _, c := range fs[n].Fix.Runtime {
				if !seenRT[c] {
					seenRT[c] = true
					m.Fix.Runtime = append(m.Fix.Runtime, c)
				}
			}
			for _, c := range fs[n].Fix.Persistent {
				if !seenP[c] {
					seenP[c] = true
					m.Fix.Persistent = append(m.Fix.Persistent, c)
				}
			}
			for _, e := range fs[n].Fix.Edits {
				if !seenE[e] {
					seenE[e] = true
					m.Fix.Edits = append(m.Fix.Edits, e)
				}
			}
			m.Changes = append(m.Changes, fs[n].Changes...)
			if j < 3 {
				ev = append(ev, fs[n].Evidence)
			}
		}
		if len(idx) > 3 {
			ev = append(ev, fmt.Sprintf("and %d more", len(idx)-3))
		}
		m.Setting = strings.Replace(k.setting, "/sys/block/*/", "/sys/block/{"+strings.Join(names, ",")+"}/", 1)
		if dm, isPath := strings.CutPrefix(k.group, "dm "); isPath {
			m.Evidence = fmt.Sprintf("%d paths of multipath device %s: ", len(idx), dm) + strings.Join(ev, "; ")
		} else {
			m.Evidence = fmt.Sprintf("%d %s devices: ", len(idx), strings.TrimPrefix(k.group, "class ")) + strings.Join(ev, "; ")
		}
		out = append(out, m)
	}
	return out
}

// deviceOutcome is the outcome of a per-device rule: its findings (merged over
// the paths of one LUN), else could-not-check when facts were missing and no
// device passed, else none when no device concerned the rule, else passed
// with the devices that pass.
func deviceOutcome(v *blockView, fs []Finding, fdevs, ok, cannot []string, none Outcome, passed, read string) Outcome {
	if len(fs) > 0 {
		return Found(mergePathFindings(v, fs, fdevs)...)
	}
	if len(ok) == 0 && len(cannot) > 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	if len(ok) == 0 {
		return none
	}
	return Passed("%s: %s", passed, strings.Join(ok, ", ")).Reading(read + ": " + strings.Join(ok, ", "))
}

// fileDevice finds where a file lives: the mount whose mount point is the
// longest prefix of path, and the block device it is mounted from; why says
// what is missing when either is unknown.
func fileDevice(s *snapshot.Snapshot, v *blockView, path string) (snapshot.Mount, *snapshot.BlockDevice, string) {
	best := -1
	for i, m := range s.Storage.Mounts {
		mp := strings.TrimSuffix(m.Path, "/")
		if path == m.Path || strings.HasPrefix(path, mp+"/") {
			if best < 0 || len(m.Path) > len(s.Storage.Mounts[best].Path) {
				best = i
			}
		}
	}
	if best < 0 {
		if r := AbsentReason(s, "storage.mounts"); r != "" {
			return snapshot.Mount{}, nil, r
		}
		return snapshot.Mount{}, nil, "no mount of the snapshot holds " + path
	}
	m := s.Storage.Mounts[best]
	byDM := map[string]string{}
	for _, d := range v.devs {
		if d.DMName != "" {
			byDM[d.DMName] = d.Name
		}
	}
	name := mountDeviceName(m.Device, byDM, v)
	if d := v.byName[name]; d != nil {
		return m, d, ""
	}
	return m, nil, fmt.Sprintf("%s is on %s (%s, %s), which matches no block device of the snapshot", path, m.Path, m.Device, m.FSType)
}

// storageUnits are the devices that hold d's data, as an operator separates
// them: d itself when it is a disk, an NVMe namespace or a multipath LUN,
// else the units below its slaves (LVM, md, dm-crypt over them).
func (v *blockView) storageUnits(d *snapshot.BlockDevice) []string {
	seen := map[string]bool{}
	var out []string
	var walk func(d *snapshot.BlockDevice, depth int)
	walk = func(d *snapshot.BlockDevice, depth int) {
		if d == nil || depth > 16 || seen[d.Name] {
			return
		}
		seen[d.Name] = true
		if len(d.Slaves) == 0 || d.Kind == "dm" && d.Multipath {
			out = append(out, d.Name)
			return
		}
		for _, sl := range d.Slaves {
			walk(v.byName[baseDevice(sl, v)], depth+1)
		}
	}
	walk(d, 0)
	sort.Strings(out)
	return out
}

// ipv4Subnets maps each IPv4 subnet to the interfaces (upInterfaces) with an
// address in it, or returns nil and the outcome when no address is known:
// could not check (addresses are read on the live host only), or not
// applicable (no interface has one).
func (in *Input) ipv4Subnets() (map[string][]string, Outcome) {
	if why := in.netAbsent(); why != "" {
		return nil, CannotCheck("%s", why)
	}
	bySubnet := map[string][]string{}
	for _, it := range upInterfaces(in.Snap) {
		seen := map[string]bool{}
		for _, a := range it.IPv4 {
			if n, ok := subnetOf(a); ok && !seen[n] {
				seen[n] = true
				bySubnet[n] = append(bySubnet[n], it.Name)
			}
		}
	}
	if len(bySubnet) > 0 {
		return bySubnet, Outcome{}
	}
	if r := AbsentReason(in.Snap, "network.interfaces.ipv4"); r != "" {
		return nil, CannotCheck("%s", r)
	}
	if in.Snap.Source.Kind != "live" {
		return nil, CannotCheck("network.interfaces.ipv4: addresses are read on the live host only; this snapshot's source is %q", in.Snap.Source.Kind)
	}
	return nil, NotApplicable("no interface with an IPv4 address")
}
