package artifacts

import (
	"math"
	"sort"
)

// AWRComparison sets several reports side by side (before/after a change):
// the load profile and the top events of each, and each one's difference
// from the first report (the baseline).
type AWRComparison struct {
	Baseline string          `json:"baseline"` // the first report's file
	Reports  []string        `json:"reports"`  // every report, by Label, in the order given
	Load     []AWRLoadDelta  `json:"load_profile"`
	Events   []AWREventDelta `json:"events"`
}

// AWRLoadDelta is one load profile metric across the reports.
type AWRLoadDelta struct {
	Metric string     `json:"metric"` // the load_profile field name
	Values []*float64 `json:"values"` // per report, null where it gives none
	// ChangePct is each report's change from the baseline in percent (the
	// baseline's own entry and entries without both values are null).
	ChangePct []*float64 `json:"change_pct"`
}

// AWREventDelta is one event across the reports: the union of their top
// events, each looked up in every report's top and foreground event lists.
type AWREventDelta struct {
	Event  string           `json:"event"`
	Values []*AWREventValue `json:"values"` // null where the report does not list the event
	// Deltas from the baseline (null for the baseline and where either is null).
	DeltaTimeS     []*float64 `json:"delta_time_s"`
	DeltaAvgMS     []*float64 `json:"delta_avg_ms"`
	DeltaPctDBTime []*float64 `json:"delta_pct_db_time"`
}

// AWREventValue is an event's numbers in one report.
type AWREventValue struct {
	Waits     *int64   `json:"waits"`
	TimeS     *float64 `json:"time_s"`
	AvgMS     *float64 `json:"avg_ms"`
	PctDBTime *float64 `json:"pct_db_time"`
}

// CompareAWR compares reports against the first; nil for fewer than two.
func CompareAWR(rs []*AWRReport) *AWRComparison {
	if len(rs) < 2 {
		return nil
	}
	c := &AWRComparison{Baseline: rs[0].File, Load: []AWRLoadDelta{}, Events: []AWREventDelta{}}
	for _, r := range rs {
		c.Reports = append(c.Reports, r.Label())
	}
	metrics := []struct {
		name string
		get  func(*AWRLoad) *float64
	}{
		{"db_time_per_s", func(l *AWRLoad) *float64 { return l.DBTimePerS }},
		{"db_cpu_per_s", func(l *AWRLoad) *float64 { return l.DBCPUPerS }},
		{"logical_reads_per_s", func(l *AWRLoad) *float64 { return l.LogicalReadsPerS }},
		{"physical_reads_per_s", func(l *AWRLoad) *float64 { return l.PhysicalReadsPerS }},
		{"redo_bytes_per_s", func(l *AWRLoad) *float64 { return l.RedoBytesPerS }},
		{"transactions_per_s", func(l *AWRLoad) *float64 { return l.TransactionsPerS }},
		{"executes_per_s", func(l *AWRLoad) *float64 { return l.ExecutesPerS }},
	}
	for _, m := range metrics {
		d := AWRLoadDelta{Metric: m.name}
		any := false
		for _, r := range rs {
			v := m.get(&r.LoadProfile)
			d.Values = append(d.Values, v)
			any = any || v != nil
		}
		if !any {
			continue
		}
		base := d.Values[0]
		for i, v := range d.Values {
			if i == 0 || base == nil || v == nil || *base == 0 {
				d.ChangePct = append(d.ChangePct, nil)
				continue
			}
			d.ChangePct = append(d.ChangePct, ptr(round6((*v-*base) / *base * 100)))
		}
		c.Load = append(c.Load, d)
	}

	// The union of the top events, under the longest name printed for each
	// (a name one report cut at its column width is the same event).
	var names []string
	for _, r := range rs {
		for _, e := range r.TopEvents {
			found := false
			for k, n := range names {
				if EventIs(e.Event, n) || EventIs(n, e.Event) {
					if len(e.Event) > len(n) {
						names[k] = e.Event
					}
					found = true
					break
				}
			}
			if !found {
				names = append(names, e.Event)
			}
		}
	}
	weight := map[string]float64{}
	for _, n := range names {
		d := AWREventDelta{Event: n}
		for _, r := range rs {
			e, ok := r.Event(n)
			if !ok && IsCPU(n) {
				e, ok = r.CPUEvent()
			}
			if !ok {
				d.Values = append(d.Values, nil)
				continue
			}
			d.Values = append(d.Values, &AWREventValue{Waits: e.Waits, TimeS: e.TimeS, AvgMS: e.AvgMS, PctDBTime: e.PctDBTime})
			if e.PctDBTime != nil {
				weight[n] = math.Max(weight[n], *e.PctDBTime)
			} else if e.TimeS != nil && weight[n] == 0 {
				weight[n] = -1 / (1 + *e.TimeS) // no % DB time: after those that have one
			}
		}
		d.DeltaTimeS = deltas(d.Values, func(v *AWREventValue) *float64 { return v.TimeS })
		d.DeltaAvgMS = deltas(d.Values, func(v *AWREventValue) *float64 { return v.AvgMS })
		d.DeltaPctDBTime = deltas(d.Values, func(v *AWREventValue) *float64 { return v.PctDBTime })
		c.Events = append(c.Events, d)
	}
	sort.SliceStable(c.Events, func(i, j int) bool { return weight[c.Events[i].Event] > weight[c.Events[j].Event] })
	return c
}

// deltas are each value's difference from the first (null where either is
// missing, and for the first).
func deltas(vs []*AWREventValue, get func(*AWREventValue) *float64) []*float64 {
	out := make([]*float64, len(vs))
	if vs[0] == nil || get(vs[0]) == nil {
		return out
	}
	base := *get(vs[0])
	for i := 1; i < len(vs); i++ {
		if vs[i] == nil || get(vs[i]) == nil {
			continue
		}
		out[i] = ptr(round6(*get(vs[i]) - base))
	}
	return out
}
