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
// into sorted, de-duplicated ids. Surrounding white space and trailing NUL
// bytes (a list file ending in "\n\x00") are not part of the list.
func Parse(s string) ([]int, error) {
	s = trimList(s)
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
//
// Masks are as wide as the kernel's nr_cpu_ids: comma-separated 32-bit
// words, most significant first; a word may be printed without its leading
// zeros ("3f,00000000" as some captures keep it).
func ParseMask(s string) ([]int, error) {
	s = trimList(s)
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

// FormatMask prints ids as the kernel prints a bitmap of nbits bits (%*pb,
// lib/bitmap.c): 32-bit words, most significant first, separated by commas,
// the first word as wide as its bits ("ffff" for 16 CPUs, "3" for 2). Ids at
// or above nbits are not printed.
func FormatMask(ids []int, nbits int) string {
	if nbits <= 0 {
		return ""
	}
	words := make([]uint32, (nbits+31)/32)
	for _, id := range ids {
		if id >= 0 && id < nbits {
			words[id/32] |= 1 << uint(id%32)
		}
	}
	first := nbits % 32
	if first == 0 {
		first = 32
	}
	var b strings.Builder
	for i := len(words) - 1; i >= 0; i-- {
		width := 8
		if i == len(words)-1 {
			width = (first + 3) / 4
		} else {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%0*x", width, words[i])
	}
	return b.String()
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

// trimList drops white space and NULs around a list or mask.
func trimList(s string) string {
	return strings.TrimSpace(strings.TrimRight(s, "\x00 \t\n\r"))
}

func trunc(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// PerCPUPath recognises a per-CPU sysfs path ("/sys/devices/system/cpu/
// cpu12/cpufreq/scaling_governor") and returns the CPU and the path with
// "cpu*" in its place ("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor").
func PerCPUPath(p string) (cpu int, pattern string, ok bool) {
	const dir = "/sys/devices/system/cpu/cpu"
	i := strings.Index(p, dir)
	if i < 0 {
		return 0, "", false
	}
	rest := p[i+len(dir):]
	j := 0
	for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
		j++
	}
	if j == 0 || j > 6 || (j < len(rest) && rest[j] != '/') {
		return 0, "", false
	}
	n, err := strconv.Atoi(rest[:j])
	if err != nil {
		return 0, "", false
	}
	return n, p[:i] + dir + "*" + rest[j:], true
}

// GroupPerCPU groups n items that differ only in the CPU of their per-CPU
// path: path(i) is an item's path (or setting), rest(i) everything else
// that must be equal. An item whose path is not per CPU is a group of its
// own. A group is placed where its first item was; within a group the
// items keep their order. A 240-CPU host's 240 governor lines become one.
func GroupPerCPU(n int, path func(int) string, rest func(int) string) [][]int {
	var groups [][]int
	at := map[string]int{}
	for i := 0; i < n; i++ {
		_, pat, ok := PerCPUPath(path(i))
		if !ok {
			groups = append(groups, []int{i})
			continue
		}
		sig := pat + "\x00" + rest(i)
		if g, seen := at[sig]; seen {
			groups[g] = append(groups[g], i)
			continue
		}
		at[sig] = len(groups)
		groups = append(groups, []int{i})
	}
	return groups
}

// GroupLabel names a group of GroupPerCPU by its paths: the one path, or
// the pattern with the number of CPUs and their list
// ("/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor (240 CPUs: 0-239)").
func GroupLabel(paths []string) string {
	if len(paths) == 1 {
		return paths[0]
	}
	cpus := make([]int, 0, len(paths))
	pat := ""
	for _, p := range paths {
		cpu, pt, ok := PerCPUPath(p)
		if !ok {
			return strings.Join(paths, ", ")
		}
		cpus, pat = append(cpus, cpu), pt
	}
	return fmt.Sprintf("%s (%d CPUs: %s)", pat, len(paths), Format(cpus))
}
