package artifacts

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The RAC sections of an instance report as awrrpt prints them: 11g text
// (times in ms), 12.2+ text (us), and 11gR2+ HTML (one table each, with
// its summary).
const gcText11g = `WORKLOAD REPOSITORY report for

DB Name         DB Id    Instance     Inst Num Startup Time    Release     RAC
------------ ----------- ------------ -------- --------------- ----------- ---
RAC11         1936027165 RAC111              1 08-May-14 11:02 11.2.0.4.0  YES

Global Cache Load Profile
~~~~~~~~~~~~~~~~~~~~~~~~~                  Per Second       Per Transaction
                                      ---------------       ---------------
  Global Cache blocks received:                 12.06                  3.98
    Global Cache blocks served:                 13.46                  4.44
     GCS/GES messages received:                 86.40                 28.53
         GCS/GES messages sent:                 73.54                 24.28
            DBWR Fusion writes:                  1.75                  0.58
 Estd Interconnect traffic (KB)                217.01

Global Cache Efficiency Percentages (Target local+remote 100%)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Buffer access -  local cache %:   99.89
Buffer access - remote cache %:    0.03
Buffer access -         disk %:    0.08

Global Cache and Enqueue Services - Workload Characteristics
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
                     Avg global enqueue get time (ms):      0.0

          Avg global cache cr block receive time (ms):      3.4
     Avg global cache current block receive time (ms):      2.9

            Avg global cache cr block build time (ms):      0.0
             Avg global cache cr block send time (ms):      0.0
      Global cache log flushes for cr blocks served %:      2.3
            Avg global cache cr block flush time (ms):      4.3

         Avg global cache current block pin time (ms):      0.0
        Avg global cache current block send time (ms):      0.0
 Global cache log flushes for current blocks served %:      0.4
       Avg global cache current block flush time (ms):      2.1
`

const gcHeader = `WORKLOAD REPOSITORY report for

DB Name         DB Id    Instance     Inst Num Startup Time    Release     RAC
------------ ----------- ------------ -------- --------------- ----------- ---
RAC11         1936027165 RAC111              1 08-May-14 11:02 11.2.0.4.0  YES
`

func TestAWRGlobalCacheSections(t *testing.T) {
	r, errs := ParseAWR([]byte(gcText11g))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	g := r.GlobalCache
	if g == nil {
		t.Fatalf("no global cache: %v", r.Sections)
	}
	if g.Load["Global Cache blocks received"] != 12.06 || g.Load["GCS/GES messages sent"] != 73.54 || g.Load["Estd Interconnect traffic (KB)"] != 217.01 {
		t.Errorf("load %v", g.Load)
	}
	if v, ok := g.GCReceiveMS("cr"); !ok || v != 3.4 {
		t.Errorf("cr receive %v %v (%v)", v, ok, g.Workload)
	}
	if v, ok := g.GCReceiveMS("current"); !ok || v != 2.9 || g.Workload["Global cache log flushes for cr blocks served %"] != 2.3 {
		t.Errorf("current receive %v %v (%v)", v, ok, g.Workload)
	}

	// 12.2+: microseconds, converted to ms.
	us := strings.ReplaceAll(strings.ReplaceAll(gcText11g, "(ms):      3.4", "(us):    340.5"), "(ms):      2.9", "(us):    290.0")
	r, _ = ParseAWR([]byte(us))
	if v, _ := r.GlobalCache.GCReceiveMS("cr"); math.Abs(v-0.3405) > 1e-9 {
		t.Errorf("us: cr %v", v)
	}
	if v, _ := r.GlobalCache.GCReceiveMS("current"); math.Abs(v-0.29) > 1e-9 {
		t.Errorf("us: current %v", v)
	}

	// HTML (11gR2+): the tables' summaries.
	html := `<html><head><title>AWR Report for DB: RAC19, Inst: RAC191, Snaps: 1-2</title></head><body>
<table border="0" class="tdiff" summary="This table displays load profile">
<tr><th class="awrnobg" scope="col"></th><th class="awrbg" scope="col">Per Second</th></tr>
<tr><td scope="row" class='awrc'>DB Time(s):</td><td align="right" class='awrc'>48.4</td></tr>
</table>
<h3 class="awr">Global Cache Load Profile</h3>
<table border="0" class="tdiff" summary="This table displays global cache load profile">
<tr><th class="awrnobg" scope="col"></th><th class="awrbg" scope="col">Per Second</th><th class="awrbg" scope="col">Per Transaction</th></tr>
<tr><td scope="row" class='awrc'>Global Cache blocks received:</td><td align="right" class='awrc'>2,004.70</td><td align="right" class='awrc'>4.00</td></tr>
<tr><td scope="row" class='awrnc'>Estd Interconnect traffic (KB)</td><td align="right" class='awrnc'>16,410.66</td><td align="right" class='awrnc'>&#160;</td></tr>
</table>
<h3 class="awr">Global Cache and Enqueue Services - Workload Characteristics</h3>
<table border="0" class="tdiff" summary="This table displays workload characteristics for global cache and enqueue services">
<tr><th class="awrbg" scope="col">Statistic</th><th class="awrbg" scope="col">Value</th></tr>
<tr><td scope="row" class='awrc'>Avg global cache cr block receive time (us):</td><td align="right" class='awrc'>420.5</td></tr>
<tr><td scope="row" class='awrnc'>Avg global cache current block receive time (us):</td><td align="right" class='awrnc'>11,200.0</td></tr>
</table></body></html>`
	r, errs = ParseAWR([]byte(html))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if r.GlobalCache == nil || r.GlobalCache.Load["Global Cache blocks received"] != 2004.7 || r.GlobalCache.Load["Estd Interconnect traffic (KB)"] != 16410.66 {
		t.Fatalf("html load: %+v (%v)", r.GlobalCache, r.Sections)
	}
	if v, _ := r.GlobalCache.GCReceiveMS("current"); v != 11.2 {
		t.Errorf("html current %v", v)
	}
}

// FuzzParseAWRGlobalCache: a workload line with a value and unit the fuzzer
// chose, printed as awrrpt prints it, reads back in ms.
func FuzzParseAWRGlobalCache(f *testing.F) {
	f.Add(uint32(34), true)
	f.Add(uint32(4205), false)
	f.Fuzz(func(t *testing.T, tenths uint32, micro bool) {
		v := float64(tenths%10000000) / 10
		unit, want := "ms", v
		if micro {
			unit, want = "us", v/1000
		}
		txt := fmt.Sprintf(gcHeader+"\nGlobal Cache and Enqueue Services - Workload Characteristics\n"+
			"~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n     Avg global cache cr block receive time (%s): %12.1f\n", unit, v)
		r, _ := ParseAWR([]byte(txt))
		got, ok := r.GlobalCache.GCReceiveMS("cr")
		if !ok || math.Abs(got-want) > 1e-9*math.Max(1, want) {
			t.Fatalf("%q: got %v %v, want %v", txt, got, ok, want)
		}
	})
}
