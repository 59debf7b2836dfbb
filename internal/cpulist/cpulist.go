// Package cpulist parses and prints the kernel's CPU and node list formats.
package cpulist

import (
	"fmt"
	"math/bits"
	"sort"
	"strconv"
	"strings"
)

// maxCPUListID bounds ids in lists so a malformed "0-4000000000" cannot make
// us allocate gigabytes. Linux's NR_CPUS tops out at 8192; nodes at 1024.
const maxCPUListID = 1 << 16

// Parse parses the kernel's list format ("0-3,8,10-11", "" = empty)
// into sorted, de-duplicated ids.
func Parse(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	out := []int{}
	if s == "" {
		return out, nil
	}
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("empty element in list %q", trunc(s, 60))
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 || a > maxCPUListID {
			return nil, fmt.Errorf("bad id %q in list %q", lo, trunc(s, 60))
		}
		b := a
		if isRange {
			// "0-15:2/4" stride syntax is only accepted on input to the kernel, never printed.
			b, err = strconv.Atoi(hi)
			if err != nil || b < a || b > maxCPUListID {
				return nil, fmt.Errorf("bad range %q in list %q", part, trunc(s, 60))
			}
		}
		for i := a; i <= b; i++ {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	sort.Ints(out)
	return out, nil
}

// ParseMask parses the kernel's hex mask format ("ff,00000001") into ids.
func ParseMask(s string) ([]int, error) {
	s = strings.TrimSpace(s)
	out := []int{}
	if s == "" {
		return out, nil
	}
	words := strings.Split(s, ",")
	if len(words)*32 > maxCPUListID {
		return nil, fmt.Errorf("mask %q too long", trunc(s, 60))
	}
	for i := len(words) - 1; i >= 0; i-- {
		w := words[i]
		if len(w) == 0 || len(w) > 8 {
			return nil, fmt.Errorf("bad mask word %q", trunc(w, 20))
		}
		v, err := strconv.ParseUint(w, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("bad mask word %q", trunc(w, 20))
		}
		base := (len(words) - 1 - i) * 32
		for v != 0 {
			b := bits.TrailingZeros64(v)
			out = append(out, base+b)
			v &^= 1 << uint(b)
		}
	}
	sort.Ints(out)
	return out, nil
}

// Format prints ids in the kernel's compact list format.
func Format(ids []int) string {
	if len(ids) == 0 {
		return ""
	}
	s := append([]int(nil), ids...)
	sort.Ints(s)
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j == i {
			b.WriteString(strconv.Itoa(s[i]))
		} else {
			fmt.Fprintf(&b, "%d-%d", s[i], s[j])
		}
		i = j + 1
	}
	return b.String()
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
