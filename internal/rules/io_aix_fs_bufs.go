package rules

import (
	"fmt"
	"strings"
)

// io.aix-fs-bufs: vmstat -v's file system buffer counters above 0: JFS2
// ("external pager filesystem I/Os blocked with no fsbuf") or JFS
// ("filesystem I/Os blocked with no fsbuf") I/Os waited for a buffer
// structure before reaching the LVM.
func init() {
	Register(Rule{
		ID:       "io.aix-fs-bufs",
		Area:     AreaIO,
		Severity: SevWarning,
		OS:       aixRule,
		Title:    "AIX file system I/Os blocked with no fsbuf (vmstat -v): JFS2 / JFS buffers",
		Sources: []Source{
			{Doc: Seed004, Section: "IO : AIX IO tuning (1) – LVM Physical buffers (pbuf)",
				Quote: "LVM Physical buffers (pbuf)"},
			{Doc: "https://www.ibm.com/docs/ssw_aix_71/com.ibm.aix.performance/fs_buff_tuning.htm", Section: "File system buffer tuning (numfsbufs, j2_nBufferPerPagerDevice, j2_dynamicBufferPreallocation first)"},
		},
		Scope: Scope{
			Kernels: "AIX 5.3 and later (ioo j2_dynamicBufferPreallocation: 5.3 TL5 and later)",
			Note:    "the counters add up since boot; cio/dio file systems use fewer fsbufs, so Oracle data on cio seldom counts here",
		},
		Description: `Above the LVM's pbufs (004's I/O stack) each file system I/O holds a buffer structure: JFS2's
are counted by vmstat -v as "external pager filesystem I/Os blocked with no fsbuf", JFS's as
"filesystem I/Os blocked with no fsbuf". For JFS2, ioo j2_dynamicBufferPreallocation (dynamic) lets
the file system allocate more as needed; j2_nBufferPerPagerDevice (restricted) and JFS's numfsbufs
take effect at the next mount.`,
		Check: checkAIXFSBufs,
	})
}

const (
	aixJ2FsbufLabel  = "external pager filesystem I/Os blocked with no fsbuf"
	aixJFSFsbufLabel = "filesystem I/Os blocked with no fsbuf"
)

func checkAIXFSBufs(in *Input) Outcome {
	s := in.Snap
	j2, j2Why := aixVmstatV(s, aixJ2FsbufLabel)
	jfs, jfsWhy := aixVmstatV(s, aixJFSFsbufLabel)
	if j2Why != "" && jfsWhy != "" {
		return CannotCheck("%s", j2Why)
	}
	var fs []Finding
	if j2Why == "" && j2 > 0 {
		cur, why := aixTunable(s, "ioo", "j2_dynamicBufferPreallocation")
		curText, want := "j2_dynamicBufferPreallocation unknown ("+why+")", int64(32)
		if why == "" {
			curText, want = fmt.Sprintf("ioo j2_dynamicBufferPreallocation %d", cur), max(2*cur, 32)
		}
		fs = append(fs, Finding{
			Setting:     "ioo:j2_dynamicBufferPreallocation",
			Current:     fmt.Sprintf("%s; %s JFS2 I/Os blocked with no fsbuf since boot", curText, num(j2)),
			Recommended: fmt.Sprintf("j2_dynamicBufferPreallocation %d (16 KB slabs preallocated when JFS2 runs short)", want),
			Evidence:    fmt.Sprintf("vmstat -v: %s %s; %s", num(j2), aixJ2FsbufLabel, curText),
			Why: "JFS2 I/Os waited for a buffer structure before reaching the LVM (004's I/O stack: file system, pbuf, hdisk queue); " +
				"j2_dynamicBufferPreallocation is the dynamic way to give JFS2 more.",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("ioo -p -o j2_dynamicBufferPreallocation=%d   # at once, and in /etc/tunables/nextboot", want)},
				Persistent: []string{fmt.Sprintf("ioo -p -o j2_dynamicBufferPreallocation=%d   # -p also writes it to /etc/tunables/nextboot", want)},
			},
			Risk: "Buffers are pinned memory. If the counter keeps rising, j2_nBufferPerPagerDevice (a restricted tunable: ioo -F -p) " +
				"raises the buffers each JFS2 file system gets at mount: in effect only after a remount.",
		})
	}
	if jfsWhy == "" && jfs > 0 {
		cur, why := aixTunable(s, "ioo", "numfsbufs")
		curText, want := "numfsbufs unknown ("+why+")", int64(392)
		if why == "" {
			curText, want = fmt.Sprintf("ioo numfsbufs %d", cur), max(2*cur, 392)
		}
		fs = append(fs, Finding{
			Setting:     "ioo:numfsbufs",
			Current:     fmt.Sprintf("%s; %s JFS I/Os blocked with no fsbuf since boot", curText, num(jfs)),
			Recommended: fmt.Sprintf("numfsbufs %d", want),
			Evidence:    fmt.Sprintf("vmstat -v: %s %s; %s", num(jfs), aixJFSFsbufLabel, curText),
			Why:         "JFS (not JFS2) I/Os waited for a file system buffer before reaching the LVM (004's I/O stack).",
			Fix: Fix{
				Runtime:    []string{fmt.Sprintf("ioo -p -o numfsbufs=%d   # in effect for each JFS file system at its next mount", want)},
				Persistent: []string{fmt.Sprintf("ioo -p -o numfsbufs=%d   # -p also writes it to /etc/tunables/nextboot", want)},
			},
			Pending: PendingManual,
			Risk:    "numfsbufs applies when a JFS file system is mounted: umount and mount each one (its users stopped). Buffers are pinned memory.",
		})
	}
	if len(fs) > 0 {
		return Found(fs...)
	}
	var ok []string
	if j2Why == "" {
		ok = append(ok, "0 "+aixJ2FsbufLabel)
	}
	if jfsWhy == "" {
		ok = append(ok, "0 "+aixJFSFsbufLabel)
	}
	return Passed("vmstat -v: %s", strings.Join(ok, ", ")).Reading("vmstat -v: " + strings.Join(ok, ", "))
}
