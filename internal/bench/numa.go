package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// NumaOptions: which node pairs, how big a buffer, how many threads stream.
type NumaOptions struct {
	Options
	CPUNodes []int // nil: every node with CPUs
	MemNodes []int // nil: every node with memory
	SizeMB   int   // buffer per pair; 0: 8× the LLC, 64 MiB..1 GiB, at most a quarter of the node's free memory
	Threads  int   // streaming threads per pair; 0: one per CPU of the CPU node
}

// lineWords is the pointer chase's stride: one 64-byte cache line of uint64s.
const lineWords = 8

// ChaseCycle makes next a single random cycle over n elements (Sattolo's
// algorithm): following next[i] from any i visits every element once
// before coming back, so a dependent-load chase over it never settles in a
// short loop the caches could hold.
func ChaseCycle(n int, r *rand.Rand) []uint32 {
	next := make([]uint32, n)
	for i := range next {
		next[i] = uint32(i)
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i)
		next[i], next[j] = next[j], next[i]
	}
	return next
}

// fillChase writes the cycle into buf: the first word of line i holds the
// word index of the next line.
func fillChase(buf []uint64, next []uint32) {
	for i, v := range next {
		buf[i*lineWords] = uint64(v) * lineWords
	}
}

// chase follows n dependent loads from word p and returns where it ended
// (so that the loop cannot be optimised away).
func chase(buf []uint64, p uint64, n int) uint64 {
	for i := 0; i < n; i += 8 {
		p = buf[p]
		p = buf[p]
		p = buf[p]
		p = buf[p]
		p = buf[p]
		p = buf[p]
		p = buf[p]
		p = buf[p]
	}
	return p
}

// sumWords reads every word of b (the streaming read).
func sumWords(b []uint64) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		s0 += b[i] + b[i+4]
		s1 += b[i+1] + b[i+5]
		s2 += b[i+2] + b[i+6]
		s3 += b[i+3] + b[i+7]
	}
	for ; i < len(b); i++ {
		s0 += b[i]
	}
	return s0 + s1 + s2 + s3
}

// LLCBytes is the largest cache's size of CPU 0 (sysfs), 0 when unknown.
func LLCBytes() int64 {
	dirs, _ := filepath.Glob("/sys/devices/system/cpu/cpu0/cache/index*")
	var best int64
	for _, d := range dirs {
		b, err := os.ReadFile(d + "/size")
		if err != nil {
			continue
		}
		if v := ParseCacheSize(strings.TrimSpace(string(b))); v > best {
			best = v
		}
	}
	return best
}

// ParseCacheSize reads sysfs's cache size ("32K", "16384K", "1M"); 0 when
// it is not one.
func ParseCacheSize(s string) int64 {
	v, err := ParseSize(s)
	if err != nil {
		return 0
	}
	return v
}

// ParseSize reads a size like 300, 16K, 4M or 1G (powers of 1024, case
// ignored), up to 1 TiB.
func ParseSize(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > 1<<40/mult {
		return 0, fmt.Errorf("bad size %q: expected a size like 300, 16K, 4M or 1G", s)
	}
	return v * mult, nil
}

// numaBufferBytes is the default buffer: 8× the LLC, within 64 MiB..1 GiB,
// and at most a quarter of the smallest free memory of the nodes measured.
func numaBufferBytes(llc int64, minFreeKB int64) int64 {
	size := 8 * llc
	size = max(size, 64<<20)
	size = min(size, 1<<30)
	if minFreeKB > 0 {
		size = min(size, minFreeKB*1024/4)
	}
	size = max(size, 4<<20)
	return size &^ (1<<20 - 1)
}

// numaTiming splits the per-pair duration between the chase and the stream.
func numaTiming(d time.Duration) (chaseDur, streamDur time.Duration) {
	if d <= 0 {
		d = 2 * time.Second
	}
	return d / 2, d - d/2
}
