package aix

import (
	"github.com/dbhost/dbhost/internal/lazyre"
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/snapshot"
)

// parseTunables reads `ioo -a`, `vmo -a`, `no -a` or `schedo -a`:
// "name = value" lines, the name right-aligned.
func parseTunables(s string) (map[string]snapshot.AIXValue, notes, error) {
	var n notes
	out := map[string]snapshot.AIXValue{}
	for i, l := range lines(s) {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		k, v, ok := strings.Cut(t, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			n.add(i+1, "expected \"name = value\", got %q", trunc(t, 50))
			continue
		}
		if _, dup := out[k]; dup {
			n.add(i+1, "%s listed twice; the first is kept", k)
			continue
		}
		out[k] = value(v)
	}
	if len(out) == 0 {
		return nil, n, parseErr(0, "no \"name = value\" line")
	}
	return out, n, nil
}

// vmstatVRe is one line of `vmstat -v`: a number (a count, or a
// percentage with decimals), then the label.
var vmstatVRe = lazyre.New(`^\s*([0-9]+(?:\.[0-9]+)?)\s+(\S.*?)\s*$`)

// parseVmstatV reads `vmstat -v`, keyed by the label exactly as printed
// (runs of spaces inside it collapsed).
func parseVmstatV(s string) (map[string]float64, notes, error) {
	var n notes
	out := map[string]float64{}
	for i, l := range lines(s) {
		if strings.TrimSpace(l) == "" {
			continue
		}
		m := vmstatVRe().FindStringSubmatch(l)
		if m == nil {
			n.add(i+1, "expected \"NUMBER label\", got %q", trunc(strings.TrimSpace(l), 50))
			continue
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil || v > 1e18 {
			n.add(i+1, "%s: number out of range", trunc(m[2], 40))
			continue
		}
		label := strings.Join(strings.Fields(m[2]), " ")
		if _, dup := out[label]; dup {
			n.add(i+1, "%q listed twice; the first is kept", trunc(label, 40))
			continue
		}
		out[label] = v
	}
	if len(out) == 0 {
		return nil, n, parseErr(0, "no \"NUMBER label\" line: not vmstat -v output")
	}
	return out, n, nil
}

// svmon is what svmon -G says.
type svmon struct {
	Memory *snapshot.AIXSvmonMemory
	Pools  []snapshot.AIXPagePool
}

// pageSizeKB reads svmon's page size: "4 KB", "64 KB", "16 MB", "16 GB"
// (two fields), or "4K"/"16M" in one.
func pageSizeKB(num, unit string) (int64, bool) {
	if unit == "" {
		i := strings.IndexFunc(num, func(r rune) bool { return r < '0' || r > '9' })
		if i <= 0 {
			return 0, false
		}
		num, unit = num[:i], num[i:]
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v <= 0 || v > 1<<20 {
		return 0, false
	}
	switch strings.ToUpper(strings.TrimSuffix(strings.ToUpper(unit), "B")) {
	case "K":
		return v, true
	case "M":
		return v << 10, true
	case "G":
		return v << 20, true
	}
	return 0, false
}

// parseSvmonG reads `svmon -G`: the "memory" and "pg space" lines under
// their header ("size inuse free pin virtual [mmode]"), and the page size
// table ("PageSize PoolSize inuse pgsp pin virtual", one row per size:
// "s    4 KB         -   3456789 ..."). Figures are 4 KB frames.
func parseSvmonG(s string) (*svmon, notes, error) {
	var n notes
	sv := &svmon{}
	var memCols []string
	inPools := false
	for i, l := range lines(s) {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "size":
			memCols, inPools = f, false
		case f[0] == "PageSize":
			inPools = true
			if sv.Pools == nil {
				sv.Pools = []snapshot.AIXPagePool{}
			}
		case f[0] == "memory" && memCols != nil:
			m := &snapshot.AIXSvmonMemory{}
			for k, c := range memCols {
				if k+1 >= len(f) {
					break
				}
				v := f[k+1]
				var dst **int64
				switch c {
				case "size":
					dst = &m.Size
				case "inuse":
					dst = &m.Inuse
				case "free":
					dst = &m.Free
				case "pin":
					dst = &m.Pin
				case "virtual":
					dst = &m.Virtual
				case "mmode":
					m.Mmode = v
				}
				if dst != nil {
					if x, ok := parseInt(v); ok && x >= 0 {
						*dst = &x
					} else {
						n.add(i+1, "memory %s: expected a number of frames, got %q", c, trunc(v, 20))
					}
				}
			}
			if sv.Memory != nil {
				m.PgspSize, m.PgspInuse = sv.Memory.PgspSize, sv.Memory.PgspInuse
			}
			sv.Memory = m
		case f[0] == "pg" && len(f) > 1 && f[1] == "space":
			if sv.Memory == nil {
				sv.Memory = &snapshot.AIXSvmonMemory{}
			}
			if len(f) > 2 {
				if x, ok := parseInt(f[2]); ok && x >= 0 {
					sv.Memory.PgspSize = &x
				}
			}
			if len(f) > 3 {
				if x, ok := parseInt(f[3]); ok && x >= 0 {
					sv.Memory.PgspInuse = &x
				}
			}
		case inPools:
			// "s    4 KB   -   3456789   12345   567890   2345678": an
			// optional one-letter class (s, m, L, S), the size (one or two
			// fields), PoolSize, inuse, pgsp, pin, virtual.
			g := f
			if len(g) > 0 && len(g[0]) == 1 && (g[0][0] < '0' || g[0][0] > '9') {
				g = g[1:]
			}
			var kb int64
			var ok bool
			if len(g) >= 2 {
				if kb, ok = pageSizeKB(g[0], g[1]); ok {
					g = g[2:]
				} else if kb, ok = pageSizeKB(g[0], ""); ok {
					g = g[1:]
				}
			}
			if !ok || len(g) < 5 {
				n.add(i+1, "expected a page size row (\"s 4 KB - inuse pgsp pin virtual\"), got %q", trunc(strings.TrimSpace(l), 50))
				if !ok {
					inPools = false
				}
				continue
			}
			p := snapshot.AIXPagePool{SizeKB: kb}
			for k, dst := range []**int64{&p.PoolSize, &p.Inuse, &p.Pgsp, &p.Pin, &p.Virtual} {
				if g[k] == "-" {
					continue
				}
				if x, ok := parseInt(g[k]); ok && x >= 0 {
					*dst = &x
				} else {
					n.add(i+1, "%d KB pool: expected a number, got %q", kb, trunc(g[k], 20))
				}
			}
			sv.Pools = append(sv.Pools, p)
		}
	}
	if sv.Memory == nil && sv.Pools == nil {
		return nil, n, parseErr(0, "no \"memory\" line and no \"PageSize\" table: not svmon -G output")
	}
	sort.SliceStable(sv.Pools, func(i, j int) bool { return sv.Pools[i].SizeKB < sv.Pools[j].SizeKB })
	return sv, n, nil
}

// restrictedRe is the line `vmo -F -a` (ioo, no, schedo likewise) prints
// between the tunables and the restricted ones: "##Restricted tunables".
var restrictedRe = lazyre.New(`(?i)^\s*#+\s*restricted tunables\s*$`)

// parseRestricted reads the restricted tunables of `vmo -F -a` or
// `ioo -F -a` (AIX 6.1 and later): the "name = value" lines after its
// "##Restricted tunables" line (those before it are the -a listing's, read
// from vmo -a / ioo -a). No such line is an error: every AIX level with -F
// has restricted vmo and ioo tunables.
func parseRestricted(s string) (map[string]snapshot.AIXValue, notes, error) {
	ls := lines(s)
	for i, l := range ls {
		if restrictedRe().MatchString(l) {
			out, n, err := parseTunables(strings.Join(ls[i+1:], "\n"))
			for _, e := range n {
				e.Line += i + 1
			}
			if err != nil {
				return map[string]snapshot.AIXValue{}, n, nil // the marker and nothing after it: none restricted
			}
			return out, n, nil
		}
	}
	return nil, nil, parseErr(0, "no \"##Restricted tunables\" line (vmo -F -a and ioo -F -a list the restricted tunables after it)")
}
