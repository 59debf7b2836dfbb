package bench

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// exactPercentile is the nearest-rank percentile of sorted values.
func exactPercentile(sorted []int64, q float64) int64 {
	rank := int(math.Ceil(q / 100 * float64(len(sorted))))
	if rank < 1 {
		rank = 1
	}
	return sorted[rank-1]
}

func checkHistogram(t *testing.T, vals []int64) {
	t.Helper()
	var h Histogram
	for _, v := range vals {
		h.Record(v)
	}
	sorted := append([]int64(nil), vals...)
	for i := range sorted {
		if sorted[i] < 0 {
			sorted[i] = 0
		}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	if h.Count() != uint64(len(vals)) {
		t.Fatalf("count %d, want %d", h.Count(), len(vals))
	}
	for _, q := range []float64{0.1, 1, 25, 50, 90, 99, 99.9, 100} {
		want := exactPercentile(sorted, q)
		got := h.Percentile(q)
		tol := float64(want) / 1024
		if math.Abs(float64(got-want)) > tol+0.5 {
			t.Errorf("p%g = %d, exact %d (off by more than 0.1 %%)", q, got, want)
		}
	}
	var sum float64
	for _, v := range sorted {
		sum += float64(v)
	}
	if m := sum / float64(len(sorted)); math.Abs(h.Mean()-m) > 1e-6*math.Abs(m)+1e-9 {
		t.Errorf("mean %g, want %g", h.Mean(), m)
	}
}

func TestHistogramPercentiles(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var vals []int64
	for i := 0; i < 100000; i++ {
		// Log-normal-ish latencies from 1 µs to seconds.
		vals = append(vals, int64(math.Exp(r.NormFloat64()*2+11)))
	}
	checkHistogram(t, vals)
	checkHistogram(t, []int64{5})
	checkHistogram(t, []int64{0, 1, 2047, 2048, 2049, 4095, 4096, math.MaxInt64, -3})
}

func TestHistogramBucketsCoverEveryValue(t *testing.T) {
	for _, v := range []int64{0, 1, 2047, 2048, 3000, 1 << 20, 1<<40 + 12345, math.MaxInt64} {
		lo, hi := histBounds(histIndex(v))
		if v < lo || v > hi {
			t.Errorf("value %d in bucket [%d, %d]", v, lo, hi)
		}
		if hi > lo && float64(hi-lo)/float64(lo) > 1.0/1024+1e-12 {
			t.Errorf("bucket [%d, %d] wider than 0.1 %%", lo, hi)
		}
	}
	// Consecutive buckets touch.
	for i := 1; i < 20000; i++ {
		_, hi := histBounds(i - 1)
		lo, _ := histBounds(i)
		if lo != hi+1 {
			t.Fatalf("bucket %d starts at %d, previous ends at %d", i, lo, hi)
		}
	}
}

func TestHistogramMerge(t *testing.T) {
	var a, b, all Histogram
	for i := int64(0); i < 5000; i++ {
		v := i * i
		all.Record(v)
		if i%3 == 0 {
			a.Record(v)
		} else {
			b.Record(v)
		}
	}
	a.Merge(&b)
	for _, q := range []float64{1, 50, 99, 100} {
		if a.Percentile(q) != all.Percentile(q) {
			t.Errorf("merged p%g %d, one histogram %d", q, a.Percentile(q), all.Percentile(q))
		}
	}
	if a.Count() != all.Count() || a.Mean() != all.Mean() {
		t.Errorf("merged count/mean %d/%g, want %d/%g", a.Count(), a.Mean(), all.Count(), all.Mean())
	}
	var n uint64
	for _, bk := range a.Buckets(1) {
		n += bk.Count
	}
	if n != a.Count() {
		t.Errorf("buckets hold %d values, want %d", n, a.Count())
	}
}

func FuzzHistogram(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8})
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 127, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		var vals []int64
		for len(data) >= 8 && len(vals) < 10000 {
			vals = append(vals, int64(binary.LittleEndian.Uint64(data)))
			data = data[8:]
		}
		if len(vals) == 0 {
			return
		}
		checkHistogram(t, vals)
	})
}

func TestStudentTQuantile(t *testing.T) {
	// Table values of t(0.975, df).
	for _, c := range []struct{ df, want float64 }{
		{1, 12.7062}, {2, 4.3027}, {4, 2.7764}, {9, 2.2622}, {10, 2.2281}, {30, 2.0423}, {1e6, 1.9600},
	} {
		if got := StudentTQuantile(0.975, c.df); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("t(0.975, %g) = %.4f, want %.4f", c.df, got, c.want)
		}
	}
	if got := StudentTQuantile(0.025, 10); math.Abs(got+2.2281) > 5e-4 {
		t.Errorf("t(0.025, 10) = %.4f, want -2.2281", got)
	}
	if got := StudentTQuantile(0.95, 5); math.Abs(got-2.0150) > 5e-4 {
		t.Errorf("t(0.95, 5) = %.4f, want 2.0150", got)
	}
}

func TestCompareVerdicts(t *testing.T) {
	a := []float64{100, 101, 99, 100, 100}
	cases := []struct {
		name   string
		higher bool
		b      []float64
		want   string
	}{
		{"clearly higher, higher is better", true, []float64{120, 121, 119, 120, 120}, VerdictBetter},
		{"clearly higher, lower is better", false, []float64{120, 121, 119, 120, 120}, VerdictWorse},
		{"clearly lower, lower is better", false, []float64{80, 81, 79, 80, 80}, VerdictBetter},
		{"the same", true, []float64{100, 100.5, 99.5, 101, 99}, VerdictNoDifference},
		{"too noisy", true, []float64{60, 150, 90, 130, 70}, VerdictInconclusive},
		{"one run", true, []float64{150}, VerdictInconclusive},
	}
	for _, c := range cases {
		e := Compare("m", c.higher, a, c.b, 5)
		if e.Verdict != c.want {
			t.Errorf("%s: verdict %q (%s), want %q", c.name, e.Verdict, e.Reason, c.want)
		}
		if len(c.b) >= 2 && (e.CI == nil || e.CI[0] > e.Diff || e.CI[1] < e.Diff) {
			t.Errorf("%s: CI %v does not hold the difference %g", c.name, e.CI, e.Diff)
		}
	}
	// Welch against a hand computation: a mean 100 sd 0.7071 n 5, b mean
	// 120 same sd: se = 0.4472, df = 8, t = 2.3060, half-width 1.0313.
	e := Compare("m", true, a, []float64{120, 121, 119, 120, 120}, 5)
	if math.Abs(e.DF-8) > 1e-9 || math.Abs((e.CI[1]-e.CI[0])/2-1.0313) > 1e-3 {
		t.Errorf("df %g, half-width %g; want 8 and 1.0313", e.DF, (e.CI[1]-e.CI[0])/2)
	}
}
