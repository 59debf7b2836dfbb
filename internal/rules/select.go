package rules

import (
	"fmt"
	"sort"
	"strings"
)

// Matches reports whether rule id is named by one of the selectors of
// --only or --skip: a rule id ("memory.swappiness") or an area or id prefix
// ending at a dot ("io" names io.*, "memory." too).
func Matches(id string, selectors []string) bool {
	for _, s := range selectors {
		s = strings.TrimSuffix(strings.TrimSpace(s), ".")
		if s != "" && (id == s || strings.HasPrefix(id, s+".")) {
			return true
		}
	}
	return false
}

// CheckSelectors refuses a selector of flag (--only, --skip) that names no
// rule of the catalog: a typo must not silently select nothing (--only)
// or leave nothing out (--skip). The error suggests rule ids that share
// the selector's words.
func CheckSelectors(flag string, selectors []string) error {
	all := All()
	for _, s := range selectors {
		hit := false
		for _, r := range all {
			if Matches(r.ID, []string{s}) {
				hit = true
				break
			}
		}
		if !hit {
			msg := fmt.Sprintf("%s %q: no rule or area of that name (see 'dbhost rules list')", flag, s)
			if sug := Suggest(s); len(sug) > 0 {
				msg += "; did you mean " + strings.Join(sug, ", ") + "?"
			}
			return &SelectorError{Msg: msg}
		}
	}
	return nil
}

// SelectorError is a --only or --skip value that names no rule.
type SelectorError struct{ Msg string }

func (e *SelectorError) Error() string { return e.Msg }

// Suggest lists up to five rule ids close to id: those within a few typing
// errors of it (closest first), else those that contain one of its words
// (split at '.', '-', '_'; 3 letters or more; an area name counts only
// when it is the only word).
func Suggest(id string) []string {
	id = strings.ToLower(strings.TrimSpace(id))
	all := All()
	type cand struct {
		id string
		d  int
	}
	var near []cand
	for _, r := range all {
		if d := editDistance(id, r.ID); d <= 3 {
			near = append(near, cand{r.ID, d})
		}
	}
	sort.SliceStable(near, func(i, j int) bool { return near[i].d < near[j].d })
	var hits []string
	for _, c := range near {
		hits = append(hits, c.id)
	}
	if len(hits) == 0 {
		areas := map[string]bool{}
		for _, r := range all {
			areas[r.Area] = true
		}
		words := strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '-' || r == '_' })
		var specific []string
		for _, w := range words {
			if len(w) >= 3 && !areas[w] {
				specific = append(specific, w)
			}
		}
		if len(specific) == 0 {
			specific = words
		}
		for _, r := range all {
			for _, w := range specific {
				if len(w) >= 3 && strings.Contains(r.ID, w) {
					hits = append(hits, r.ID)
					break
				}
			}
		}
		sort.Strings(hits)
	}
	if len(hits) > 5 {
		hits = hits[:5]
	}
	return hits
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
