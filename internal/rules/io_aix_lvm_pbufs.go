package rules

import (
	"fmt"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// io.aix-lvm-pbufs: vmstat -v's "pending disk I/Os blocked with no pbuf"
// above 0: the LVM ran out of physical buffers (pbufs) for a volume group
// and I/Os waited before reaching the hdisk queue.
func init() {
	Register(Rule{
		ID:       "io.aix-lvm-pbufs",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX LVM ran out of pbufs (vmstat -v: pending disk I/Os blocked with no pbuf)",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIX IO tuning (1) – LVM Physical buffers (pbuf)",
				Quote: "LVM Physical buffers (pbuf)"},
			{Doc: "https://www.ibm.com/docs/en/aix/7.3.0?topic=v-vmstat-command", Section: "vmstat -v (pending disk I/Os blocked with no pbuf)"},
		},
		Scope: Scope{
			Kernels: "AIX 5.3 and later (lvmo; ioo pv_min_pbuf)",
			Note:    "the counter adds up since boot: one backup or restore at a volume group's limit counts too; lvmo -a names the volume group",
		},
		Description: `004 puts a pbuf queue per physical volume between the file system and the hdisk queue:
each I/O the LVM sends holds a pbuf, and when a volume group has none free the I/O waits before it
reaches the disk's queue_depth. vmstat -v counts those waits since boot ("pending disk I/Os blocked
with no pbuf"); lvmo -a -v VG shows which volume group (pervg_blocked_io_count). More pbufs per
physical volume (lvmo pv_pbuf_count, or ioo pv_min_pbuf for every volume group) cost pinned memory.`,
		Check: checkAIXLVMPbufs,
	})
}

const aixPbufLabel = "pending disk I/Os blocked with no pbuf"

func checkAIXLVMPbufs(in *Input) Outcome {
	s := in.Snap
	n, why := aixVmstatV(s, aixPbufLabel)
	if why != "" {
		return CannotCheck("%s", why)
	}
	if n == 0 {
		return Passed("vmstat -v: 0 %s", aixPbufLabel).Reading("vmstat -v: 0 " + aixPbufLabel)
	}
	cur, curWhy := aixTunable(s, "ioo", "pv_min_pbuf")
	want := int64(1024)
	curText := "pv_min_pbuf unknown (" + curWhy + ")"
	if curWhy == "" {
		curText = fmt.Sprintf("ioo pv_min_pbuf %d", cur)
		want = max(2*cur, 1024)
	}
	return Found(Finding{
		Setting:     "ioo:pv_min_pbuf",
		Current:     fmt.Sprintf("%s; %s I/Os blocked with no pbuf since boot", curText, num(n)),
		Recommended: fmt.Sprintf("more pbufs for the volume group that ran out: lvmo pv_pbuf_count (or ioo pv_min_pbuf %d for every volume group)", want),
		Evidence:    fmt.Sprintf("vmstat -v: %s %s; %s", num(n), aixPbufLabel, curText),
		Why: "004: every I/O through the LVM holds a physical buffer (pbuf) of its physical volume before it is queued to the hdisk; " +
			"with none free the I/O waits in the LVM, whatever the disk's queue_depth.",
		Fix: Fix{
			Runtime: []string{
				"lvmo -a -v <vg>   # each volume group: pervg_blocked_io_count names the one that ran out",
				fmt.Sprintf("lvmo -v <vg> -o pv_pbuf_count=%d   # that volume group, at once", want),
				fmt.Sprintf("or for every volume group: ioo -p -o pv_min_pbuf=%d   # in effect at each volume group's next varyonvg", want),
			},
			Persistent: []string{"lvmo values are kept by the volume group; ioo -p writes pv_min_pbuf to /etc/tunables/nextboot"},
		},
		Pending: PendingManual,
		Risk: "pbufs are pinned memory (about 200 bytes each, per physical volume): raise them step by step until " +
			"pervg_blocked_io_count stops rising. The counter is since boot: a one-off backup may have caused it.",
	})
}

// aixVmstatV is a vmstat -v counter by its exact label, or why it is unknown.
func aixVmstatV(s *snapshot.Snapshot, label string) (float64, string) {
	if s.AIX.VmstatV == nil {
		return 0, aixWhy(s, "aix.vmstat_v", "vmstat -v")
	}
	v, ok := s.AIX.VmstatV[label]
	if !ok {
		return 0, fmt.Sprintf("aix.vmstat_v: vmstat -v prints no %q line on this AIX level", label)
	}
	return v, ""
}
