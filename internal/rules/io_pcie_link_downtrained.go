package rules

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.pcie-link-downtrained: a NIC, HBA or NVMe controller whose PCIe link
// runs narrower or slower than it can (003, I/O Tuning – Hardware: "Check
// the PCI slot – PCI / PCI E – x4, x8"). The kernel shows the trained link
// (current_link_width/speed: the Link Status register) beside the
// function's capability (max_link_*: Link Capabilities) and, for the port
// above it, the slot's. A narrower link than both ends can do is a fault
// (a card not seated, a riser, a lane failure); a card wider than its slot
// is in the wrong slot. Speed is judged apart and lower: a link may drop
// its rate on its own to save power when idle (autonomous speed change,
// the GPUs' and some NICs' habit), which a snapshot cannot tell from a
// fault; width rarely changes so.
func init() {
	Register(Rule{
		ID:       "io.pcie-link-downtrained",
		Area:     AreaIO,
		Severity: SevWarning,
		Title:    "A NIC, HBA or NVMe link runs narrower or slower than it can",
		Sources: []Source{
			{Doc: Seed003, Section: "I/O Tuning – Hardware",
				Quote: "Check the PCI slot – PCI / PCI E – x4, x8"},
			{Doc: Seed003, Section: "I/O Tuning – Hardware",
				Quote: "Bandwidth limits (I/O characteristics for desired I/O types)"},
			{Doc: "https://www.kernel.org/doc/Documentation/ABI/testing/sysfs-bus-pci",
				Section: "/sys/bus/pci/devices/.../current_link_speed, current_link_width, max_link_speed, max_link_width"},
		},
		Scope: Scope{
			Kernels: "Linux 4.13+ (the link files); earlier kernels: lspci -vv LnkCap/LnkSta by hand",
			Note:    "bare metal: a guest's links are the hypervisor's emulation",
		},
		Description: `For each PCIe NIC, storage controller, NVMe controller and FC HBA, the width and speed
the link trained at against what the function and the slot above it can do. Width below both:
a fault to fix (reseat, riser, slot); a card wider than its slot: info, move it if its traffic
needs the lanes; speed below the maximum: info, since idle links may slow down to save power.`,
		Check: checkPCIeLink,
	})
}

func gts(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) + " GT/s" }

func checkPCIeLink(in *Input) Outcome {
	s := in.Snap
	if s.Host.Virt.Guest {
		return NotApplicable("a guest: its PCIe links are the hypervisor's emulation; check the host's")
	}
	if r := AbsentReason(s, "pci_devices"); r != "" && !strings.HasPrefix(r, "pci_devices[") {
		return CannotCheck("%s", r)
	}
	if len(s.PCIDevices) == 0 {
		return NotApplicable("no NIC, storage controller, NVMe or FC HBA on a PCI bus")
	}
	var fs []Finding
	var ok, notPCIe, down []string
	for _, d := range s.PCIDevices {
		l := d.Link
		name := d.Address + " (" + pciWhat(d) + ")"
		if l == nil {
			notPCIe = append(notPCIe, name)
			continue
		}
		if l.Width == nil || l.MaxWidth == nil || *l.Width == 0 || l.Speed == nil {
			down = append(down, name)
			continue
		}
		if f, found := pcieLinkFinding(d, name); found {
			fs = append(fs, f)
		} else {
			ok = append(ok, fmt.Sprintf("%s x%d %s", name, *l.Width, gts(*l.Speed)))
		}
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	if len(ok) == 0 {
		if r := AbsentReason(s, "pci_devices.link"); r != "" {
			return CannotCheck("%s", r)
		}
		if len(down) > 0 {
			return CannotCheck("pci_devices.link: every PCIe link is down or its width unread: %s", strings.Join(down, ", "))
		}
		return NotApplicable("no PCIe function (conventional PCI or chipset functions only: %s)", strings.Join(notPCIe, ", "))
	}
	msg := "PCIe links at the width and speed the function and its slot can do: " + strings.Join(ok, "; ")
	if len(down) > 0 {
		msg += "; link down or unread, not judged: " + strings.Join(down, ", ")
	}
	return Passed("%s", msg).Reading("/sys/bus/pci/devices/*/{current,max}_link_{width,speed} and the slot's: " + strings.Join(ok, "; "))
}

// pciWhat names what a function carries, for people.
func pciWhat(d snapshot.PCIDevice) string {
	var parts []string
	for _, h := range d.FCHosts {
		parts = append(parts, "fc host"+strconv.Itoa(h))
	}
	parts = append(parts, d.NVMe...)
	parts = append(parts, d.Net...)
	if len(parts) == 0 && len(d.SCSIHosts) > 0 {
		for _, h := range d.SCSIHosts {
			parts = append(parts, "host"+strconv.Itoa(h))
		}
	}
	what := d.Kind
	if d.Driver != "" {
		what += " " + d.Driver
	}
	if len(parts) > 0 {
		what += ": " + strings.Join(parts, ", ")
	}
	return what
}

func pcieLinkFinding(d snapshot.PCIDevice, name string) (Finding, bool) {
	l := d.Link
	w, maxW := *l.Width, *l.MaxWidth
	slotW := maxW
	if l.PortMaxWidth != nil && *l.PortMaxWidth > 0 && *l.PortMaxWidth < slotW {
		slotW = *l.PortMaxWidth
	}
	sp := *l.Speed
	maxS, slotS := sp, sp
	if l.MaxSpeed != nil {
		maxS, slotS = *l.MaxSpeed, *l.MaxSpeed
	}
	if l.PortMaxSpeed != nil && *l.PortMaxSpeed < slotS {
		slotS = *l.PortMaxSpeed
	}
	var sev string
	var what, rec, fix []string
	switch {
	case w < slotW:
		sev = SevWarning
		what = append(what, fmt.Sprintf("trained at x%d where the function and its slot can do x%d", w, slotW))
		rec = append(rec, fmt.Sprintf("x%d", slotW))
		fix = append(fix, "power down and reseat the card (or move it), check the riser and the slot's lane assignment in the firmware setup; a link that trains narrow again is a hardware fault for the vendor")
	case w < maxW:
		sev = SevInfo
		what = append(what, fmt.Sprintf("an x%d card in a slot that can do x%d", maxW, w))
		rec = append(rec, fmt.Sprintf("x%d (a slot as wide as the card)", maxW))
		fix = append(fix, fmt.Sprintf("move the card to a slot wired for x%d when its traffic needs the lanes (003: check the PCI slot)", maxW))
	}
	switch {
	case sp < slotS:
		if sev == "" {
			sev = SevInfo
		}
		what = append(what, fmt.Sprintf("running at %s where both ends can do %s", gts(sp), gts(slotS)))
		rec = append(rec, gts(slotS))
		fix = append(fix, fmt.Sprintf("check the rate under load (lspci -vv -s %s: LnkSta): an idle link may slow itself to save power and speed up again; a link that stays slow under load is seated or wired badly", d.Address))
	case sp < maxS:
		if sev == "" {
			sev = SevInfo
		}
		what = append(what, fmt.Sprintf("a %s card in a slot of %s", gts(maxS), gts(sp)))
		rec = append(rec, gts(maxS)+" (a slot of the card's generation)")
		fix = append(fix, "move the card to a slot of its PCIe generation when its traffic needs the bandwidth")
	}
	if sev == "" {
		return Finding{}, false
	}
	port := ""
	if l.Port != "" {
		port = fmt.Sprintf("; upstream port %s max_link_width %s, max_link_speed %s", l.Port, pciOptInt(l.PortMaxWidth), pciOptGTs(l.PortMaxSpeed))
	}
	return Finding{
		Severity:    sev,
		Setting:     "pci:" + d.Address + " link",
		Current:     fmt.Sprintf("%s: x%d %s, %s", name, w, gts(sp), strings.Join(what, "; ")),
		Recommended: "the link at " + strings.Join(rec, ", "),
		Evidence: fmt.Sprintf("/sys/bus/pci/devices/%s: current_link_width %d, max_link_width %d, current_link_speed %s, max_link_speed %s%s",
			d.Address, w, maxW, gts(sp), pciOptGTs(l.MaxSpeed), port),
		Why: "003 (I/O Tuning – Hardware) lists the PCI slot among what to know of the storage and network hardware: a card's " +
			"bandwidth is its lanes times their rate, and an x8 card in an x4 slot, or trained at x4, has half of it. The width and " +
			"speed are the link's as trained (the Link Status register); the maxima its and the slot's Link Capabilities.",
		Fix:     Fix{Runtime: []string{}, Persistent: fix},
		Pending: PendingManual,
		Risk:    "Hardware work: plan a maintenance window; with multipath or a bond, take the card's paths or links out first.",
	}, true
}

func pciOptInt(p *int) string {
	if p == nil {
		return "unknown"
	}
	return strconv.Itoa(*p)
}

func pciOptGTs(p *float64) string {
	if p == nil {
		return "unknown"
	}
	return gts(*p)
}
