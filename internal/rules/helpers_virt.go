package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// Helpers of the KVM guest rules (virt.*): the guest definitions the audit
// knows, and how a guest's vCPUs and memory sit on the host's nodes.

// libvirtDocs is libvirt's domain XML reference, cited by the virt rules
// for what the seed does not spell out (element and attribute names).
const libvirtDocs = "https://libvirt.org/formatdomain.html"

// guests returns the KVM guest definitions the audit knows: the snapshot's
// (--libvirt) and then the artifacts' (--artifact DOMAIN.xml). With none it
// returns the outcome to give instead: could not check (libvirt could not
// be read) or not applicable (none asked for, none defined).
func (in *Input) guests() ([]*snapshot.Domain, *Outcome) {
	var ds []*snapshot.Domain
	if lv := in.Snap.Libvirt; lv != nil {
		for i := range lv.Domains {
			ds = append(ds, &lv.Domains[i])
		}
	}
	if in.Artifacts != nil {
		ds = append(ds, in.Artifacts.Domains...)
	}
	if len(ds) > 0 {
		return ds, nil
	}
	var o Outcome
	switch {
	case AbsentReason(in.Snap, "libvirt") != "":
		o = CannotCheck("%s", AbsentReason(in.Snap, "libvirt"))
	case in.Snap.Libvirt != nil && len(in.Snap.Libvirt.Errors) > 0:
		o = CannotCheck("no libvirt domain definition could be read: %s", strings.Join(in.Snap.Libvirt.Errors, "; "))
	case in.Snap.Libvirt != nil:
		o = NotApplicable("libvirt defines no guest on this host (read from %s)", in.Snap.Libvirt.Source)
	default:
		o = NotApplicable("no KVM guest definition given (dbhost audit --libvirt on the hypervisor host, or --artifact DOMAIN.xml)")
	}
	return nil, &o
}

// guestHostWhy says why this snapshot cannot stand for the host of guest
// definitions given as artifacts ("" when it can): a guest's own snapshot
// is not its hypervisor's.
func (in *Input) guestHostWhy() string {
	if in.Snap.Libvirt == nil && in.Snap.Host.Virt.Guest {
		return "this snapshot is a virtual machine's, not the hypervisor host's: audit the domain XML with the host's facts (--root, --sosreport or --snapshot of the host, or --libvirt on it)"
	}
	if why := AbsentReason(in.Snap, "topology.nodes"); why != "" {
		return why
	}
	if len(in.Snap.Topology.Nodes) == 0 {
		return "topology.nodes: no NUMA nodes in the snapshot"
	}
	return ""
}

// domLabel names a guest and where its definition was read: "db1
// (/etc/libvirt/qemu/db1.xml)".
func domLabel(d *snapshot.Domain) string {
	if d.File == "" {
		return d.Name
	}
	return d.Name + " (" + d.File + ")"
}

// domainDisks are the guest's disks that hold data: disk and lun devices,
// not CD-ROMs and floppies, not read-only ones.
func domainDisks(d *snapshot.Domain) []snapshot.GuestDisk {
	var out []snapshot.GuestDisk
	for _, k := range d.Disks {
		if (k.Device == "disk" || k.Device == "lun") && !k.ReadOnly {
			out = append(out, k)
		}
	}
	return out
}

// diskLabel: "vdb (/data/oradata/db2-data.img, line 36)".
func diskLabel(k snapshot.GuestDisk) string {
	t := k.Target
	if t == "" {
		t = "disk"
	}
	var in []string
	if k.Source != "" {
		in = append(in, k.Source)
	}
	if k.Line > 0 {
		in = append(in, fmt.Sprintf("line %d", k.Line))
	}
	if len(in) == 0 {
		return t
	}
	return t + " (" + strings.Join(in, ", ") + ")"
}

// guestCPUs is the union of the host CPUs a guest's vCPUs may run on and
// how it is known: every vCPU's <vcpupin>, else <vcpu cpuset>; pinned is
// false when some vCPU may run anywhere.
func guestCPUs(d *snapshot.Domain) (cpus []int, how string, pinned bool) {
	seen := map[int]bool{}
	byVCPU := map[int]bool{}
	for _, p := range d.CPUTune.VCPUPins {
		byVCPU[p.VCPU] = true
		for _, c := range p.CPUSet.IDs {
			seen[c] = true
		}
	}
	all := len(byVCPU) >= d.VCPUs && d.VCPUs > 0
	if !all && d.VCPUCpuset != nil {
		for _, c := range d.VCPUCpuset.IDs {
			seen[c] = true
		}
		how = "<vcpu cpuset='" + d.VCPUCpuset.Text + "'>"
		all = true
	} else if len(byVCPU) > 0 {
		how = fmt.Sprintf("<vcpupin> of %d of %d vCPUs", len(byVCPU), d.VCPUs)
	}
	for c := range seen {
		cpus = append(cpus, c)
	}
	sort.Ints(cpus)
	return cpus, how, all
}

// guestMemNodes is the host nodes a guest's memory is bound to and how:
// <numatune><memory nodeset> (strict, preferred, interleave, restrictive),
// or the union of its <memnode>s; nil when nothing binds it.
func guestMemNodes(d *snapshot.Domain) ([]int, string) {
	t := d.NUMATune
	if t == nil {
		return nil, ""
	}
	seen := map[int]bool{}
	var how []string
	if t.Nodeset != nil {
		for _, n := range t.Nodeset.IDs {
			seen[n] = true
		}
		mode := t.Mode
		if mode == "" {
			mode = "strict"
		}
		how = append(how, fmt.Sprintf("<numatune><memory mode='%s' nodeset='%s'>", mode, t.Nodeset.Text))
	}
	for _, m := range t.MemNodes {
		for _, n := range m.Nodeset.IDs {
			seen[n] = true
		}
		how = append(how, fmt.Sprintf("<memnode cellid='%d' nodeset='%s'>", m.CellID, m.Nodeset.Text))
	}
	if len(seen) == 0 {
		return nil, ""
	}
	out := make([]int, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Ints(out)
	return out, strings.Join(how, ", ")
}

// largestNode is the host node with the most memory and its size, and the
// most CPUs any node has.
func largestNode(s *snapshot.Snapshot) (memKB int64, cpus int, ok bool) {
	for _, n := range s.Topology.Nodes {
		if n.MemTotalKB != nil && *n.MemTotalKB > memKB {
			memKB = *n.MemTotalKB
			ok = true
		}
		if len(n.CPUs) > cpus {
			cpus = len(n.CPUs)
		}
	}
	return memKB, cpus, ok
}

// guestsFix is the persistent fix of a domain definition: virsh edit, then
// a restart of the guest (a definition change waits for the next boot).
func guestsFix(names []string, what string) Fix {
	var p []string
	for _, n := range names {
		p = append(p, fmt.Sprintf("virsh edit %s: %s; then virsh shutdown %s && virsh start %s", n, what, n, n))
	}
	return Fix{Persistent: p}
}

// hostGuests is guests() for the rules that judge guests against this
// host's topology: also the outcome when the snapshot cannot stand for
// their host, or (multiNode) when the host has a single NUMA node.
func (in *Input) hostGuests(multiNode bool) ([]*snapshot.Domain, *Outcome) {
	ds, skip := in.guests()
	if skip != nil {
		return nil, skip
	}
	var o Outcome
	switch why := in.guestHostWhy(); {
	case why != "":
		o = CannotCheck("%s", why)
	case multiNode && NodeCount(in.Snap) < 2:
		o = NotApplicable("the host has %d NUMA node(s): no remote memory to avoid", NodeCount(in.Snap))
	default:
		return ds, nil
	}
	return nil, &o
}

// guestDisks is one guest's data disks a disk rule judged wrong: their
// targets and one line each saying why.
type guestDisks struct {
	d       *snapshot.Domain
	targets []string
	lines   []string
}

func (g guestDisks) current() string { return strings.Join(g.lines, "; ") }

// badDisks runs judge on every data disk of every guest (judge returns
// whether the disk concerns the rule, and the line when it is wrong) and
// returns the guests with wrong disks and how many disks were judged.
func badDisks(ds []*snapshot.Domain, judge func(d *snapshot.Domain, k snapshot.GuestDisk) (judged bool, wrong string)) ([]guestDisks, int) {
	var out []guestDisks
	checked := 0
	for _, d := range ds {
		g := guestDisks{d: d}
		for _, k := range domainDisks(d) {
			judged, wrong := judge(d, k)
			if !judged {
				continue
			}
			checked++
			if wrong != "" {
				g.targets = append(g.targets, k.Target)
				g.lines = append(g.lines, diskLabel(k)+": "+wrong)
			}
		}
		if len(g.targets) > 0 {
			out = append(out, g)
		}
	}
	return out, checked
}

// domainsRead names the guest definitions a virt rule read (issue 26: a
// pass names what it saw), with what the rule judged in them.
func domainsRead(ds []*snapshot.Domain, judged string) string {
	var names []string
	for _, d := range ds {
		names = append(names, domLabel(d))
	}
	return "libvirt domain definitions " + strings.Join(names, ", ") + ": " + judged
}
