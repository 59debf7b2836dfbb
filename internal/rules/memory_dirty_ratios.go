package rules

import (
	"fmt"
	"strconv"

	"github.com/dbhost/dbhost/internal/change"
	"github.com/dbhost/dbhost/internal/tunedstock"
)

// memory.dirty-ratios: judged by direction, as 003's dirty-ratio section
// says: under page cache pressure start background writeback sooner (lower
// vm.dirty_background_ratio) and delay the synchronous writes (raise
// vm.dirty_ratio). The tuned profile dbhost recommends for the workload
// (TunedProfileFor) gives the bounds: the background threshold at most its
// value, the synchronous one at least its value (throughput-performance
// 40/10, latency-performance 10/3, virtual-guest 30/10, virtual-host 40/5). A background
// threshold at or above the synchronous one is always wrong: the kernel then
// uses half of the synchronous one. PostgreSQL writes through the page cache
// and fsyncs at each checkpoint: for it the synchronous threshold is not
// pushed up, and the finding says what bounds its checkpoint bursts.
func init() {
	Register(Rule{
		ID:       "memory.dirty-ratios",
		Area:     AreaMemory,
		Severity: SevInfo,
		Title:    "Dirty page thresholds run against the direction 003 gives (background writeback late, synchronous writes early)",
		Sources: []Source{
			{Doc: Seed003, Section: "dirty_ratio and dirty_background_ratio",
				Quote: "If there is a lot of pagecache pressure one would want to start background flushing sooner and delay the synchronous writes"},
			{Doc: Seed003, Section: "dirty_ratio and dirty_background_ratio",
				Quote: "Lowering the dirty_background_ratio"},
			{Doc: Seed003, Section: "dirty_ratio and dirty_background_ratio",
				Quote: "Increasing the dirty_ratio"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "dirty_background_ratio\tPercent\t10\t10"},
			{Doc: Seed003, Section: "Tuned: Throughput Profiles - RHEL7",
				Quote: "dirty_ratio\tPercent\t20\t40"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "dirty_background_ratio\tpercent\t10\t3"},
			{Doc: Seed003, Section: "Tuned: Latency Profiles - RHEL7",
				Quote: "dirty_ratio\tpercent\t20\t10"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "dirty_ratio\tpercent\t40\t\t30"},
			{Doc: Seed003, Section: "Tuned: Virtualization Profiles - RHEL7",
				Quote: "dirty_background_ratio\tpercent\t10\t5\t30"},
			{Doc: "https://www.postgresql.org/docs/current/wal-configuration.html",
				Section: "30.5 WAL Configuration (checkpoint_flush_after: on Linux, force the OS to write checkpoint data back early; default 256kB)"},
		},
		Scope: Scope{
			Kernels: "all; vm.dirty_bytes / vm.dirty_background_bytes replace the ratios when non-zero (compared here as a share of MemTotal)",
			Distros: "RHEL 7 tuned profiles; the same values on any distribution",
			Note: "bounds from the recommended tuned profile: oltp and latency latency-performance (background ≤ 3, dirty ≥ 10), dss and mixed " +
				"throughput-performance (≤ 10, ≥ 40), a guest virtual-guest (≤ 10, ≥ 30), a KVM host (dss, mixed) virtual-host (≤ 5, ≥ 40); 003's virtualization table also prints 30 in the " +
				"virtual-guest dirty_background_ratio row, which tuned's virtual-guest does not set (it inherits 10)",
		},
		Check: checkDirtyRatios,
	})
}

// dirtyBounds are the recommended profile's thresholds, in percent.
type dirtyBounds struct {
	profile           string
	ratio, background int64
}

// dirtyBoundsFor reads them from the stock profile TunedProfileFor picks.
func dirtyBoundsFor(in *Input) dirtyBounds {
	want := TunedProfileFor(in.Workload, HostRole(in.Snap), in.DB).Want
	st, _, _ := tunedstock.Settings(want)
	b := dirtyBounds{profile: want}
	b.ratio, _ = strconv.ParseInt(st["sysctl.vm.dirty_ratio"], 10, 64)
	b.background, _ = strconv.ParseInt(st["sysctl.vm.dirty_background_ratio"], 10, 64)
	return b
}

// dirtyThreshold is one threshold as the kernel applies it: the ratio, or
// the bytes form when set (then also as a share of MemTotal, when known).
type dirtyThreshold struct {
	ratioKey, bytesKey string
	ratio, bytes       int64
	pct                float64 // the threshold as a share of MemTotal; -1 when unknown
	text               string
}

func readDirty(in *Input, ratioKey, bytesKey string) (dirtyThreshold, string) {
	d := dirtyThreshold{ratioKey: ratioKey, bytesKey: bytesKey, pct: -1}
	v, why := in.SysctlInt(ratioKey)
	if why != "" {
		return d, why
	}
	d.ratio, d.pct, d.text = v, float64(v), fmt.Sprintf("%s = %d", ratioKey, v)
	if b, why := in.SysctlInt(bytesKey); why == "" && b > 0 {
		d.bytes, d.pct = b, -1
		d.text = fmt.Sprintf("%s = %d (%s, overriding %s)", bytesKey, b, KB(b/1024), ratioKey)
		if mt, ok := in.Snap.Memory.Meminfo["MemTotal"]; ok && mt > 0 {
			d.pct = float64(b) / float64(mt*1024) * 100
			d.text += fmt.Sprintf(", %.1f %% of MemTotal", d.pct)
		}
	}
	return d, ""
}

func checkDirtyRatios(in *Input) Outcome {
	b := dirtyBoundsFor(in)
	sync, why := readDirty(in, "vm.dirty_ratio", "vm.dirty_bytes")
	if why != "" {
		return CannotCheck("%s", why)
	}
	bg, why := readDirty(in, "vm.dirty_background_ratio", "vm.dirty_background_bytes")
	if why != "" {
		return CannotCheck("%s", why)
	}
	if sync.pct < 0 || bg.pct < 0 {
		return CannotCheck("%s; %s: a bytes threshold cannot be compared with the profile's ratios without MemTotal (%s)",
			sync.text, bg.text, in.Reason("memory.meminfo", "not in the snapshot"))
	}
	ev := sync.text + "; " + bg.text
	for _, k := range []string{sync.ratioKey, sync.bytesKey, bg.ratioKey, bg.bytesKey} {
		if f := in.SysctlSetIn(k); f != "" {
			ev += "; set persistently in " + f
		}
	}
	pg := ""
	if in.DB == DBPostgres {
		pg = " PostgreSQL writes through the page cache and fsyncs every file a checkpoint dirtied, so what is dirty when the checkpoint " +
			"ends is written in one burst: it needs background writeback to start early and the dirty amount to stay bounded, not a " +
			"higher synchronous threshold. On a large-memory host a ratio is coarse (1 % of 512 GiB is 5 GiB): the bytes forms bound it " +
			"(tuned's postgresql profile uses dirty_background_bytes 64 MiB and dirty_bytes 512 MiB), and PostgreSQL 9.6+ asks for " +
			"early writeback itself (checkpoint_flush_after)."
	}
	base := fmt.Sprintf("003: under page cache pressure start background flushing sooner (lower dirty_background_ratio) and delay the "+
		"synchronous writes (raise dirty_ratio); tuned %s, the profile for workload %s on this host, sets %d / %d.", b.profile, in.Workload, b.ratio, b.background)
	// Each finding: the threshold, the percentage it should have, and how it reads.
	type want struct {
		t        dirtyThreshold
		pct      int64
		current  string
		rec, why string
		change   string // the plan's one-line reason
	}
	var ws []want
	switch {
	case bg.pct >= sync.pct:
		p := min(b.background, max(int64(sync.pct)-1, 1))
		ws = append(ws, want{bg, p, fmt.Sprintf("%s, not below %s", bg.text, sync.text),
			fmt.Sprintf("%d, below the synchronous threshold (tuned %s sets %d)", p, b.profile, b.background),
			"The kernel starts background writeback at half the synchronous threshold when the background one is not below it, " +
				"so writers stall before the flusher has started. " + base + pg,
			"the background threshold must be below the synchronous one"})
	case bg.pct > float64(b.background):
		ws = append(ws, want{bg, b.background, bg.text, fmt.Sprintf("≤ %d (tuned %s; lower is fine)", b.background, b.profile), base + pg,
			"start background writeback sooner (003: lower dirty_background_ratio)"})
	}
	if in.DB != DBPostgres && sync.pct < float64(b.ratio) {
		ws = append(ws, want{sync, b.ratio, sync.text, fmt.Sprintf("≥ %d (tuned %s; higher is fine)", b.ratio, b.profile), base,
			"delay the synchronous writes (003: raise dirty_ratio)"})
	}
	// The profile's values, held where the host has exactly them.
	wants := []change.Change{in.SysctlChange("memory.dirty-ratios", bg.ratioKey, fmt.Sprint(b.background), "start background writeback sooner (003: lower dirty_background_ratio)")}
	if in.DB != DBPostgres {
		wants = append(wants, in.SysctlChange("memory.dirty-ratios", sync.ratioKey, fmt.Sprint(b.ratio), "delay the synchronous writes (003: raise dirty_ratio)"))
	}
	if len(ws) == 0 {
		if in.DB == DBPostgres {
			return Passed("%s; %s: background within tuned %s's %d (PostgreSQL: the synchronous threshold is not pushed up)", sync.text, bg.text, b.profile, b.background).Wanting(wants...).Reading(ev + " (/proc/sys/vm)")
		}
		return Passed("%s; %s: within tuned %s's bounds (background ≤ %d, dirty ≥ %d)", sync.text, bg.text, b.profile, b.background, b.ratio).Wanting(wants...).Reading(ev + " (/proc/sys/vm)")
	}
	var fs []Finding
	for _, w := range ws {
		key, val := w.t.ratioKey, fmt.Sprint(w.pct)
		if w.t.bytes > 0 {
			// The bytes form is in use: the same share of MemTotal in bytes
			// (writing the ratio would switch the kernel back to ratios).
			key = w.t.bytesKey
			v := in.Snap.Memory.Meminfo["MemTotal"] * 1024 / 100 * w.pct >> 20 << 20
			val = fmt.Sprint(v)
			w.rec += fmt.Sprintf("; as bytes: %d (%s)", v, KB(v/1024))
		}
		fs = append(fs, Finding{
			Setting: key, Current: w.current, Recommended: w.rec, Evidence: ev, Why: w.why,
			Fix:     SysctlFix(key, val),
			Changes: []change.Change{in.SysctlChange("memory.dirty-ratios", key, val, w.change)},
			Risk: "A higher dirty_ratio holds more unwritten data in memory (longer fsync and checkpoint bursts, more lost if the host " +
				"crashes before writeback); databases doing direct I/O (Oracle SETALL or ASM, InnoDB O_DIRECT) are little affected either way.",
		})
	}
	return Found(fs...).Wanting(wants...)
}
