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
	minimum := int64(0)
	if in.DB == DBOracle {
		minimum = AIOMin
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
			msg += fmt.Sprintf(" (Oracle minimum %d)", minimum)
		}
		if usedWhy == "" {
			msg += fmt.Sprintf(", fs.aio-nr = %d (%.0f %% in use)", used, pct)
		} else {
			msg += "; fs.aio-nr unknown: " + usedWhy
		}
		out := Passed("%s", msg)
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
	if target < AIOMin && in.DB == DBOracle {
		target = AIOMin
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
