package bench

import (
	"fmt"
	"math"
	"math/bits"
	"sort"
)

// Histogram records non-negative integer values (nanoseconds, usually) in
// HDR-style log-linear buckets: exact below 2048, and above that 1024
// buckets per power of two, so any value is kept within 0.1 % (1/1024). The
// percentiles of a run come from every raw sample recorded here, never from
// averages of averages. Min, max, sum and sum of squares are exact.
type Histogram struct {
	counts []uint64
	n      uint64
	min    int64
	max    int64
	sum    float64
	sumSq  float64
}

const (
	histSubBits = 11 // values below 1<<11 have their own bucket
	histHalf    = 1 << (histSubBits - 1)
)

// histIndex is v's bucket (v >= 0).
func histIndex(v int64) int {
	if v < 1<<histSubBits {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSubBits // >= 1
	m := int(v >> uint(e))                   // in [1024, 2047]
	return 1<<histSubBits + (e-1)*histHalf + (m - histHalf)
}

// histBounds is the smallest and largest value of bucket i.
func histBounds(i int) (lo, hi int64) {
	if i < 1<<histSubBits {
		return int64(i), int64(i)
	}
	k := i - 1<<histSubBits
	e := k/histHalf + 1
	m := int64(k%histHalf + histHalf)
	return m << uint(e), (m+1)<<uint(e) - 1
}

// Record adds one value; a negative value (a clock that stepped back) counts as 0.
func (h *Histogram) Record(v int64) {
	if v < 0 {
		v = 0
	}
	i := histIndex(v)
	if i >= len(h.counts) {
		grow := make([]uint64, i+1+len(h.counts)/4)
		copy(grow, h.counts)
		h.counts = grow
	}
	h.counts[i]++
	if h.n == 0 || v < h.min {
		h.min = v
	}
	if v > h.max {
		h.max = v
	}
	h.n++
	f := float64(v)
	h.sum += f
	h.sumSq += f * f
}

// Merge adds every value of o.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil || o.n == 0 {
		return
	}
	if len(o.counts) > len(h.counts) {
		grow := make([]uint64, len(o.counts))
		copy(grow, h.counts)
		h.counts = grow
	}
	for i, c := range o.counts {
		h.counts[i] += c
	}
	if h.n == 0 || o.min < h.min {
		h.min = o.min
	}
	if o.max > h.max {
		h.max = o.max
	}
	h.n += o.n
	h.sum += o.sum
	h.sumSq += o.sumSq
}

// Count is the number of values recorded.
func (h *Histogram) Count() uint64 { return h.n }

// Mean is the exact mean (0 when empty).
func (h *Histogram) Mean() float64 {
	if h.n == 0 {
		return 0
	}
	return h.sum / float64(h.n)
}

// Stddev is the exact sample standard deviation (0 below two values).
func (h *Histogram) Stddev() float64 {
	if h.n < 2 {
		return 0
	}
	n := float64(h.n)
	v := (h.sumSq - h.sum*h.sum/n) / (n - 1)
	if v < 0 {
		return 0
	}
	return math.Sqrt(v)
}

// Percentile is the value at or below which q percent of the values lie
// (nearest rank), as the middle of its bucket clamped to the exact min and
// max: within 0.1 % of the true sample. q outside (0, 100] is clamped.
func (h *Histogram) Percentile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	if q >= 100 {
		return h.max
	}
	if q <= 0 {
		return h.min
	}
	rank := uint64(math.Ceil(q / 100 * float64(h.n)))
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for i, c := range h.counts {
		seen += c
		if seen >= rank {
			lo, hi := histBounds(i)
			v := lo + (hi-lo)/2
			return min(max(v, h.min), h.max)
		}
	}
	return h.max
}

// Bucket is one non-empty histogram bucket, for JSON: its middle value in
// the result's unit and how many samples fell in it.
type Bucket struct {
	Value float64 `json:"value"`
	Count uint64  `json:"count"`
}

// Buckets lists the non-empty buckets, each value divided by scale (1000
// turns nanoseconds into µs).
func (h *Histogram) Buckets(scale float64) []Bucket {
	var out []Bucket
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		lo, hi := histBounds(i)
		out = append(out, Bucket{Value: float64(lo+(hi-lo)/2) / scale, Count: c})
	}
	return out
}

// Latency summarises a histogram of nanoseconds in microseconds.
type Latency struct {
	Count  uint64  `json:"count"`
	Mean   float64 `json:"mean"`
	Stddev float64 `json:"stddev"`
	Min    float64 `json:"min"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P999   float64 `json:"p99_9"`
	Max    float64 `json:"max"`
}

// LatencyUS is the histogram (nanoseconds) summarised in µs.
func (h *Histogram) LatencyUS() *Latency {
	us := func(v int64) float64 { return float64(v) / 1e3 }
	return &Latency{
		Count: h.n, Mean: h.Mean() / 1e3, Stddev: h.Stddev() / 1e3,
		Min: us(h.min), P50: us(h.Percentile(50)), P90: us(h.Percentile(90)),
		P99: us(h.Percentile(99)), P999: us(h.Percentile(99.9)), Max: us(h.max),
	}
}

// MeanSD is the mean and sample standard deviation of xs.
func MeanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(xs)-1))
}

// Median of xs (0 when empty); xs is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// StudentTQuantile is the p quantile (0 < p < 1) of Student's t
// distribution with df degrees of freedom (df > 0, not necessarily whole:
// Welch's df is not), by bisection on the CDF.
func StudentTQuantile(p, df float64) float64 {
	if p <= 0 || p >= 1 || !(df > 0) {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentTQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for studentTCDF(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for i := 0; i < 200 && hi-lo > 1e-12*hi; i++ {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2)/2 with
// x = df/(df+t²).
func studentTCDF(t, df float64) float64 {
	x := df / (df + t*t)
	return 1 - 0.5*regIncBeta(df/2, 0.5, x)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by its
// continued fraction (modified Lentz), using the symmetry relation where the
// fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaCF(b, a, 1-x)/b
	}
	return front * betaCF(a, b, x) / a
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	for m := 1; m <= 500; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		f *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		f *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return f
}

// Verdicts of an A/B comparison.
const (
	VerdictBetter       = "better"
	VerdictWorse        = "worse"
	VerdictNoDifference = "no measurable difference"
	VerdictInconclusive = "inconclusive"
)

// Effect is B against A for one metric: the difference of the means with
// its 95 % confidence interval (Welch's t, unequal variances), the same as
// a percentage of A's mean, and the verdict.
type Effect struct {
	Metric       string  `json:"metric"`
	HigherBetter bool    `json:"higher_is_better"`
	NA           int     `json:"n_a"`
	NB           int     `json:"n_b"`
	MeanA        float64 `json:"mean_a"`
	MeanB        float64 `json:"mean_b"`
	SDA          float64 `json:"sd_a"`
	SDB          float64 `json:"sd_b"`
	Diff         float64 `json:"diff"`
	DiffPct      float64 `json:"diff_pct"`
	// The 95 % confidence interval of Diff, absolute and in % of MeanA;
	// absent below 2 values on a side.
	CI      *[2]float64 `json:"ci95,omitempty"`
	CIPct   *[2]float64 `json:"ci95_pct,omitempty"`
	Ratio   float64     `json:"ratio_b_over_a"`
	DF      float64     `json:"df,omitempty"`
	Verdict string      `json:"verdict"`
	Reason  string      `json:"reason"`
}

// Compare computes B against A. minEffectPct is the smallest change (as a
// percentage of A's mean) worth calling a difference: a confidence
// interval that contains 0 and lies within ±minEffectPct is "no measurable
// difference"; one that contains 0 but reaches beyond it is "inconclusive"
// (the spread is too large to tell). Fewer than 2 values on a side is
// inconclusive too.
func Compare(metric string, higherBetter bool, a, b []float64, minEffectPct float64) Effect {
	e := Effect{Metric: metric, HigherBetter: higherBetter, NA: len(a), NB: len(b)}
	e.MeanA, e.SDA = MeanSD(a)
	e.MeanB, e.SDB = MeanSD(b)
	e.Diff = e.MeanB - e.MeanA
	if e.MeanA != 0 {
		e.Ratio = e.MeanB / e.MeanA
		e.DiffPct = 100 * e.Diff / math.Abs(e.MeanA)
	}
	if len(a) < 2 || len(b) < 2 {
		e.Verdict = VerdictInconclusive
		e.Reason = fmt.Sprintf("%d and %d run(s): at least 2 on each side are needed for a confidence interval", len(a), len(b))
		return e
	}
	va, vb := e.SDA*e.SDA/float64(len(a)), e.SDB*e.SDB/float64(len(b))
	se := math.Sqrt(va + vb)
	half := 0.0
	if se > 0 {
		e.DF = (va + vb) * (va + vb) / (va*va/float64(len(a)-1) + vb*vb/float64(len(b)-1))
		half = StudentTQuantile(0.975, e.DF) * se
	}
	lo, hi := e.Diff-half, e.Diff+half
	e.CI = &[2]float64{lo, hi}
	var loPct, hiPct float64
	if e.MeanA != 0 {
		loPct, hiPct = 100*lo/math.Abs(e.MeanA), 100*hi/math.Abs(e.MeanA)
		e.CIPct = &[2]float64{loPct, hiPct}
	}
	switch {
	case lo > 0 || hi < 0:
		up := lo > 0
		if up == higherBetter {
			e.Verdict = VerdictBetter
		} else {
			e.Verdict = VerdictWorse
		}
		e.Reason = "the 95 % confidence interval of the difference excludes 0"
	case e.MeanA != 0 && -loPct <= minEffectPct && hiPct <= minEffectPct:
		e.Verdict = VerdictNoDifference
		e.Reason = fmt.Sprintf("the 95 %% confidence interval (%+.1f %% .. %+.1f %%) contains 0 and lies within ±%g %%", loPct, hiPct, minEffectPct)
	default:
		e.Verdict = VerdictInconclusive
		if e.MeanA != 0 {
			e.Reason = fmt.Sprintf("the spread is too large to tell: the 95 %% confidence interval (%+.1f %% .. %+.1f %%) contains 0 and reaches beyond ±%g %%; run more (--runs) or on a quieter host", loPct, hiPct, minEffectPct)
		} else {
			e.Reason = "the 95 % confidence interval contains 0 and the baseline mean is 0"
		}
	}
	return e
}
