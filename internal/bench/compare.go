package bench

import (
	"fmt"
	"sort"
)

// CaseComparison is one case of two results, metric by metric.
type CaseComparison struct {
	Case    string   `json:"case"`
	Effects []Effect `json:"effects"`
}

// Comparison is `dbhost compare a.json b.json`: every case both results
// measured, every metric both carry, B against A.
type Comparison struct {
	A         string           `json:"a"`
	B         string           `json:"b"`
	Bench     string           `json:"bench"`
	Cases     []CaseComparison `json:"cases"`
	OnlyInA   []string         `json:"only_in_a,omitempty"`
	OnlyInB   []string         `json:"only_in_b,omitempty"`
	Warnings  []string         `json:"warnings,omitempty"`
	MinEffect float64          `json:"min_effect_pct"`
}

// CompareResults compares b against a (nameA and nameB label them). Each
// metric's values are the repeats of the case (the samples); with one
// repeat per side the verdict is inconclusive and the ratio still shown.
func CompareResults(nameA string, a *Result, nameB string, b *Result, minEffectPct float64) (*Comparison, error) {
	if a.Bench != b.Bench {
		return nil, fmt.Errorf("%s is a %q result and %s a %q result: only results of the same bench compare", nameA, a.Bench, nameB, b.Bench)
	}
	c := &Comparison{A: nameA, B: nameB, Bench: a.Bench, MinEffect: minEffectPct}
	inB := map[string]bool{}
	for _, cs := range b.Cases() {
		inB[cs] = true
	}
	for _, cs := range a.Cases() {
		if !inB[cs] {
			c.OnlyInA = append(c.OnlyInA, cs)
			continue
		}
		delete(inB, cs)
		cc := CaseComparison{Case: cs}
		for _, m := range Metrics {
			va, vb := a.Values(cs, m.Name), b.Values(cs, m.Name)
			if len(va) == 0 || len(vb) == 0 {
				continue
			}
			cc.Effects = append(cc.Effects, Compare(m.Name, m.HigherBetter, va, vb, minEffectPct))
		}
		if len(cc.Effects) > 0 {
			c.Cases = append(c.Cases, cc)
		}
	}
	for cs := range inB {
		c.OnlyInB = append(c.OnlyInB, cs)
	}
	sort.Strings(c.OnlyInB)
	if a.Host.Hostname != b.Host.Hostname {
		c.Warnings = append(c.Warnings, fmt.Sprintf("measured on different hosts (%s, %s)", a.Host.Hostname, b.Host.Hostname))
	}
	for _, k := range sortedKeys(a.Params) {
		if k == "repeat" {
			continue
		}
		if va, vb := fmt.Sprint(a.Params[k]), fmt.Sprint(b.Params[k]); va != vb {
			c.Warnings = append(c.Warnings, fmt.Sprintf("parameter %s differs: %s vs %s", k, va, vb))
		}
	}
	if len(c.Cases) == 0 {
		return c, fmt.Errorf("%s and %s have no case with a metric in common", nameA, nameB)
	}
	return c, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
