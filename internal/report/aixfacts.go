package report

import (
	"github.com/dbhost/dbhost/internal/snapshot"
)

// What the HTML report and the Prometheus metrics both read from an AIX
// snapshot's aix section, written once.

// aixBlocked is one of vmstat -v's "I/Os blocked with no buffer" counters:
// its exact label, the buffer's short name (the metrics' label) and what
// to change when it grows.
type aixBlocked struct {
	Label, Buffer, Short, Tune string
}

// aixBlockedCounters are vmstat -v's blocked-I/O counters, in the order
// vmstat -v prints them.
var aixBlockedCounters = []aixBlocked{
	{"pending disk I/Os blocked with no pbuf", "pbuf", "LVM pbufs", "lvmo -v VG -o pv_pbuf_count (ioo pv_min_pbuf on 5.3)"},
	{"paging space I/Os blocked with no psbuf", "psbuf", "paging space psbufs", "more or larger paging spaces (lsps -a)"},
	{"filesystem I/Os blocked with no fsbuf", "fsbuf", "JFS fsbufs", "ioo -p -o numfsbufs (remount)"},
	{"client filesystem I/Os blocked with no fsbuf", "client_fsbuf", "NFS/VxFS client fsbufs", "nfso -o nfs_v3_pdts / nfs_v3_vm_bufs"},
	{"external pager filesystem I/Os blocked with no fsbuf", "external_pager_fsbuf", "JFS2 fsbufs", "ioo -p -o j2_dynamicBufferPreallocation"},
}

// aixDiskIO is one disk's iostat -D figures as the report shows them: the
// interval reports taken together (the first report, since boot, left
// out), or the since-boot report when iostat ran without interval reports.
type aixDiskIO struct {
	SinceBoot bool // the figures are the since-boot report's (no interval report)
	Reports   int  // the reports taken together
	// Each nil when no report printed the column.
	TPS, ReadServMS, WriteServMS, QueueTimeMS, SQFull, TmAct *float64
}

// aixDiskStats takes a disk's interval reports together: transfers and
// sqfull (iostat -D prints both per second) averaged, service times
// weighted by reads or writes per second, the wait-queue time by transfers
// per second. ok is false when iostat -D did not list the disk.
func aixDiskStats(d snapshot.AIXDisk) (io aixDiskIO, ok bool) {
	var reps []snapshot.AIXDiskIOStat
	for _, r := range d.IOStat {
		if !r.SinceBoot {
			reps = append(reps, r)
		}
	}
	if len(reps) == 0 {
		for _, r := range d.IOStat {
			reps = append(reps, r)
			io.SinceBoot = true
		}
	}
	if len(reps) == 0 {
		return io, false
	}
	io.Reports = len(reps)
	mean := func(get func(snapshot.AIXDiskIOStat) *float64) *float64 {
		var sum float64
		n := 0
		for _, r := range reps {
			if v := get(r); v != nil {
				sum += *v
				n++
			}
		}
		if n == 0 {
			return nil
		}
		v := sum / float64(n)
		return &v
	}
	// weighted is the mean of get weighted by w; the plain mean when no
	// report has a weight (an idle disk still shows its times).
	weighted := func(get, w func(snapshot.AIXDiskIOStat) *float64) *float64 {
		var sum, ws float64
		for _, r := range reps {
			v, wt := get(r), w(r)
			if v != nil && wt != nil && *wt > 0 {
				sum += *v * *wt
				ws += *wt
			}
		}
		if ws == 0 {
			return mean(get)
		}
		v := sum / ws
		return &v
	}
	io.TPS = mean(func(r snapshot.AIXDiskIOStat) *float64 { return r.TPS })
	io.TmAct = mean(func(r snapshot.AIXDiskIOStat) *float64 { return r.TmActPct })
	io.SQFull = mean(func(r snapshot.AIXDiskIOStat) *float64 { return r.SQFull })
	io.ReadServMS = weighted(func(r snapshot.AIXDiskIOStat) *float64 { return r.ReadAvgServMS }, func(r snapshot.AIXDiskIOStat) *float64 { return r.RPS })
	io.WriteServMS = weighted(func(r snapshot.AIXDiskIOStat) *float64 { return r.WriteAvgServMS }, func(r snapshot.AIXDiskIOStat) *float64 { return r.WPS })
	io.QueueTimeMS = weighted(func(r snapshot.AIXDiskIOStat) *float64 { return r.QueueAvgTimeMS }, func(r snapshot.AIXDiskIOStat) *float64 { return r.TPS })
	return io, true
}
