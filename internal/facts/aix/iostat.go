package aix

import (
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// iostatScaled reads one iostat -D figure: a number, or a number with a
// suffix. K, M, G, T multiply by 1000 each: IBM documents that -D's rates
// and times carry a suffix for their unit (bytes per second and
// milliseconds by default) without giving its base, and AIX's outputs
// show powers of 1000 (4.0 reads/s of 4 KB pages print "16.4K" bytes/s;
// TestIostatSuffixesDecimal). A time with S is seconds (converted to ms
// when ms is true, the unit of the service and queue time columns).
func iostatScaled(s string, ms bool) (float64, bool) {
	if s == "" {
		return 0, false
	}
	mul := 1.0
	switch s[len(s)-1] {
	case 'K':
		mul = 1e3
	case 'M':
		mul = 1e6
	case 'G':
		mul = 1e9
	case 'T':
		mul = 1e12
	case 'S':
		if !ms {
			return 0, false
		}
		mul = 1e3
	}
	if mul != 1 {
		s = s[:len(s)-1]
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v != v || v > 1e300 {
		return 0, false
	}
	return v * mul, true
}

// iostatCols maps "section:column" of iostat -D to a field and whether it
// is a time in ms.
func iostatField(st *snapshot.AIXDiskIOStat, section, col string) (**float64, bool) {
	switch section + ":" + col {
	case "xfer:%tm_act":
		return &st.TmActPct, false
	case "xfer:bps":
		return &st.BPS, false
	case "xfer:tps":
		return &st.TPS, false
	case "xfer:bread":
		return &st.BRead, false
	case "xfer:bwrtn":
		return &st.BWrtn, false
	case "read:rps":
		return &st.RPS, false
	case "read:avgserv":
		return &st.ReadAvgServMS, true
	case "read:minserv":
		return &st.ReadMinServMS, true
	case "read:maxserv":
		return &st.ReadMaxServMS, true
	case "read:timeouts":
		return &st.ReadTimeouts, false
	case "read:fails":
		return &st.ReadFails, false
	case "write:wps":
		return &st.WPS, false
	case "write:avgserv":
		return &st.WriteAvgServMS, true
	case "write:minserv":
		return &st.WriteMinServMS, true
	case "write:maxserv":
		return &st.WriteMaxServMS, true
	case "write:timeouts":
		return &st.WriteTimeouts, false
	case "write:fails":
		return &st.WriteFails, false
	case "queue:avgtime":
		return &st.QueueAvgTimeMS, true
	case "queue:mintime":
		return &st.QueueMinTimeMS, true
	case "queue:maxtime":
		return &st.QueueMaxTimeMS, true
	case "queue:avgwqsz", "queue:avgqsz":
		return &st.AvgWQSz, false
	case "queue:avgsqsz":
		return &st.AvgSQSz, false
	case "queue:sqfull":
		return &st.SQFull, false
	}
	return nil, false
}

// parseIostatD reads `iostat -D [interval count]`: per disk and report a
// block of four header lines ("hdisk0 xfer: %tm_act bps tps bread bwrtn",
// "read: rps avgserv ...", "write: wps ...", "queue: avgtime ..."), each
// followed by its line of figures. The Nth block of a disk is its Nth
// report; the first covers the time since boot. Disks keep the order of
// their first block.
func parseIostatD(s string) (map[string][]snapshot.AIXDiskIOStat, notes, error) {
	var n notes
	out := map[string][]snapshot.AIXDiskIOStat{}
	var cur *snapshot.AIXDiskIOStat
	var disk, section string
	var cols []string
	flush := func() {
		if cur != nil {
			out[disk] = append(out[disk], *cur)
			cur = nil
		}
	}
	ls := lines(s)
	for i := 0; i < len(ls); i++ {
		l := ls[i]
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "---") || strings.HasPrefix(l, "System configuration") {
			continue
		}
		// A header: "[hdiskN] section: col col ...".
		hdr := 0
		if len(f) > 1 && strings.HasSuffix(f[1], ":") && !strings.HasSuffix(f[0], ":") {
			flush()
			disk = f[0]
			cur = &snapshot.AIXDiskIOStat{SinceBoot: len(out[disk]) == 0}
			hdr = 1
		}
		if strings.HasSuffix(f[hdr], ":") {
			section = strings.TrimSuffix(f[hdr], ":")
			cols = f[hdr+1:]
			if cur == nil {
				n.add(i+1, "%s: header before any disk's xfer: line", section)
				continue
			}
			if i+1 >= len(ls) {
				n.add(i+1, "%s %s: no line of figures after the header", disk, section)
				break
			}
			vals := strings.Fields(ls[i+1])
			if len(vals) != len(cols) {
				n.add(i+2, "%s %s: expected %d figures, got %q", disk, section, len(cols), trunc(strings.TrimSpace(ls[i+1]), 60))
				if !strings.Contains(ls[i+1], ":") {
					i++ // a figures line cut short, not the next header
				}
				continue
			}
			i++
			for k, c := range cols {
				dst, ms := iostatField(cur, section, c)
				if dst == nil {
					continue
				}
				if v, ok := iostatScaled(vals[k], ms); ok {
					*dst = &v
				} else {
					n.add(i+1, "%s %s %s: expected a number, got %q", disk, section, c, trunc(vals[k], 20))
				}
			}
			continue
		}
		n.add(i+1, "expected an iostat -D header (\"hdiskN xfer: ...\", \"read:\", \"write:\", \"queue:\"), got %q", trunc(strings.TrimSpace(l), 50))
	}
	flush()
	if len(out) == 0 {
		return nil, n, parseErr(0, "no disk block (\"hdiskN xfer: %%tm_act bps tps bread bwrtn\"): not iostat -D output")
	}
	return out, n, nil
}
