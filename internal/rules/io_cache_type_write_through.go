package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
)

// io.cache-type-write-through: 000 switched its 3PAR LUNs' SCSI cache_type
// from "write back" to "write through" (Table 8/13) to stop the
// SYNCHRONIZE_CACHE barrier writes, and warns: "Disabling barrier writes on
// disk devices with volatile cache can result in data loss or data
// corruption". Two findings: a kernel told "write through" for a device that
// advertises a write-back cache (flushes suppressed: a data-loss risk unless
// the cache is non-volatile), and, as information, SAN LUNs advertising write
// back whose array cache may be battery-backed.
func init() {
	Register(Rule{
		ID:       "io.cache-type-write-through",
		Area:     AreaIO,
		Severity: SevWarning,
		Title:    "Write cache mode and cache flushes (barrier writes)",
		Sources: []Source{
			{Doc: Seed000, Section: "cache_type (Barrier Writes)",
				Quote: "with battery-backed (non-volatile) cache, barrier writes are typically not needed"},
			{Doc: Seed000, Section: "WARNING",
				Quote: "Disabling barrier writes on disk devices with volatile cache can result in data loss or data corruption."},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "cache_type [1]\twrite through"},
		},
		Scope: Scope{
			Kernels: "SCSI cache_type is writable (\"temporary write through\") from RHEL 6.5 / kernel 3.x; queue/write_cache from 4.7",
			Distros: "000: valid only for RHEL (6.5+, 7); the same sysfs files exist on any current kernel",
			Note:    "only for arrays whose cache is non-volatile (battery/flash backed): ask the storage vendor; 3PAR OS 3.2.1+ already advertises write cache disabled",
		},
		Check: checkCacheType,
	})
}

func checkCacheType(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var fdevs []string // device of each finding
	var ok, cannot []string
	for i := range v.devs {
		d := &v.devs[i]
		if d.Kind != "disk" {
			continue
		}
		if d.CacheType == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "cache_type")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		ct := strings.TrimSpace(*d.CacheType)
		devWB := strings.Contains(ct, "write back")
		ctPath := fmt.Sprintf("/sys/block/%s/device/scsi_disk/*/cache_type", d.Name)
		ev := fmt.Sprintf("%s = %s", ctPath, ct)
		if d.WriteCache != nil {
			ev += fmt.Sprintf("; %s = %s", sysBlock(d.Name, "queue/write_cache"), *d.WriteCache)
		}
		ev += " (" + describeDev(d) + ")"
		class := v.deviceClass(d)
		local := class != "path"
		if devWB && d.WriteCache != nil && strings.TrimSpace(*d.WriteCache) == "write through" {
			sev := SevWarning
			if local {
				sev = SevCritical
			}
			wc := sysBlock(d.Name, "queue/write_cache")
			fdevs = append(fdevs, d.Name)
			fs = append(fs, Finding{
				Severity:    sev,
				Setting:     wc,
				Current:     "write through (kernel sends no cache flushes) on a device that advertises a write-back cache",
				Recommended: "write back, unless the device's cache is non-volatile (battery/flash backed)",
				Evidence:    ev,
				Why: "000: \"Disabling barrier writes on disk devices with volatile cache can result in data loss or data corruption.\" " +
					"With queue/write_cache forced to write through, fsync and journal commits no longer flush the device cache: a power " +
					"loss can lose committed transactions (redo, WAL).",
				Fix: Fix{
					Runtime:    []string{echoTo("write back", wc)},
					Persistent: []string{"remove the udev rule / script that writes \"write through\" to " + wc},
				},
				Changes: []change.Change{blockChange(v, d, "queue/write_cache", "write back", "write through", "io.cache-type-write-through", "restore cache flushes on a device with a volatile write-back cache")},
				Risk:    "Restoring flushes is safe; it costs the barrier-write latency 000 describes.",
			})
			continue
		}
		if devWB && class == "path" {
			h := v.pathOf[d.Name]
			fdevs = append(fdevs, d.Name)
			fs = append(fs, Finding{
				Severity:    SevInfo,
				Setting:     ctPath,
				Current:     "write back (every sync write and journal commit sends SYNCHRONIZE_CACHE to the array)",
				Recommended: "write through ONLY if the array cache is non-volatile (confirm with the storage vendor); otherwise keep write back",
				Evidence:    ev + "; path of multipath device " + h,
				Why: "000: with battery-backed array cache \"barrier writes are typically not needed\"; the array advertising \"write cache " +
					"enabled\" makes sync() and journal flushes send SYNCHRONIZE_CACHE. \"write through\" is in 000's Table 8 configuration " +
					"(+8 % throughput, -5 % latency with the other settings). ASM/raw devices cannot use barrier=0, only cache_type.",
				Fix: Fix{
					Runtime: []string{
						"# RISKY - data loss if the cache is volatile: " + echoTo("temporary write through", ctPath),
						"# then rescan: " + echoTo("1", sysBlock(d.Name, "device/rescan")) + "; multipathd reconfigure",
					},
					Persistent: []string{},
					Edits: []FileEdit{{File: UdevBlockRules, Edit: fmt.Sprintf(`RISKY: add ACTION=="add|change", %s, RUN+="/bin/sh -c 'echo temporary write through > /sys$devpath/device/scsi_disk/*/cache_type'"`,
						udevMatch(v, d)), Then: UdevReload}},
				},
				Changes: []change.Change{func() change.Change {
					c := blockChange(v, d, "device/scsi_disk/*/cache_type", "temporary write through", ct, "io.cache-type-write-through",
						"no SYNCHRONIZE_CACHE per sync write when the array cache is non-volatile")
					c.Risk = cacheTypeRisk
					return c
				}()},
				Risk: "RISKY: DATA LOSS OR CORRUPTION if the array's write cache is volatile (000 WARNING). The change lasts until reboot or " +
					"rescan; devices must be reopened (restart the database). Prefer the array firmware that advertises write cache disabled (3PAR OS 3.2.1+).",
			})
			continue
		}
		ok = append(ok, fmt.Sprintf("%s %s", d.Name, ct))
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no SCSI disk"), "cache modes consistent", "/sys/class/scsi_disk/*/cache_type")
}
