package rules

import (
	"fmt"
	"strings"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.scheduler: the I/O elevator per device class. 000 (Table 8/13) moved
// from cfq to deadline for an all-SSD 3PAR array (with the other I/O
// tunables: +8 % throughput, -5 % latency); 003 gives deadline for enterprise
// storage, noop for SSDs, cfq only for slow SATA root disks.
func init() {
	Register(Rule{
		ID:       "io.scheduler",
		Area:     AreaIO,
		Severity: SevWarning,
		Title:    "I/O scheduler does not suit the device class",
		Sources: []Source{
			{Doc: Seed000, Section: "scheduler",
				Quote: "we recommend the Deadline I/O scheduler"},
			{Doc: Seed000, Section: "Table 13. Summary of suggested tunable settings for best overall performance.",
				Quote: "queue/scheduler\tdeadline"},
			{Doc: Seed003, Section: "I/O Tuning – Understanding I/O Elevators",
				Quote: "Used for multi-process applications and systems running enterprise storage"},
			{Doc: Seed003, Section: "I/O Tuning – Understanding I/O Elevators",
				Quote: "Low latency storage and applications (Solid State Devices)"},
			{Doc: Seed003, Section: "I/O Tuning – Configuring I/O Elevators",
				Quote: "echo \"deadline\" > /sys/block/sda/queue/scheduler"},
		},
		Scope: Scope{
			Kernels: "cfq, deadline and noop are the legacy single-queue names (removed in 5.0); blk-mq kernels (all queues from 5.0, RHEL 8+) offer mq-deadline, kyber, bfq and none",
			Distros: "all; RHEL 7 defaults to deadline except SATA disks (cfq), RHEL 8+ to mq-deadline (none for NVMe)",
			Note:    "the scheduler of a dm-multipath device is the one that counts: request-based dm-multipath inserts clones into its paths below their elevator",
		},
		Check: checkScheduler,
	})
}

func checkScheduler(in *Input) Outcome {
	v, why := in.blockDevices()
	if why != "" {
		return CannotCheck("%s", why)
	}
	var fs []Finding
	var fdevs []string // device of each finding
	var ok, cannot []string
	var wants []change.Change
	for i := range v.devs {
		d := &v.devs[i]
		class := v.deviceClass(d)
		if class == "path" {
			if top := v.byName[v.pathOf[d.Name]]; top == nil || top.Scheduler != nil {
				continue // request-based multipath: clones bypass the path's elevator
			}
			// bio-based multipath (no queue of its own): the paths' elevator counts.
		}
		if class == "md" || ((class == "dm" || class == "multipath") && d.Scheduler == nil) {
			continue // bio-based: no elevator
		}
		if d.Scheduler == nil {
			if r := AbsentReason(in.Snap, devFact(d.Name, "scheduler")); r != "" {
				cannot = append(cannot, r)
			}
			continue
		}
		cur := *d.Scheduler
		want, sev, why := schedulerAdvice(class, cur)
		if want == "" {
			ok = append(ok, d.Name+" "+cur)
			// In place when it is what the rule sets for the class.
			if t := pickScheduler(d, schedulerTarget(class)); t == cur {
				wants = append(wants, blockChange(v, d, "queue/scheduler", t, cur, "io.scheduler", "scheduler "+t+" suits device class "+class))
			}
			continue
		}
		wantName := pickScheduler(d, want)
		ev := fmt.Sprintf("%s: [%s] of %s (%s); device class %s", sysBlock(d.Name, "queue/scheduler"), cur,
			strings.Join(d.Schedulers, " "), describeDev(d), class)
		if class == "multipath" {
			if p := v.paths(d); len(p) > 0 {
				ev += fmt.Sprintf("; %d path(s) %s below it", len(p), devNames(p))
			}
		}
		rec := wantName
		if !contains(d.Schedulers, wantName) && len(d.Schedulers) > 0 {
			rec += " (not offered by this kernel: load the module, e.g. modprobe " + wantName + ")"
		}
		fdevs = append(fdevs, d.Name)
		fs = append(fs, Finding{
			Severity:    sev,
			Setting:     sysBlock(d.Name, "queue/scheduler"),
			Current:     cur,
			Recommended: rec,
			Evidence:    ev,
			Why:         why,
			Fix: Fix{
				Runtime:    []string{echoTo(wantName, sysBlock(d.Name, "queue/scheduler"))},
				Persistent: []string{},
				Edits: []FileEdit{udevEdit(v, d, "queue/scheduler", wantName),
					{File: "/etc/tuned/<profile>/tuned.conf", Edit: "or, instead of the udev line, in a custom tuned profile add [disk] elevator=" + wantName +
						" (tuned 2.20's stock server profiles set no elevator)", Then: "tuned-adm profile <profile>"}},
			},
			Changes: []change.Change{blockChange(v, d, "queue/scheduler", wantName, cur, "io.scheduler", "scheduler "+wantName+" suits device class "+class)},
			Risk:    "Takes effect immediately, no reboot; I/O in flight is drained while switching. Measure latency (iostat -x await) before and after.",
		})
	}
	return deviceOutcome(v, fs, fdevs, ok, cannot, NotApplicable("no block device with an I/O scheduler"), "schedulers suit their devices", "/sys/block/*/queue/scheduler").Wanting(wants...)
}

// schedulerTarget is the family the rule sets for a device class: none on
// NVMe, deadline elsewhere (schedulerAdvice's recommendations).
func schedulerTarget(class string) string {
	if class == "nvme" {
		return "none"
	}
	return "deadline"
}

// schedulerAdvice returns the wanted scheduler family ("deadline" or "none";
// "" when cur is fine), the severity and why.
func schedulerAdvice(class, cur string) (want, sev, why string) {
	const deadlineWhy = "000: deadline \"has proven to perform better for database systems and low latency devices\" than cfq; with the " +
		"other Table 8 settings the FIO Oracle profile gained 8 % throughput and 5 % latency. 003: deadline for multi-process " +
		"applications on enterprise storage, cfq only for slow SATA root disks."
	const noneWhy = "003: noop (none on blk-mq) for low-latency storage (solid state): lowest CPU cost, the device orders I/O itself. " +
		"000: noop \"should also perform well for database and low latency devices\"."
	switch cur {
	case "cfq", "bfq":
		if class == "nvme" {
			return "none", SevWarning, noneWhy + " " + cur + " adds per-process time slices that idle a fast queue."
		}
		return "deadline", SevWarning, deadlineWhy
	case "kyber":
		if class == "rotational" {
			return "deadline", SevInfo, deadlineWhy
		}
		return "", "", ""
	case "deadline", "mq-deadline":
		if class == "nvme" {
			return "none", SevInfo, noneWhy
		}
		return "", "", ""
	case "none", "noop":
		if class == "rotational" {
			return "deadline", SevInfo, "003: noop suits solid-state devices; a rotational disk loses request sorting. " + deadlineWhy
		}
		return "", "", ""
	}
	return "", "", ""
}

// pickScheduler spells a family the way the device's kernel does.
func pickScheduler(d *snapshot.BlockDevice, family string) string {
	mq := blkMQ(d)
	switch family {
	case "deadline":
		if mq {
			return "mq-deadline"
		}
		return "deadline"
	case "none":
		if mq {
			return "none"
		}
		return "noop"
	}
	return family
}

func describeDev(d *snapshot.BlockDevice) string {
	var p []string
	p = append(p, d.Kind)
	if d.Rotational != nil {
		p = append(p, fmt.Sprintf("rotational=%d", b2i(*d.Rotational)))
	}
	if s := strings.TrimSpace(d.Vendor + " " + d.Model); s != "" {
		p = append(p, s)
	}
	if d.DMName != "" {
		p = append(p, "dm name "+d.DMName)
	}
	return strings.Join(p, ", ")
}

func devNames(ds []*snapshot.BlockDevice) string {
	n := make([]string, len(ds))
	for i, d := range ds {
		n[i] = d.Name
	}
	return strings.Join(n, ",")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
