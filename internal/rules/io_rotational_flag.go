package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.rotational-flag: a flash device or all-flash LUN that reports
// rotational=1, or a multipath device whose paths disagree with it. 000 set
// rotational 0 on its all-SSD 3PAR LUNs (Table 8/13) and says plainly that
// "very little improvement if any is noticed".
func init() {
	Register(Rule{
		ID:       "io.rotational-flag",
		Area:     AreaIO,
		Severity: SevInfo,
		Title:    "Flash storage reported as rotational",
		Sources: []Source{
			{Doc: Seed000, Section: "rotational",
				Quote: "For SSD drives, the rotational value can be set to 0, although very little improvement if any is noticed."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "queue/rotational\t0"},
		},
		Scope: Scope{Kernels: "all", Distros: "all",
			Note: "flash is recognised by vendor/model (SSD, Flash, Pure, XtremIO, NVMe) or by a multipath device that already says 0; otherwise the array's media is not visible from the host: a device reporting 1 without naming flash is could not check, not a pass"},
		Check: checkRotationalFlag,
	})
}

var flashWords = []string{"SSD", "FLASH", "PURE", "XTREMIO", "NVME", "SOLID"}

func looksFlash(d *snapshot.BlockDevice) bool {
	s := strings.ToUpper(d.Vendor + " " + d.Model)
	for _, w := range flashWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func checkRotationalFlag(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var fdevs []string // device of each finding
	flagged := map[string]bool{}
	checked := 0
	var cannot []string
	// The change, matched in udev by the device's vendor and model: a
	// match on queue/rotational (its class) would stop matching once the
	// flag is set, and at boot the kernel reports 1 again.
	rotChange := func(d *snapshot.BlockDevice, cur string) change.Change {
		c := blockChange(v, d, "queue/rotational", "0", cur, "io.rotational-flag", "the device is not rotational: the block layer should treat it as solid state")
		if m := modelMatch(d); m != "" {
			c.Match = m
		}
		return c
	}
	var wants []change.Change // flash devices already flagged 0
	finding := func(d *snapshot.BlockDevice, ev string) Finding {
		p := sysBlock(d.Name, "queue/rotational")
		return Finding{
			Setting:     p,
			Current:     "1",
			Recommended: "0",
			Evidence:    ev,
			Why: "000: the schedulers \"sort and merge I/O requests to reduce disk head movement. For SSD drives, the rotational " +
				"value can be set to 0, although very little improvement if any is noticed.\" It also keeps tools and the kernel's " +
				"per-device heuristics (entropy, writeback throttling, md/dm stacking) coherent.",
			Fix:     Fix{Runtime: []string{echoTo("0", p)}, Persistent: []string{}, Edits: []FileEdit{udevEdit(v, d, "queue/rotational", "0")}},
			Changes: []change.Change{rotChange(d, "1")},
			Risk:    "None for data; expect little or no performance change.",
		}
	}
	// read: what each device said; unknown: devices that say rotational=1
	// and name no flash, whose media the host cannot see (an array LUN
	// such as a 3PARdata VV says 1 whatever its drives).
	var read, unknown []string
	for i := range v.devs {
		d := &v.devs[i]
		if d.Kind != "disk" && d.Kind != "dm" {
			continue
		}
		if d.Rotational == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "rotational")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		checked++
		read = append(read, fmt.Sprintf("%s = %d (%s)", sysBlock(d.Name, "queue/rotational"), b2i(*d.Rotational), describeDev(d)))
		if !*d.Rotational {
			if looksFlash(d) {
				wants = append(wants, rotChange(d, "0"))
			}
			if v.deviceClass(d) == "multipath" {
				for _, p := range v.paths(d) {
					if p.Rotational != nil && !*p.Rotational {
						wants = append(wants, rotChange(p, "0"))
					}
					if p.Rotational != nil && *p.Rotational && !flagged[p.Name] {
						flagged[p.Name] = true
						fdevs = append(fdevs, p.Name)
						fs = append(fs, finding(p, fmt.Sprintf("%s = 1 (%s) while its multipath device %s says 0",
							sysBlock(p.Name, "queue/rotational"), describeDev(p), d.Name)))
					}
				}
			}
			continue
		}
		switch {
		case looksFlash(d):
			if !flagged[d.Name] {
				flagged[d.Name] = true
				fdevs = append(fdevs, d.Name)
				fs = append(fs, finding(d, fmt.Sprintf("%s = 1 for %s (vendor/model names flash)", sysBlock(d.Name, "queue/rotational"), describeDev(d))))
			}
		case d.Kind == "dm" && !d.Multipath, v.isPath(d.Name):
			// A dm (LVM) device says what the devices below it say, and a
			// path what its multipath device says: judged there.
		default:
			unknown = append(unknown, fmt.Sprintf("%s (%s)", d.Name, describeDev(d)))
		}
	}
	if len(fs) > 0 {
		return Found(mergePathFindings(v, fs, fdevs)...).Wanting(wants...)
	}
	if checked == 0 && len(cannot) > 0 {
		return CannotCheck("%s", strings.Join(cannot, "; "))
	}
	if checked == 0 {
		return NotApplicable("no SCSI or dm device")
	}
	if len(unknown) > 0 {
		return CannotCheck("rotational=1 and no flash in the vendor/model of %s: whether flash is behind it is not visible "+
			"from the host (an array LUN reports 1 whatever its drives; a rotating disk reports 1 too)", strings.Join(unknown, ", ")).Wanting(wants...)
	}
	return Passed("no flash device reported as rotational (%d checked, none reports 1 without naming its media)", checked).
		Wanting(wants...).Reading(strings.Join(read, ", "))
}

// modelMatch is a udev match on an sd disk's vendor and model ("" when the
// snapshot has neither, or they hold other than letters, digits, blank, ._-).
func modelMatch(d *snapshot.BlockDevice) string {
	safe := func(x string) bool {
		return strings.Trim(x, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 ._-") == ""
	}
	if !strings.HasPrefix(d.Name, "sd") || strings.TrimSpace(d.Vendor+d.Model) == "" || !safe(d.Vendor) || !safe(d.Model) {
		return "" // nothing to match, or characters a udev string cannot hold
	}
	m := `KERNEL=="sd*", ENV{DEVTYPE}=="disk"`
	if v := strings.TrimSpace(d.Vendor); v != "" {
		m += fmt.Sprintf(`, ATTRS{vendor}=="%s*"`, v)
	}
	if md := strings.TrimSpace(d.Model); md != "" {
		m += fmt.Sprintf(`, ATTRS{model}=="%s*"`, md)
	}
	return m
}
