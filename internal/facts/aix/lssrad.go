package aix

import (
	"sort"
	"strconv"
	"strings"

	"github.com/dbhost/dbhost/internal/cpulist"
	"github.com/dbhost/dbhost/internal/snapshot"
)

// devNum is the number at the end of a device name (hdisk10 → 10), for
// sorting as AIX lists them; -1 when there is none.
func devNum(name string) int {
	i := len(name)
	for i > 0 && name[i-1] >= '0' && name[i-1] <= '9' {
		i--
	}
	if i == len(name) || len(name)-i > 9 {
		return -1
	}
	v, _ := strconv.Atoi(name[i:])
	return v
}

// devLess orders device names by prefix, then number: hdisk2 < hdisk10.
func devLess(a, b string) bool {
	na, nb := devNum(a), devNum(b)
	pa := strings.TrimRight(a, "0123456789")
	pb := strings.TrimRight(b, "0123456789")
	if pa != pb || na < 0 || nb < 0 {
		if pa != pb {
			return pa < pb
		}
		return a < b
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

func sortProcs(p []snapshot.AIXSMTProc) {
	sort.SliceStable(p, func(i, j int) bool { return devLess(p[i].Name, p[j].Name) })
}

// aixCPUList reads a CPU list as lssrad and lsrset print it: "0-15",
// "0-3,8-11" or "0-3 8-11"; "" is no CPU.
func aixCPUList(s string) ([]int, error) {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }), ",")
	if s == "" {
		return []int{}, nil
	}
	return cpulist.Parse(s)
}

// parseLssrad reads `lssrad -av`: a header "REF1 SRAD MEM CPU", a REF1 line
// holding one number, then one line per SRAD of it: "SRAD MEM [CPUs]".
func parseLssrad(s string) ([]snapshot.AIXSRAD, notes, error) {
	var n notes
	out := []snapshot.AIXSRAD{}
	ref := -1
	header := false
	for i, l := range lines(s) {
		f := strings.Fields(l)
		switch {
		case len(f) == 0:
		case strings.EqualFold(f[0], "REF1"):
			header = true
		case len(f) == 1:
			if v, ok := atoi(f[0]); ok {
				ref = v
			} else {
				n.add(i+1, "expected a REF1 number, got %q", trunc(l, 40))
			}
		default:
			srad, ok := atoi(f[0])
			if !ok || ref < 0 {
				n.add(i+1, "expected \"SRAD MEM CPUs\" under a REF1 line, got %q", trunc(l, 40))
				continue
			}
			r := snapshot.AIXSRAD{REF1: ref, SRAD: srad, CPUs: []int{}}
			cpus := f[1:]
			if mem, ok := parseFloat(f[1]); ok && !strings.Contains(f[1], "-") {
				r.MemMB = &mem
				cpus = f[2:]
			}
			c, err := aixCPUList(strings.Join(cpus, " "))
			if err != nil {
				n.add(i+1, "SRAD %d: CPU list %q: %v", srad, trunc(strings.Join(cpus, " "), 30), err)
			} else {
				r.CPUs = c
			}
			out = append(out, r)
		}
	}
	if !header && len(out) == 0 {
		return nil, n, parseErr(0, "no \"REF1 SRAD MEM CPU\" header and no SRAD line: not lssrad -av output")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].SRAD < out[j].SRAD })
	return out, n, nil
}
