package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/change"
)

// db.aio-max-nr: the system-wide limit on asynchronous I/O requests
// (fs.aio-max-nr) is below what Oracle's installation requires, or the
// requests in use (fs.aio-nr) are close to it, after which io_setup() fails
// with EAGAIN and the database falls back to synchronous I/O or fails to
// start. 004 states the principle for AIX (size the AIO queue, maxreqs, for
// the disks and their queue depth; too small shows as EAGAIN in the alert
// log); Oracle's Linux installation guides give the value.
func init() {
	Register(Rule{
		ID:       "db.aio-max-nr",
		Area:     AreaDB,
		Severity: SevWarning,
		Title:    "fs.aio-max-nr is too low for the database's asynchronous I/O",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO) tuning",
				Quote: "maxreqs (= a multiple of 4096) should be > 4 * #disks * queue_depth"},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO) tuning",
				Quote: "if maxservers set to low : \"Warning: lio_listio returned EAGAIN\""},
			{Doc: Seed004, Section: "IO : Asynchronous IO (AIO)",
				Quote: "Utilization of asynchronous IO is strongly advised"},
			{Doc: "https://docs.oracle.com/en/database/oracle/oracle-database/23/cwlin/minimum-parameter-settings-for-installation.html", Section: "Table C-1 Minimum Operating System Resource Parameter Settings (aio-max-nr 1048576; the preinstall RPM sets the same)"},
		},
		Scope: Scope{
			Kernels:    "all Linux (fs.aio-max-nr, fs.aio-nr; the io_uring interface is not counted in aio-nr)",
			DBVersions: "the 1048576 minimum: Oracle Database 11.2 to 23ai on Linux; the usage check: any database using libaio (Oracle, MySQL/InnoDB native AIO, PostgreSQL 18 io_method=worker does not)",
			Note:       "004's maxreqs is the AIX counterpart; fs.aio-nr counts requests reserved by io_setup() contexts, so it rises with each instance and process",
		},
		Thresholds: []string{"fs.aio-nr above 80 % of fs.aio-max-nr counts as close to the limit"},
		Check:      checkAIOMaxNr,
	})
}

// aioUsedWarnPct is the share of fs.aio-max-nr in use above which the rule fires.
const aioUsedWarnPct = 80

const aioWhy = "room for the database's asynchronous I/O requests (io_setup fails with EAGAIN at the limit)"

func checkAIOMaxNr(in *Input) Outcome {
	max, why := in.SysctlInt("fs.aio-max-nr")
	if why != "" {
		return CannotCheck("%s", why)
	}
	used, usedWhy := in.SysctlInt("fs.aio-nr")
	minimum, formula := int64(0), aioFormula{}
	if in.DB == DBOracle {
		minimum = AIOMin
		if formula = in.aioDiskFormula(); formula.ok && formula.n > minimum {
			minimum = formula.n
		}
	}
	pct := 0.0
	if usedWhy == "" && max > 0 {
		pct = 100 * float64(used) / float64(max)
	}
	low := max < minimum
	full := usedWhy == "" && (max <= 0 && used > 0 || pct > aioUsedWarnPct)
	if !low && !full {
		msg := fmt.Sprintf("fs.aio-max-nr = %d", max)
		if minimum > 0 {
			msg += fmt.Sprintf(" (Oracle minimum %d; %s)", minimum, formula.how)
		}
		if usedWhy == "" {
			msg += fmt.Sprintf(", fs.aio-nr = %d (%.0f %% in use)", used, pct)
		} else {
			msg += "; fs.aio-nr unknown: " + usedWhy
		}
		out := Passed("%s", msg).Reading(in.SysctlEvidence("fs.aio-max-nr", fmt.Sprint(max)), aioNrRead(used, usedWhy))
		if minimum > 0 {
			out = out.Wanting(in.SysctlChange("db.aio-max-nr", "fs.aio-max-nr", fmt.Sprint(minimum), aioWhy))
		}
		return out
	}
	target := minimum
	if full {
		// Room for the requests in use to double.
		if t := 2 * used; t > target {
			target = t
		}
		if t := 2 * max; t > target {
			target = t
		}
	}
	if target < minimum {
		target = minimum
	}
	ev := in.SysctlEvidence("fs.aio-max-nr", fmt.Sprint(max))
	cur := fmt.Sprint(max)
	if usedWhy == "" {
		ev += fmt.Sprintf("; fs.aio-nr = %d (/proc/sys/fs/aio-nr): %.0f %% of the limit in use", used, pct)
		cur += fmt.Sprintf(" (fs.aio-nr %d in use, %.0f %%)", used, pct)
	} else {
		ev += "; fs.aio-nr unknown: " + usedWhy
	}
	if in.DB != DBNone {
		ev += "; database " + in.DB
	}
	if in.DB == DBOracle {
		ev += "; " + formula.how
	}
	f := Finding{
		Setting:     "fs.aio-max-nr",
		Current:     cur,
		Recommended: fmt.Sprintf("≥ %d", target),
		Evidence:    ev,
		Fix:         SysctlFix("fs.aio-max-nr", fmt.Sprint(target)),
		Changes:     []change.Change{in.SysctlChange("db.aio-max-nr", "fs.aio-max-nr", fmt.Sprint(target), aioWhy)},
		Risk:        "None for performance: the limit only bounds the kernel memory that AIO contexts may pin, used only when requested.",
	}
	switch {
	case low && minimum > AIOMin:
		f.Why = fmt.Sprintf("004's rule of thumb sizes the AIO queue above 4 × disks × queue_depth: %s, more than the %d of Oracle's "+
			"installation guides, so the disks' queues can be kept full by asynchronous I/O: ", formula.how, AIOMin)
	case low && full:
		f.Why = fmt.Sprintf("Oracle's installation guides and preinstall RPM require fs.aio-max-nr ≥ %d, and %.0f %% of this host's limit is already reserved: ", AIOMin, pct)
	case low:
		f.Why = fmt.Sprintf("Oracle's installation guides and preinstall RPM require fs.aio-max-nr ≥ %d (\"limits concurrent outstanding requests and should be set to avoid I/O subsystem failures\"): ", AIOMin)
	default:
		f.Why = fmt.Sprintf("%.0f %% of the asynchronous I/O requests the kernel allows are reserved: the next instance or process that calls io_setup() gets EAGAIN: ", pct)
	}
	f.Why += "004 (AIX): the AIO queue (maxreqs) must exceed 4 x disks x queue_depth, and a too small AIO setup shows as \"Warning: lio_listio returned EAGAIN\" and \"Performance degradation may be seen\" in the alert log."
	if full && pct >= 95 || max <= 0 {
		f.Severity = SevCritical
	}
	return Found(f)
}

// aioFormula is 004's "maxreqs (= a multiple of 4096) should be > 4 *
// #disks * queue_depth" on this host's devices.
type aioFormula struct {
	n   int64
	how string
	ok  bool
}

// aioDiskFormula adds up the queue depth of every disk the kernel queues
// I/O to (a SCSI device's queue_depth at the value io.scsi-queue-depth sets,
// an NVMe or virtio disk's nr_requests; dm and md devices pass their I/O
// down to those), times 4, rounded up to a multiple of 4096.
func (in *Input) aioDiskFormula() aioFormula {
	v, why := in.blockDevices()
	if why != "" {
		return aioFormula{how: "004's 4 × disks × queue_depth not computed: " + why}
	}
	targets, _ := v.queueDepthTargets(in.Snap)
	sum, n := int64(0), 0
	for i := range v.devs {
		d := &v.devs[i]
		switch {
		case d.Kind == "disk" && d.QueueDepth != nil:
			q := *d.QueueDepth
			if t, ok := targets[d.Name]; ok && t > q {
				q = t
			}
			sum += q
		case (d.Kind == "nvme" || d.Kind == "virtio") && d.NrRequests != nil:
			sum += *d.NrRequests
		default:
			continue
		}
		n++
	}
	if n == 0 {
		return aioFormula{how: "004's 4 × disks × queue_depth not computed: no disk with a known queue depth"}
	}
	f := (4*sum/4096 + 1) * 4096 // above 4 × the sum: "should be >"
	return aioFormula{n: f, ok: true,
		how: fmt.Sprintf("004's 4 × disks × queue_depth: 4 × %d (the queue depths of %d disks) = %d; the next multiple of 4096 above it is %d", sum, n, 4*sum, f)}
}

// aioNrRead names fs.aio-nr as read, or why it is unknown.
func aioNrRead(used int64, why string) string {
	if why != "" {
		return "fs.aio-nr unknown: " + why
	}
	return fmt.Sprintf("fs.aio-nr = %d (/proc/sys/fs/aio-nr)", used)
}
